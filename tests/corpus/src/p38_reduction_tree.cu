// corpus-nvrtc: 124 118
template <unsigned BS>
__device__ void warp_tail(volatile float* s, unsigned t) {
  if (BS >= 64) s[t] += s[t + 32];
  if (BS >= 32) s[t] += s[t + 16];
  if (BS >= 16) s[t] += s[t + 8];
  if (BS >= 8) s[t] += s[t + 4];
  if (BS >= 4) s[t] += s[t + 2];
  if (BS >= 2) s[t] += s[t + 1];
}
template <unsigned BS>
__global__ void reduce6(const float* in, float* out, unsigned n) {
  extern __shared__ float s[];
  unsigned t = threadIdx.x, i = blockIdx.x * BS * 2 + t, grid = BS * 2 * gridDim.x;
  s[t] = 0;
  while (i < n) { s[t] += in[i] + (i + BS < n ? in[i + BS] : 0); i += grid; }
  __syncthreads();
  if (BS >= 512) { if (t < 256) s[t] += s[t + 256]; __syncthreads(); }
  if (BS >= 256) { if (t < 128) s[t] += s[t + 128]; __syncthreads(); }
  if (BS >= 128) { if (t < 64) s[t] += s[t + 64]; __syncthreads(); }
  if (t < 32) warp_tail<BS>(s, t);
  if (t == 0) out[blockIdx.x] = s[0];
}
template __global__ void reduce6<256>(const float*, float*, unsigned);
template __global__ void reduce6<512>(const float*, float*, unsigned);
