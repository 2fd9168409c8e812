// Host-path benchmark: what the host pays for launches and allocations, built once with plain
// nvcc and once with cucatch-nvcc and run side by side by bench/overhead/run.py
// (--program host). Every benchmark is timed on the host's steady clock around a batch of
// operations and a device synchronization, and reports the time per operation (one BENCH
// line each, bench/common/bench_main.cuh):
//
//   launch_1stream      empty-kernel launches on one stream
//   launch_4streams     the same, round-robin over 4 streams
//   launch_4threads     4 host threads, each launching on its own stream
//   malloc_free         cudaMalloc + cudaFree of 1 MiB
//   malloc_async_free   cudaMallocAsync + cudaFreeAsync of 1 MiB on one stream
//   malloc_launch_free  cudaMalloc, a kernel writing the buffer, cudaFree
//   thrust_sort         thrust::sort of 1M 32-bit keys (Thrust allocates temporaries per call)
//
// The checksums hash what the kernels wrote and the sorted keys: identical in every build.
//
// C++17, CUDA runtime and Thrust only. Build: nvcc -arch=sm_90 -O3 -std=c++17 host_paths.cu
#include <cuda_runtime.h>
#include <thrust/copy.h>
#include <thrust/device_vector.h>
#include <thrust/sort.h>

#include <cstdint>
#include <thread>
#include <vector>

#include "../common/bench_main.cuh"

namespace host {

using bench::Bench;

constexpr unsigned kLaunches = 2000;
constexpr unsigned kPairs = 200;
constexpr size_t kBufferBytes = size_t(1) << 20;

// Instrumented like any kernel with a pointer (it has a checked store), but launched with
// n = 0 the store runs in no thread: a launch costs only its host path and an empty grid.
__global__ void empty(int* p, int n) {
  if (n > 0) p[n] = 1;
}

// One write per block into the buffer, and a running count of the launches.
__global__ void touch(int* p, int* count) {
  p[blockIdx.x * 1024 + threadIdx.x] = int(blockIdx.x);
  if (blockIdx.x == 0 && threadIdx.x == 0) atomicAdd(count, 1);
}

struct State {
  int* sink = nullptr;
  int* count = nullptr;
  std::vector<cudaStream_t> streams;
  thrust::device_vector<uint32_t> keys, work;
};
State& state() {
  static State s;
  return s;
}

void makeStreams(unsigned n) {
  for (unsigned i = 0; i < n; ++i) {
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    state().streams.push_back(s);
  }
}
void dropStreams() {
  for (cudaStream_t s : state().streams) CHECK(cudaStreamDestroy(s));
  state().streams.clear();
}
void makeSink() {
  CHECK(cudaMalloc(&state().sink, 4096));
  CHECK(cudaMalloc(&state().count, sizeof(int)));
  CHECK(cudaMemset(state().count, 0, sizeof(int)));
}
void dropSink() {
  CHECK(cudaFree(state().sink));
  CHECK(cudaFree(state().count));
}
uint64_t countHash() {
  int count = 0;
  CHECK(cudaMemcpy(&count, state().count, sizeof count, cudaMemcpyDeviceToHost));
  return bench::fnv1a(&count, sizeof count);
}
// The launch benchmarks check nothing but that the launches ran: 0 errors.
uint64_t noError() { return bench::fnv1a("ok", 2) ^ uint64_t(cudaGetLastError()); }

Bench launches(const char* name, const char* what, unsigned streams, unsigned threads) {
  return {name, what,
          [=] {
            makeSink();
            makeStreams(streams);
          },
          {},
          [=] {
            auto launchSome = [](cudaStream_t s, unsigned n) {
              for (unsigned i = 0; i < n; ++i) empty<<<1, 32, 0, s>>>(state().sink, 0);
            };
            if (threads <= 1) {
              for (unsigned i = 0; i < kLaunches; ++i) empty<<<1, 32, 0, state().streams[i % streams]>>>(state().sink, 0);
            } else {
              std::vector<std::thread> pool;
              for (unsigned t = 0; t < threads; ++t)
                pool.emplace_back(launchSome, state().streams[t % streams], kLaunches / threads);
              for (auto& t : pool) t.join();
            }
            CHECK_LAUNCH();
          },
          noError,
          [] {
            dropStreams();
            dropSink();
          },
          true, kLaunches};
}

Bench mallocFree() {
  return {"malloc_free", "cudaMalloc + cudaFree of 1 MiB", makeSink, {},
          [] {
            for (unsigned i = 0; i < kPairs; ++i) {
              void* p = nullptr;
              CHECK(cudaMalloc(&p, kBufferBytes));
              CHECK(cudaFree(p));
            }
          },
          noError, dropSink, true, kPairs};
}

Bench mallocAsyncFree() {
  return {"malloc_async_free", "cudaMallocAsync + cudaFreeAsync of 1 MiB on one stream",
          [] {
            makeSink();
            makeStreams(1);
          },
          {},
          [] {
            cudaStream_t s = state().streams[0];
            for (unsigned i = 0; i < kPairs; ++i) {
              void* p = nullptr;
              CHECK(cudaMallocAsync(&p, kBufferBytes, s));
              CHECK(cudaFreeAsync(p, s));
            }
            CHECK(cudaStreamSynchronize(s));
          },
          noError,
          [] {
            dropStreams();
            dropSink();
          },
          true, kPairs};
}

Bench mallocLaunchFree() {
  return {"malloc_launch_free", "cudaMalloc, a kernel writing the buffer, cudaFree", makeSink,
          [] { CHECK(cudaMemset(state().count, 0, sizeof(int))); },  // counts one run's launches
          [] {
            for (unsigned i = 0; i < kPairs; ++i) {
              int* p = nullptr;
              CHECK(cudaMalloc(&p, kBufferBytes));
              touch<<<kBufferBytes / sizeof(int) / 1024, 1024>>>(p, state().count);
              CHECK_LAUNCH();
              CHECK(cudaFree(p));
            }
          },
          countHash, dropSink, true, kPairs};
}

Bench thrustSort() {
  constexpr size_t n = size_t(1) << 20;
  return {"thrust_sort", "thrust::sort of 1M keys, temporaries allocated per call",
          [] {
            std::vector<uint32_t> h(n);
            uint32_t x = 12345;
            for (auto& v : h) v = x = x * 1664525u + 1013904223u;
            state().keys.assign(h.begin(), h.end());
            state().work.resize(n);
          },
          [] { thrust::copy(state().keys.begin(), state().keys.end(), state().work.begin()); },
          [] { thrust::sort(state().work.begin(), state().work.end()); },
          [] {
            std::vector<uint32_t> h(n);
            thrust::copy(state().work.begin(), state().work.end(), h.begin());
            return bench::fnv1a(h.data(), h.size() * sizeof(uint32_t));
          },
          [] {
            state().keys.clear();
            state().keys.shrink_to_fit();
            state().work.clear();
            state().work.shrink_to_fit();
          },
          true, 1};
}

std::vector<Bench> allBenches() {
  return {launches("launch_1stream", "empty-kernel launches on one stream", 1, 1),
          launches("launch_4streams", "empty-kernel launches round-robin over 4 streams", 4, 1),
          launches("launch_4threads", "empty-kernel launches from 4 host threads, a stream each", 4, 4),
          mallocFree(),
          mallocAsyncFree(),
          mallocLaunchFree(),
          thrustSort()};
}

}  // namespace host

int main(int argc, char** argv) { return bench::benchMain(argc, argv, "host", host::allBenches()); }
