#include <cuda_pipeline.h>
__global__ void staged_copy(const float4* in, float4* out, int n) {
  __shared__ float4 stage[2][128];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __pipeline_memcpy_async(&stage[0][threadIdx.x], &in[i], sizeof(float4));
  __pipeline_commit();
  __pipeline_wait_prior(0);
  __syncthreads();
  out[i] = stage[0][threadIdx.x];
}
