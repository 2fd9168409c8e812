// cucatch-expect: out-of-bounds write 4 kernel=overflow_then_churn memory=device-heap heap-log=reused
// cucatch-env: CUCATCH_MODE=continue
// cucatch-expect-errors: 1
// cucatch-jit-env: CUCATCH_TAGS=1
// A device-heap block's log pair is rewritten when its tag goes to another block. Here one
// thread overflows its block and stops (continue mode); another frees that block and allocates
// until the tag comes round to a new block, all before the kernel ends and the record is read.
// The report must not name the new block's malloc (the line below marked "churn") as this
// block's: it says the malloc is no longer known. (The churn's blocks are of another size: a
// block of the same size at the same address could not be told from the first one.)
#include "common.h"
__device__ int* published;
__device__ int churned;
__global__ void overflow_then_churn() {
  if (threadIdx.x == 0) {
    int* p = static_cast<int*>(malloc(16 * sizeof(int)));
    if (!p) return;
    published = p;
    __threadfence();
    p[16] = 1;  // cucatch-bug-line
    return;
  }
  if (threadIdx.x != 32) return;  // another warp: it does not wait on thread 0 to diverge
  int* volatile* seen = &published;
  while (*seen == nullptr) {
  }
  __nanosleep(1000000);  // thread 0 has made its record and stopped by now
  free(*seen);
  for (int i = 0; i < 200; ++i) {  // more than the 120 device-heap tags: every one comes round
    int* q = static_cast<int*>(malloc(48 * sizeof(int)));  // churn: another size
    if (q) {
      q[0] = i;
      free(q);
      ++churned;
    }
  }
}
int main() {
  overflow_then_churn<<<1, 64>>>();
  CHECK(cudaDeviceSynchronize());
  int n = 0;
  CHECK(cudaMemcpyFromSymbol(&n, churned, sizeof n));
  std::printf("churned %d\n", n);
}
