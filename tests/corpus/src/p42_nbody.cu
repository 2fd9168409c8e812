// corpus-nvrtc: 124 118
__global__ void nbody(const float4* pos, float4* acc, int n, float eps) {
  extern __shared__ float4 tile[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float4 p = i < n ? pos[i] : make_float4(0, 0, 0, 0);
  float3 a = {0, 0, 0};
  for (int t = 0; t < n; t += blockDim.x) {
    if (t + threadIdx.x < n) tile[threadIdx.x] = pos[t + threadIdx.x];
    __syncthreads();
    for (int j = 0; j < blockDim.x && t + j < n; ++j) {
      float3 r = {tile[j].x - p.x, tile[j].y - p.y, tile[j].z - p.z};
      float d2 = r.x * r.x + r.y * r.y + r.z * r.z + eps;
      float inv = rsqrtf(d2 * d2 * d2) * tile[j].w;
      a.x += r.x * inv; a.y += r.y * inv; a.z += r.z * inv;
    }
    __syncthreads();
  }
  if (i < n) acc[i] = make_float4(a.x, a.y, a.z, 0);
}
