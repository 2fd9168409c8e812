// cucatch-expect: out-of-bounds read 16 kernel=load4
// A float4 load whose first 8 bytes are inside the allocation and last 8 bytes are not.
#include "common.h"
__global__ void load4(const float4* p, int i, float* out) {
  if (threadIdx.x == 0) {
    float4 v = p[i];  // cucatch-bug-line
    *out = v.x + v.y + v.z + v.w;
  }
}
int main() {
  float* out;
  CHECK(cudaMalloc(&out, sizeof(float)));
  // 152 bytes: float4 number 9 covers bytes 144..159, the last 8 of them past the end.
  float* q;
  CHECK(cudaMalloc(&q, 152));
  load4<<<1, 32>>>(reinterpret_cast<const float4*>(q), 9, out);
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
}
