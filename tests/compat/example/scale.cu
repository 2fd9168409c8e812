__global__ void scale(float* p, int n, float f) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] *= f;
}
void launchScale(float* p, int n, float f) { scale<<<(n + 255) / 256, 256>>>(p, n, f); }
