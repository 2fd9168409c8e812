// cucatch-expect: clean
// A stream-ordered free made after the CUDA driver's own teardown at exit, with stream-ordered
// allocations and frees still kept pending by cucatch (docs/design.md, "Kept pending until
// something could see them"): PyTorch's caching allocator frees from a library destructor that
// runs that late, and under cucatch that printed a warning for each table update the shut-down
// driver refused (ok_pytorch_stream_ordered). The driver refuses the program's free the same
// way in both builds; cucatch must say nothing, and the output is the plain build's.
#include <cuda.h>
#include <cudaTypedefs.h>

#include "common.h"

namespace {
PFN_cuMemFreeAsync_v11020 lateFree = nullptr;
CUdeviceptr late = 0;
CUstream lateStream = nullptr;
}  // namespace

__global__ void fill(int* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = 3 * i + 1;
}

__global__ void sum(const int* p, int n, unsigned long long* total) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(total, static_cast<unsigned long long>(p[i]));
}

// One of the executable's own destructors (.fini_array). The loader runs them after those of
// libcuda, which the CUDA runtime loaded during main (an object loaded later is finalized first).
__attribute__((destructor)) static void freeAfterTheDriver() {
  if (!lateFree) return;
  CUresult r = lateFree(late, lateStream);
  std::printf("late free: %s\n", r == CUDA_SUCCESS                ? "freed"
                                 : r == CUDA_ERROR_DEINITIALIZED ? "the driver has shut down"
                                                                 : "refused");
}

int main() {
  constexpr int n = 1 << 16;
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  int* p = nullptr;
  unsigned long long* total = nullptr;
  CHECK(cudaMallocAsync(&p, n * sizeof(int), s));
  CHECK(cudaMallocAsync(&total, sizeof *total, s));
  CHECK(cudaMemsetAsync(total, 0, sizeof *total, s));
  fill<<<n / 256, 256, 0, s>>>(p, n);
  sum<<<n / 256, 256, 0, s>>>(p, n, total);
  unsigned long long host = 0;
  CHECK(cudaMemcpyAsync(&host, total, sizeof host, cudaMemcpyDeviceToHost, s));
  CHECK(cudaStreamSynchronize(s));
  std::printf("sum %llu\n", host);

  void* entry = nullptr;
  cudaDriverEntryPointQueryResult found;
  CHECK(cudaGetDriverEntryPointByVersion("cuMemFreeAsync", &entry, 12000, cudaEnableDefault, &found));
  if (found != cudaDriverEntryPointSuccess) return 2;
  lateFree = reinterpret_cast<PFN_cuMemFreeAsync_v11020>(entry);
  lateStream = s;

  // Kept pending at exit: allocations and frees with no call after them that could order a
  // kernel after them; one of them is the destructor's to free.
  for (int k = 0; k < 8; ++k) {
    int* q = nullptr;
    CHECK(cudaMallocAsync(&q, (k + 1) << 16, s));
    if (k == 4) late = reinterpret_cast<CUdeviceptr>(q);
    else CHECK(cudaFreeAsync(q, s));
  }
  CHECK(cudaFreeAsync(p, s));
  CHECK(cudaFreeAsync(total, s));
  std::printf("main returns\n");
  return 0;
}
