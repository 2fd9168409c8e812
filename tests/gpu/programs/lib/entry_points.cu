// The instrumented other unit of ok_rdc_entry_points: .visible device functions that take
// pointers, a struct by value and return one, and a function whose address is taken.
struct Pair {
  double a, b;
};
__device__ Pair combine(Pair p, const double* w, long long k) { return Pair{p.a * w[k], p.b + w[0]}; }
__device__ int sum_ints(const int* p, int n) {
  int s = 0;
  for (int i = 0; i < n; ++i) s += p[i];
  return s;
}
__device__ void add_one(int* p, int n) {
  for (int i = 0; i < n; ++i) p[i] += 1;
}
typedef void (*Op)(int*, int);
__device__ Op pick_op() { return add_one; }
// Called back by the plain library (through this function's forwarder).
__device__ int user_hook(const int* p, int n) { return sum_ints(p, n) + 1; }
