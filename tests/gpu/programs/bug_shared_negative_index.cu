// cucatch-expect: out-of-bounds read 4 kernel=shift_left object=row space=shared
// A __shared__ array read at index -1 (the element before it): reported as before the array.
#include "common.h"
__global__ void shift_left(const int* in, int* out, int offset) {
  __shared__ int row[128];
  int t = threadIdx.x;
  row[t] = in[t];
  __syncthreads();
  out[t] = row[t - offset];  // cucatch-bug-line
}
int main() {
  int *in, *out;
  CHECK(cudaMalloc(&in, 128 * sizeof(int)));
  CHECK(cudaMalloc(&out, 128 * sizeof(int)));
  CHECK(cudaMemset(in, 0, 128 * sizeof(int)));
  shift_left<<<1, 128>>>(in, out, 1);  // thread 0 reads row[-1]
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
}
