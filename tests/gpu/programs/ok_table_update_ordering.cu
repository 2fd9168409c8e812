// cucatch-expect: clean
// cucatch-env: CUCATCH_BST_CAPACITY=512
// Ordinary allocations and frees reach the device tables at the next launch, which waits for
// them on the device, never on the host (docs/design.md, "Device tables"). Every kernel here
// uses memory allocated just before its launch: on the legacy, per-thread, blocking and
// non-blocking streams, from several host threads, in a captured graph, and between
// stream-ordered allocations. A launch that ran ahead of its table update would see a stale
// entry and report a false violation. The small table (512 entries) makes entries freed by
// one allocation come back for the next ones, so stale updates would show.
#include <thread>
#include <vector>

#include "common.h"

__global__ void fill(int* p, int n, int v) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) p[i] = v + (i & 7);
}
__global__ void add(const int* p, int n, unsigned long long* total) {
  unsigned long long s = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) s += p[i];
  atomicAdd(total, s);
}

// Allocates, fills, sums and frees one buffer of n ints on `s`.
void oneRound(cudaStream_t s, int n, int v, unsigned long long* total) {
  int* p = nullptr;
  CHECK(cudaMalloc(&p, n * sizeof(int)));
  fill<<<8, 128, 0, s>>>(p, n, v);
  add<<<8, 128, 0, s>>>(p, n, total);
  CHECK(cudaGetLastError());
  CHECK(cudaStreamSynchronize(s));
  CHECK(cudaFree(p));
}

unsigned long long expected(int n, int v) {
  unsigned long long e = 0;
  for (int i = 0; i < n; ++i) e += v + (i & 7);
  return e;
}

int main() {
  unsigned long long* total = nullptr;
  CHECK(cudaMalloc(&total, 16 * sizeof(unsigned long long)));
  CHECK(cudaMemset(total, 0, 16 * sizeof(unsigned long long)));
  unsigned long long want[16] = {};

  // 1. Every kind of stream, buffers from 64 bytes to 4 MiB.
  cudaStream_t blocking, nonBlocking;
  CHECK(cudaStreamCreate(&blocking));
  CHECK(cudaStreamCreateWithFlags(&nonBlocking, cudaStreamNonBlocking));
  cudaStream_t kinds[4] = {0, cudaStreamPerThread, blocking, nonBlocking};
  for (int r = 0; r < 60; ++r)
    for (int k = 0; k < 4; ++k) {
      int n = 16 << ((r + k) % 17);
      oneRound(kinds[k], n, r, total + k);
      want[k] += expected(n, r);
    }

  // 2. Four host threads at once, each on a stream of its own.
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([t, total, &want] {
      cudaStream_t s;
      CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
      for (int r = 0; r < 100; ++r) {
        int n = 1000 + 37 * r;
        oneRound(s, n, r + t, total + 4 + t);
        want[4 + t] += expected(n, r + t);
      }
      CHECK(cudaStreamDestroy(s));
    });
  for (auto& t : threads) t.join();

  // 3. A graph captured right after an allocation, launched right after another one.
  int* q = nullptr;
  CHECK(cudaMalloc(&q, 4096 * sizeof(int)));
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CHECK(cudaStreamBeginCapture(nonBlocking, cudaStreamCaptureModeGlobal));
  fill<<<4, 128, 0, nonBlocking>>>(q, 4096, 5);
  add<<<4, 128, 0, nonBlocking>>>(q, 4096, total + 8);
  CHECK(cudaStreamEndCapture(nonBlocking, &graph));
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  for (int r = 0; r < 20; ++r) {
    int* other = nullptr;
    CHECK(cudaMalloc(&other, 256));
    CHECK(cudaGraphLaunch(exec, nonBlocking));
    CHECK(cudaStreamSynchronize(nonBlocking));
    CHECK(cudaFree(other));
    want[8] += expected(4096, 5);
  }
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(graph));
  CHECK(cudaFree(q));

  // 4. Stream-ordered allocations between ordinary ones, the table entries going round.
  for (int r = 0; r < 300; ++r) {
    int *a = nullptr, *b = nullptr;
    CHECK(cudaMalloc(&a, 512));
    CHECK(cudaFree(a));
    CHECK(cudaMallocAsync(&b, 2048 * sizeof(int), nonBlocking));
    fill<<<2, 128, 0, nonBlocking>>>(b, 2048, r);
    add<<<2, 128, 0, nonBlocking>>>(b, 2048, total + 9);
    CHECK(cudaFreeAsync(b, nonBlocking));
    want[9] += expected(2048, r);
  }
  CHECK(cudaDeviceSynchronize());

  unsigned long long got[16];
  CHECK(cudaMemcpy(got, total, sizeof got, cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int k = 0; k < 10; ++k)
    if (got[k] != want[k]) {
      std::printf("sum %d: %llu, expected %llu\n", k, got[k], want[k]);
      ++bad;
    }
  CHECK(cudaStreamDestroy(blocking));
  CHECK(cudaStreamDestroy(nonBlocking));
  CHECK(cudaFree(total));
  std::printf("%s\n", bad ? "WRONG" : "all sums right");
  return bad ? 1 : 0;
}
