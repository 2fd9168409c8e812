// cucatch-expect: use-after-free write 4 kernel=set_flag
// The buffer is freed with cudaFree, then a kernel still writes through the pointer.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(2); } } while (0)

__global__ void set_flag(int* flags, int which, int value) {
  if (blockIdx.x == 0 && threadIdx.x == 0) flags[which] = value;  // cucatch-bug-line
}

int main() {
  int* flags;
  CHECK(cudaMalloc(&flags, 1000));
  set_flag<<<1, 32>>>(flags, 3, 1);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaFree(flags));
  set_flag<<<1, 32>>>(flags, 3, 2);  // use after free
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  printf("done\n");
  return 0;
}
