// JIT mode's start-up cost (bench/jit/startup.py): one compilation unit with many kernels, so
// that its PTX is several megabytes, all of which JIT mode instruments and the driver compiles
// when the module loads. Each kernel reads its input at 16 strided places; every one is
// launched once and the sum of the outputs is the checksum.
// It prints "STARTUP kernels=<n> checksum=<c> first_launch_ms=<x> total_ms=<y>".
#include <chrono>
#include <cstdio>
#include <cstring>
#include <utility>
#include <vector>

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); return 2; } } while (0)

constexpr int kKernels = 768;

template <int K>
__global__ void stage(float* __restrict__ out, const float* __restrict__ in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float acc = in[i];
#pragma unroll
  for (int j = 0; j < 16; ++j) acc = acc * (0.5f + 1e-4f * (K + j)) + in[(i + j * (K + 1)) % n];
  out[i] = acc;
}

template <int... K>
void launchAll(std::integer_sequence<int, K...>, float* out, const float* in, int n) {
  ((stage<K><<<(n + 255) / 256, 256>>>(out + size_t(K) * n, in, n)), ...);
}

int main() {
  const int n = 1 << 12;
  auto t0 = std::chrono::steady_clock::now();
  float *in, *out;
  CHECK(cudaMalloc(&in, n * sizeof(float)));
  CHECK(cudaMalloc(&out, size_t(kKernels) * n * sizeof(float)));
  std::vector<float> host(n);
  for (int i = 0; i < n; ++i) host[i] = float(i % 17) * 0.25f;
  CHECK(cudaMemcpy(in, host.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  auto t1 = std::chrono::steady_clock::now();
  stage<0><<<(n + 255) / 256, 256>>>(out, in, n);  // loads the module: instrumented and compiled here
  CHECK(cudaDeviceSynchronize());
  auto t2 = std::chrono::steady_clock::now();
  launchAll(std::make_integer_sequence<int, kKernels>(), out, in, n);
  CHECK(cudaDeviceSynchronize());
  std::vector<float> result(size_t(kKernels) * n);
  CHECK(cudaMemcpy(result.data(), out, result.size() * sizeof(float), cudaMemcpyDeviceToHost));
  double sum = 0;
  for (float v : result) sum += v;
  auto t3 = std::chrono::steady_clock::now();
  auto ms = [](auto a, auto b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
  std::printf("STARTUP kernels=%d checksum=%.6e first_launch_ms=%.1f total_ms=%.1f\n", kKernels, sum, ms(t1, t2),
              ms(t0, t3));
  return 0;
}
