// cucatch-expect: out-of-bounds write 4 kernel=halo object=tile space=shared
// A halo of 4 loaded by one thread too many (threadIdx.x < 5): at a block of 256, thread 4 writes
// one element past the tile. The branch bounds the thread's index for that store (docs/design.md,
// "Launch versions"): inside the tile for blocks of at most 255 threads, which this launch is not,
// so it runs the checked body, which reports the store.
#include "common.h"
__global__ void halo(const float* in, float* out, int n) {
  __shared__ float tile[256 + 8];
  int t = threadIdx.x, g = blockIdx.x * blockDim.x + t;
  tile[t + 4] = g < n ? in[g] : 0.0f;
  if (t < 5) {
    tile[t] = g >= 4 ? in[g - 4] : 0.0f;
    tile[t + 4 + blockDim.x] = g + blockDim.x < n ? in[g + blockDim.x] : 0.0f;  // cucatch-bug-line
  }
  __syncthreads();
  float v = 0;
  for (int k = 0; k <= 8; ++k) v += tile[t + k];
  if (g < n) out[g] = v;
}
int main() {
  float *in, *out;
  CHECK(cudaMalloc(&in, 1024 * sizeof(float)));
  CHECK(cudaMalloc(&out, 1024 * sizeof(float)));
  CHECK(cudaMemset(in, 0, 1024 * sizeof(float)));
  halo<<<4, 256>>>(in, out, 1024);
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
}
