// cucatch-expect: out-of-bounds write 4 kernel=gather object=alloca space=local
// A block alloca made is sized at run time; a loop writing one element past its end goes on
// into the kernel's frame or the stack beside it, where the GPU does not fault.
#include "common.h"
__global__ void gather(const int* in, int n, int* out) {
  int* scratch = static_cast<int*>(alloca(n * sizeof(int)));
  for (int i = 0; i <= n; ++i) scratch[i] = in[i] * 3;  // cucatch-bug-line
  int s = 0;
  for (int i = 0; i < n; ++i) s += scratch[i];
  out[threadIdx.x] = s;
}
int main() {
  int *in, *out;
  CHECK(cudaMalloc(&in, 64 * sizeof(int)));
  CHECK(cudaMalloc(&out, 32 * sizeof(int)));
  CHECK(cudaMemset(in, 0, 64 * sizeof(int)));
  gather<<<1, 32>>>(in, 5, out);
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
}
