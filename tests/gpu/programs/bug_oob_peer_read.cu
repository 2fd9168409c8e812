// cucatch-expect: out-of-bounds read 4 kernel=read_peer
// cucatch-needs-gpus: 2
// A kernel on device 1 reads past the end of device 0's memory through peer access: device 1's
// tables hold device 0's allocations.
#include "common.h"
__global__ void read_peer(float* out, const float* peer, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i <= n) out[i] = peer[i];  // cucatch-bug-line
}
int main() {
  int canAccess = 0;
  CHECK(cudaDeviceCanAccessPeer(&canAccess, 1, 0));
  if (!canAccess) {
    std::fprintf(stderr, "devices 1 and 0 have no peer access\n");
    return 2;
  }
  float *peer, *out;
  CHECK(cudaMalloc(&peer, 1000));  // 250 floats on device 0
  CHECK(cudaMemset(peer, 0, 1000));
  CHECK(cudaSetDevice(1));
  CHECK(cudaDeviceEnablePeerAccess(0, 0));
  CHECK(cudaMalloc(&out, 2000));
  read_peer<<<1, 256>>>(out, peer, 250);
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
}
