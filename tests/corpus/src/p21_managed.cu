// corpus-nvrtc: 124 118
__managed__ int managed_counter;
__managed__ float managed_array[256];
__global__ void bump(int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && i < 256) { managed_array[i] += 1.0f; atomicAdd(&managed_counter, 1); }
}
