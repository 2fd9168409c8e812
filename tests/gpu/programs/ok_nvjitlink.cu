// cucatch-expect: clean
// cucatch-link: -lcuda -lnvrtc -lnvJitLink
// cucatch-expect-checked: scale_all
// PTX linked at run time with nvJitLink (a kernel and a device function, relocatable units NVRTC
// compiled): each unit is instrumented as nvJitLinkAddData gets it, so the kernel runs checked.
#include <nvJitLink.h>
#include "runtime_compile.h"
#define LINK(x) do { nvJitLinkResult r_ = (x); if (r_ != NVJITLINK_SUCCESS) { \
  std::fprintf(stderr, "%s:%d: %s: nvJitLink error %d\n", __FILE__, __LINE__, #x, (int)r_); std::exit(2); } } while (0)
const char* kKernel = R"(
extern __device__ float scaled(const float* p, int i, float f);
extern "C" __global__ void scale_all(const float* in, float* out, int n, float f) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = scaled(in, i, f);
}
)";
const char* kFunction = R"(
__device__ __noinline__ float scaled(const float* p, int i, float f) { return f * p[i]; }
)";
int main() {
  const int n = 4096;
  std::vector<float> h(n);
  for (int i = 0; i < n; ++i) h[i] = i % 17;
  float *in, *out;
  CHECK(cudaMalloc(&in, n * sizeof(float)));
  CHECK(cudaMalloc(&out, n * sizeof(float)));
  CHECK(cudaMemcpy(in, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  std::vector<char> kernel = compileAtRunTime(kKernel, "scale_kernel.cu", RuntimeCode::Ptx, true);
  std::vector<char> function = compileAtRunTime(kFunction, "scale_function.cu", RuntimeCode::Ptx, true);
  std::string arch = "-arch=" + deviceArchName();
  const char* options[] = {arch.c_str()};
  nvJitLinkHandle link;
  LINK(nvJitLinkCreate(&link, 1, options));
  LINK(nvJitLinkAddData(link, NVJITLINK_INPUT_PTX, kernel.data(), kernel.size(), "kernel.ptx"));
  LINK(nvJitLinkAddData(link, NVJITLINK_INPUT_PTX, function.data(), function.size(), "function.ptx"));
  LINK(nvJitLinkComplete(link));
  size_t size = 0;
  LINK(nvJitLinkGetLinkedCubinSize(link, &size));
  std::vector<char> cubin(size);
  LINK(nvJitLinkGetLinkedCubin(link, cubin.data()));
  LINK(nvJitLinkDestroy(&link));
  CUmodule module;
  DRIVER(cuModuleLoadData(&module, cubin.data()));
  CUfunction f;
  DRIVER(cuModuleGetFunction(&f, module, "scale_all"));
  int count = n;
  float factor = 3.0f;
  void* args[] = {&in, &out, &count, &factor};
  DRIVER(cuLaunchKernel(f, (n + 255) / 256, 1, 1, 256, 1, 1, 0, nullptr, args, nullptr));
  CHECK(cudaMemcpy(h.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost));
  double s = 0;
  for (float v : h) s += v;
  std::printf("sum %.1f\n", s);
  return 0;
}
