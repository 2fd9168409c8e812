// cucatch-expect: clean
// Interior pointers stored in device memory by one kernel and dereferenced by another.
#include "common.h"
__global__ void publish(int* base, int** slots, int n) {
  int i = threadIdx.x;
  if (i < n) slots[i] = base + 3 * i;
}
__global__ void consume(int** slots, int n) {
  int i = threadIdx.x;
  if (i < n) {
    slots[i][0] = i;
    slots[i][2] = -i;
  }
}
int main() {
  const int n = 100;
  int *base, **slots, h[3 * n];
  CHECK(cudaMalloc(&base, sizeof h));
  CHECK(cudaMemset(base, 0, sizeof h));
  CHECK(cudaMalloc(&slots, n * sizeof(int*)));
  publish<<<1, 128>>>(base, slots, n);
  consume<<<1, 128>>>(slots, n);
  CHECK(cudaMemcpy(h, base, sizeof h, cudaMemcpyDeviceToHost));
  long s = 0;
  for (int i = 0; i < 3 * n; ++i) s += (long)h[i] * (i + 1);
  std::printf("checksum %ld\n", s);
}
