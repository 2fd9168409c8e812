// cucatch-expect: clean
// cucatch-link: -lcuda
// Memory mapped with the driver's virtual memory management (cuMemAddressReserve, cuMemCreate,
// cuMemMap: PyTorch's expandable segments), which cucatch does not track, at the addresses of a
// cudaMalloc allocation the program freed just before (asked for as the reservation's hint; the
// driver was seen to grant it). Kernels use it through the raw addresses: nothing about the
// freed allocation may be said of them. The output is the plain build's; the addresses reused
// go to stderr.
#include <cuda.h>

#include "driver_api.h"

__global__ void fill(int* p, size_t n, int v) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    p[i] = v + static_cast<int>(i % 17);
}

__global__ void sum(const int* p, size_t n, unsigned long long* total) {
  unsigned long long s = 0;
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) s += p[i];
  atomicAdd(total, s);
}

int main() {
  CHECK(cudaFree(nullptr));
  CUdevice dev;
  DRIVER(cuCtxGetDevice(&dev));
  CUmemAllocationProp prop{};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = dev;
  size_t granularity = 0;
  DRIVER(cuMemGetAllocationGranularity(&granularity, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
  const size_t bytes = (size_t(64) << 20) / granularity * granularity;
  const size_t n = bytes / sizeof(int);
  unsigned long long* total = nullptr;
  CHECK(cudaMalloc(&total, sizeof *total));
  int reused = 0;
  for (int round = 0; round < 4; ++round) {
    unsigned long long host[2] = {};
    int* p = nullptr;
    CHECK(cudaMalloc(&p, bytes));
    CHECK(cudaMemset(total, 0, sizeof *total));
    fill<<<256, 256>>>(p, n, round);
    sum<<<256, 256>>>(p, n, total);
    CHECK(cudaMemcpy(&host[0], total, sizeof *total, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(p));

    CUdeviceptr va = 0;
    DRIVER(cuMemAddressReserve(&va, bytes, granularity, reinterpret_cast<CUdeviceptr>(p), 0));
    reused += va == reinterpret_cast<CUdeviceptr>(p);
    CUmemGenericAllocationHandle handle;
    DRIVER(cuMemCreate(&handle, bytes, &prop, 0));
    DRIVER(cuMemMap(va, bytes, 0, handle, 0));
    CUmemAccessDesc access{};
    access.location = prop.location;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    DRIVER(cuMemSetAccess(va, bytes, &access, 1));
    CHECK(cudaMemset(total, 0, sizeof *total));
    fill<<<256, 256>>>(reinterpret_cast<int*>(va), n, 100 + round);
    sum<<<256, 256>>>(reinterpret_cast<const int*>(va), n, total);
    CHECK(cudaMemcpy(&host[1], total, sizeof *total, cudaMemcpyDeviceToHost));
    DRIVER(cuMemUnmap(va, bytes));
    DRIVER(cuMemRelease(handle));
    DRIVER(cuMemAddressFree(va, bytes));
    std::printf("round %d: %llu %llu\n", round, host[0], host[1]);
  }
  std::fprintf(stderr, "reservations at the freed allocation's address: %d of 4\n", reused);
  CHECK(cudaFree(total));
  return 0;
}
