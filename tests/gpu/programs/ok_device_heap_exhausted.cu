// cucatch-expect: clean
// cucatch-jit-env: CUCATCH_TAGS=1
// The device heap limit is the program's: with a 1 MiB heap, a kernel that allocates until
// malloc returns null gets exactly as many blocks as without cucatch (its blocks are the sizes
// asked for), handles the null, and frees them all; a second round gets them again.
#include "common.h"
__global__ void exhaust(int* counts, int round) {
  void* blocks[1024];
  int n = 0;
  while (n < 1024) {
    void* p = malloc(4096);
    if (!p) break;
    static_cast<char*>(p)[4095] = 1;
    blocks[n++] = p;
  }
  counts[round] = n;
  for (int i = 0; i < n; ++i) free(blocks[i]);
}
int main() {
  CHECK(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 1 << 20));
  size_t heap = 0;
  CHECK(cudaDeviceGetLimit(&heap, cudaLimitMallocHeapSize));
  int* counts;
  CHECK(cudaMalloc(&counts, 2 * sizeof(int)));
  exhaust<<<1, 1>>>(counts, 0);
  exhaust<<<1, 1>>>(counts, 1);
  int host[2];
  CHECK(cudaMemcpy(host, counts, sizeof host, cudaMemcpyDeviceToHost));
  std::printf("heap %zu bytes: %d blocks of 4096, then %d\n", heap, host[0], host[1]);
}
