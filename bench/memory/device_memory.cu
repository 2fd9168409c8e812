// Device-memory benchmark: how much GPU memory cucatch's own tables take beside a program's
// allocations. Built once with plain nvcc and once with cucatch-nvcc and run side by side (with
// compute-sanitizer too) by bench/memory/run.py. Allocations accumulate through the steps
// (nothing is freed), and after each one a line says what the program holds and what the
// device has in use:
//
//   MEMORY <step> allocated=<bytes the program holds> used=<bytes in use on the device>
//
// Steps: the context alone; one 256-byte cudaMalloc; 1 MiB; 4096 allocations of 4 KiB;
// 64 stream-ordered allocations of 1 MiB; 1 GiB; 3 GiB.
//
// C++17 and the CUDA runtime only. Build: nvcc -arch=sm_90 -O3 -std=c++17 device_memory.cu
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

namespace {

size_t allocated = 0;

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "device_memory: %s: %s\n", what, cudaGetErrorString(e));
    std::exit(2);
  }
}

void report(const char* step) {
  check(cudaDeviceSynchronize(), "synchronizing");
  size_t free = 0, total = 0;
  check(cudaMemGetInfo(&free, &total), "cudaMemGetInfo");
  std::printf("MEMORY %s allocated=%zu used=%zu\n", step, allocated, total - free);
}

void* take(size_t bytes) {
  void* p = nullptr;
  check(cudaMalloc(&p, bytes), "cudaMalloc");
  allocated += bytes;
  return p;
}

// Touches every allocation the way a program would: instrumented code reads the tables.
__global__ void touch(char* p) { p[threadIdx.x] = 1; }

}  // namespace

int main() {
  check(cudaFree(nullptr), "making the context");
  report("context");
  touch<<<1, 32>>>(static_cast<char*>(take(256)));
  report("one_256B");
  touch<<<1, 32>>>(static_cast<char*>(take(size_t(1) << 20)));
  report("one_1MiB");
  for (int i = 0; i < 4096; ++i) take(4096);
  report("4096x4KiB");
  cudaStream_t s;
  check(cudaStreamCreate(&s), "cudaStreamCreate");
  for (int i = 0; i < 64; ++i) {
    void* p = nullptr;
    check(cudaMallocAsync(&p, size_t(1) << 20, s), "cudaMallocAsync");
    allocated += size_t(1) << 20;
  }
  report("64x1MiB_async");
  touch<<<1, 32>>>(static_cast<char*>(take(size_t(1) << 30)));
  report("1GiB");
  touch<<<1, 32>>>(static_cast<char*>(take(size_t(3) << 30)));
  report("3GiB");
  return 0;
}
