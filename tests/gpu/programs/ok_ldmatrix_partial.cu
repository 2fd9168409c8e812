// cucatch-expect: clean
// ldmatrix .x1 and .x2 use the row addresses of lanes 0-7 and 0-15 only; the other lanes pass
// addresses far outside the tile, which the instruction ignores and cucatch must too.
#include "common.h"
__global__ void load_fragments(unsigned* out) {
  __shared__ __align__(16) unsigned short tile[16 * 8];
  int lane = threadIdx.x;
  for (int i = lane; i < 16 * 8; i += 32) tile[i] = static_cast<unsigned short>(3 * i);
  __syncwarp();
  unsigned a1 = static_cast<unsigned>(__cvta_generic_to_shared(&tile[(lane < 8 ? lane : 4000 + lane) * 8]));
  unsigned a2 = static_cast<unsigned>(__cvta_generic_to_shared(&tile[(lane < 16 ? lane : -3000 - lane) * 8]));
  unsigned x, y0, y1;
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(x) : "r"(a1));
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];" : "=r"(y0), "=r"(y1) : "r"(a2));
  out[lane] = x ^ (y0 + 7 * y1);
}
int main() {
  unsigned *out, host[32];
  CHECK(cudaMalloc(&out, sizeof host));
  load_fragments<<<1, 32>>>(out);
  CHECK(cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost));
  unsigned sum = 0;
  for (unsigned v : host) sum = 31 * sum + v;
  std::printf("%u\n", sum);
}
