void launchScale(float* p, int n, float f);
int main() {
  float* p;
  if (cudaMalloc(&p, 4096) != cudaSuccess) return 1;
  launchScale(p, 1024, 2.0f);
  return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;
}
