// cucatch-expect: clean
// cucatch-plain-library: lib/heap_library.cu
// cucatch-expect-tagged
// cucatch-expect-note: kernel library_sum(int const*, int, int*) is linked with instrumented code
// A kernel allocates a block on the device heap (which cucatch tags, as the block's pointer
// in instrumented code); the host copies the block's address back and passes it to a kernel
// cucatch did not instrument (a static library built by plain nvcc). The launch must untag it
// as it untags the host's own allocations, or that kernel faults on the tagged address.
#include "common.h"
void launch_library_sum(const int* p, int n, int* out);
__global__ void make(int** keep, int n) {
  int* p = static_cast<int*>(malloc(n * sizeof(int)));
  if (p)
    for (int i = 0; i < n; ++i) p[i] = i % 7;
  *keep = p;
}
__global__ void release(int** keep) { free(*keep); }
int main() {
  const int n = 1000;
  int** keep;
  int* out;
  CHECK(cudaMalloc(&keep, sizeof(int*)));
  CHECK(cudaMalloc(&out, sizeof(int)));
  CHECK(cudaMemset(out, 0, sizeof(int)));
  make<<<1, 1>>>(keep, n);
  int* block = nullptr;
  CHECK(cudaMemcpy(&block, keep, sizeof block, cudaMemcpyDeviceToHost));
  if (!block) {
    std::printf("no device heap block\n");
    return 1;
  }
  sayWhetherTagged(block);
  launch_library_sum(block, n, out);
  CHECK(cudaGetLastError());
  int sum = 0;
  CHECK(cudaMemcpy(&sum, out, sizeof sum, cudaMemcpyDeviceToHost));
  release<<<1, 1>>>(keep);
  CHECK(cudaDeviceSynchronize());
  std::printf("sum %d\n", sum);
}
