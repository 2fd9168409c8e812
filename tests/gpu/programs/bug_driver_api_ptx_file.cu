// cucatch-expect: out-of-bounds write 4 kernel=write_past
// cucatch-link: -lcuda
// cucatch-module-files
// A program of the driver API alone (-lcuda; cuMemAlloc, cuModuleLoad, cuLaunchKernel by symbol)
// that loads its kernels from files built from this source: a cubin, whose kernel is correct,
// and a PTX file, whose kernel overflows. PTX a program loads is instrumented in every mode, so
// the overflow is reported at its line in both builds; in JIT mode the plain build's cubin has
// no PTX to instrument, and is named once.
#ifdef CUCATCH_MODULE_FILE
extern "C" __global__ void scale(float* p, int n, float factor) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] *= factor;
}
extern "C" __global__ void write_past(float* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == n) p[i] = 1.0f;  // cucatch-bug-line
}
#else
#include <vector>
#include "driver_api.h"
int main(int, char** argv) {
  usePrimaryContextOfDevice0();
  int n = 1000;
  CUdeviceptr p;
  DRIVER(cuMemAlloc(&p, n * sizeof(float)));
  std::vector<float> host(n, 2.0f);
  DRIVER(cuMemcpyHtoD(p, host.data(), n * sizeof(float)));
  CUmodule fromCubin, fromPtx;
  DRIVER(cuModuleLoad(&fromCubin, cubinBeside(argv[0]).c_str()));
  DRIVER(cuModuleLoad(&fromPtx, ptxBeside(argv[0]).c_str()));
  CUfunction scale, writePast;
  DRIVER(cuModuleGetFunction(&scale, fromCubin, "scale"));
  DRIVER(cuModuleGetFunction(&writePast, fromPtx, "write_past"));
  float factor = 3.0f;
  void* scaleArgs[] = {&p, &n, &factor};
  DRIVER(cuLaunchKernel(scale, (n + 255) / 256, 1, 1, 256, 1, 1, 0, nullptr, scaleArgs, nullptr));
  void* pastArgs[] = {&p, &n};
  DRIVER(cuLaunchKernel(writePast, (n + 255) / 256, 1, 1, 256, 1, 1, 0, nullptr, pastArgs, nullptr));
  DRIVER(cuCtxSynchronize());
  DRIVER(cuMemcpyDtoH(host.data(), p, n * sizeof(float)));
  std::printf("p[0] = %g\n", host[0]);
  return 0;
}
#endif
