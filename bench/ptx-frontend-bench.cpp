// ptx-frontend-bench FILE.ptx [REPEATS] [--instrument]
// Times parse and print of one module in process (median of REPEATS, default 5) and prints
// one line: bytes, parse ms, print ms, MB/s of parse+print. With --instrument, also the
// global-memory instrumentation pass between the two (instrument_ms).
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <sstream>
#include <vector>

#include "instrument/Instrument.h"
#include "ptx/Parser.h"
#include "ptx/Printer.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    fmt::print(stderr, "usage: ptx-frontend-bench FILE.ptx [REPEATS]\n");
    return 2;
  }
  int repeats = argc > 2 ? std::max(1, std::atoi(argv[2])) : 5;
  bool instrument = argc > 3 && std::string_view(argv[3]) == "--instrument";
  std::ifstream in(argv[1], std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  std::string text = std::move(ss).str();

  using clock = std::chrono::steady_clock;
  std::vector<double> parseMs, printMs, instrumentMs;
  size_t printedBytes = 0;
  for (int r = 0; r < repeats; ++r) {
    auto t0 = clock::now();
    auto result = cucatch::ptx::parseModule(text, argv[1]);
    auto t1 = clock::now();
    if (!result.ok()) {
      fmt::print(stderr, "{}\n", result.errors.front().str());
      return 1;
    }
    auto ti = clock::now();
    if (instrument) cucatch::instrument::instrumentModule(*result.module);
    auto tj = clock::now();
    instrumentMs.push_back(std::chrono::duration<double, std::milli>(tj - ti).count());
    std::string out = cucatch::ptx::print(*result.module);
    auto t2 = clock::now();
    printedBytes = out.size();
    parseMs.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    printMs.push_back(std::chrono::duration<double, std::milli>(t2 - tj).count());
  }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  double p = median(parseMs), q = median(printMs);
  fmt::print("bytes={} printed_bytes={} parse_ms={:.1f} print_ms={:.1f} mb_per_s={:.1f} instrument_ms={:.1f}\n",
             text.size(), printedBytes, p, q, text.size() / 1e6 / ((p + q) / 1e3), median(instrumentMs));
  return 0;
}
