// cucatch-expect: clean
// cucatch-expect-checked: gemm
// Correct kernels that use shared memory in the ways real code does: tiled matrix multiply,
// a stencil with halo, tree reductions, shared-memory atomics, dynamic shared memory carved into
// parts, cp.async and cuda::memcpy_async pipelines, ldmatrix, a shared pointer broadcast by a
// warp shuffle, placement new into a shared buffer, CUB block primitives and cooperative
// groups. They must run silently and print exactly what the plain build prints.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda/barrier>
#include <cuda_fp16.h>
#include <cuda_pipeline.h>
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <new>
#include <vector>
#include "common.h"
namespace cg = cooperative_groups;

constexpr int T = 16;
__global__ void gemm(const float* a, const float* b, float* c, int n) {
  __shared__ float as[T][T];
  __shared__ float bs[T][T + 1];  // padded against bank conflicts
  int row = blockIdx.y * T + threadIdx.y, col = blockIdx.x * T + threadIdx.x;
  float acc = 0;
  for (int k0 = 0; k0 < n; k0 += T) {
    as[threadIdx.y][threadIdx.x] = a[row * n + k0 + threadIdx.x];
    bs[threadIdx.y][threadIdx.x] = b[(k0 + threadIdx.y) * n + col];
    __syncthreads();
    for (int k = 0; k < T; ++k) acc += as[threadIdx.y][k] * bs[k][threadIdx.x];
    __syncthreads();
  }
  c[row * n + col] = acc;
}

constexpr int R = 3;
__global__ void stencil(const float* in, float* out, int n) {
  __shared__ float s[128 + 2 * R];
  int g = blockIdx.x * blockDim.x + threadIdx.x, l = threadIdx.x + R;
  s[l] = in[g];
  if (threadIdx.x < R) {
    s[l - R] = g >= R ? in[g - R] : 0.f;
    s[l + blockDim.x] = g + blockDim.x < n ? in[g + blockDim.x] : 0.f;
  }
  __syncthreads();
  float v = 0;
  for (int k = -R; k <= R; ++k) v += s[l + k];
  out[g] = v;
}

__global__ void tree_reduce(const int* in, int* out) {
  __shared__ int s[256];
  int t = threadIdx.x;
  s[t] = in[blockIdx.x * 256 + t];
  __syncthreads();
  for (int w = 128; w > 0; w >>= 1) {
    if (t < w) s[t] += s[t + w];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = s[0];
}

__global__ void histogram(const int* in, int n, unsigned* bins) {
  __shared__ unsigned local[64];
  for (int i = threadIdx.x; i < 64; i += blockDim.x) local[i] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&local[in[i] & 63], 1u);
  __syncthreads();
  for (int i = threadIdx.x; i < 64; i += blockDim.x) atomicAdd(&bins[i], local[i]);
}

// Dynamic shared memory carved into a float part of `nf` elements and an int part after it.
__global__ void carved(const float* in, float* out, int nf) {
  extern __shared__ float dyn[];
  float* f = dyn;
  int* counts = reinterpret_cast<int*>(dyn + nf);
  int t = threadIdx.x;
  f[t] = in[t];
  counts[t] = t;
  __syncthreads();
  out[t] = f[nf - 1 - t] + counts[blockDim.x - 1 - t];
}

__global__ void pipelined(const float4* in, float4* out, int rounds) {
  __shared__ float4 stage[2][64];
  float4 acc = {0, 0, 0, 0};
  __pipeline_memcpy_async(&stage[0][threadIdx.x], &in[threadIdx.x], sizeof(float4));
  __pipeline_commit();
  for (int r = 0; r < rounds; ++r) {
    if (r + 1 < rounds)
      __pipeline_memcpy_async(&stage[(r + 1) & 1][threadIdx.x], &in[(r + 1) * 64 + threadIdx.x], sizeof(float4));
    __pipeline_commit();
    __pipeline_wait_prior(1);
    __syncthreads();
    float4 v = stage[r & 1][63 - threadIdx.x];
    acc.x += v.x, acc.y += v.y, acc.z += v.z, acc.w += v.w;
    __syncthreads();
  }
  out[threadIdx.x] = acc;
}

__global__ void barrier_copy(const int* in, int* out) {
  __shared__ int buf[256];
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  auto block = cg::this_thread_block();
  if (block.thread_rank() == 0) init(&bar, block.size());
  block.sync();
  cuda::memcpy_async(block, buf, in, sizeof buf, bar);
  bar.arrive_and_wait();
  out[threadIdx.x] = buf[255 - threadIdx.x] * 2;
}

// ldmatrix .x4: every lane gives the address of one 16-byte row of four 8x8 matrices.
__global__ void load_matrix(const __half* in, unsigned* out) {
  __shared__ __align__(16) __half m[32 * 8];
  for (int i = threadIdx.x; i < 32 * 8; i += 32) m[i] = in[i];
  __syncthreads();
  unsigned addr = static_cast<unsigned>(__cvta_generic_to_shared(&m[threadIdx.x * 8]));
  unsigned r0, r1, r2, r3;
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
               : "r"(addr));
  out[threadIdx.x] = r0 ^ (r1 << 1) ^ (r2 << 2) ^ (r3 << 3);
}

// Lane 0 picks a row of a shared table; the pointer reaches the warp by a shuffle.
__global__ void shuffled_pointer(int* out) {
  __shared__ int table[32][33];
  for (int i = threadIdx.x; i < 32 * 33; i += blockDim.x) table[i / 33][i % 33] = i;
  __syncthreads();
  int* row = nullptr;
  if (threadIdx.x % 32 == 0) row = table[(threadIdx.x / 32 * 7) % 32];
  auto bits = reinterpret_cast<unsigned long long>(row);
  row = reinterpret_cast<int*>(__shfl_sync(0xffffffffu, bits, 0));
  out[threadIdx.x] = row[threadIdx.x % 32 + 1];
}

struct Accumulator {
  float sum;
  int count;
  __device__ Accumulator(float s) : sum(s), count(1) {}
};
__global__ void placement(const float* in, float* out) {
  __shared__ __align__(alignof(Accumulator)) unsigned char raw[64 * sizeof(Accumulator)];
  Accumulator* acc = new (raw + threadIdx.x * sizeof(Accumulator)) Accumulator(in[threadIdx.x]);
  __syncthreads();
  Accumulator& other = reinterpret_cast<Accumulator*>(raw)[63 - threadIdx.x];
  out[threadIdx.x] = acc->sum + other.sum + other.count;
}

__global__ void cub_blocks(const int* in, int* sums, int* scans, int* sorted) {
  using Reduce = cub::BlockReduce<int, 128>;
  using Scan = cub::BlockScan<int, 128>;
  using Sort = cub::BlockRadixSort<int, 128, 4>;
  __shared__ union {
    typename Reduce::TempStorage reduce;
    typename Scan::TempStorage scan;
    typename Sort::TempStorage sort;
  } tmp;
  int t = threadIdx.x;
  int v = in[t];
  int s = Reduce(tmp.reduce).Sum(v);
  if (t == 0) sums[0] = s;
  __syncthreads();
  int x;
  Scan(tmp.scan).ExclusiveSum(v, x);
  scans[t] = x;
  __syncthreads();
  int keys[4];
  for (int i = 0; i < 4; ++i) keys[i] = in[(t * 4 + i) % 128] * (i + 1) - 200;
  Sort(tmp.sort).Sort(keys);
  for (int i = 0; i < 4; ++i) sorted[t * 4 + i] = keys[i];
}

__global__ void groups(const int* in, int* out) {
  auto block = cg::this_thread_block();
  auto tile = cg::tiled_partition<32>(block);
  __shared__ int partial[8];
  int v = cg::reduce(tile, in[block.thread_rank()], cg::plus<int>());
  if (tile.thread_rank() == 0) partial[tile.meta_group_rank()] = v;
  block.sync();
  if (block.thread_rank() == 0) {
    int s = 0;
    for (int i = 0; i < tile.meta_group_size(); ++i) s += partial[i];
    out[0] = s;
  }
}

template <class T>
T* upload(const std::vector<T>& h) {
  T* d;
  CHECK(cudaMalloc(&d, h.size() * sizeof(T)));
  CHECK(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}
template <class T>
std::vector<T> download(const T* d, size_t n) {
  std::vector<T> h(n);
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}
template <class T>
double checksum(const std::vector<T>& v) {
  double s = 0;
  for (size_t i = 0; i < v.size(); ++i) s += static_cast<double>(v[i]) * static_cast<double>(i % 7 + 1);
  return s;
}

int main() {
  const int n = 64;
  std::vector<float> a(n * n), b(n * n);
  for (int i = 0; i < n * n; ++i) a[i] = (i % 13) * 0.25f, b[i] = (i % 7) * 0.5f - 1;
  float *da = upload(a), *db = upload(b), *dc;
  CHECK(cudaMalloc(&dc, n * n * sizeof(float)));
  gemm<<<dim3(n / T, n / T), dim3(T, T)>>>(da, db, dc, n);
  std::printf("gemm %.3f\n", checksum(download(dc, n * n)));

  std::vector<float> line(1024);
  for (int i = 0; i < 1024; ++i) line[i] = (i % 17) * 0.125f;
  float *dl = upload(line), *ds;
  CHECK(cudaMalloc(&ds, 1024 * sizeof(float)));
  stencil<<<8, 128>>>(dl, ds, 1024);
  std::printf("stencil %.3f\n", checksum(download(ds, 1024)));

  std::vector<int> ints(4096);
  for (int i = 0; i < 4096; ++i) ints[i] = (i * 37) % 101;
  int *di = upload(ints), *dr;
  CHECK(cudaMalloc(&dr, 16 * sizeof(int)));
  tree_reduce<<<16, 256>>>(di, dr);
  std::printf("tree_reduce %.0f\n", checksum(download(dr, 16)));

  unsigned* bins;
  CHECK(cudaMalloc(&bins, 64 * sizeof(unsigned)));
  CHECK(cudaMemset(bins, 0, 64 * sizeof(unsigned)));
  histogram<<<4, 96>>>(di, 4096, bins);
  std::printf("histogram %.0f\n", checksum(download(bins, 64)));

  float* dout;
  CHECK(cudaMalloc(&dout, 1024 * sizeof(float)));
  carved<<<1, 128, 128 * sizeof(float) + 128 * sizeof(int)>>>(dl, dout, 128);
  std::printf("carved %.3f\n", checksum(download(dout, 128)));

  std::vector<float> quads(8 * 64 * 4);
  for (size_t i = 0; i < quads.size(); ++i) quads[i] = (i % 11) * 0.5f;
  float* dq = upload(quads);
  float4* dq4;
  CHECK(cudaMalloc(&dq4, 64 * sizeof(float4)));
  pipelined<<<1, 64>>>(reinterpret_cast<float4*>(dq), dq4, 8);
  std::printf("pipelined %.3f\n", checksum(download(reinterpret_cast<float*>(dq4), 64 * 4)));

  int* dbc;
  CHECK(cudaMalloc(&dbc, 256 * sizeof(int)));
  barrier_copy<<<1, 256>>>(di, dbc);
  std::printf("barrier_copy %.0f\n", checksum(download(dbc, 256)));

  std::vector<__half> halves(32 * 8);
  for (int i = 0; i < 32 * 8; ++i) halves[i] = __float2half(static_cast<float>(i % 29));
  __half* dh = upload(halves);
  unsigned* dm;
  CHECK(cudaMalloc(&dm, 32 * sizeof(unsigned)));
  load_matrix<<<1, 32>>>(dh, dm);
  std::printf("ldmatrix %.0f\n", checksum(download(dm, 32)));

  int* dsh;
  CHECK(cudaMalloc(&dsh, 128 * sizeof(int)));
  shuffled_pointer<<<1, 128>>>(dsh);
  std::printf("shuffled_pointer %.0f\n", checksum(download(dsh, 128)));

  placement<<<1, 64>>>(dl, dout);
  std::printf("placement %.3f\n", checksum(download(dout, 64)));

  int *sums, *scans, *sorted;
  CHECK(cudaMalloc(&sums, sizeof(int)));
  CHECK(cudaMalloc(&scans, 128 * sizeof(int)));
  CHECK(cudaMalloc(&sorted, 512 * sizeof(int)));
  cub_blocks<<<1, 128>>>(di, sums, scans, sorted);
  std::printf("cub sum %.0f scan %.0f sort %.0f\n", checksum(download(sums, 1)), checksum(download(scans, 128)),
              checksum(download(sorted, 512)));

  groups<<<1, 256>>>(di, dr);
  std::printf("groups %.0f\n", checksum(download(dr, 1)));
  std::printf("done\n");
}
