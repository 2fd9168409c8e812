// cucatch-expect: clean
// Host memory a kernel reads directly (pageable memory access: HMM or ATS, where the device
// has it) at the addresses of a buffer the program registered (cudaHostRegister, which cucatch
// tracks), unregistered and freed just before: malloc hands the same addresses back. Nothing
// about the unregistered buffer may be said of the new one. Where the device cannot read
// pageable memory (the H100 and H200 machines this was written on: not run there), the program
// says so and exits 77, which the runner reports as skipped.
#include <cstdlib>
#include <cstring>

#include "common.h"

__global__ void sum(const int* p, size_t n, unsigned long long* total) {
  unsigned long long s = 0;
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) s += p[i];
  atomicAdd(total, s);
}

int main() {
  int pageable = 0;
  CHECK(cudaDeviceGetAttribute(&pageable, cudaDevAttrPageableMemoryAccess, 0));
  if (!pageable) {
    std::printf("the device cannot read pageable host memory (cudaDevAttrPageableMemoryAccess)\n");
    return 77;
  }
  unsigned long long* total = nullptr;
  CHECK(cudaMallocManaged(&total, sizeof *total));
  const size_t bytes = size_t(8) << 20, n = bytes / sizeof(int);
  int same = 0;
  for (int round = 0; round < 4; ++round) {
    unsigned long long sums[2] = {};
    int* h = static_cast<int*>(std::malloc(bytes));
    for (size_t i = 0; i < n; ++i) h[i] = round + static_cast<int>(i % 5);
    CHECK(cudaHostRegister(h, bytes, cudaHostRegisterDefault));
    *total = 0;
    sum<<<64, 256>>>(h, n, total);
    CHECK(cudaDeviceSynchronize());
    sums[0] = *total;
    CHECK(cudaHostUnregister(h));
    std::free(h);
    int* again = static_cast<int*>(std::malloc(bytes));
    same += again == h;
    for (size_t i = 0; i < n; ++i) again[i] = 10 + round + static_cast<int>(i % 3);
    *total = 0;
    sum<<<64, 256>>>(again, n, total);
    CHECK(cudaDeviceSynchronize());
    sums[1] = *total;
    std::free(again);
    std::printf("round %d: %llu %llu\n", round, sums[0], sums[1]);
  }
  std::fprintf(stderr, "malloc gave the unregistered buffer's address back: %d of 4\n", same);
  CHECK(cudaFree(total));
  return 0;
}
