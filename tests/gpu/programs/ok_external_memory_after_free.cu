// cucatch-expect: clean
// cucatch-link: -lcuda
// Memory imported from another API (cudaImportExternalMemory, as Vulkan and OpenGL interop
// hand it over), mapped where the program had freed a buffer of its own: here the other API is
// CUDA's own virtual memory management, exported as a file descriptor. The driver may place the
// mapped buffer at the freed buffer's addresses (stderr says whether it did); nothing about
// the freed buffer may be said of it, and its cudaFree is the driver's to judge.
#include <cuda.h>

#include <cstdint>
#include <vector>

#include "driver_api.h"
#include "sum_kernel.h"

__global__ void fill(int* p, int n, int v) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) p[i] = v + i % 7;
}

int main() {
  CHECK(cudaFree(nullptr));  // (the primary context, for the driver calls)
  CUdevice device;
  DRIVER(cuDeviceGet(&device, 0));
  int fdHandles = 0;
  DRIVER(cuDeviceGetAttribute(&fdHandles, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED, device));
  if (!fdHandles) {
    std::fprintf(stderr, "no file descriptor handles on this device\n");
    return 77;
  }
  CUmemAllocationProp prop{};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = 0;
  prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  size_t granularity = 0;
  DRIVER(cuMemGetAllocationGranularity(&granularity, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
  const size_t bytes = ((size_t(8) << 20) + granularity - 1) / granularity * granularity;
  const int n = static_cast<int>(bytes / sizeof(int));

  unsigned long long* total = nullptr;
  CHECK(cudaMalloc(&total, sizeof *total));
  auto sumOf = [&](const int* p) {
    CHECK(cudaMemset(total, 0, sizeof *total));
    sum<<<128, 256>>>(p, n, total);
    unsigned long long host = 0;
    CHECK(cudaMemcpy(&host, total, sizeof host, cudaMemcpyDeviceToHost));
    return host;
  };

  // Buffers of the import's size, used and freed.
  std::vector<uintptr_t> freed;
  for (int round = 0; round < 3; ++round) {
    int* p = nullptr;
    CHECK(cudaMalloc(&p, bytes));
    fill<<<128, 256>>>(p, n, round);
    std::printf("own buffer %d sums to %llu\n", round, sumOf(p));
    freed.push_back(reinterpret_cast<uintptr_t>(p) & 0xffffffffffffull);  // (cucatch's tag off)
    CHECK(cudaFree(p));
  }

  // The other API's memory, handed over as a file descriptor.
  CUmemGenericAllocationHandle physical;
  DRIVER(cuMemCreate(&physical, bytes, &prop, 0));
  int fd = -1;
  DRIVER(cuMemExportToShareableHandle(&fd, physical, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
  cudaExternalMemoryHandleDesc handle{};
  handle.type = cudaExternalMemoryHandleTypeOpaqueFd;
  handle.handle.fd = fd;  // (the import takes the descriptor over)
  handle.size = bytes;
  cudaExternalMemory_t external;
  CHECK(cudaImportExternalMemory(&external, &handle));
  cudaExternalMemoryBufferDesc buffer{};
  buffer.offset = 0;
  buffer.size = bytes;
  int* mapped = nullptr;
  CHECK(cudaExternalMemoryGetMappedBuffer(reinterpret_cast<void**>(&mapped), external, &buffer));
  bool onFreed = false;
  for (uintptr_t f : freed) {
    uintptr_t a = reinterpret_cast<uintptr_t>(mapped);
    onFreed = onFreed || (a < f + bytes && f < a + bytes);
  }
  std::fprintf(stderr, "the mapped buffer lies %s\n", onFreed ? "on memory the program freed" : "elsewhere");
  fill<<<128, 256>>>(mapped, n, 40);
  std::printf("mapped buffer sums to %llu\n", sumOf(mapped));
  CHECK(cudaFree(mapped));
  CHECK(cudaDestroyExternalMemory(external));
  DRIVER(cuMemRelease(physical));

  // And an allocation of the program's own there again is checked as before.
  int* last = nullptr;
  CHECK(cudaMalloc(&last, bytes));
  fill<<<128, 256>>>(last, n, 9);
  std::printf("last buffer sums to %llu\n", sumOf(last));
  CHECK(cudaFree(last));
  CHECK(cudaFree(total));
  return 0;
}
