// cucatch-expect: clean
// cucatch-expect-tagged
// A stream-ordered allocation from an exportable memory pool, exported for another process:
// the driver must get the pointer raw (it answered cudaErrorInvalidValue to the tagged one).
#include "common.h"
__global__ void fill(int* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = i;
}
int main() {
  cudaMemPool_t pool = exportablePool();
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  const int n = 1 << 16;
  int* p;
  CHECK(cudaMallocFromPoolAsync((void**)&p, n * 4, pool, s));
  sayWhetherTagged(p);
  fill<<<n / 256, 256, 0, s>>>(p, n);
  CHECK(cudaStreamSynchronize(s));
  // As the IPC sample does: the pool's handle first, then the pointer.
  int fd = -1;
  CHECK(cudaMemPoolExportToShareableHandle(&fd, pool, cudaMemHandleTypePosixFileDescriptor, 0));
  cudaMemPoolPtrExportData data;
  CHECK(cudaMemPoolExportPointer(&data, p));
  std::printf("exported: %s\n", fd >= 0 ? "yes" : "no");
  int last;
  CHECK(cudaMemcpy(&last, p + n - 1, 4, cudaMemcpyDeviceToHost));
  std::printf("last %d\n", last);
  CHECK(cudaFreeAsync(p, s));
  CHECK(cudaStreamSynchronize(s));
  CHECK(cudaMemPoolDestroy(pool));
}
