// corpus-nvrtc: 124 118
__device__ unsigned flags[1024];
__device__ int partials[1024];
__global__ void chained_scan(const int* in, int* out, int n) {
  __shared__ int s[256];
  int i = blockIdx.x * 256 + threadIdx.x;
  s[threadIdx.x] = i < n ? in[i] : 0;
  __syncthreads();
  for (int off = 1; off < 256; off <<= 1) {
    int v = threadIdx.x >= off ? s[threadIdx.x - off] : 0;
    __syncthreads();
    s[threadIdx.x] += v;
    __syncthreads();
  }
  __shared__ int prefix;
  if (threadIdx.x == 0) {
    int p = 0;
    if (blockIdx.x > 0) {
      while (atomicAdd(&flags[blockIdx.x - 1], 0) == 0) {}
      p = partials[blockIdx.x - 1];
    }
    partials[blockIdx.x] = p + s[255];
    __threadfence();
    atomicExch(&flags[blockIdx.x], 1u);
    prefix = p;
  }
  __syncthreads();
  if (i < n) out[i] = s[threadIdx.x] + prefix;
}
