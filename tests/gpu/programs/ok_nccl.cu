// cucatch-expect: clean
// cucatch-needs-gpus: 2
// cucatch-link: -lnccl
// cucatch-expect-tagged
// cucatch-expect-checked: fill
// cucatch-jit-expect-note: JIT mode leaves the CUDA libraries' own kernels uninstrumented
// NCCL called directly with the program's own cudaMalloc buffers, one process driving two GPUs
// (ncclCommInitAll): NCCL keeps the buffers' addresses in work descriptors its kernels read from
// memory, where no launch untags them, so with tags on they get tagged pointers, as cuFFT's
// kernels did (ok_cufft, where cucatch must untag). NCCL 2.28's run correctly with them (H200,
// 2026-11-28, with no NCCL-specific handling in cucatch): this program keeps it so. Every
// collective and point-to-point call that takes a buffer, buffers registered with
// ncclCommRegister, and a PreMulSum operation whose scalar lives in device memory; each result
// is compared with the host's.
#include <nccl.h>
#include <cstdint>
#include <vector>
#include "common.h"
#define NCCL(call)                                                                           \
  do {                                                                                       \
    ncclResult_t r_ = (call);                                                                \
    if (r_ != ncclSuccess) {                                                                 \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, ncclGetErrorString(r_)); \
      std::exit(2);                                                                          \
    }                                                                                        \
  } while (0)

constexpr int kRanks = 2;
constexpr size_t kCount = 1 << 16;  // elements per rank's block

// Rank r's element i: distinct per rank and per element, exact in float.
__host__ __device__ float value(int rank, size_t i) { return float((i % 1000) + 1000 * (rank + 1)); }

__global__ void fill(float* p, size_t n, int rank) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    p[i] = value(rank, i);
}

struct Rank {
  float* send;  // kRanks * kCount elements: one block per peer where a call needs that many
  float* recv;  // kRanks * kCount elements
  float* scalar;  // one float, PreMulSum's factor
  cudaStream_t stream;
};

// Runs `call(rank, comm)` on every rank inside one group (whose calls NCCL may run in any order),
// waits, and checks each rank's first `n` elements of `result` against `want(rank, i)`.
template <class Call, class Want>
void collective(const char* name, std::vector<Rank>& ranks, ncclComm_t* comms, size_t n, Call call, Want want,
                float* Rank::*result = &Rank::recv) {
  for (int r = 0; r < kRanks; ++r) {
    CHECK(cudaSetDevice(r));
    CHECK(cudaMemsetAsync(ranks[r].recv, 0, kRanks * kCount * sizeof(float), ranks[r].stream));
  }
  NCCL(ncclGroupStart());
  for (int r = 0; r < kRanks; ++r) call(r, comms[r], ranks[r]);
  NCCL(ncclGroupEnd());
  size_t wrong = 0;
  for (int r = 0; r < kRanks; ++r) {
    CHECK(cudaSetDevice(r));
    CHECK(cudaStreamSynchronize(ranks[r].stream));
    std::vector<float> got(n);
    CHECK(cudaMemcpy(got.data(), ranks[r].*result, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n; ++i) wrong += got[i] != want(r, i);
  }
  std::printf("%-16s %s\n", name, wrong ? "WRONG" : "ok");
  if (wrong) std::exit(3);
}

int main() {
  int devices = 0;
  CHECK(cudaGetDeviceCount(&devices));
  if (devices < kRanks) {
    std::printf("needs %d GPUs, this machine has %d\n", kRanks, devices);
    return 77;
  }
  int ids[kRanks] = {0, 1};
  ncclComm_t comms[kRanks];
  NCCL(ncclCommInitAll(comms, kRanks, ids));

  std::vector<Rank> ranks(kRanks);
  for (int r = 0; r < kRanks; ++r) {
    CHECK(cudaSetDevice(r));
    CHECK(cudaStreamCreate(&ranks[r].stream));
    CHECK(cudaMalloc(&ranks[r].send, kRanks * kCount * sizeof(float)));
    CHECK(cudaMalloc(&ranks[r].recv, kRanks * kCount * sizeof(float)));
    CHECK(cudaMalloc(&ranks[r].scalar, sizeof(float)));
    fill<<<64, 256, 0, ranks[r].stream>>>(ranks[r].send, kRanks * kCount, r);
    CHECK(cudaGetLastError());
    const float half = 0.5f;
    CHECK(cudaMemcpyAsync(ranks[r].scalar, &half, sizeof half, cudaMemcpyHostToDevice, ranks[r].stream));
  }
  sayWhetherTagged(ranks[0].send);
  const size_t n = kCount;

  collective("allreduce", ranks, comms, n,
             [&](int, ncclComm_t c, Rank& k) { NCCL(ncclAllReduce(k.send, k.recv, n, ncclFloat, ncclSum, c, k.stream)); },
             [](int, size_t i) { return value(0, i) + value(1, i); });
  collective("broadcast", ranks, comms, n,
             [&](int, ncclComm_t c, Rank& k) { NCCL(ncclBroadcast(k.send, k.recv, n, ncclFloat, 1, c, k.stream)); },
             [](int, size_t i) { return value(1, i); });
  collective("reduce", ranks, comms, n,
             [&](int, ncclComm_t c, Rank& k) { NCCL(ncclReduce(k.send, k.recv, n, ncclFloat, ncclMax, 0, c, k.stream)); },
             [](int r, size_t i) { return r == 0 ? value(1, i) : 0.0f; });
  collective("allgather", ranks, comms, kRanks * n,
             [&](int, ncclComm_t c, Rank& k) { NCCL(ncclAllGather(k.send, k.recv, n, ncclFloat, c, k.stream)); },
             [](int, size_t i) { return value(int(i / kCount), i % kCount); });
  collective("reducescatter", ranks, comms, n,
             [&](int, ncclComm_t c, Rank& k) {
               NCCL(ncclReduceScatter(k.send, k.recv, n, ncclFloat, ncclSum, c, k.stream));
             },
             [](int r, size_t i) { return value(0, r * kCount + i) + value(1, r * kCount + i); });
  collective("alltoall", ranks, comms, kRanks * n,
             [&](int, ncclComm_t c, Rank& k) { NCCL(ncclAlltoAll(k.send, k.recv, n, ncclFloat, c, k.stream)); },
             [](int r, size_t i) { return value(int(i / kCount), r * kCount + i % kCount); });
  collective("send/recv", ranks, comms, n,
             [&](int r, ncclComm_t c, Rank& k) {
               NCCL(ncclSend(k.send, n, ncclFloat, 1 - r, c, k.stream));
               NCCL(ncclRecv(k.recv, n, ncclFloat, 1 - r, c, k.stream));
             },
             [](int r, size_t i) { return value(1 - r, i); });
  // A factor in device memory, which NCCL's kernels read through the pointer it was given.
  ncclRedOp_t halfSum[kRanks];
  for (int r = 0; r < kRanks; ++r)
    NCCL(ncclRedOpCreatePreMulSum(&halfSum[r], ranks[r].scalar, ncclFloat, ncclScalarDevice, comms[r]));
  collective("premulsum", ranks, comms, n,
             [&](int r, ncclComm_t c, Rank& k) {
               NCCL(ncclAllReduce(k.send, k.recv, n, ncclFloat, halfSum[r], c, k.stream));
             },
             [](int, size_t i) { return 0.5f * value(0, i) + 0.5f * value(1, i); });
  for (int r = 0; r < kRanks; ++r) NCCL(ncclRedOpDestroy(halfSum[r], comms[r]));

  // Buffers registered with the communicator, then used by a collective.
  void* handles[2 * kRanks];
  for (int r = 0; r < kRanks; ++r) {
    CHECK(cudaSetDevice(r));
    NCCL(ncclCommRegister(comms[r], ranks[r].send, kRanks * kCount * sizeof(float), &handles[2 * r]));
    NCCL(ncclCommRegister(comms[r], ranks[r].recv, kRanks * kCount * sizeof(float), &handles[2 * r + 1]));
  }
  collective("registered", ranks, comms, n,
             [&](int, ncclComm_t c, Rank& k) { NCCL(ncclAllReduce(k.send, k.recv, n, ncclFloat, ncclSum, c, k.stream)); },
             [](int, size_t i) { return value(0, i) + value(1, i); });
  for (int r = 0; r < kRanks; ++r) {
    CHECK(cudaSetDevice(r));
    NCCL(ncclCommDeregister(comms[r], handles[2 * r]));
    NCCL(ncclCommDeregister(comms[r], handles[2 * r + 1]));
  }

  // Last, as it overwrites rank 1's send buffer with rank 0's.
  collective("bcast in place", ranks, comms, n,
             [&](int, ncclComm_t c, Rank& k) { NCCL(ncclBcast(k.send, n, ncclFloat, 0, c, k.stream)); },
             [](int, size_t i) { return value(0, i); }, &Rank::send);

  for (int r = 0; r < kRanks; ++r) {
    CHECK(cudaSetDevice(r));
    CHECK(cudaFree(ranks[r].send));
    CHECK(cudaFree(ranks[r].recv));
    CHECK(cudaFree(ranks[r].scalar));
    CHECK(cudaStreamDestroy(ranks[r].stream));
    NCCL(ncclCommDestroy(comms[r]));
  }
  std::printf("done\n");
  return 0;
}
