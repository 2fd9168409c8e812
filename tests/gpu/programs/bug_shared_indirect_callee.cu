// cucatch-expect: out-of-bounds write 4 kernel=through_table object=lo space=shared
// The same overflow as bug_shared_callee_neighbour, but the callee is reached through a
// function pointer (a table of device functions, as a dispatcher or a virtual call makes): it
// writes one element past the first of two __shared__ arrays, into the second. The caller
// passes the array's bounds with the pointer through the indirect call too, so the callee
// checks against the array, not against the block's whole shared window.
#include "common.h"
__device__ void fill(float* row, int n, float v) {
  for (int i = 0; i <= n; ++i) row[i] = v + i;  // cucatch-bug-line
}
__device__ void clear(float* row, int n, float) {
  for (int i = 0; i < n; ++i) row[i] = 0.0f;
}
typedef void (*RowOp)(float*, int, float);
__device__ RowOp ops[2] = {fill, clear};
__global__ void through_table(const float* in, float* out, const int* which, int n) {
  __shared__ float lo[32];
  __shared__ float hi[32];
  int t = threadIdx.x;
  hi[t] = in[t];
  __syncthreads();
  if (t == 0) ops[which[0]](lo, n, 1.0f);  // which[0] = 0, n = 32: lo[32] is hi[0]
  __syncthreads();
  out[t] = lo[t % 31] + hi[t];
}
int main() {
  float *in, *out;
  int* which;
  CHECK(cudaMalloc(&in, 32 * sizeof(float)));
  CHECK(cudaMalloc(&out, 32 * sizeof(float)));
  CHECK(cudaMalloc(&which, sizeof(int)));
  CHECK(cudaMemset(in, 0, 32 * sizeof(float)));
  CHECK(cudaMemset(which, 0, sizeof(int)));
  through_table<<<1, 32>>>(in, out, which, 32);
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
}
