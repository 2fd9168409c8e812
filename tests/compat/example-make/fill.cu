// A program of the Makefile example (build-twice.py's CPU test).
__global__ void fill(int* p, int n, int v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = v;
}
int main() {
  int* p = nullptr;
  if (cudaMalloc(&p, 1024 * sizeof(int)) != cudaSuccess) return 1;
  fill<<<4, 256>>>(p, 1024, 7);
  return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;
}
