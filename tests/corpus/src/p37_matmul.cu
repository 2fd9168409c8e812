// corpus-nvrtc: 124 118
template <int T>
__global__ void matmul_tiled(const float* A, const float* B, float* C, int n) {
  __shared__ float As[T][T], Bs[T][T];
  int r = blockIdx.y * T + threadIdx.y, c = blockIdx.x * T + threadIdx.x;
  float acc = 0;
  for (int k = 0; k < n; k += T) {
    As[threadIdx.y][threadIdx.x] = (r < n && k + threadIdx.x < n) ? A[r * n + k + threadIdx.x] : 0.f;
    Bs[threadIdx.y][threadIdx.x] = (c < n && k + threadIdx.y < n) ? B[(k + threadIdx.y) * n + c] : 0.f;
    __syncthreads();
#pragma unroll
    for (int j = 0; j < T; ++j) acc += As[threadIdx.y][j] * Bs[j][threadIdx.x];
    __syncthreads();
  }
  if (r < n && c < n) C[r * n + c] = acc;
}
template __global__ void matmul_tiled<16>(const float*, const float*, float*, int);
template __global__ void matmul_tiled<32>(const float*, const float*, float*, int);
