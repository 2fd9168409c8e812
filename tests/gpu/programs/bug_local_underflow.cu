// cucatch-expect: out-of-bounds read 4 kernel=window_sum object=__local_depot0 space=local
// A local array read below its start (index -1): before the frame.
#include "common.h"
__global__ void window_sum(const int* in, int start, int* out) {
  int w[8];
  for (int i = 0; i < 8; ++i) w[i] = in[threadIdx.x * 8 + i];
  int s = 0;
  for (int i = start; i < start + 4; ++i) s += w[i];  // cucatch-bug-line
  out[threadIdx.x] = s;
}
int main() {
  int *in, *out;
  CHECK(cudaMalloc(&in, 32 * 8 * sizeof(int)));
  CHECK(cudaMemset(in, 0, 32 * 8 * sizeof(int)));
  CHECK(cudaMalloc(&out, 32 * sizeof(int)));
  window_sum<<<1, 32>>>(in, -1, out);
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
}
