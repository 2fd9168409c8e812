// cucatch-expect: out-of-bounds read 16 kernel=load_fragments object=tile space=shared
// ldmatrix .x2 takes one 16-byte row address from each of lanes 0-15 (the other lanes'
// addresses are ignored); lane 15 asks for a row one past the tile's 16 rows.
#include "common.h"
__global__ void load_fragments(unsigned* out, int extra) {
  __shared__ __align__(16) unsigned short tile[16 * 8];
  int lane = threadIdx.x;
  for (int i = lane; i < 16 * 8; i += 32) tile[i] = static_cast<unsigned short>(i);
  __syncwarp();
  int row = lane < 16 ? lane + (lane == 15 ? extra : 0) : 0;
  unsigned a = static_cast<unsigned>(__cvta_generic_to_shared(&tile[row * 8]));
  unsigned r0, r1;
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];" : "=r"(r0), "=r"(r1) : "r"(a));  // cucatch-bug-line
  out[lane] = r0 + r1;
}
int main() {
  unsigned* out;
  CHECK(cudaMalloc(&out, 32 * sizeof(unsigned)));
  load_fragments<<<1, 32>>>(out, 1);
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
}
