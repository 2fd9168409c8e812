// A program of the example with no device code of its own: CMake links it with the C++
// compiler, not nvcc, so the cucatch build does not load the runtime (build-twice.py names it).
#include <cuda_runtime.h>
int main() {
  void* p = nullptr;
  if (cudaMalloc(&p, 4096) != cudaSuccess) return 1;
  if (cudaMemset(p, 0, 4096) != cudaSuccess) return 1;
  return cudaFree(p) == cudaSuccess ? 0 : 1;
}
