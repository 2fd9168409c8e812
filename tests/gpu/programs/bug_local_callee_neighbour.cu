// cucatch-expect: out-of-bounds read 4 kernel=two_rows object=__local_depot1 space=local frame_offset=0 neighbour=32
// A device function that is not inlined, given a pointer to the first of two local arrays of
// its caller's frame, reads (and writes) one element past that array: into the second, inside the frame,
// where neither a whole-frame check nor the GPU sees anything. The caller passes the array's own
// bounds with the pointer (not the frame's), so the callee's read is reported against it, and
// the report says it landed in the other array. (The function is also given global memory, so
// nvcc keeps its pointer generic.)
#include "common.h"
__device__ __noinline__ void triple(int* v, int n) {
  for (int i = 0; i < n; ++i) v[i] *= 3;  // cucatch-bug-line
}
__global__ void two_rows(const int* in, int* out, int n) {
  int low[8], high[8];
  for (int i = 0; i < 8; ++i) {
    low[i] = in[(threadIdx.x + i) & 31];
    high[i] = in[(threadIdx.x + 2 * i) & 31];
  }
  triple(low, n);  // n = 9: low[8] is high[0]
  triple(out, 4);
  out[8 + threadIdx.x] = low[threadIdx.x & 7] + high[(threadIdx.x + n) & 7];
}
int main() {
  int *in, *out;
  CHECK(cudaMalloc(&in, 32 * sizeof(int)));
  CHECK(cudaMalloc(&out, 64 * sizeof(int)));
  CHECK(cudaMemset(in, 0, 32 * sizeof(int)));
  two_rows<<<1, 32>>>(in, out, 9);
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
}
