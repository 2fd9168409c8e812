// corpus-nvrtc: 124 118
// Privatised histograms: per-warp sub-histograms in dynamic shared memory (red.shared / atom.shared),
// 64-bit shared counters, uchar4 vector loads over a pitched 2D image, and a final merge with
// global atomics; plus a shared-memory work queue driven by atomicAdd tickets.
__global__ void image_histogram(const unsigned char* img, size_t pitch, int w, int h, unsigned* hist, unsigned long long* total) {
  extern __shared__ unsigned warp_hist[];   // (blockDim.x / 32) * 256 counters
  __shared__ unsigned long long block_total;
  int warps = blockDim.x / 32, warp = threadIdx.x / 32;
  for (int i = threadIdx.x; i < warps * 256; i += blockDim.x) warp_hist[i] = 0;
  if (threadIdx.x == 0) block_total = 0;
  __syncthreads();
  unsigned* mine = warp_hist + warp * 256;
  for (int y = blockIdx.y; y < h; y += gridDim.y) {
    const uchar4* row = reinterpret_cast<const uchar4*>(img + y * pitch);
    for (int x4 = blockIdx.x * blockDim.x + threadIdx.x; x4 < w / 4; x4 += gridDim.x * blockDim.x) {
      uchar4 p = row[x4];
      atomicAdd(&mine[p.x], 1u);
      atomicAdd(&mine[p.y], 1u);
      atomicAdd(&mine[p.z], 1u);
      atomicAdd(&mine[p.w], 1u);
      atomicAdd(&block_total, 4ull);
    }
  }
  __syncthreads();
  for (int b = threadIdx.x; b < 256; b += blockDim.x) {
    unsigned s = 0;
    for (int k = 0; k < warps; ++k) s += warp_hist[k * 256 + b];
    if (s) atomicAdd(&hist[b], s);
  }
  if (threadIdx.x == 0) atomicAdd(total, block_total);
}

__global__ void work_queue(const int* items, int n, int* out) {
  __shared__ int head;
  __shared__ int done_count;
  if (threadIdx.x == 0) { head = 0; done_count = 0; }
  __syncthreads();
  for (;;) {
    int ticket = atomicAdd(&head, 1);
    if (ticket >= n) break;
    int v = items[ticket];
    int steps = 0;
    while (v != 1 && steps < 1000) { v = (v & 1) ? 3 * v + 1 : v >> 1; ++steps; }
    out[ticket] = steps;
    atomicAdd(&done_count, 1);
  }
  __syncthreads();
  if (threadIdx.x == 0) out[n + blockIdx.x] = atomicExch(&done_count, 0) + atomicCAS(&head, n, 0);
}
