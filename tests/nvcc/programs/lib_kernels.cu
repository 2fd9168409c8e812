// Goes into a static library (nvcc -lib).
__global__ void fill(int* p, int n, int v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = v;
}
void launchFill(int* p, int n, int v) { fill<<<(n + 127) / 128, 128>>>(p, n, v); }
