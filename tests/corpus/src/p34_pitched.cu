// corpus-nvrtc: 124 118
__global__ void pitched_add(float* img, size_t pitch, int w, int h, float v) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    float* row = (float*)((char*)img + y * pitch);
    row[x] += v;
  }
}
