// cucatch-expect: out-of-bounds write 4 kernel=write_past
// cucatch-link: -lcuda
// cucatch-module-files
// cucatch-jit-expect: clean
// cucatch-jit-expect-note: not instrumented: a cubin
// A program of the driver API alone (-lcuda) that loads a cubin built from this source with
// cuModuleLoad, and launches its kernel, which overflows. cucatch-nvcc's cubin is instrumented:
// reported at its line. A plain nvcc cubin holds SASS only, so JIT mode cannot check it: it
// loads as it is, is named once ("not instrumented: a cubin"), and the program runs as without
// cucatch (its 4-byte overflow goes unnoticed, as it does without cucatch).
#ifdef CUCATCH_MODULE_FILE
extern "C" __global__ void write_past(float* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == n) p[i] = 1.0f;  // cucatch-bug-line
}
#else
#include "driver_api.h"
int main(int, char** argv) {
  usePrimaryContextOfDevice0();
  int n = 1000;
  CUdeviceptr p;
  DRIVER(cuMemAlloc(&p, n * sizeof(float)));
  CUmodule module;
  DRIVER(cuModuleLoad(&module, cubinBeside(argv[0]).c_str()));
  CUfunction writePast;
  DRIVER(cuModuleGetFunction(&writePast, module, "write_past"));
  void* args[] = {&p, &n};
  DRIVER(cuLaunchKernel(writePast, (n + 255) / 256, 1, 1, 256, 1, 1, 0, nullptr, args, nullptr));
  DRIVER(cuCtxSynchronize());
  std::printf("done\n");
  return 0;
}
#endif
