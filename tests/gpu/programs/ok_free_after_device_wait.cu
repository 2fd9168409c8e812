// cucatch-expect: clean
// cucatch-link: -lcuda
// A stream-ordered free the host asks for before a kernel that uses the memory, but that the
// device runs after it: the free's stream first waits (cuStreamWaitValue32) for a flag the
// kernel's stream sets once the kernel is done. Correct, and what pipelines that enqueue a
// communication stream ahead do. The host's view at the kernel's launch (freed) is not the
// device's when the kernel runs (live), so a launch twin given the host's view would report its
// reads as use-after-free (a review's find; with the runtime of 574813e on an H200 the cucatch
// build reported "use-after-free read of 4 bytes" in sum; with this one it passes).
#include "driver_api.h"
#include "sum_kernel.h"

__global__ void fill(int* p, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) p[i] = i % 7;
}

int main() {
  const int n = 1 << 16;
  cudaStream_t freeing, using_;
  CHECK(cudaStreamCreateWithFlags(&freeing, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&using_, cudaStreamNonBlocking));
  unsigned* flag = nullptr;
  unsigned long long* total = nullptr;
  CHECK(cudaMalloc(&flag, sizeof *flag));
  CHECK(cudaMalloc(&total, sizeof *total));
  CHECK(cudaMemset(flag, 0, sizeof *flag));
  CHECK(cudaMemset(total, 0, sizeof *total));

  // Both kernels loaded before any stream waits: loading a kernel lazily (CUDA_MODULE_LOADING=LAZY,
  // the default) may wait for the device, which the blocked stream would never let finish.
  fill<<<1, 32, 0, using_>>>(reinterpret_cast<int*>(total), 0);
  sum<<<1, 32, 0, using_>>>(reinterpret_cast<const int*>(total), 0, total);
  CHECK(cudaStreamSynchronize(using_));

  for (int round = 0; round < 3; ++round) {
    int* p = nullptr;
    CHECK(cudaMallocAsync(&p, n * sizeof(int), freeing));
    fill<<<32, 256, 0, freeing>>>(p, n);
    CHECK(cudaStreamSynchronize(freeing));
    // The free waits on the device for the flag; the kernel on the other stream runs first.
    CUresult waits = cuStreamWaitValue32(reinterpret_cast<CUstream>(freeing), reinterpret_cast<CUdeviceptr>(flag),
                                         round + 1, CU_STREAM_WAIT_VALUE_GEQ);
    if (waits == CUDA_ERROR_NOT_SUPPORTED) {
      std::printf("this device has no stream memory operations\n");
      return 77;
    }
    DRIVER(waits);
    CHECK(cudaFreeAsync(p, freeing));
    sum<<<32, 256, 0, using_>>>(p, n, total);
    CHECK(cudaGetLastError());
    DRIVER(cuStreamWriteValue32(reinterpret_cast<CUstream>(using_), reinterpret_cast<CUdeviceptr>(flag), round + 1,
                                CU_STREAM_WRITE_VALUE_DEFAULT));
    CHECK(cudaStreamSynchronize(using_));
    CHECK(cudaStreamSynchronize(freeing));
  }
  unsigned long long host = 0;
  CHECK(cudaMemcpy(&host, total, sizeof host, cudaMemcpyDeviceToHost));
  std::printf("sum of three rounds: %llu\n", host);
  CHECK(cudaFree(total));
  CHECK(cudaFree(flag));
  CHECK(cudaStreamDestroy(using_));
  CHECK(cudaStreamDestroy(freeing));
  return 0;
}
