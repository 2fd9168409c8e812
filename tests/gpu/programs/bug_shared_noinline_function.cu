// cucatch-expect: out-of-bounds write 4 kernel=smooth_rows object=tile space=shared
// A pointer to a __shared__ tile handed to a device function that is not inlined, which is also
// handed a pointer to global memory (so that nvcc cannot specialize it for the tile): the function
// sees a generic pointer, and its store one element past the tile is checked against the tile,
// whose bounds the kernel passes with the pointer (the tile is all of the block's shared memory:
// a check against the shared window would see the same; bug_shared_callee_neighbour.cu is the
// overflow into a neighbouring array that only the tile's bounds catch).
#include "common.h"
__device__ __noinline__ void put(float* row, int i, float v) {
  row[i] = v;  // cucatch-bug-line
}
__global__ void smooth_rows(const float* in, float* out, int extra) {
  __shared__ float tile[64];
  int t = threadIdx.x;
  put(tile, t + (t == 63 ? extra : 0), in[t]);
  __syncthreads();
  put(out, t, 0.5f * (tile[t] + tile[(t + 1) % 64]));
}
int main() {
  float *in, *out;
  CHECK(cudaMalloc(&in, 64 * sizeof(float)));
  CHECK(cudaMalloc(&out, 64 * sizeof(float)));
  CHECK(cudaMemset(in, 0, 64 * sizeof(float)));
  smooth_rows<<<1, 64>>>(in, out, 1);  // thread 63 writes tile[64]
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
}
