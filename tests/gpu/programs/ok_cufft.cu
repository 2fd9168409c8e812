// cucatch-expect: clean
// cucatch-link: -lcufft
// cucatch-expect-tagged
// cucatch-jit-expect-note: JIT mode leaves the CUDA libraries' own kernels uninstrumented
// cuFFT keeps the buffers it is given, and its plans' work areas, in descriptors its kernels
// read from device memory, where no launch can untag them: with tags on, its kernels faulted.
// cucatch untags the buffers at cufftExec* and cufftSetWorkArea, and leaves memory cuFFT
// allocates itself untagged. Forward and inverse transforms, single and double precision,
// complex and real, one with a work area of the program's.
#include <cufft.h>
#include <cmath>
#include <vector>
#include "common.h"
#define FFT(call)                                                                   \
  do {                                                                              \
    cufftResult r_ = (call);                                                        \
    if (r_ != CUFFT_SUCCESS) {                                                      \
      std::fprintf(stderr, "%s:%d: %s: cuFFT error %d\n", __FILE__, __LINE__, #call, r_); \
      std::exit(2);                                                                 \
    }                                                                               \
  } while (0)
int main() {
  const int n = 4096, batch = 4;
  std::vector<cufftComplex> h(n * batch);
  for (int i = 0; i < n * batch; ++i) h[i] = {float(i % 17) - 8, float(i % 5)};
  cufftComplex *in, *out;
  CHECK(cudaMalloc(&in, n * batch * sizeof(cufftComplex)));
  CHECK(cudaMalloc(&out, n * batch * sizeof(cufftComplex)));
  sayWhetherTagged(in);
  CHECK(cudaMemcpy(in, h.data(), n * batch * sizeof(cufftComplex), cudaMemcpyHostToDevice));
  cufftHandle plan;
  FFT(cufftPlan1d(&plan, n, CUFFT_C2C, batch));
  FFT(cufftExecC2C(plan, in, out, CUFFT_FORWARD));
  FFT(cufftExecC2C(plan, out, out, CUFFT_INVERSE));  // in place
  std::vector<cufftComplex> back(n * batch);
  CHECK(cudaMemcpy(back.data(), out, n * batch * sizeof(cufftComplex), cudaMemcpyDeviceToHost));
  double err = 0;
  for (int i = 0; i < n * batch; ++i)
    err = std::fmax(err, std::fabs(back[i].x / n - h[i].x) + std::fabs(back[i].y / n - h[i].y));
  std::printf("c2c round trip within 1e-3: %s\n", err < 1e-3 ? "yes" : "no");

  // Real to complex in double precision, with a work area the program allocates.
  const int m = 2048;
  std::vector<double> r(m);
  for (int i = 0; i < m; ++i) r[i] = std::sin(0.01 * i) + (i % 3);
  double* dr;
  cufftDoubleComplex* dc;
  CHECK(cudaMalloc(&dr, m * sizeof(double)));
  CHECK(cudaMalloc(&dc, (m / 2 + 1) * sizeof(cufftDoubleComplex)));
  CHECK(cudaMemcpy(dr, r.data(), m * sizeof(double), cudaMemcpyHostToDevice));
  cufftHandle real;
  size_t workSize = 0;
  FFT(cufftCreate(&real));
  FFT(cufftSetAutoAllocation(real, 0));
  FFT(cufftMakePlan1d(real, m, CUFFT_D2Z, 1, &workSize));
  void* work = nullptr;
  CHECK(cudaMalloc(&work, workSize ? workSize : 1));
  FFT(cufftSetWorkArea(real, work));
  FFT(cufftExecD2Z(real, dr, dc));
  std::vector<cufftDoubleComplex> spectrum(m / 2 + 1);
  CHECK(cudaMemcpy(spectrum.data(), dc, spectrum.size() * sizeof(cufftDoubleComplex), cudaMemcpyDeviceToHost));
  std::printf("dc term %.3f\n", spectrum[0].x);
  FFT(cufftDestroy(plan));
  FFT(cufftDestroy(real));
}
