// cucatch-expect: clean
// cucatch-plain-library: lib/gather_library.cu
// cucatch-env: CUCATCH_TAGS=0
// cucatch-also: with tags on, fails with the CUCATCH_TAGS=0 hint
// cucatch-expect-note: kernel library_gather(GatherJob const*) is linked with instrumented code
// A kernel cucatch did not instrument (a static library built by plain nvcc) reads buffer
// addresses the program wrote into device memory. Only launch arguments and the wrapped library
// calls are untagged, so with tags on it dereferences tagged pointers and faults: the known limit
// of tags (docs/runtime.md). The runtime must then say what to do (CUCATCH_TAGS=0), and with
// CUCATCH_TAGS=0 the program runs clean.
#include <vector>
#include "common.h"
struct GatherJob {
  const float* source;
  float* destination;
  int n;
};
void launch_library_gather(const GatherJob* job, int n);
// The program's own (instrumented) kernel, in the same module as the library's.
__global__ void fill(float* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = i % 11;
}
int main() {
  const int n = 4096;
  std::vector<float> h(n);
  GatherJob job{nullptr, nullptr, n};
  float* source;
  CHECK(cudaMalloc(&source, n * sizeof(float)));
  CHECK(cudaMalloc(&job.destination, n * sizeof(float)));
  fill<<<(n + 255) / 256, 256>>>(source, n);
  job.source = source;
  GatherJob* deviceJob;
  CHECK(cudaMalloc(&deviceJob, sizeof job));
  CHECK(cudaMemcpy(deviceJob, &job, sizeof job, cudaMemcpyHostToDevice));
  launch_library_gather(deviceJob, n);
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(h.data(), job.destination, n * sizeof(float), cudaMemcpyDeviceToHost));
  double s = 0;
  for (float v : h) s += v;
  std::printf("gathered sum %.1f\n", s);
  return 0;
}
