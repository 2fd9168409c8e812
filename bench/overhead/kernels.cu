// Runtime-overhead benchmark: a handful of kernels with different memory-access patterns,
// built once with plain nvcc and once with cucatch-nvcc (and run under compute-sanitizer
// memcheck) by bench/overhead/run.py.
//
//   overhead [--kernel NAME[,NAME...]]... [--reps N] [--list] [--kernel-names] [--markers]
//
// Each kernel is timed with CUDA events and printed as one BENCH line (bench/common/
// bench_main.cuh). The checksum is a 64-bit FNV-1a hash, computed on the host, of the bytes
// the kernel wrote in its last run. Every kernel is deterministic (fixed grid sizes, no
// order-dependent floating-point atomics), so the checksum must be identical across builds,
// tools and devices.
//
// C++17, CUDA runtime only. Build: nvcc -arch=sm_90 -O3 -lineinfo -std=c++17 kernels.cu
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include "../common/bench_main.cuh"

namespace overhead {

using bench::Bench;
using bench::deviceHash;
using bench::fnv1a;

// A cheap, deterministic per-index pseudo-random number (used by the init kernels).
__host__ __device__ inline uint32_t mix32(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}

__global__ void initFloats(float* out, size_t n, uint32_t seed, float lo, float hi) {
  size_t stride = size_t(gridDim.x) * blockDim.x;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    float u = float(mix32(uint32_t(i) * 2654435761U + seed) >> 8) * (1.0f / 16777216.0f);
    out[i] = lo + (hi - lo) * u;
  }
}

__global__ void initUints(uint32_t* out, size_t n, uint32_t seed) {
  size_t stride = size_t(gridDim.x) * blockDim.x;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    out[i] = mix32(uint32_t(i) ^ seed);
}

void fillFloats(float* dev, size_t n, uint32_t seed, float lo = -1.0f, float hi = 1.0f) {
  initFloats<<<1024, 256>>>(dev, n, seed, lo, hi);
  CHECK_LAUNCH();
}

void fillUints(uint32_t* dev, size_t n, uint32_t seed) {
  initUints<<<1024, 256>>>(dev, n, seed);
  CHECK_LAUNCH();
}

// ---------------------------------------------------------------------------------------
// 1. saxpy: z = a*x + y over 64 Mi floats. Pure streaming, memory-bound; one check per
//    access (or one per base, hoisted) is the whole instrumentation cost.
// ---------------------------------------------------------------------------------------

constexpr size_t kSaxpyN = size_t(64) << 20;

__global__ void saxpy(size_t n, float a, const float* __restrict__ x, const float* __restrict__ y,
                      float* __restrict__ z) {
  size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) z[i] = a * x[i] + y[i];
}

struct SaxpyState {
  float *x = nullptr, *y = nullptr, *z = nullptr;
};

Bench makeSaxpy() {
  auto s = std::make_shared<SaxpyState>();
  return Bench{
      "saxpy", "memory-bound streaming, 3 global accesses per thread",
      [s] {
        CHECK(cudaMalloc(&s->x, kSaxpyN * sizeof(float)));
        CHECK(cudaMalloc(&s->y, kSaxpyN * sizeof(float)));
        CHECK(cudaMalloc(&s->z, kSaxpyN * sizeof(float)));
        fillFloats(s->x, kSaxpyN, 1);
        fillFloats(s->y, kSaxpyN, 2);
      },
      {},
      [s] {
        unsigned blocks = unsigned((kSaxpyN + 255) / 256);
        saxpy<<<blocks, 256>>>(kSaxpyN, 2.5f, s->x, s->y, s->z);
        CHECK_LAUNCH();
      },
      [s] { return deviceHash(s->z, kSaxpyN); },
      [s] {
        CHECK(cudaFree(s->x));
        CHECK(cudaFree(s->y));
        CHECK(cudaFree(s->z));
      }};
}

// ---------------------------------------------------------------------------------------
// 2. stencil2d: 5-point Jacobi step on an 8192 x 8192 float grid (256 MiB in, 256 MiB out).
//    Memory-bound with neighbour reuse through L1/L2; five loads off one base per thread
//    (a coalescing opportunity), boundary branches.
// ---------------------------------------------------------------------------------------

constexpr int kStencilN = 8192;

__global__ void stencil2d(int n, const float* __restrict__ in, float* __restrict__ out) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= n || y >= n) return;
  size_t i = size_t(y) * n + x;
  if (x == 0 || y == 0 || x == n - 1 || y == n - 1) {
    out[i] = in[i];
    return;
  }
  out[i] = 0.5f * in[i] + 0.125f * (in[i - 1] + in[i + 1] + in[i - n] + in[i + n]);
}

struct StencilState {
  float *in = nullptr, *out = nullptr;
};

Bench makeStencil() {
  auto s = std::make_shared<StencilState>();
  const size_t cells = size_t(kStencilN) * kStencilN;
  return Bench{
      "stencil2d", "memory-bound 2D 5-point stencil, neighbour loads off one base",
      [s, cells] {
        CHECK(cudaMalloc(&s->in, cells * sizeof(float)));
        CHECK(cudaMalloc(&s->out, cells * sizeof(float)));
        fillFloats(s->in, cells, 3, 0.0f, 100.0f);
      },
      {},
      [s] {
        dim3 block(32, 8);
        dim3 grid((kStencilN + block.x - 1) / block.x, (kStencilN + block.y - 1) / block.y);
        stencil2d<<<grid, block>>>(kStencilN, s->in, s->out);
        CHECK_LAUNCH();
      },
      [s, cells] { return deviceHash(s->out, cells); },
      [s] {
        CHECK(cudaFree(s->in));
        CHECK(cudaFree(s->out));
      }};
}

// ---------------------------------------------------------------------------------------
// 3. sgemm: C = A * B, 1024^3, 32x32 shared-memory tiles, each thread computing 4 outputs
//    of a column. Compute-bound; the inner loop is shared-memory loads (static .shared
//    bounds checks) and FMAs, global accesses are per tile.
// ---------------------------------------------------------------------------------------

constexpr int kGemmN = 1024;
constexpr int kTile = 32;
constexpr int kRowsPerThread = 4;  // block is 32 x 8 threads, each computes 4 rows

__global__ void sgemmTiled(int n, const float* __restrict__ A, const float* __restrict__ B,
                           float* __restrict__ C) {
  __shared__ float As[kTile][kTile + 1];
  __shared__ float Bs[kTile][kTile + 1];
  int tx = threadIdx.x, ty = threadIdx.y;  // 32 x 8
  int col = blockIdx.x * kTile + tx;
  int rowBase = blockIdx.y * kTile;
  float acc[kRowsPerThread] = {0.0f, 0.0f, 0.0f, 0.0f};
  for (int t = 0; t < n; t += kTile) {
    for (int r = 0; r < kRowsPerThread; ++r) {
      int ly = ty + r * (kTile / kRowsPerThread);
      As[ly][tx] = A[size_t(rowBase + ly) * n + t + tx];
      Bs[ly][tx] = B[size_t(t + ly) * n + col];
    }
    __syncthreads();
#pragma unroll 8
    for (int k = 0; k < kTile; ++k) {
      float b = Bs[k][tx];
      for (int r = 0; r < kRowsPerThread; ++r)
        acc[r] += As[ty + r * (kTile / kRowsPerThread)][k] * b;
    }
    __syncthreads();
  }
  for (int r = 0; r < kRowsPerThread; ++r)
    C[size_t(rowBase + ty + r * (kTile / kRowsPerThread)) * n + col] = acc[r];
}

struct GemmState {
  float *a = nullptr, *b = nullptr, *c = nullptr;
};

Bench makeSgemm() {
  auto s = std::make_shared<GemmState>();
  const size_t elems = size_t(kGemmN) * kGemmN;
  return Bench{
      "sgemm", "compute-bound, shared-memory tiled inner loop",
      [s, elems] {
        CHECK(cudaMalloc(&s->a, elems * sizeof(float)));
        CHECK(cudaMalloc(&s->b, elems * sizeof(float)));
        CHECK(cudaMalloc(&s->c, elems * sizeof(float)));
        fillFloats(s->a, elems, 4);
        fillFloats(s->b, elems, 5);
      },
      {},
      [s] {
        dim3 block(kTile, kTile / kRowsPerThread);
        dim3 grid(kGemmN / kTile, kGemmN / kTile);
        sgemmTiled<<<grid, block>>>(kGemmN, s->a, s->b, s->c);
        CHECK_LAUNCH();
      },
      [s, elems] { return deviceHash(s->c, elems); },
      [s] {
        CHECK(cudaFree(s->a));
        CHECK(cudaFree(s->b));
        CHECK(cudaFree(s->c));
      }};
}

// ---------------------------------------------------------------------------------------
// 4. nbody: all-pairs gravitational acceleration for 16 Ki bodies, each thread looping
//    over every body through global memory (float4 loads, L1-resident). Compute-bound
//    with a global load in the hot loop: the case for hoisting/range-checking a loop's
//    checks.
// ---------------------------------------------------------------------------------------

constexpr int kBodies = 16384;

__global__ void nbodyForces(int n, const float4* __restrict__ pos, float4* __restrict__ acc) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float4 p = pos[i];
  float ax = 0.0f, ay = 0.0f, az = 0.0f;
#pragma unroll 4
  for (int j = 0; j < n; ++j) {
    float4 q = pos[j];
    float dx = q.x - p.x, dy = q.y - p.y, dz = q.z - p.z;
    float d2 = dx * dx + dy * dy + dz * dz + 1e-3f;
    float inv = rsqrtf(d2);
    float s = q.w * inv * inv * inv;
    ax += dx * s;
    ay += dy * s;
    az += dz * s;
  }
  acc[i] = make_float4(ax, ay, az, 0.0f);
}

struct NbodyState {
  float4 *pos = nullptr, *acc = nullptr;
};

Bench makeNbody() {
  auto s = std::make_shared<NbodyState>();
  return Bench{
      "nbody", "compute-bound, global float4 load in an O(n^2) loop",
      [s] {
        CHECK(cudaMalloc(&s->pos, kBodies * sizeof(float4)));
        CHECK(cudaMalloc(&s->acc, kBodies * sizeof(float4)));
        fillFloats(reinterpret_cast<float*>(s->pos), size_t(kBodies) * 4, 6, 0.1f, 10.0f);
      },
      {},
      [s] {
        nbodyForces<<<kBodies / 128, 128>>>(kBodies, s->pos, s->acc);
        CHECK_LAUNCH();
      },
      [s] { return deviceHash(s->acc, kBodies); },
      [s] {
        CHECK(cudaFree(s->pos));
        CHECK(cudaFree(s->acc));
      }};
}

// ---------------------------------------------------------------------------------------
// 5. pointer_chase: 8 Mi 16-byte nodes (128 MiB, far beyond L2) linked into one random
//    cycle through real device pointers stored in the nodes. 16 Ki threads (about 4 warps
//    per SM on an H100, too few to hide DRAM latency) each follow 1024 links from their own
//    start node and sum the node values. Latency-bound, and every load's address is a
//    pointer just loaded from memory: a fresh base (metadata look-up) per access, whose
//    latency adds to every hop -- the worst case for base & bounds schemes.
// ---------------------------------------------------------------------------------------

struct Node {
  Node* next;
  uint32_t value;
  uint32_t pad;
};
static_assert(sizeof(Node) == 16, "Node must be 16 bytes");

constexpr uint32_t kNodes = uint32_t(8) << 20;
constexpr int kChasers = 16 * 1024;
constexpr int kHops = 1024;

__global__ void linkNodes(Node* nodes, const uint32_t* __restrict__ next, uint32_t n) {
  uint32_t stride = gridDim.x * blockDim.x;
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    nodes[i].next = nodes + next[i];
    nodes[i].value = mix32(i) & 0xffffu;
    nodes[i].pad = 0;
  }
}

__global__ void pointerChase(const Node* nodes, uint32_t n, int chasers, int hops,
                             unsigned long long* __restrict__ sums) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= chasers) return;
  const Node* p = nodes + (uint64_t(t) * 2654435761ull) % n;
  unsigned long long sum = 0;
  for (int h = 0; h < hops; ++h) {
    sum += p->value;
    p = p->next;
  }
  sums[t] = sum;
}

struct ChaseState {
  Node* nodes = nullptr;
  unsigned long long* sums = nullptr;
};

Bench makePointerChase() {
  auto s = std::make_shared<ChaseState>();
  return Bench{
      "pointer_chase", "latency-bound linked-list traversal, a new base pointer per load",
      [s] {
        // Sattolo's algorithm: a uniformly random single cycle through all nodes, with a
        // fixed xorshift seed so every build and run walks the same list.
        std::vector<uint32_t> next(kNodes);
        for (uint32_t i = 0; i < kNodes; ++i) next[i] = i;
        uint64_t rng = 0x9e3779b97f4a7c15ull;
        for (uint32_t i = kNodes - 1; i > 0; --i) {
          rng ^= rng << 13;
          rng ^= rng >> 7;
          rng ^= rng << 17;
          uint32_t j = uint32_t(rng % i);  // j in [0, i): Sattolo, not Fisher-Yates
          std::swap(next[i], next[j]);
        }
        uint32_t* dnext = nullptr;
        CHECK(cudaMalloc(&s->nodes, size_t(kNodes) * sizeof(Node)));
        CHECK(cudaMalloc(&s->sums, kChasers * sizeof(unsigned long long)));
        CHECK(cudaMalloc(&dnext, size_t(kNodes) * sizeof(uint32_t)));
        CHECK(cudaMemcpy(dnext, next.data(), size_t(kNodes) * sizeof(uint32_t),
                         cudaMemcpyHostToDevice));
        linkNodes<<<1024, 256>>>(s->nodes, dnext, kNodes);
        CHECK_LAUNCH();
        CHECK(cudaDeviceSynchronize());
        CHECK(cudaFree(dnext));
      },
      {},
      [s] {
        pointerChase<<<kChasers / 128, 128>>>(s->nodes, kNodes, kChasers, kHops, s->sums);
        CHECK_LAUNCH();
      },
      [s] { return deviceHash(s->sums, kChasers); },
      [s] {
        CHECK(cudaFree(s->nodes));
        CHECK(cudaFree(s->sums));
      }};
}

// ---------------------------------------------------------------------------------------
// 6. histogram: 256-bin histogram of 256 Mi 32-bit hashed keys (1 GiB), skewed bins.
//    Per-block privatised bins in shared memory (shared atomics), merged with global
//    atomics. Streaming reads plus atomics in two spaces.
// ---------------------------------------------------------------------------------------

constexpr size_t kHistN = size_t(256) << 20;
constexpr int kBins = 256;

__global__ void histogram256(const uint32_t* __restrict__ keys, size_t n,
                             unsigned int* __restrict__ bins) {
  __shared__ unsigned int local[kBins];
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) local[b] = 0;
  __syncthreads();
  size_t stride = size_t(gridDim.x) * blockDim.x;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    uint32_t k = keys[i];
    // Skewed distribution (more contention on low bins): min of two bytes.
    uint32_t bin = min(k & 0xffu, (k >> 8) & 0xffu);
    atomicAdd(&local[bin], 1u);
  }
  __syncthreads();
  for (int b = threadIdx.x; b < kBins; b += blockDim.x)
    if (local[b] != 0) atomicAdd(&bins[b], local[b]);
}

struct HistState {
  uint32_t* keys = nullptr;
  unsigned int* bins = nullptr;
};

Bench makeHistogram() {
  auto s = std::make_shared<HistState>();
  return Bench{
      "histogram", "streaming reads, shared-memory and global atomics",
      [s] {
        CHECK(cudaMalloc(&s->keys, kHistN * sizeof(uint32_t)));
        CHECK(cudaMalloc(&s->bins, kBins * sizeof(unsigned int)));
        fillUints(s->keys, kHistN, 7);
      },
      [s] { CHECK(cudaMemset(s->bins, 0, kBins * sizeof(unsigned int))); },
      [s] {
        histogram256<<<1056, 256>>>(s->keys, kHistN, s->bins);
        CHECK_LAUNCH();
      },
      [s] { return deviceHash(s->bins, kBins); },
      [s] {
        CHECK(cudaFree(s->keys));
        CHECK(cudaFree(s->bins));
      }};
}

// ---------------------------------------------------------------------------------------
// 7. reduction: sum of 256 Mi floats (1 GiB), deterministic two-pass: grid-stride partial
//    sums with warp shuffles and a shared-memory block tree, then one block over the
//    partials.
// ---------------------------------------------------------------------------------------

constexpr size_t kReduceN = size_t(256) << 20;
constexpr int kReduceBlocks = 1024;
constexpr int kReduceThreads = 256;

__device__ float blockSum(float v) {
  __shared__ float warpSums[32];
  for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (lane == 0) warpSums[warp] = v;
  __syncthreads();
  int warps = (blockDim.x + 31) >> 5;
  v = threadIdx.x < warps ? warpSums[threadIdx.x] : 0.0f;
  if (warp == 0)
    for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
  return v;
}

__global__ void reducePartials(const float* __restrict__ in, size_t n,
                               float* __restrict__ partial) {
  float v = 0.0f;
  size_t stride = size_t(gridDim.x) * blockDim.x;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) v += in[i];
  v = blockSum(v);
  if (threadIdx.x == 0) partial[blockIdx.x] = v;
}

__global__ void reduceFinal(const float* __restrict__ partial, int n, float* __restrict__ out) {
  float v = 0.0f;
  for (int i = threadIdx.x; i < n; i += blockDim.x) v += partial[i];
  v = blockSum(v);
  if (threadIdx.x == 0) *out = v;
}

struct ReduceState {
  float *in = nullptr, *partial = nullptr, *out = nullptr;
};

Bench makeReduction() {
  auto s = std::make_shared<ReduceState>();
  return Bench{
      "reduction", "memory-bound grid-stride reduction, shuffles and shared memory, 2 launches",
      [s] {
        CHECK(cudaMalloc(&s->in, kReduceN * sizeof(float)));
        CHECK(cudaMalloc(&s->partial, kReduceBlocks * sizeof(float)));
        CHECK(cudaMalloc(&s->out, sizeof(float)));
        fillFloats(s->in, kReduceN, 8, 0.0f, 1.0f);
      },
      {},
      [s] {
        reducePartials<<<kReduceBlocks, kReduceThreads>>>(s->in, kReduceN, s->partial);
        CHECK_LAUNCH();
        reduceFinal<<<1, kReduceThreads>>>(s->partial, kReduceBlocks, s->out);
        CHECK_LAUNCH();
      },
      [s] { return deviceHash(s->partial, kReduceBlocks, deviceHash(s->out, 1)); },
      [s] {
        CHECK(cudaFree(s->in));
        CHECK(cudaFree(s->partial));
        CHECK(cudaFree(s->out));
      }};
}

// ---------------------------------------------------------------------------------------
// 8. stencil_halo: 1D radius-4 stencil over 64 Mi floats, each block staging its tile and
//    halo in shared memory. Memory-bound; nine shared loads per output (static .shared
//    bounds checks in the inner loop).
// ---------------------------------------------------------------------------------------

constexpr size_t kHaloN = size_t(64) << 20;
constexpr int kHaloR = 4;
constexpr int kHaloBlock = 256;

__global__ void stencilHalo(size_t n, const float* __restrict__ in, float* __restrict__ out) {
  __shared__ float tile[kHaloBlock + 2 * kHaloR];
  size_t g = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  int l = threadIdx.x + kHaloR;
  tile[l] = in[g];
  if (threadIdx.x < kHaloR) {
    tile[l - kHaloR] = g >= kHaloR ? in[g - kHaloR] : 0.0f;
    tile[l + kHaloBlock] = g + kHaloBlock < n ? in[g + kHaloBlock] : 0.0f;
  }
  __syncthreads();
  float v = 0.0f;
#pragma unroll
  for (int k = -kHaloR; k <= kHaloR; ++k) v += tile[l + k] * (1.0f / (2 * kHaloR + 1));
  out[g] = v;
}

struct HaloState {
  float *in = nullptr, *out = nullptr;
};

Bench makeStencilHalo() {
  auto s = std::make_shared<HaloState>();
  return Bench{
      "stencil_halo", "1D stencil through a shared tile with halo, shared loads in the loop",
      [s] {
        CHECK(cudaMalloc(&s->in, kHaloN * sizeof(float)));
        CHECK(cudaMalloc(&s->out, kHaloN * sizeof(float)));
        fillFloats(s->in, kHaloN, 9, 0.0f, 1.0f);
      },
      {},
      [s] {
        stencilHalo<<<kHaloN / kHaloBlock, kHaloBlock>>>(kHaloN, s->in, s->out);
        CHECK_LAUNCH();
      },
      [s] { return deviceHash(s->out, kHaloN); },
      [s] {
        CHECK(cudaFree(s->in));
        CHECK(cudaFree(s->out));
      }};
}

// ---------------------------------------------------------------------------------------
// 9. block_scan: inclusive prefix sums of 1024-element segments of 64 Mi uints, one block
//    per segment, Hillis-Steele in dynamic shared memory (double-buffered). Shared loads
//    and stores dominate; the bounds of extern __shared__ come from %dynamic_smem_size.
// ---------------------------------------------------------------------------------------

constexpr size_t kScanN = size_t(64) << 20;
constexpr int kScanBlock = 1024;

__global__ void blockScan(const uint32_t* __restrict__ in, uint32_t* __restrict__ out) {
  extern __shared__ uint32_t buf[];  // 2 * blockDim.x
  int t = threadIdx.x, n = blockDim.x;
  size_t g = size_t(blockIdx.x) * n + t;
  int from = 0, to = n;
  buf[t] = in[g] & 0xffu;
  __syncthreads();
  for (int d = 1; d < n; d <<= 1) {
    buf[to + t] = t >= d ? buf[from + t] + buf[from + t - d] : buf[from + t];
    __syncthreads();
    int swap = from;
    from = to;
    to = swap;
  }
  out[g] = buf[from + t];
}

struct ScanState {
  uint32_t *in = nullptr, *out = nullptr;
};

Bench makeBlockScan() {
  auto s = std::make_shared<ScanState>();
  return Bench{
      "block_scan", "block-wide scan in dynamic shared memory, shared loads and stores",
      [s] {
        CHECK(cudaMalloc(&s->in, kScanN * sizeof(uint32_t)));
        CHECK(cudaMalloc(&s->out, kScanN * sizeof(uint32_t)));
        fillUints(s->in, kScanN, 10);
      },
      {},
      [s] {
        blockScan<<<kScanN / kScanBlock, kScanBlock, 2 * kScanBlock * sizeof(uint32_t)>>>(s->in, s->out);
        CHECK_LAUNCH();
      },
      [s] { return deviceHash(s->out, kScanN); },
      [s] {
        CHECK(cudaFree(s->in));
        CHECK(cudaFree(s->out));
      }};
}

// ---------------------------------------------------------------------------------------
// Shared by spmv and bfs: the row pointers of a CSR matrix (or graph) with rows of uneven
// length, computable in closed form on the device so that no scan is needed to build them.
// Rows come in pairs of lengths mean - d and mean + d (d pseudo-random in [0, spread]), so
// every pair starts at a multiple of 2 * mean.
// ---------------------------------------------------------------------------------------

__host__ __device__ inline uint32_t pairedRowStart(uint32_t row, uint32_t mean, uint32_t spread,
                                                   uint32_t seed) {
  uint32_t pair = row >> 1;
  uint32_t start = pair * 2 * mean;
  if (row & 1) start += mean - mix32(pair ^ seed) % (spread + 1);
  return start;
}

// rowPtr[0..rows] and, for every nonzero, a pseudo-random column in [0, cols).
__global__ void initCsr(uint32_t* __restrict__ rowPtr, uint32_t* __restrict__ colIdx, uint32_t rows,
                        uint32_t cols, uint32_t mean, uint32_t spread, uint32_t seed) {
  uint32_t stride = gridDim.x * blockDim.x;
  uint32_t nnz = pairedRowStart(rows, mean, spread, seed);  // rows is even: = rows * mean
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i <= rows; i += stride)
    rowPtr[i] = pairedRowStart(i, mean, spread, seed);
  for (uint32_t j = blockIdx.x * blockDim.x + threadIdx.x; j < nnz; j += stride)
    colIdx[j] = mix32(j * 2654435761U + seed) % cols;
}

// ---------------------------------------------------------------------------------------
// 10. spmv: y = A * x for a 4 Mi x 4 Mi CSR matrix with 8..24 (mean 16) nonzeros per row
//     at pseudo-random columns (64 Mi nonzeros, 512 MiB of values and column indices), one
//     warp per row. Streaming loads of vals/colIdx plus a gather x[colIdx[j]] whose index
//     was just loaded from memory (x, 16 MiB, stays in L2); row bounds read from rowPtr.
//     The per-row sum is a fixed shuffle tree, so y is deterministic.
// ---------------------------------------------------------------------------------------

constexpr uint32_t kSpmvRows = uint32_t(4) << 20;
constexpr uint32_t kSpmvMean = 16;
constexpr uint32_t kSpmvSpread = 8;
constexpr uint32_t kSpmvSeed = 11;
constexpr size_t kSpmvNnz = size_t(kSpmvRows) * kSpmvMean;

__global__ void spmvCsr(uint32_t rows, const uint32_t* __restrict__ rowPtr,
                        const uint32_t* __restrict__ colIdx, const float* __restrict__ vals,
                        const float* __restrict__ x, float* __restrict__ y) {
  uint32_t row = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  int lane = threadIdx.x & 31;
  if (row >= rows) return;  // whole warps leave together: blockDim.x is a multiple of 32
  uint32_t begin = rowPtr[row], end = rowPtr[row + 1];
  float sum = 0.0f;
  for (uint32_t j = begin + lane; j < end; j += 32) sum += vals[j] * x[colIdx[j]];
  for (int off = 16; off > 0; off >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, off);
  if (lane == 0) y[row] = sum;
}

struct SpmvState {
  uint32_t *rowPtr = nullptr, *colIdx = nullptr;
  float *vals = nullptr, *x = nullptr, *y = nullptr;
};

Bench makeSpmv() {
  auto s = std::make_shared<SpmvState>();
  return Bench{
      "spmv", "CSR sparse matrix-vector product, gathers through loaded column indices",
      [s] {
        CHECK(cudaMalloc(&s->rowPtr, (kSpmvRows + 1) * sizeof(uint32_t)));
        CHECK(cudaMalloc(&s->colIdx, kSpmvNnz * sizeof(uint32_t)));
        CHECK(cudaMalloc(&s->vals, kSpmvNnz * sizeof(float)));
        CHECK(cudaMalloc(&s->x, kSpmvRows * sizeof(float)));
        CHECK(cudaMalloc(&s->y, kSpmvRows * sizeof(float)));
        initCsr<<<1024, 256>>>(s->rowPtr, s->colIdx, kSpmvRows, kSpmvRows, kSpmvMean, kSpmvSpread,
                               kSpmvSeed);
        CHECK_LAUNCH();
        fillFloats(s->vals, kSpmvNnz, 12);
        fillFloats(s->x, kSpmvRows, 13);
      },
      {},
      [s] {
        constexpr unsigned threads = 256;  // 8 rows per block
        unsigned blocks = unsigned((size_t(kSpmvRows) * 32 + threads - 1) / threads);
        spmvCsr<<<blocks, threads>>>(kSpmvRows, s->rowPtr, s->colIdx, s->vals, s->x, s->y);
        CHECK_LAUNCH();
      },
      [s] { return deviceHash(s->y, kSpmvRows); },
      [s] {
        CHECK(cudaFree(s->rowPtr));
        CHECK(cudaFree(s->colIdx));
        CHECK(cudaFree(s->vals));
        CHECK(cudaFree(s->x));
        CHECK(cudaFree(s->y));
      }};
}

// ---------------------------------------------------------------------------------------
// 11. bfs: 12 level-synchronous BFS steps from vertex 0 over a random directed graph of
//     4 Mi vertices with 4..12 (mean 8) out-edges each (32 Mi edges), one launch per
//     level, one thread per vertex scanning the level array. Branchy and irregular:
//     frontier vertices read their edge lists and load/store the levels of random
//     neighbours. Racing writers of a vertex's level all write the same value (the next
//     level), so the levels are deterministic.
// ---------------------------------------------------------------------------------------

constexpr uint32_t kBfsVertices = uint32_t(4) << 20;
constexpr uint32_t kBfsMeanDegree = 8;
constexpr uint32_t kBfsSpread = 4;
constexpr uint32_t kBfsSeed = 14;
constexpr size_t kBfsEdges = size_t(kBfsVertices) * kBfsMeanDegree;
constexpr uint32_t kBfsSteps = 12;  // the graph's depth from vertex 0 is about 9
constexpr uint32_t kUnvisited = 0xffffffffu;

__global__ void bfsStep(uint32_t n, uint32_t level, const uint32_t* __restrict__ rowPtr,
                        const uint32_t* __restrict__ adj, uint32_t* levels) {
  uint32_t v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= n || levels[v] != level) return;
  for (uint32_t e = rowPtr[v], end = rowPtr[v + 1]; e < end; ++e) {
    uint32_t u = adj[e];
    if (levels[u] == kUnvisited) levels[u] = level + 1;
  }
}

struct BfsState {
  uint32_t *rowPtr = nullptr, *adj = nullptr, *levels = nullptr;
};

Bench makeBfs() {
  auto s = std::make_shared<BfsState>();
  return Bench{
      "bfs", "level-synchronous BFS, irregular gathers and racy same-value stores, 12 launches",
      [s] {
        CHECK(cudaMalloc(&s->rowPtr, (kBfsVertices + 1) * sizeof(uint32_t)));
        CHECK(cudaMalloc(&s->adj, kBfsEdges * sizeof(uint32_t)));
        CHECK(cudaMalloc(&s->levels, kBfsVertices * sizeof(uint32_t)));
        initCsr<<<1024, 256>>>(s->rowPtr, s->adj, kBfsVertices, kBfsVertices, kBfsMeanDegree,
                               kBfsSpread, kBfsSeed);
        CHECK_LAUNCH();
      },
      [s] {
        // Every vertex unvisited (all bytes 0xff), the source at level 0.
        CHECK(cudaMemset(s->levels, 0xff, kBfsVertices * sizeof(uint32_t)));
        CHECK(cudaMemset(s->levels, 0, sizeof(uint32_t)));
      },
      [s] {
        for (uint32_t level = 0; level < kBfsSteps; ++level) {
          bfsStep<<<kBfsVertices / 256, 256>>>(kBfsVertices, level, s->rowPtr, s->adj, s->levels);
          CHECK_LAUNCH();
        }
      },
      [s] { return deviceHash(s->levels, kBfsVertices); },
      [s] {
        CHECK(cudaFree(s->rowPtr));
        CHECK(cudaFree(s->adj));
        CHECK(cudaFree(s->levels));
      }};
}

// ---------------------------------------------------------------------------------------
// 12. transpose: out = in^T for a 12288 x 8192 float matrix (384 MiB each way), through a
//     32 x 33 shared tile (the padding column avoids bank conflicts on the column reads),
//     each thread moving 4 elements. Memory-bound; coalesced global loads and stores,
//     shared accesses with a row stride of 33.
// ---------------------------------------------------------------------------------------

constexpr int kTransRows = 12288;
constexpr int kTransCols = 8192;
constexpr int kTransTile = 32;
constexpr int kTransBlockRows = 8;

__global__ void transposeTiled(int rows, int cols, const float* __restrict__ in,
                               float* __restrict__ out) {
  __shared__ float tile[kTransTile][kTransTile + 1];
  int x = blockIdx.x * kTransTile + threadIdx.x;  // column of in
  int y = blockIdx.y * kTransTile + threadIdx.y;  // row of in
  for (int r = 0; r < kTransTile; r += kTransBlockRows)
    if (x < cols && y + r < rows) tile[threadIdx.y + r][threadIdx.x] = in[size_t(y + r) * cols + x];
  __syncthreads();
  x = blockIdx.y * kTransTile + threadIdx.x;  // column of out = row of in
  y = blockIdx.x * kTransTile + threadIdx.y;  // row of out = column of in
  for (int r = 0; r < kTransTile; r += kTransBlockRows)
    if (x < rows && y + r < cols) out[size_t(y + r) * rows + x] = tile[threadIdx.x][threadIdx.y + r];
}

struct TransposeState {
  float *in = nullptr, *out = nullptr;
};

Bench makeTranspose() {
  auto s = std::make_shared<TransposeState>();
  const size_t elems = size_t(kTransRows) * kTransCols;
  return Bench{
      "transpose", "tiled transpose through a padded 32x33 shared tile",
      [s, elems] {
        CHECK(cudaMalloc(&s->in, elems * sizeof(float)));
        CHECK(cudaMalloc(&s->out, elems * sizeof(float)));
        fillFloats(s->in, elems, 15);
      },
      {},
      [s] {
        dim3 block(kTransTile, kTransBlockRows);
        dim3 grid((kTransCols + kTransTile - 1) / kTransTile, (kTransRows + kTransTile - 1) / kTransTile);
        transposeTiled<<<grid, block>>>(kTransRows, kTransCols, s->in, s->out);
        CHECK_LAUNCH();
      },
      [s, elems] { return deviceHash(s->out, elems); },
      [s] {
        CHECK(cudaFree(s->in));
        CHECK(cudaFree(s->out));
      }};
}

// ---------------------------------------------------------------------------------------
// 13. conv2d: 7x7 convolution of an 8192 x 8192 float image (256 MiB in, 256 MiB out),
//     clamp-to-edge, the filter in a __constant__ array. 49 global loads per output off
//     one base (L1/L2 reuse, no shared tile) and 49 constant loads with compile-time
//     offsets: many accesses per thread, few distinct bases.
// ---------------------------------------------------------------------------------------

constexpr int kConvN = 8192;
constexpr int kConvR = 3;
constexpr int kConvW = 2 * kConvR + 1;

__constant__ float convFilter[kConvW * kConvW];

__global__ void conv2d(int n, const float* __restrict__ in, float* __restrict__ out) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= n || y >= n) return;
  float acc = 0.0f;
#pragma unroll
  for (int dy = -kConvR; dy <= kConvR; ++dy) {
    int yy = min(max(y + dy, 0), n - 1);
    const float* row = in + size_t(yy) * n;
#pragma unroll
    for (int dx = -kConvR; dx <= kConvR; ++dx) {
      int xx = min(max(x + dx, 0), n - 1);
      acc += convFilter[(dy + kConvR) * kConvW + dx + kConvR] * row[xx];
    }
  }
  out[size_t(y) * n + x] = acc;
}

struct ConvState {
  float *in = nullptr, *out = nullptr;
};

Bench makeConv2d() {
  auto s = std::make_shared<ConvState>();
  const size_t cells = size_t(kConvN) * kConvN;
  return Bench{
      "conv2d", "7x7 convolution, filter in __constant__, 49 global loads per output",
      [s, cells] {
        // Filter weights that are exact in binary (k/256), the same on every host.
        float filter[kConvW * kConvW];
        for (int i = 0; i < kConvW * kConvW; ++i) filter[i] = float(1 + mix32(uint32_t(i)) % 16) / 256.0f;
        CHECK(cudaMemcpyToSymbol(convFilter, filter, sizeof(filter)));
        CHECK(cudaMalloc(&s->in, cells * sizeof(float)));
        CHECK(cudaMalloc(&s->out, cells * sizeof(float)));
        fillFloats(s->in, cells, 16, 0.0f, 1.0f);
      },
      {},
      [s] {
        dim3 block(32, 8);
        dim3 grid((kConvN + block.x - 1) / block.x, (kConvN + block.y - 1) / block.y);
        conv2d<<<grid, block>>>(kConvN, s->in, s->out);
        CHECK_LAUNCH();
      },
      [s, cells] { return deviceHash(s->out, cells); },
      [s] {
        CHECK(cudaFree(s->in));
        CHECK(cudaFree(s->out));
      }};
}

// ---------------------------------------------------------------------------------------
// 14. bitonic_sort: 16 Mi 32-bit keys sorted in independent segments of 2048, one block of
//     1024 threads per segment, bitonic network in shared memory (66 compare-exchange
//     stages, each behind a __syncthreads). Shared loads and stores at data-independent
//     but stage-dependent strides dominate.
// ---------------------------------------------------------------------------------------

constexpr size_t kSortN = size_t(16) << 20;
constexpr int kSortSegment = 2048;
constexpr int kSortThreads = kSortSegment / 2;

__global__ void bitonicSortSegments(const uint32_t* __restrict__ in, uint32_t* __restrict__ out) {
  __shared__ uint32_t keys[kSortSegment];
  size_t base = size_t(blockIdx.x) * kSortSegment;
  int t = threadIdx.x;
  keys[t] = in[base + t];
  keys[t + kSortThreads] = in[base + t + kSortThreads];
  __syncthreads();
  for (int k = 2; k <= kSortSegment; k <<= 1) {
    for (int j = k >> 1; j > 0; j >>= 1) {
      int i = 2 * t - (t & (j - 1));  // the lower element of this thread's pair
      bool ascending = (i & k) == 0;
      uint32_t a = keys[i], b = keys[i + j];
      if ((a > b) == ascending) {
        keys[i] = b;
        keys[i + j] = a;
      }
      __syncthreads();
    }
  }
  out[base + t] = keys[t];
  out[base + t + kSortThreads] = keys[t + kSortThreads];
}

struct SortState {
  uint32_t *in = nullptr, *out = nullptr;
};

Bench makeBitonicSort() {
  auto s = std::make_shared<SortState>();
  return Bench{
      "bitonic_sort", "per-block bitonic sort of 2048 keys in shared memory, 66 barriers",
      [s] {
        CHECK(cudaMalloc(&s->in, kSortN * sizeof(uint32_t)));
        CHECK(cudaMalloc(&s->out, kSortN * sizeof(uint32_t)));
        fillUints(s->in, kSortN, 17);
      },
      {},
      [s] {
        bitonicSortSegments<<<kSortN / kSortSegment, kSortThreads>>>(s->in, s->out);
        CHECK_LAUNCH();
      },
      [s] { return deviceHash(s->out, kSortN); },
      [s] {
        CHECK(cudaFree(s->in));
        CHECK(cudaFree(s->out));
      }};
}

// ---------------------------------------------------------------------------------------
// 15. softmax: row-wise softmax of a 64 Ki x 1024 float matrix (256 MiB in and out), one
//     warp per row holding its 1024 values in registers (32 per lane), max and sum by
//     butterfly shuffles. Memory-bound, with exp per element; every lane ends with the
//     same max and sum (fixed shuffle order), so the output is deterministic.
// ---------------------------------------------------------------------------------------

constexpr int kSoftmaxRows = 64 * 1024;
constexpr int kSoftmaxCols = 1024;
constexpr int kSoftmaxPerLane = kSoftmaxCols / 32;

__global__ void softmaxRows(int rows, const float* __restrict__ in, float* __restrict__ out) {
  int row = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  int lane = threadIdx.x & 31;
  if (row >= rows) return;  // whole warps leave together
  const float* src = in + size_t(row) * kSoftmaxCols;
  float* dst = out + size_t(row) * kSoftmaxCols;
  float v[kSoftmaxPerLane];
  float m = -INFINITY;
#pragma unroll
  for (int k = 0; k < kSoftmaxPerLane; ++k) {
    v[k] = src[k * 32 + lane];
    m = fmaxf(m, v[k]);
  }
  for (int off = 16; off > 0; off >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, off));
  float sum = 0.0f;
#pragma unroll
  for (int k = 0; k < kSoftmaxPerLane; ++k) {
    v[k] = __expf(v[k] - m);
    sum += v[k];
  }
  for (int off = 16; off > 0; off >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, off);
  float inv = 1.0f / sum;
#pragma unroll
  for (int k = 0; k < kSoftmaxPerLane; ++k) dst[k * 32 + lane] = v[k] * inv;
}

struct SoftmaxState {
  float *in = nullptr, *out = nullptr;
};

Bench makeSoftmax() {
  auto s = std::make_shared<SoftmaxState>();
  const size_t elems = size_t(kSoftmaxRows) * kSoftmaxCols;
  return Bench{
      "softmax", "row softmax, one warp per row, shuffle max and sum",
      [s, elems] {
        CHECK(cudaMalloc(&s->in, elems * sizeof(float)));
        CHECK(cudaMalloc(&s->out, elems * sizeof(float)));
        fillFloats(s->in, elems, 18, -8.0f, 8.0f);
      },
      {},
      [s] {
        constexpr unsigned threads = 256;  // 8 rows per block
        softmaxRows<<<kSoftmaxRows * 32 / threads, threads>>>(kSoftmaxRows, s->in, s->out);
        CHECK_LAUNCH();
      },
      [s, elems] { return deviceHash(s->out, elems); },
      [s] {
        CHECK(cudaFree(s->in));
        CHECK(cudaFree(s->out));
      }};
}

// ---------------------------------------------------------------------------------------
// 16. local_array: 1 Mi threads each insertion-sort 32 floats (read coalesced from a
//     128 MiB input) in a per-thread array `float v[32]` and write four order statistics.
//     The data-dependent indices keep v in local memory (ptxas: a 128-byte stack frame),
//     so the hot loop is local loads and stores: the case for checks on .local accesses
//     (or for proving them in bounds and leaving them out).
// ---------------------------------------------------------------------------------------

constexpr int kLocalThreads = 1 << 20;
constexpr int kLocalValues = 32;

__global__ void localArraySort(int threads, const float* __restrict__ in, float4* __restrict__ out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= threads) return;
  float v[kLocalValues];
  for (int k = 0; k < kLocalValues; ++k) {
    float x = in[size_t(k) * threads + t];
    int j = k;
    while (j > 0 && v[j - 1] > x) {  // shift the larger ones up: data-dependent index j
      v[j] = v[j - 1];
      --j;
    }
    v[j] = x;
  }
  out[t] = make_float4(v[0], v[kLocalValues / 4], v[kLocalValues / 2], v[kLocalValues - 1]);
}

struct LocalState {
  float* in = nullptr;
  float4* out = nullptr;
};

Bench makeLocalArray() {
  auto s = std::make_shared<LocalState>();
  const size_t elems = size_t(kLocalThreads) * kLocalValues;
  return Bench{
      "local_array", "per-thread array in local memory, data-dependent local loads/stores",
      [s, elems] {
        CHECK(cudaMalloc(&s->in, elems * sizeof(float)));
        CHECK(cudaMalloc(&s->out, kLocalThreads * sizeof(float4)));
        fillFloats(s->in, elems, 19);
      },
      {},
      [s] {
        localArraySort<<<kLocalThreads / 128, 128>>>(kLocalThreads, s->in, s->out);
        CHECK_LAUNCH();
      },
      [s] { return deviceHash(s->out, kLocalThreads); },
      [s] {
        CHECK(cudaFree(s->in));
        CHECK(cudaFree(s->out));
      }};
}

// ---------------------------------------------------------------------------------------
// 17. local_histogram: 1 Mi threads each count 64 keys into a private 32-bin histogram
//     `uint32_t bins[32]` (data-dependent bins keep it in local memory) and write a digest.
//     Local read-modify-writes at a variable index: the per-thread histogram of issue 10.
// ---------------------------------------------------------------------------------------

constexpr int kLocalHistThreads = 1 << 20;
constexpr int kLocalHistKeys = 64;

__global__ void localHistogram(int threads, const uint32_t* __restrict__ keys, uint32_t* __restrict__ out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= threads) return;
  uint32_t bins[32];
  for (int b = 0; b < 32; ++b) bins[b] = 0;
  for (int k = 0; k < kLocalHistKeys; ++k) bins[keys[size_t(k) * threads + t] & 31u] += 1;
  uint32_t digest = 0;
  for (int b = 0; b < 32; ++b) digest = digest * 31u + bins[b];
  out[t] = digest;
}

struct LocalHistState {
  uint32_t* keys = nullptr;
  uint32_t* out = nullptr;
};

Bench makeLocalHistogram() {
  auto s = std::make_shared<LocalHistState>();
  const size_t elems = size_t(kLocalHistThreads) * kLocalHistKeys;
  return Bench{
      "local_histogram", "per-thread 32-bin histogram in local memory, read-modify-write at data-dependent bins",
      [s, elems] {
        CHECK(cudaMalloc(&s->keys, elems * sizeof(uint32_t)));
        CHECK(cudaMalloc(&s->out, kLocalHistThreads * sizeof(uint32_t)));
        fillUints(s->keys, elems, 20);
      },
      {},
      [s] {
        localHistogram<<<kLocalHistThreads / 128, 128>>>(kLocalHistThreads, s->keys, s->out);
        CHECK_LAUNCH();
      },
      [s] { return deviceHash(s->out, kLocalHistThreads); },
      [s] {
        CHECK(cudaFree(s->keys));
        CHECK(cudaFree(s->out));
      }};
}

// ---------------------------------------------------------------------------------------
// 18. local_recursion: 256 Ki threads each walk a depth-8 recursion whose every frame fills
//     a local array of 8 values from the input and indexes it by a data-dependent position:
//     local memory in a function with a stack frame of its own per call.
// ---------------------------------------------------------------------------------------

constexpr int kRecursionThreads = 1 << 18;
constexpr int kRecursionDepth = 8;

__device__ __noinline__ float recursiveMix(const float* __restrict__ in, int threads, int t, int depth) {
  float frame[8];
  for (int i = 0; i < 8; ++i) frame[i] = in[size_t((depth * 8 + i) % 64) * threads + t];
  int pick = static_cast<int>(fabsf(frame[depth % 8]) * 7.0f) & 7;
  float here = frame[pick] + frame[(pick + depth) & 7];
  return depth == 0 ? here : here * 0.5f + recursiveMix(in, threads, t, depth - 1);
}

__global__ void localRecursion(int threads, const float* __restrict__ in, float* __restrict__ out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < threads) out[t] = recursiveMix(in, threads, t, kRecursionDepth - 1);
}

struct RecursionState {
  float* in = nullptr;
  float* out = nullptr;
};

Bench makeLocalRecursion() {
  auto s = std::make_shared<RecursionState>();
  const size_t elems = size_t(kRecursionThreads) * 64;
  return Bench{
      "local_recursion", "recursion 8 deep, a local array per frame indexed at data-dependent positions",
      [s, elems] {
        CHECK(cudaMalloc(&s->in, elems * sizeof(float)));
        CHECK(cudaMalloc(&s->out, kRecursionThreads * sizeof(float)));
        fillFloats(s->in, elems, 21);
      },
      {},
      [s] {
        localRecursion<<<kRecursionThreads / 128, 128>>>(kRecursionThreads, s->in, s->out);
        CHECK_LAUNCH();
      },
      [s] { return deviceHash(s->out, kRecursionThreads); },
      [s] {
        CHECK(cudaFree(s->in));
        CHECK(cudaFree(s->out));
      }};
}

// ---------------------------------------------------------------------------------------
// Driver
// ---------------------------------------------------------------------------------------

// Each benchmark with the __global__ functions its run() launches, by their unqualified
// source names: `overhead --kernel-names` prints them, and run.py looks these functions up in
// `cuobjdump -res-usage` of both builds for its register and local-memory columns. A new
// benchmark that launches a new kernel adds its name here.
std::vector<Bench> allBenches() {
  return {bench::withKernels(makeSaxpy(), "saxpy"),
          bench::withKernels(makeStencil(), "stencil2d"),
          bench::withKernels(makeSgemm(), "sgemmTiled"),
          bench::withKernels(makeNbody(), "nbodyForces"),
          bench::withKernels(makePointerChase(), "pointerChase"),
          bench::withKernels(makeHistogram(), "histogram256"),
          bench::withKernels(makeReduction(), "reducePartials reduceFinal"),
          bench::withKernels(makeStencilHalo(), "stencilHalo"),
          bench::withKernels(makeBlockScan(), "blockScan"),
          bench::withKernels(makeSpmv(), "spmvCsr"),
          bench::withKernels(makeBfs(), "bfsStep"),
          bench::withKernels(makeTranspose(), "transposeTiled"),
          bench::withKernels(makeConv2d(), "conv2d"),
          bench::withKernels(makeBitonicSort(), "bitonicSortSegments"),
          bench::withKernels(makeSoftmax(), "softmaxRows"),
          bench::withKernels(makeLocalArray(), "localArraySort"),
          bench::withKernels(makeLocalHistogram(), "localHistogram"),
          bench::withKernels(makeLocalRecursion(), "localRecursion")};
}

}  // namespace overhead

int main(int argc, char** argv) { return bench::benchMain(argc, argv, "overhead", overhead::allBenches()); }
