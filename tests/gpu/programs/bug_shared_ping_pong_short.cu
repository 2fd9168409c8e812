// cucatch-expect: out-of-bounds write 4 kernel=scan object= space=shared
// A Hillis-Steele scan that ping-pongs between two halves of its dynamic shared memory (`from`
// and `to` swapped each step, so they only ever hold 0 and blockDim.x), launched with room for
// one half only: the first step writes past the region, reported at the write.
#include "common.h"
__global__ void scan(const unsigned* in, unsigned* out) {
  extern __shared__ unsigned buf[];
  int t = threadIdx.x, n = blockDim.x;
  int from = 0, to = n;
  buf[t] = in[blockIdx.x * n + t];
  __syncthreads();
  for (int d = 1; d < n; d <<= 1) {
    buf[to + t] = t >= d ? buf[from + t] + buf[from + t - d] : buf[from + t];  // cucatch-bug-line
    __syncthreads();
    int swap = from;
    from = to;
    to = swap;
  }
  out[blockIdx.x * n + t] = buf[from + t];
}
int main() {
  const int n = 256, blocks = 4;
  unsigned *in, *out;
  CHECK(cudaMalloc(&in, n * blocks * sizeof(unsigned)));
  CHECK(cudaMalloc(&out, n * blocks * sizeof(unsigned)));
  CHECK(cudaMemset(in, 1, n * blocks * sizeof(unsigned)));
  scan<<<blocks, n, n * sizeof(unsigned)>>>(in, out);  // needs 2 * n
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
}
