// cucatch-expect: out-of-bounds read 8 kernel=window_sum object=window space=shared
// extern __shared__ memory read past the dynamic size the launch gave it (the kernel assumes a
// window of blockDim.x + radius elements; the launch sized it for blockDim.x).
#include "common.h"
__global__ void window_sum(const double* in, double* out, int radius) {
  extern __shared__ double window[];
  int t = threadIdx.x;
  window[t] = in[t];
  __syncthreads();
  double s = 0;
  for (int k = 0; k <= radius; ++k) s += window[t + k];  // cucatch-bug-line
  out[t] = s;
}
int main() {
  double *in, *out;
  CHECK(cudaMalloc(&in, 128 * sizeof(double)));
  CHECK(cudaMalloc(&out, 128 * sizeof(double)));
  CHECK(cudaMemset(in, 0, 128 * sizeof(double)));
  window_sum<<<1, 128, 128 * sizeof(double)>>>(in, out, 2);
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
}
