// cucatch-expect: clean
// Eight host threads, each with a stream of its own, at once: stream-ordered allocations used
// and freed (some before any kernel sees them), ordinary cudaMalloc and cudaFree, and buffers
// handed to the next thread's stream through an event, many times over. cucatch's runtime takes
// every one of these calls under one lock, with the stream-ordered changes of eight streams
// kept pending at once (docs/design.md, "Kept pending until something could see them"). Each
// thread's result is exact and printed in thread order: the plain build's.
#include <atomic>
#include <thread>
#include <vector>

#include "common.h"

__global__ void fill(int* p, int n, int v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = v + i % 13;
}

__global__ void accumulate(const int* p, int n, unsigned long long* total) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(total, static_cast<unsigned long long>(p[i]));
}

constexpr int kThreads = 8, kRounds = 150, kN = 4096;

struct Slot {
  std::atomic<int> round{-1};  // the round whose buffer `handed` holds, made ready by `ready`
  int* handed = nullptr;
  cudaEvent_t ready = nullptr;
};

int main() {
  std::vector<Slot> slots(kThreads);
  std::vector<unsigned long long> results(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      cudaStream_t s;
      CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
      unsigned long long* total = nullptr;
      CHECK(cudaMalloc(&total, sizeof *total));
      CHECK(cudaMemsetAsync(total, 0, sizeof *total, s));
      Slot& mine = slots[t];
      Slot& theirs = slots[(t + kThreads - 1) % kThreads];
      CHECK(cudaEventCreateWithFlags(&mine.ready, cudaEventDisableTiming));
      for (int r = 0; r < kRounds; ++r) {
        // Made and dropped with no kernel between.
        void* unseen = nullptr;
        CHECK(cudaMallocAsync(&unseen, 1 << (10 + r % 6), s));
        CHECK(cudaFreeAsync(unseen, s));
        // Made, filled and used on this stream.
        int* a = nullptr;
        CHECK(cudaMallocAsync(&a, kN * sizeof(int), s));
        fill<<<kN / 256, 256, 0, s>>>(a, kN, t * 1000 + r);
        accumulate<<<kN / 256, 256, 0, s>>>(a, kN, total);
        // An ordinary allocation beside them.
        int* b = nullptr;
        CHECK(cudaMalloc(&b, 2048 * sizeof(int)));
        fill<<<8, 256, 0, s>>>(b, 2048, r);
        accumulate<<<8, 256, 0, s>>>(b, 2048, total);
        // Handed on: the previous thread reads it after the event, and frees it in its stream.
        while (mine.round.load() != -1) std::this_thread::yield();
        mine.handed = a;
        CHECK(cudaEventRecord(mine.ready, s));
        mine.round.store(r);
        while (theirs.round.load() != r) std::this_thread::yield();
        int* got = theirs.handed;
        CHECK(cudaStreamWaitEvent(s, theirs.ready, 0));
        theirs.round.store(-1);
        accumulate<<<kN / 256, 256, 0, s>>>(got, kN, total);
        CHECK(cudaFreeAsync(got, s));
        CHECK(cudaStreamSynchronize(s));
        CHECK(cudaFree(b));
      }
      unsigned long long host = 0;
      CHECK(cudaMemcpyAsync(&host, total, sizeof host, cudaMemcpyDeviceToHost, s));
      CHECK(cudaStreamSynchronize(s));
      results[t] = host;
      CHECK(cudaFree(total));
    });
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) std::printf("thread %d: %llu\n", t, results[t]);
  return 0;
}
