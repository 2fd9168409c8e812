// Device code of a static library built by plain nvcc (-rdc -lib): linked into a program that
// cucatch-nvcc builds (ok_uninstrumented_library_kernel.cu), its kernels and device functions
// are not instrumented and must get raw pointers.
__global__ void library_scale(float* p, int n, float f) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] *= f;
}
__device__ float library_load(const float* p, int i) { return p[i]; }
void launch_library_scale(float* p, int n, float f) { library_scale<<<(n + 255) / 256, 256>>>(p, n, f); }
