// Separate compilation: a device function defined in one file and called from another.
__device__ float twice(const float* p, int i) { return 2.0f * p[i]; }
