// cucatch-expect: out-of-bounds write 4 kernel=shift_down object=__local_depot0 space=local frame_offset=32 neighbour=28
// cucatch-flags: -G
// A debug build reaches every local array through the generic frame pointer (%SP plus the
// array's offset): each such pointer gets its own array's bounds, moved to generic addresses.
// Shifting the second of two arrays down by one from index 0 writes one element before it:
// into the last element of the first array, inside the frame. Reported against the second
// array, with the report saying where in the frame it landed.
#include "common.h"
__global__ void shift_down(const int* in, int n, int* out) {
  int low[8], high[8];
  for (int i = 0; i < 8; ++i) {
    low[i] = in[i] * 2;
    high[i] = in[i] + 1;
  }
  for (int i = n; i < 8; ++i) high[i - 1] = high[i];  // cucatch-bug-line
  int s = 0;
  for (int i = 0; i < 8; ++i) s += low[(i + threadIdx.x) & 7] ^ high[(i * 5) & 7];
  out[threadIdx.x] = s;
}
int main() {
  int *in, *out;
  CHECK(cudaMalloc(&in, 8 * sizeof(int)));
  CHECK(cudaMemset(in, 0, 8 * sizeof(int)));
  CHECK(cudaMalloc(&out, 32 * sizeof(int)));
  shift_down<<<1, 32>>>(in, 0, out);  // n = 0: high[-1] is low[7]
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
}
