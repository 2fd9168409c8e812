// libcu++ (cuda::std) in device code: array, tuple, optional, complex<double>, span, bit
// utilities, numeric_limits, and cuda::std algorithms on small fixed arrays.
#include <cuda/std/array>
#include <cuda/std/tuple>
#include <cuda/std/optional>
#include <cuda/std/complex>
#include <cuda/std/span>
#include <cuda/std/bit>
#include <cuda/std/limits>
#include <cuda/std/utility>
#include <cuda/std/functional>

__device__ cuda::std::optional<int> find_first_negative(cuda::std::span<const int> v) {
  for (size_t i = 0; i < v.size(); ++i)
    if (v[i] < 0) return static_cast<int>(i);
  return cuda::std::nullopt;
}

__device__ cuda::std::tuple<float, float, int> stats(const cuda::std::array<float, 8>& a) {
  float lo = cuda::std::numeric_limits<float>::max(), hi = cuda::std::numeric_limits<float>::lowest();
  int nan_count = 0;
  for (float x : a) {
    if (x != x) { ++nan_count; continue; }
    lo = cuda::std::min(lo, x);
    hi = cuda::std::max(hi, x);
  }
  return {lo, hi, nan_count};
}

__global__ void std_containers(const float* in, const int* ints, float* out, int* where) {
  cuda::std::array<float, 8> a;
  for (int k = 0; k < 8; ++k) a[k] = in[threadIdx.x * 8 + k];
  auto [lo, hi, nans] = stats(a);
  auto neg = find_first_negative(cuda::std::span<const int>(ints + threadIdx.x * 4, 4));
  where[threadIdx.x] = neg.value_or(-1) + nans;
  out[threadIdx.x] = hi - lo;
}

__global__ void complex_and_bits(const double* re, const double* im, double* mag, unsigned* bits, unsigned long long* wide) {
  using C = cuda::std::complex<double>;
  C z(re[threadIdx.x], im[threadIdx.x]);
  C w = cuda::std::exp(z) * cuda::std::conj(z) + cuda::std::sqrt(z) / (z + C(1.0, 0.5));
  mag[threadIdx.x] = cuda::std::abs(w) + cuda::std::arg(w);
  unsigned u = bits[threadIdx.x];
  bits[threadIdx.x] = cuda::std::popcount(u) + cuda::std::countl_zero(u) + cuda::std::countr_one(u) +
                      cuda::std::bit_width(u) + cuda::std::rotl(u, 5) + cuda::std::bit_floor(u) +
                      cuda::std::bit_cast<unsigned>(static_cast<float>(u));
  wide[threadIdx.x] = cuda::std::bit_ceil(static_cast<unsigned long long>(u) + 1) ^ cuda::std::byteswap(static_cast<unsigned long long>(u));
}
