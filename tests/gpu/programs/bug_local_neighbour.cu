// cucatch-expect: out-of-bounds write 4 kernel=two_tables object=__local_depot0 space=local frame_offset=0 neighbour=32
// Two local arrays of one frame; the first is written one element past its end, into the
// second. Both are inside the frame, so only a check of the array (the default; not with
// CUCATCH_PTX_FLAGS=--no-local-objects) sees it, and the report says it landed in the other.
#include "common.h"
__global__ void two_tables(const int* in, int n, int* out) {
  int low[8], high[8];
  for (int i = 0; i < 8; ++i) {
    low[i] = in[i];
    high[i] = in[8 + i];
  }
  for (int i = 0; i <= n; ++i) low[i] = i * 5;  // cucatch-bug-line
  int s = 0;
  for (int i = 0; i < 8; ++i) s += low[(i + threadIdx.x) & 7] * high[(i * 3 + n) & 7];
  out[threadIdx.x] = s;
}
int main() {
  int *in, *out;
  CHECK(cudaMalloc(&in, 16 * sizeof(int)));
  CHECK(cudaMemset(in, 0, 16 * sizeof(int)));
  CHECK(cudaMalloc(&out, 32 * sizeof(int)));
  two_tables<<<1, 32>>>(in, 8, out);
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
}
