// corpus-nvrtc: 124 118
#ifndef __CUDACC_RTC__
#include <cstdio>   // NVRTC declares printf itself
#endif
__global__ void say(const float* v, int n) {
  int i = threadIdx.x;
  if (i < n) printf("thread %d block %d value %f hex %x %s\n", i, blockIdx.x, v[i], i * 17, "ok");
}
