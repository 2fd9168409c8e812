// corpus-nvrtc: 124 118
// Template-heavy device code: variadic packs and fold expressions, if constexpr, CRTP, template
// template parameters, compile-time recursion, constexpr lookup tables (initialised .global and
// .const byte arrays), device lambdas and many instantiations of the same kernel.
template <typename T> struct Limits { static constexpr T zero = T(0); };

template <int N> struct Factorial { static constexpr long long value = N * Factorial<N - 1>::value; };
template <> struct Factorial<0> { static constexpr long long value = 1; };

constexpr int crc_entry(int i) {
  unsigned c = (unsigned)i;
  for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
  return (int)c;
}
template <int... Is> __device__ const int crc_table[sizeof...(Is)] = {crc_entry(Is)...};
__device__ const unsigned char sbox[16] = {0x6, 0x4, 0xC, 0x5, 0x0, 0x7, 0x2, 0xE, 0x1, 0xF, 0x3, 0xD, 0x8, 0xA, 0x9, 0xB};
__constant__ short const_steps[8] = {-7, 3, 0, 12, -1, 5, 8, -4};
__device__ const int crc_small[8] = {crc_entry(0), crc_entry(1), crc_entry(2), crc_entry(3),
                                     crc_entry(4), crc_entry(5), crc_entry(6), crc_entry(7)};

template <typename Derived> struct Shape {
  __device__ float area() const { return static_cast<const Derived*>(this)->area_impl(); }
};
struct Circle : Shape<Circle> { float r; __device__ float area_impl() const { return 3.14159265f * r * r; } };
struct Rect : Shape<Rect> { float w, h; __device__ float area_impl() const { return w * h; } };

template <typename... Ts> __device__ auto sum_all(Ts... xs) { return (xs + ... + 0); }
template <typename... Ts> __device__ bool all_positive(Ts... xs) { return ((xs > 0) && ...); }

template <typename T, template <typename> class Policy>
__device__ T apply_policy(T x) { return Policy<T>::apply(x); }
template <typename T> struct Clamp01 { __device__ static T apply(T x) { return x < T(0) ? T(0) : (x > T(1) ? T(1) : x); } };
template <typename T> struct Square { __device__ static T apply(T x) { return x * x; } };

template <int N> __device__ __forceinline__ float poly(float x) {
  if constexpr (N == 0) return 1.f;
  else return 1.f + x * poly<N - 1>(x) / (float)N;
}

template <typename T, int UNROLL, template <typename> class Policy>
__global__ void transform_kernel(const T* in, T* out, int n) {
  int base = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL;
#pragma unroll
  for (int u = 0; u < UNROLL; ++u) {
    int i = base + u;
    if (i < n) {
      T v = apply_policy<T, Policy>(in[i]);
      if constexpr (sizeof(T) == 8) v += T(Factorial<10>::value % 97);
      else v += T(Factorial<5>::value);
      out[i] = v + Limits<T>::zero;
    }
  }
}
template __global__ void transform_kernel<float, 1, Clamp01>(const float*, float*, int);
template __global__ void transform_kernel<float, 4, Square>(const float*, float*, int);
template __global__ void transform_kernel<double, 2, Clamp01>(const double*, double*, int);
template __global__ void transform_kernel<int, 8, Square>(const int*, int*, int);
template __global__ void transform_kernel<long long, 2, Square>(const long long*, long long*, int);

__global__ void misc_meta(const float* in, float* out, const unsigned char* bytes, int* crc) {
  int t = threadIdx.x;
  Circle c; c.r = in[t];
  Rect r; r.w = in[t]; r.h = 2.f;
  auto scale = [k = in[0]](float v) { return v * k; };
  auto add3 = [](auto a, auto b, auto c3) { return a + b + c3; };
  out[t] = scale(c.area() + r.area()) + poly<6>(in[t]) + sum_all(1.f, 2.f, in[t]) + add3(1, 2.5f, 3.0) +
           (all_positive(in[t], 1, 2u) ? 1.f : 0.f);
  const int* t16 = crc_table<0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15>;
  unsigned b = bytes[t];
  crc[t] = t16[b & 15] ^ t16[b >> 4] ^ sbox[b & 15] ^ const_steps[b & 7] ^ crc_small[b & 7];
}
