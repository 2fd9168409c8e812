// cucatch-expect: clean
// cucatch-expect-tagged
// cucatch-needs-gpus: 2
// Two devices, each with its own context and tables: allocations and launches on both, a
// kernel on device 1 reading device 0's memory through peer access (its tables know device 0's
// allocations), peer copies, stream-ordered memory on device 1, and device 1 reset in the
// middle and used again (its new context gets new tables).
#include <vector>

#include "common.h"

__global__ void fill(int* p, int n, int base) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = base + i;
}
__global__ void addPeer(int* out, const int* peer, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] += peer[i];
}

static long long sum(const int* d, int n) {
  std::vector<int> h(n);
  CHECK(cudaMemcpy(h.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost));
  long long s = 0;
  for (int v : h) s += v;
  return s;
}

int main() {
  const int n = 1 << 16;
  int canAccess = 0;
  CHECK(cudaDeviceCanAccessPeer(&canAccess, 1, 0));
  int* a;  // device 0
  int* b;  // device 1
  CHECK(cudaSetDevice(0));
  CHECK(cudaMalloc(&a, n * sizeof(int)));
  sayWhetherTagged(a);
  fill<<<n / 256, 256>>>(a, n, 1);
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaSetDevice(1));
  CHECK(cudaMalloc(&b, n * sizeof(int)));
  fill<<<n / 256, 256>>>(b, n, 2);
  if (canAccess) {
    CHECK(cudaDeviceEnablePeerAccess(0, 0));
    addPeer<<<n / 256, 256>>>(b, a, n);  // device 1 reads device 0's memory
  } else {
    int* staged;
    CHECK(cudaMalloc(&staged, n * sizeof(int)));
    CHECK(cudaMemcpyPeer(staged, 1, a, 0, n * sizeof(int)));
    addPeer<<<n / 256, 256>>>(b, staged, n);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(staged));
  }
  CHECK(cudaDeviceSynchronize());
  std::printf("device 1 after the peer add: %lld\n", sum(b, n));

  // Stream-ordered memory on device 1, filled and copied back to device 0 by a peer copy.
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  int* t;
  CHECK(cudaMallocAsync(&t, n * sizeof(int), s));
  fill<<<n / 256, 256, 0, s>>>(t, n, 3);
  CHECK(cudaMemcpyPeerAsync(a, 0, t, 1, n * sizeof(int), s));
  CHECK(cudaFreeAsync(t, s));
  CHECK(cudaStreamSynchronize(s));
  CHECK(cudaStreamDestroy(s));
  CHECK(cudaFree(b));

  // Device 1 ends and starts again: a new context, with tables of its own.
  CHECK(cudaDeviceReset());
  CHECK(cudaMalloc(&b, n * sizeof(int)));
  fill<<<n / 256, 256>>>(b, n, 4);
  CHECK(cudaDeviceSynchronize());
  std::printf("device 1 after its reset: %lld\n", sum(b, n));
  CHECK(cudaFree(b));

  CHECK(cudaSetDevice(0));
  std::printf("device 0 after the peer copy: %lld\n", sum(a, n));
  CHECK(cudaFree(a));
}
