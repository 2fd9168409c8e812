// Shared by the GPU suite's programs: every CUDA call is checked; a failure prints to stderr
// and exits 2 (after a violation in abort mode, cucatch has already exited with 1).
#pragma once
#include <cstdio>
#include <cstdlib>
#define CHECK(call)                                                                            \
  do {                                                                                         \
    cudaError_t e_ = (call);                                                                   \
    if (e_ != cudaSuccess) {                                                                   \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
      std::exit(2);                                                                            \
    }                                                                                          \
  } while (0)

// A memory pool on device 0 whose allocations can be exported to another process (a POSIX
// file descriptor for the pool, cudaMemPoolExportPointer for each allocation).
inline cudaMemPool_t exportablePool() {
  cudaMemPoolProps props{};
  props.allocType = cudaMemAllocationTypePinned;
  props.handleTypes = cudaMemHandleTypePosixFileDescriptor;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = 0;
  cudaMemPool_t pool;
  CHECK(cudaMemPoolCreate(&pool, &props));
  return pool;
}

// For programs annotated "// cucatch-expect-tagged": says on stderr whether the pointer the
// program got from CUDA carries a cucatch tag, so that a clean run is known to have passed
// tagged pointers to the libraries it calls (the runner wants "pointers: tagged").
#include <cstdint>
inline void sayWhetherTagged(const void* p) {
  std::fprintf(stderr, "pointers: %s\n", reinterpret_cast<uintptr_t>(p) >> 56 ? "tagged" : "raw");
}
