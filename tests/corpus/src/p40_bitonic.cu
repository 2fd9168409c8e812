// corpus-nvrtc: 124 118
__global__ void bitonic_step(unsigned* d, int j, int k) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x, ixj = i ^ j;
  if (ixj > i) {
    bool up = (i & k) == 0;
    unsigned a = d[i], b = d[ixj];
    if ((a > b) == up) { d[i] = b; d[ixj] = a; }
  }
}
