// Runtime-overhead benchmark: a handful of kernels with different memory-access patterns,
// built once with plain nvcc and once with cucatch-nvcc (and run under compute-sanitizer
// memcheck) by bench/overhead/run.py.
//
//   overhead [--kernel NAME[,NAME...]]... [--reps N] [--list] [--markers]
//
// Each kernel is timed with CUDA events and printed as one BENCH line (bench/common/
// bench_main.cuh). The checksum is a 64-bit FNV-1a hash, computed on the host, of the bytes
// the kernel wrote in its last run. Every kernel is deterministic (fixed grid sizes, no
// order-dependent floating-point atomics), so the checksum must be identical across builds,
// tools and devices.
//
// C++17, CUDA runtime only. Build: nvcc -arch=sm_90 -O3 -lineinfo -std=c++17 kernels.cu
#include <cuda_runtime.h>

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
// Driver
// ---------------------------------------------------------------------------------------

std::vector<Bench> allBenches() {
  return {makeSaxpy(),        makeStencil(),   makeSgemm(),     makeNbody(),      makePointerChase(),
          makeHistogram(),    makeReduction(), makeStencilHalo(), makeBlockScan()};
}

}  // namespace overhead

int main(int argc, char** argv) { return bench::benchMain(argc, argv, "overhead", overhead::allBenches()); }
