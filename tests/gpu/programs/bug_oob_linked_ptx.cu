// cucatch-expect: out-of-bounds write 4 kernel=fill_past
// cucatch-link: -lcuda -lnvrtc
// PTX linked at run time with the driver's linker (cuLinkCreate, cuLinkAddData, cuLinkComplete):
// two relocatable units NVRTC compiled, a kernel and the device function it calls, each
// instrumented as cuLinkAddData gets it; the linked cubin is loaded with cuModuleLoadData. The
// device function's overflow is reported at its line (the sources name this file).
#include "runtime_compile.h"
const char* kKernel = R"(
#line 10 "bug_oob_linked_ptx.cu"
extern __device__ void store(float* p, int i);
extern "C" __global__ void fill_past(float* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i <= n) store(p, i);
}
)";
const char* kFunction = R"(
#line 18 "bug_oob_linked_ptx.cu"
__device__ __noinline__ void store(float* p, int i) {
  p[i] = 2.0f * i;  // cucatch-bug-line
}
)";
int main() {
  const int n = 1000;
  float* p;
  CHECK(cudaMalloc(&p, n * sizeof(float)));
  std::vector<char> kernel = compileAtRunTime(kKernel, "bug_oob_linked_ptx.cu", RuntimeCode::Ptx, true);
  std::vector<char> function = compileAtRunTime(kFunction, "bug_oob_linked_ptx.cu", RuntimeCode::Ptx, true);
  CUlinkState link;
  DRIVER(cuLinkCreate(0, nullptr, nullptr, &link));
  DRIVER(cuLinkAddData(link, CU_JIT_INPUT_PTX, kernel.data(), kernel.size(), "kernel.ptx", 0, nullptr, nullptr));
  DRIVER(cuLinkAddData(link, CU_JIT_INPUT_PTX, function.data(), function.size(), "function.ptx", 0, nullptr, nullptr));
  void* cubin = nullptr;
  size_t size = 0;
  DRIVER(cuLinkComplete(link, &cubin, &size));
  CUmodule module;
  DRIVER(cuModuleLoadData(&module, cubin));
  DRIVER(cuLinkDestroy(link));
  CUfunction f;
  DRIVER(cuModuleGetFunction(&f, module, "fill_past"));
  int count = n;
  void* args[] = {&p, &count};
  DRIVER(cuLaunchKernel(f, (n + 256) / 256, 1, 1, 256, 1, 1, 0, nullptr, args, nullptr));
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
  return 0;
}
