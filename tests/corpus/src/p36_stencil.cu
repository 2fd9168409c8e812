// corpus-nvrtc: 124 118
__global__ void stencil2d(const float* in, float* out, int w, int h) {
  __shared__ float s[18][18];
  int x = blockIdx.x * 16 + threadIdx.x, y = blockIdx.y * 16 + threadIdx.y;
  int cx = min(max(x, 0), w - 1), cy = min(max(y, 0), h - 1);
  s[threadIdx.y + 1][threadIdx.x + 1] = in[cy * w + cx];
  if (threadIdx.x == 0) s[threadIdx.y + 1][0] = in[cy * w + max(cx - 1, 0)];
  if (threadIdx.x == 15) s[threadIdx.y + 1][17] = in[cy * w + min(cx + 1, w - 1)];
  if (threadIdx.y == 0) s[0][threadIdx.x + 1] = in[max(cy - 1, 0) * w + cx];
  if (threadIdx.y == 15) s[17][threadIdx.x + 1] = in[min(cy + 1, h - 1) * w + cx];
  __syncthreads();
  if (x < w && y < h)
    out[y * w + x] = 0.2f * (s[threadIdx.y + 1][threadIdx.x + 1] + s[threadIdx.y][threadIdx.x + 1] +
                             s[threadIdx.y + 2][threadIdx.x + 1] + s[threadIdx.y + 1][threadIdx.x] + s[threadIdx.y + 1][threadIdx.x + 2]);
}
