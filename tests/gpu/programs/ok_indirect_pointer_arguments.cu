// cucatch-expect: clean
// Correct indirect calls that hand pointers to their callees, now that callers pass bounds
// through function pointers and virtual calls: shared, local, global and heap pointers, an
// integer in a 64-bit parameter, a null pointer that the callee tests, a pointer one past an
// array's end that the callee only compares, and virtual member functions (`this` is a pointer
// parameter). Output must be identical to the plain build.
#include <new>
#include "common.h"
__device__ int sum(const int* p, long long n) {
  int s = 0;
  for (long long i = 0; i < n; ++i) s += p[i];
  return s;
}
__device__ int count_until(const int* p, long long end_address) {
  const int* end = reinterpret_cast<const int*>(end_address);
  int c = 0;
  for (; p != end; ++p) c += *p > 2;
  return c;
}
__device__ int maybe(const int* p, long long fallback) { return p ? p[0] : static_cast<int>(fallback); }
typedef int (*Reduce)(const int*, long long);
__device__ Reduce reducers[2] = {sum, maybe};
typedef int (*Until)(const int*, long long);
__device__ Until until[1] = {count_until};
struct Accumulator {
  int bias;
  __device__ explicit Accumulator(int b) : bias(b) {}
  __device__ virtual ~Accumulator() {}
  __device__ virtual int apply(int* row, int n) const = 0;
};
struct Add : Accumulator {
  __device__ explicit Add(int b) : Accumulator(b) {}
  __device__ int apply(int* row, int n) const override {
    for (int i = 0; i < n; ++i) row[i] += bias;
    return row[n - 1];
  }
};
struct Scale : Accumulator {
  __device__ explicit Scale(int b) : Accumulator(b) {}
  __device__ int apply(int* row, int n) const override {
    for (int i = 0; i < n; ++i) row[i] *= bias;
    return row[0];
  }
};
__global__ void dispatch(const int* in, int* out, const int* which) {
  __shared__ int tile[64];
  int local[8];
  int t = threadIdx.x;
  tile[t] = in[t];
  for (int k = 0; k < 8; ++k) local[k] = in[(t + k) % 64] + k;
  __syncthreads();
  Reduce r = reducers[which[t] % 2];
  int a = r(tile, 64);                                   // shared
  int b = r(local, 8);                                   // local
  int c = r(in + t, 64 - t);                             // global
  int d = until[which[t] % 1](tile, reinterpret_cast<long long>(tile + 64));  // one past the end
  int e = reducers[1 + which[t] % 1](nullptr, 7);          // null, tested by the callee
  int* heap = static_cast<int*>(malloc(4 * sizeof(int)));
  int f = -1;
  if (heap) {
    for (int k = 0; k < 4; ++k) heap[k] = t + k;
    f = r(heap, 4);                                      // device heap
    free(heap);
  }
  Accumulator* acc = which[t] % 2 ? static_cast<Accumulator*>(new Add(t)) : new Scale(2);
  int g = -2;
  if (acc) {
    __shared__ int rows[64][4];
    for (int k = 0; k < 4; ++k) rows[t][k] = k + 1;
    g = acc->apply(rows[t], 4) + acc->apply(local, 8);
    delete acc;
  }
  out[t] = a + b + c + d + e + f + g;
}
int main() {
  int h[64], w[64];
  for (int i = 0; i < 64; ++i) h[i] = i % 7, w[i] = i * 5 % 11;
  int *in, *out, *which;
  CHECK(cudaMalloc(&in, sizeof h));
  CHECK(cudaMalloc(&out, sizeof h));
  CHECK(cudaMalloc(&which, sizeof w));
  CHECK(cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(which, w, sizeof w, cudaMemcpyHostToDevice));
  dispatch<<<1, 64>>>(in, out, which);
  CHECK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
  long long total = 0;
  for (int i = 0; i < 64; ++i) total += h[i] * (i + 1);
  std::printf("checksum %lld\n", total);
}
