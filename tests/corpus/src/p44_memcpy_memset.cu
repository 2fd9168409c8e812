// corpus-nvrtc: 124 118
#ifndef __CUDACC_RTC__
#include <cstring>   // NVRTC declares memcpy/memset itself
#endif
struct Big { int v[37]; };
__global__ void copy_structs(const Big* in, Big* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Big b;
  memcpy(&b, &in[i], sizeof(Big));
  b.v[i % 37] = 0;
  memset(&out[i], 0, sizeof(Big));
  out[i] = b;
}
