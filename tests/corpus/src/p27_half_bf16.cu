#include <cuda_fp16.h>
#include <cuda_bf16.h>
__global__ void half_math(const __half2* a, const __half2* b, __half2* c, __nv_bfloat16* d, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __half2 x = __hfma2(a[i], b[i], __float2half2_rn(1.0f));
  c[i] = __hmul2(x, h2exp(x));
  d[i] = __float2bfloat16(__low2float(x)) * __float2bfloat16(3.0f);
}
