// cucatch-expect: out-of-bounds write 4 kernel=bin_and_count object=arena space=shared part=512
// cucatch-build-env: CUCATCH_PTX_FLAGS=--shared-parts
// Dynamic shared memory carved into three arrays whose sizes are kernel parameters; the counts
// array is written one element past its end, into the flags array that follows. Both are inside
// the launch's dynamic shared memory, so only a check of the part (--shared-parts) sees it.
#include "common.h"
__global__ void bin_and_count(const int* keys, int* out, int nvalues, int ncounts) {
  extern __shared__ unsigned char arena[];
  float* values = reinterpret_cast<float*>(arena);
  int* counts = reinterpret_cast<int*>(values + nvalues);
  int* flags = counts + ncounts;
  int t = threadIdx.x;
  if (t < nvalues) values[t] = 0.5f * t;
  if (t < ncounts) flags[t] = 0;
  if (t <= ncounts) counts[t] = keys[t];  // cucatch-bug-line
  __syncthreads();
  if (t < ncounts) out[t] = counts[t] + flags[t] + static_cast<int>(values[t % nvalues]);
}
int main() {
  const int nvalues = 128, ncounts = 64;
  int *keys, *out;
  CHECK(cudaMalloc(&keys, 256 * sizeof(int)));
  CHECK(cudaMalloc(&out, 256 * sizeof(int)));
  CHECK(cudaMemset(keys, 0, 256 * sizeof(int)));
  size_t bytes = nvalues * sizeof(float) + 2 * ncounts * sizeof(int);
  bin_and_count<<<1, 128, bytes>>>(keys, out, nvalues, ncounts);  // thread 64 writes counts[64]
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
}
