// cucatch-expect: clean
// cucatch-link: -rdc=true
// cucatch-sources: lib/entry_points.cu
// cucatch-plain-library: lib/plain_entry_points.cu
// Relocatable code whose device functions are called across units with pointers: to an
// instrumented unit's functions (through their entry points that take the bounds: shared, local,
// global pointers, a struct by value and returned, a pointer to a function of that unit, which
// is the function's own forwarder), and to functions of a library nvcc built (through this
// unit's .weak entry points, which forward to them), one of which calls back into the
// instrumented unit by the function's own name (its forwarder). Output must be identical to the
// plain build.
#include "common.h"
struct Pair {
  double a, b;
};
__device__ Pair combine(Pair p, const double* w, long long k);
__device__ int sum_ints(const int* p, int n);
__device__ void add_one(int* p, int n);
typedef void (*Op)(int*, int);
__device__ Op pick_op();
__device__ long long plain_dot(const int* a, const int* b, int n);
__device__ void plain_scale(float* p, int n, float by);
__device__ long long plain_hooked(const int* a, int n);
__global__ void across(const int* in, const double* w, double* out) {
  __shared__ int tile[64];
  __shared__ float scaled[64];
  int local[16];
  int t = threadIdx.x;
  tile[t] = in[t];
  scaled[t] = in[t] * 0.5f;
  for (int k = 0; k < 16; ++k) local[k] = in[(t + k) % 64] - k;
  __syncthreads();
  add_one(local, 16);
  Op op = pick_op();
  op(local, 8);
  int s = sum_ints(tile, 64) + sum_ints(local, 16) + sum_ints(in + t, 64 - t);
  Pair q = combine(Pair{1.0 * t, 2.0}, w, t % 8);
  long long d = plain_dot(tile, local, 16) + plain_dot(in, in + 32, 32) + plain_hooked(tile + t, 64 - t);
  __syncthreads();
  if (t == 0) plain_scale(scaled, 64, 3.0f);
  __syncthreads();
  out[t] = s + q.a + q.b + d + scaled[(t * 5) % 64];
}
int main() {
  int h[64];
  double hw[8], result[64];
  for (int i = 0; i < 64; ++i) h[i] = i * 7 % 13;
  for (int i = 0; i < 8; ++i) hw[i] = 0.5 * i;
  int* in;
  double *w, *out;
  CHECK(cudaMalloc(&in, sizeof h));
  CHECK(cudaMalloc(&w, sizeof hw));
  CHECK(cudaMalloc(&out, sizeof result));
  CHECK(cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(w, hw, sizeof hw, cudaMemcpyHostToDevice));
  across<<<1, 64>>>(in, w, out);
  CHECK(cudaMemcpy(result, out, sizeof result, cudaMemcpyDeviceToHost));
  double total = 0;
  for (int i = 0; i < 64; ++i) total += result[i] * (i + 1);
  std::printf("checksum %.3f\n", total);
}
