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

// For programs annotated "// cucatch-expect-tagged": says on stderr whether the pointer the
// program got from CUDA carries a cucatch tag, so that a clean run is known to have passed
// tagged pointers to the libraries it calls (the runner wants "pointers: tagged").
#include <cstdint>
inline void sayWhetherTagged(const void* p) {
  std::fprintf(stderr, "pointers: %s\n", reinterpret_cast<uintptr_t>(p) >> 56 ? "tagged" : "raw");
}
