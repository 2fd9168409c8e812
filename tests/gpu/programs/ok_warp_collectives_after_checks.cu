// cucatch-expect: clean
// Warp-synchronous collectives after checked code, which cucatch gives a bar.warp.sync on their
// own mask where that changes nothing (src/instrument/WarpSync.h): the output must be the plain
// build's. A warp-per-row sum
// whose shuffles follow a loop of checked loads; lanes that returned early, then full-mask
// shuffles and a ballot among the rest; all/any/match/reduce after checked loads; the two halves
// of a warp in different branches, each with its own mask, and exchanging with one mask across
// different code; a shuffle over __activemask() in a divergent branch; and a kernel that calls
// __syncwarp itself.
#include "common.h"

__global__ void rowSums(const float* values, const unsigned* rowStart, unsigned rows, float* sums) {
  unsigned row = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x & 31;
  if (row >= rows) return;
  float s = 0;
  for (unsigned j = rowStart[row] + lane; j < rowStart[row + 1]; j += 32) s += values[j];
  for (int d = 16; d > 0; d >>= 1) s += __shfl_xor_sync(0xffffffffu, s, d);
  if (lane == 0) sums[row] = s;
}

__global__ void afterExit(const int* in, int* out) {
  int lane = threadIdx.x & 31;
  if (lane >= 20) return;  // these lanes have exited before the shuffles
  int v = in[threadIdx.x];
  v += __shfl_down_sync(0xffffffffu, v, 4);
  unsigned b = __ballot_sync(0xffffffffu, v > 40);
  out[threadIdx.x] = v * 1000 + __popc(b);
}

__global__ void votes(const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? in[i] : -1;
  int all = __all_sync(0xffffffffu, v >= 0);
  int any = __any_sync(0xffffffffu, v > 90);
  unsigned same = __match_any_sync(0xffffffffu, v / 10);
  int total = __reduce_add_sync(0xffffffffu, static_cast<unsigned>(v + 1));
  if (i < n) out[i] = all + 2 * any + 4 * __popc(same) + 1000 * total;
}

__global__ void halves(const int* in, int* out) {
  int lane = threadIdx.x & 31, v = in[threadIdx.x];
  if (lane < 16) {
    v += __shfl_xor_sync(0x0000ffffu, v, 1);
    v += in[(threadIdx.x + 3) % blockDim.x];
    v += __shfl_xor_sync(0x0000ffffu, v, 2);
  } else {
    v -= __shfl_xor_sync(0xffff0000u, v, 8);
  }
  out[threadIdx.x] = v;
}

// Full-mask shuffles paired across the two halves' different code (sm_70 and later): one half
// has both in one block, the other one before and one after a loop of checked loads. (A first
// version of the barrier, one per block, got the second exchange wrong here: a review's find.)
__global__ void crossHalves(const int* in, int* out) {
  int lane = threadIdx.x & 31, v = lane;
  if (lane < 16) {
    v += __shfl_xor_sync(0xffffffffu, v, 16);
    v = v * 3 + __shfl_xor_sync(0xffffffffu, v, 16);
  } else {
    v += __shfl_xor_sync(0xffffffffu, v, 16);
    for (int j = 0; j < in[lane] % 7; ++j) v += in[j];
    v = v * 3 + __shfl_xor_sync(0xffffffffu, v, 16);
  }
  out[threadIdx.x] = v;
}

__global__ void activeOnly(const int* in, int* out) {
  int v = in[threadIdx.x];
  if (v % 3 == 0) {
    unsigned active = __activemask();
    int leader = __ffs(active) - 1;
    v += __shfl_sync(active, v, leader);
  }
  out[threadIdx.x] = v;
}

__global__ void ownSyncwarp(const int* in, int* out) {
  int v = in[threadIdx.x] * 2;
  __syncwarp();
  v += __shfl_up_sync(0xffffffffu, v, 1);
  out[threadIdx.x] = v;
}

int main() {
  const unsigned rows = 200;
  unsigned start[rows + 1];
  start[0] = 0;
  for (unsigned r = 0; r < rows; ++r) start[r + 1] = start[r] + (r * 7) % 50;
  const unsigned nnz = start[rows];
  float* hv = new float[nnz];
  for (unsigned j = 0; j < nnz; ++j) hv[j] = float(j % 13) * 0.5f;
  float *values, *sums;
  unsigned* rowStart;
  CHECK(cudaMalloc(&values, nnz * sizeof(float)));
  CHECK(cudaMalloc(&rowStart, sizeof start));
  CHECK(cudaMalloc(&sums, rows * sizeof(float)));
  CHECK(cudaMemcpy(values, hv, nnz * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(rowStart, start, sizeof start, cudaMemcpyHostToDevice));
  rowSums<<<(rows * 32 + 127) / 128, 128>>>(values, rowStart, rows, sums);
  CHECK(cudaGetLastError());
  float hs[rows];
  CHECK(cudaMemcpy(hs, sums, sizeof hs, cudaMemcpyDeviceToHost));
  double total = 0;
  for (unsigned r = 0; r < rows; ++r) total += hs[r] * (r + 1);
  std::printf("row sums: %.1f\n", total);

  const int n = 250;
  int hin[256], hout[256];
  for (int i = 0; i < 256; ++i) hin[i] = (i * 37) % 101;
  int *in, *out;
  CHECK(cudaMalloc(&in, sizeof hin));
  CHECK(cudaMalloc(&out, sizeof hout));
  CHECK(cudaMemcpy(in, hin, sizeof hin, cudaMemcpyHostToDevice));
  auto show = [&](const char* what, int count) {
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(hout, out, sizeof hout, cudaMemcpyDeviceToHost));
    long long h = 0;
    for (int i = 0; i < count; ++i) h = h * 31 + hout[i];
    std::printf("%s: %lld (out[0] %d, out[%d] %d)\n", what, h, hout[0], count - 1, hout[count - 1]);
  };
  CHECK(cudaMemset(out, 0, sizeof hout));
  afterExit<<<2, 64>>>(in, out);
  show("after exited lanes", 128);
  votes<<<4, 64>>>(in, out, n);
  show("votes", n);
  halves<<<1, 256>>>(in, out);
  show("halves", 256);
  crossHalves<<<1, 256>>>(in, out);
  show("cross halves", 256);
  activeOnly<<<1, 256>>>(in, out);
  show("active only", 256);
  ownSyncwarp<<<1, 256>>>(in, out);
  show("own syncwarp", 256);
  CHECK(cudaDeviceSynchronize());
  return 0;
}
