// cucatch-expect: clean
// cucatch-link: -lcuda
// cucatch-expect-tagged
// cucatch-expect-checked: scale
// The addresses the CUDA APIs give back for a pointer are the program's own: the device address
// cudaPointerGetAttributes reports for device memory is the pointer it was asked about, and the
// start of the range of an interior pointer is the pointer the allocation returned. Before, the
// device address came back untagged under cucatch, and a program comparing it with its own
// pointer (to tell device memory it owns, or to find the allocation an interior pointer is in)
// found them different. Each comparison's verdict is printed; the plain build says "same"
// everywhere. The returned addresses are then used by a kernel, as programs do.
#include <cstdint>
#include <vector>
#include "driver_api.h"

__global__ void scale(float* p, int n, float by) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] *= by;
}

void say(const char* what, const void* got, const void* want) {
  std::printf("%-44s %s\n", what, got == want ? "same" : "different");
}

int main() {
  const int n = 1024;
  float* p;
  CHECK(cudaMalloc(&p, n * sizeof(float)));
  sayWhetherTagged(p);
  std::vector<float> h(n, 2.0f);
  CHECK(cudaMemcpy(p, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  float* interior = p + 100;

  cudaPointerAttributes a{};
  CHECK(cudaPointerGetAttributes(&a, p));
  std::printf("cudaPointerGetAttributes: device memory: %s\n", a.type == cudaMemoryTypeDevice ? "yes" : "no");
  say("cudaPointerGetAttributes devicePointer", a.devicePointer, p);
  CHECK(cudaPointerGetAttributes(&a, interior));
  say("... of an interior pointer", a.devicePointer, interior);

  CUdeviceptr d = 0, start = 0;
  DRIVER(cuPointerGetAttribute(&d, CU_POINTER_ATTRIBUTE_DEVICE_POINTER, reinterpret_cast<CUdeviceptr>(interior)));
  say("cuPointerGetAttribute DEVICE_POINTER", reinterpret_cast<void*>(d), interior);
  DRIVER(cuPointerGetAttribute(&start, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, reinterpret_cast<CUdeviceptr>(interior)));
  say("cuPointerGetAttribute RANGE_START_ADDR", reinterpret_cast<void*>(start), p);

  CUpointer_attribute which[] = {CU_POINTER_ATTRIBUTE_DEVICE_POINTER, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR};
  CUdeviceptr both[2] = {};
  void* into[] = {&both[0], &both[1]};
  DRIVER(cuPointerGetAttributes(2, which, into, reinterpret_cast<CUdeviceptr>(interior)));
  say("cuPointerGetAttributes DEVICE_POINTER", reinterpret_cast<void*>(both[0]), interior);
  say("cuPointerGetAttributes RANGE_START_ADDR", reinterpret_cast<void*>(both[1]), p);

  CUdeviceptr base = 0;
  size_t bytes = 0;
  DRIVER(cuMemGetAddressRange(&base, &bytes, reinterpret_cast<CUdeviceptr>(interior)));
  say("cuMemGetAddressRange base", reinterpret_cast<void*>(base), p);

  // Pinned host memory: its device address is its host address (unified addressing), untagged.
  float* pinned;
  CHECK(cudaMallocHost(&pinned, n * sizeof(float)));
  CHECK(cudaPointerGetAttributes(&a, pinned));
  say("pinned host memory's devicePointer", a.devicePointer, pinned);

  // The addresses given back reach a kernel: the whole allocation through the range's start,
  // its tail through the device address of the interior pointer.
  scale<<<(n + 255) / 256, 256>>>(reinterpret_cast<float*>(start), n, 3.0f);
  scale<<<(n - 100 + 255) / 256, 256>>>(reinterpret_cast<float*>(d), n - 100, 0.5f);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(h.data(), p, n * sizeof(float), cudaMemcpyDeviceToHost));
  double sum = 0;
  for (float v : h) sum += v;
  std::printf("sum %.1f\n", sum);  // 100 * 6 + 924 * 3
  CHECK(cudaFreeHost(pinned));
  CHECK(cudaFree(p));
  return 0;
}
