// corpus-nvrtc: 124 118
#define TILE 32
__global__ void transpose(const float* in, float* out, int w, int h) {
  __shared__ float tile[TILE][TILE + 1];
  int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
  if (x < w && y < h) tile[threadIdx.y][threadIdx.x] = in[y * w + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x; y = blockIdx.x * TILE + threadIdx.y;
  if (x < h && y < w) out[y * h + x] = tile[threadIdx.x][threadIdx.y];
}
__global__ void histogram(const unsigned char* in, unsigned* bins, int n) {
  __shared__ unsigned local[256];
  local[threadIdx.x] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) atomicAdd(&local[in[i]], 1u);
  __syncthreads();
  atomicAdd(&bins[threadIdx.x], local[threadIdx.x]);
}
