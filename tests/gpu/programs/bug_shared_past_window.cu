// cucatch-expect: out-of-bounds write 4 kernel=scatter object=buckets space=shared
// A __shared__ array written far past its end, past all of the block's shared memory: reported
// against the array (Compute Sanitizer reports this one too, as outside the window).
#include "common.h"
__global__ void scatter(const int* keys, int* out) {
  __shared__ int buckets[256];
  int t = threadIdx.x;
  buckets[t] = 0;
  __syncthreads();
  buckets[keys[t]] = t;  // cucatch-bug-line
  __syncthreads();
  out[t] = buckets[t];
}
int main() {
  int h[256];
  for (int i = 0; i < 256; ++i) h[i] = i;
  h[200] = 300000;  // ~1.2 MB past the array
  int *keys, *out;
  CHECK(cudaMalloc(&keys, sizeof h));
  CHECK(cudaMalloc(&out, sizeof h));
  CHECK(cudaMemcpy(keys, h, sizeof h, cudaMemcpyHostToDevice));
  scatter<<<1, 256>>>(keys, out);
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
}
