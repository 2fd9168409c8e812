// cucatch-expect: clean
// cucatch-expect-note: no memory left for cucatch's shadow map
// cucatch-jit-expect-note: no memory left for cucatch's shadow map
// cucatch-run-alone
// The program takes the device's memory to the last allocation it can get, ending with small
// allocations at pages of their own, and then uses the last of them: cucatch's own tables need
// device memory for a page where allocations begin or end (docs/design.md, "Device memory"),
// and the program has left none. Correct accesses must pass, with its pointers' tags (their
// entries) and without them (JIT mode: the shadow map's walk), and cucatch says once that it
// could not have that memory. (Before, it warned at every allocation while the device was full,
// and a page whose finer table it could not make kept its old one, stale.)
#include <vector>

#include "common.h"

__global__ void fillAndSum(int* p, int n, int seed, unsigned long long* total) {
  unsigned long long sum = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    p[i] = seed ^ i;
    sum += static_cast<unsigned>(p[i]);
  }
  atomicAdd(total, sum);
}

int main() {
  // The total goes to mapped host memory: the device has none left for it.
  unsigned long long* total = nullptr;
  CHECK(cudaHostAlloc(&total, sizeof *total, cudaHostAllocMapped));
  *total = 0;
  // The kernel loaded while there is memory for its code (the driver loads a kernel at its first
  // launch, and an instrumented one is larger: first launched on a full device, it was refused
  // for want of memory where the plain one was not; CUDA_MODULE_LOADING=EAGER let both run).
  {
    int* warm = nullptr;
    CHECK(cudaMalloc(&warm, 4096));
    fillAndSum<<<1, 256>>>(warm, 1024, 0, total);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(warm));
    *total = 0;
  }

  // All but the last 64 MiB in large allocations, halving the size as they are refused, then
  // 64 KiB ones until the driver refuses one.
  std::vector<void*> held;
  for (size_t chunk = size_t(1) << 30; chunk >= (size_t(2) << 20); chunk /= 2) {
    for (;;) {
      size_t free = 0, all = 0;
      CHECK(cudaMemGetInfo(&free, &all));
      void* p = nullptr;
      if (free < chunk + (size_t(64) << 20) || cudaMalloc(&p, chunk) != cudaSuccess) break;
      held.push_back(p);
    }
    (void)cudaGetLastError();
  }
  constexpr size_t kSmall = size_t(64) << 10;
  std::vector<int*> small;
  for (;;) {
    int* q = nullptr;
    if (cudaMalloc(&q, kSmall) != cudaSuccess) break;
    small.push_back(q);
  }
  (void)cudaGetLastError();
  constexpr int kUsed = 64;
  if (small.size() < kUsed) {
    std::fprintf(stderr, "only %zu small allocations\n", small.size());
    return 2;
  }
  std::printf("memory full\n");

  // The last allocations made: those at the pages cucatch met with no memory left.
  for (int k = 0; k < kUsed; ++k)
    fillAndSum<<<16, 256>>>(small[small.size() - kUsed + k], static_cast<int>(kSmall / sizeof(int)), k, total);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::printf("sum %llu\n", *total);

  // Memory freed and allocated again while the device is full: some small allocations given
  // back, as many taken again, and used.
  for (int k = 0; k < kUsed; ++k) CHECK(cudaFree(small[small.size() - 1 - 2 * k]));
  std::vector<int*> again(kUsed);
  for (auto& q : again) CHECK(cudaMalloc(&q, kSmall));
  *total = 0;
  for (int k = 0; k < kUsed; ++k) fillAndSum<<<16, 256>>>(again[k], static_cast<int>(kSmall / sizeof(int)), k + 7, total);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::printf("sum again %llu\n", *total);

  for (auto* q : again) CHECK(cudaFree(q));
  for (size_t k = 0; k < small.size(); ++k)
    if (k < small.size() - 2 * kUsed || (small.size() - 1 - k) % 2) CHECK(cudaFree(small[k]));
  for (void* p : held) CHECK(cudaFree(p));
  CHECK(cudaFreeHost(total));
  std::printf("done\n");
  return 0;
}
