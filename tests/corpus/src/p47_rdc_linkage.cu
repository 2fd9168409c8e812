// corpus-flags: -rdc=true
// corpus-nvrtc: 124 118
// Built with -rdc=true (separate compilation): symbols another module may share get .visible,
// template and inline ones .weak, statics a mangled private name. Nothing here is left
// undefined, so ptxas still accepts the module on its own (without -c).
template <typename T> __device__ T scale_factor = T(3);
template <typename T> __device__ __noinline__ T scaled(T x) { return x * scale_factor<T> + T(1); }

inline __device__ int inline_counter = 0;
__device__ int exported_table[8] = {1, 2, 3, 5, 8, 13, 21, 34};
static __device__ int private_table[4] = {7, 6, 5, 4};
__device__ int zero_initialised;
extern __device__ int declared_then_defined;
__device__ int declared_then_defined = 17;
__constant__ float exported_const[4] = {0.5f, 1.5f, 2.5f, 3.5f};

__device__ __noinline__ int exported_helper(int x) { return exported_table[x & 7] + private_table[x & 3]; }
static __device__ __noinline__ int private_helper(int x) { return x * x - declared_then_defined; }
__device__ __noinline__ int forward_declared(int x);

typedef int (*int_fn)(int);
__device__ int_fn exported_fp = exported_helper;
__device__ int* exported_ptr = &exported_table[3];

struct Accumulator {
  int total;
  __device__ __noinline__ void add(int v) { total += v; }   // inline member function: .weak
  template <typename T> __device__ __noinline__ T mix(T v) const { return v + T(total); }
};

__global__ void use_linkage(int* out, float* f, double* d) {
  int t = threadIdx.x;
  Accumulator acc{0};
  acc.add(exported_helper(t));
  acc.add(private_helper(t));
  acc.add(forward_declared(t));
  acc.add(exported_fp(t + 1));
  acc.add(*exported_ptr + zero_initialised);
  atomicAdd(&inline_counter, 1);
  out[t] = acc.total + scaled(t);
  f[t] = acc.mix(scaled(f[t])) * exported_const[t & 3];
  d[t] = acc.mix(scaled(d[t]));
}

__device__ __noinline__ int forward_declared(int x) { return x ^ 0x5a5a; }
