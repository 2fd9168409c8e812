// What the benchmark programs of bench/ share: error checking, result hashing, and the
// driver that runs a list of benchmarks and prints one line per benchmark for
// bench/overhead/run.py:
//
//   PROGRAM [--kernel NAME[,NAME...]]... [--reps N] [--list] [--kernel-names] [--markers]
//
// For each selected benchmark (default: all): setup() (untimed), one warm-up run(), then N
// timed runs (default 20), and exactly one line on stdout:
//
//   BENCH <name> median_ms=<x> min_ms=<y> reps=<n> checksum=<c>
//
// Device benchmarks are timed with a pair of CUDA events around run(); host benchmarks
// (hostTimed: what the host pays for API calls) with the host's steady clock around run()
// and a device synchronization. A run of opsPerRun operations reports the time per
// operation. The checksum must be identical across builds, tools and devices. With
// --markers, "overhead: begin <name>" and "overhead: end <name>" go to stderr around each
// benchmark, so that anything a tool writes to stderr in between can be attributed to it.
// --kernel-names (no GPU needed) prints, per benchmark, the __global__ functions it launches:
//
//   KERNELS <name> [<function>...]
//
// by unqualified source name (Bench::kernels), for run.py to find them in cuobjdump output.
// Exit status: 0, or 1 on a CUDA error (reported on stderr) or bad usage.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace bench {

#define CHECK(call)                                                                          \
  do {                                                                                       \
    cudaError_t err_ = (call);                                                               \
    if (err_ != cudaSuccess) {                                                               \
      std::fprintf(stderr, "bench: CUDA error %s (%s) at %s:%d: %s\n", cudaGetErrorName(err_), \
                   cudaGetErrorString(err_), __FILE__, __LINE__, #call);                     \
      std::exit(1);                                                                          \
    }                                                                                        \
  } while (0)

#define CHECK_LAUNCH() CHECK(cudaGetLastError())

inline uint64_t fnv1a(const void* data, size_t bytes, uint64_t h = 1469598103934665603ull) {
  // Word-at-a-time FNV-1a (8 bytes per step) so hashing 256 MiB stays well under 0.1 s.
  const unsigned char* p = static_cast<const unsigned char*>(data);
  size_t i = 0;
  for (; i + 8 <= bytes; i += 8) {
    uint64_t w;
    std::memcpy(&w, p + i, 8);
    h = (h ^ w) * 1099511628211ull;
  }
  for (; i < bytes; ++i) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

template <typename T>
uint64_t deviceHash(const T* dev, size_t count, uint64_t h = 1469598103934665603ull) {
  std::vector<T> host(count);
  CHECK(cudaMemcpy(host.data(), dev, count * sizeof(T), cudaMemcpyDeviceToHost));
  return fnv1a(host.data(), count * sizeof(T), h);
}

// One benchmark: setup() allocates and fills inputs, run() does the timed work,
// checksum() hashes the result of the last run, teardown() frees everything.
struct Bench {
  const char* name;
  const char* stresses;
  std::function<void()> setup;
  std::function<void()> beforeRun;  // untimed, before every run (may be empty)
  std::function<void()> run;
  std::function<uint64_t()> checksum;
  std::function<void()> teardown;
  bool hostTimed = false;
  unsigned opsPerRun = 1;
  const char* kernels = "";  // the __global__ functions run() launches, space-separated
};

// b, with the names of the kernels it launches (see --kernel-names).
inline Bench withKernels(Bench b, const char* kernels) {
  b.kernels = kernels;
  return b;
}

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

inline void usage(FILE* f, const char* program, const std::vector<Bench>& benches) {
  std::fprintf(f,
               "usage: %s [--kernel NAME[,NAME...]]... [--reps N] [--list] [--kernel-names]\n"
               "          [--markers]\n"
               "  --kernel   run only these benchmarks (repeatable; default: all, in this order)\n"
               "  --reps     timed runs per benchmark after one warm-up run (default 20, >= 1)\n"
               "  --list     print the benchmark names and what each stresses, then exit\n"
               "  --kernel-names  print 'KERNELS NAME FUNCTION...' per benchmark (the kernels\n"
               "             it launches), then exit\n"
               "  --markers  write 'overhead: begin/end NAME' to stderr around each benchmark\n"
               "benchmarks:",
               program);
  for (const Bench& b : benches) std::fprintf(f, " %s", b.name);
  std::fprintf(f, "\n");
}

inline int benchMain(int argc, char** argv, const char* program, const std::vector<Bench>& benches) {
  std::vector<std::string> wanted;
  long reps = 20;
  bool markers = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](const std::string& flag) -> std::string {
      if (a.size() > flag.size() && a.compare(0, flag.size() + 1, flag + "=") == 0) return a.substr(flag.size() + 1);
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s: %s needs a value\n", program, flag.c_str());
        std::exit(1);
      }
      return argv[++i];
    };
    auto is = [&](const std::string& flag) { return a == flag || a.compare(0, flag.size() + 1, flag + "=") == 0; };
    if (a == "-h" || a == "--help") {
      usage(stdout, program, benches);
      return 0;
    } else if (a == "--list") {
      for (const Bench& b : benches) std::printf("%-18s %s\n", b.name, b.stresses);
      return 0;
    } else if (a == "--kernel-names") {
      for (const Bench& b : benches) {
        std::printf("KERNELS %s", b.name);
        if (b.kernels && *b.kernels) std::printf(" %s", b.kernels);
        std::printf("\n");
      }
      return 0;
    } else if (a == "--markers") {
      markers = true;
    } else if (is("--kernel")) {
      std::string list = value("--kernel");
      size_t start = 0;
      while (start <= list.size()) {
        size_t comma = list.find(',', start);
        if (comma == std::string::npos) comma = list.size();
        if (comma > start) wanted.push_back(list.substr(start, comma - start));
        start = comma + 1;
      }
    } else if (is("--reps")) {
      std::string v = value("--reps");
      char* end = nullptr;
      reps = std::strtol(v.c_str(), &end, 10);
      if (v.empty() || *end != '\0' || reps < 1 || reps > 1000000) {
        std::fprintf(stderr, "%s: --reps wants a whole number >= 1, not '%s'\n", program, v.c_str());
        return 1;
      }
    } else {
      std::fprintf(stderr, "%s: unknown argument '%s'\n", program, a.c_str());
      usage(stderr, program, benches);
      return 1;
    }
  }

  std::vector<const Bench*> selected;
  if (wanted.empty()) {
    for (const Bench& b : benches) selected.push_back(&b);
  } else {
    for (const std::string& w : wanted) {
      auto it = std::find_if(benches.begin(), benches.end(), [&](const Bench& b) { return w == b.name; });
      if (it == benches.end()) {
        std::fprintf(stderr, "%s: no benchmark named '%s'\n", program, w.c_str());
        usage(stderr, program, benches);
        return 1;
      }
      selected.push_back(&*it);
    }
  }

  CHECK(cudaSetDevice(0));
  CHECK(cudaFree(nullptr));  // create the context before anything is timed
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));

  for (const Bench* b : selected) {
    if (markers) std::fprintf(stderr, "overhead: begin %s\n", b->name);
    b->setup();
    CHECK(cudaDeviceSynchronize());
    if (b->beforeRun) b->beforeRun();
    b->run();  // warm-up
    CHECK(cudaDeviceSynchronize());
    std::vector<double> times;
    times.reserve(size_t(reps));
    for (long r = 0; r < reps; ++r) {
      if (b->beforeRun) b->beforeRun();
      double ms = 0;
      if (b->hostTimed) {
        CHECK(cudaDeviceSynchronize());
        auto t0 = std::chrono::steady_clock::now();
        b->run();
        CHECK(cudaDeviceSynchronize());
        ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      } else {
        CHECK(cudaEventRecord(start));
        b->run();
        CHECK(cudaEventRecord(stop));
        CHECK(cudaEventSynchronize(stop));
        float elapsed = 0.0f;
        CHECK(cudaEventElapsedTime(&elapsed, start, stop));
        ms = elapsed;
      }
      times.push_back(ms / b->opsPerRun);
    }
    CHECK(cudaDeviceSynchronize());
    uint64_t sum = b->checksum();
    b->teardown();
    CHECK(cudaDeviceSynchronize());
    std::printf("BENCH %s median_ms=%.6g min_ms=%.6g reps=%ld checksum=%016llx\n", b->name, median(times),
                *std::min_element(times.begin(), times.end()), reps, static_cast<unsigned long long>(sum));
    std::fflush(stdout);
    if (markers) std::fprintf(stderr, "overhead: end %s\n", b->name);
  }
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
  return 0;
}

}  // namespace bench
