// cucatch-expect: out-of-bounds write 4 kernel=write_past
// cucatch-link: -lcuda -lnvrtc
// cucatch-also: run the plain build under cucatch-run
// A kernel compiled at run time: NVRTC gives PTX, which the program loads with cuModuleLoadData
// and launches with cuLaunchKernel (the driver API by symbol). cucatch instruments PTX a program
// loads in every mode, so its overflow is reported at its line (the source names this file).
#include "runtime_compile.h"
// The kernel's lines are this file's (#line), so that the report points here.
const char* kSource = R"(
#line 11 "bug_oob_runtime_ptx.cu"
extern "C" __global__ void write_past(float* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == n) p[i] = 1.0f;  // cucatch-bug-line
}
)";
int main() {
  const int n = 1000;
  float* p;
  CHECK(cudaMalloc(&p, n * sizeof(float)));
  std::vector<char> ptx = compileAtRunTime(kSource, "bug_oob_runtime_ptx.cu", RuntimeCode::Ptx);
  CUmodule module;
  DRIVER(cuModuleLoadData(&module, ptx.data()));
  CUfunction kernel;
  DRIVER(cuModuleGetFunction(&kernel, module, "write_past"));
  int count = n;
  void* args[] = {&p, &count};
  DRIVER(cuLaunchKernel(kernel, (n + 255) / 256, 1, 1, 256, 1, 1, 0, nullptr, args, nullptr));
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
  return 0;
}
