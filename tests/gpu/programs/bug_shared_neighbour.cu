// cucatch-expect: out-of-bounds write 4 kernel=smooth object=prev space=shared
// A __shared__ array written one element past its end: the address lands in the next array of
// the block's shared memory, which Compute Sanitizer cannot tell from a correct access. cucatch
// checks it against the array's own 256 bytes.
#include "common.h"
__global__ void smooth(const float* in, float* out, int n, int halo) {
  __shared__ float prev[64];
  __shared__ float next[64];
  int t = threadIdx.x;
  next[t] = in[t];
  prev[t + halo] = in[t] * 0.5f;  // cucatch-bug-line
  __syncthreads();
  out[t] = prev[t] + next[t];
}
int main() {
  float *in, *out;
  CHECK(cudaMalloc(&in, 64 * sizeof(float)));
  CHECK(cudaMalloc(&out, 64 * sizeof(float)));
  CHECK(cudaMemset(in, 0, 64 * sizeof(float)));
  smooth<<<1, 64>>>(in, out, 64, 1);  // thread 63 writes prev[64]: next[0]
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
}
