// cucatch-ptx: the PTX rewriter on its own, for compiler engineers and tests.
//
//   cucatch-ptx [--mode=check|none] [--stats] IN.ptx -o OUT.ptx   ('-' for stdin / stdout)
//
// Exit codes: 0 success; 2 the input could not be read or is not valid PTX (diagnostics on
// stderr as file:line:col: error: ..., and no output file is written); 1 the output could
// not be written.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include "instrument/GlobalChecks.h"
#include "ptx/Parser.h"
#include "ptx/Printer.h"

namespace {

bool readInput(const std::string& path, std::string& text) {
  if (path == "-") {
    text.assign(std::istreambuf_iterator<char>(std::cin), {});
    return true;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    fmt::print(stderr, "cucatch-ptx: error: cannot open '{}': {}\n", path, std::strerror(errno));
    return false;
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  text = std::move(ss).str();
  return true;
}

// Writes through a temporary file renamed into place, so a failure never leaves a partial
// output behind.
bool writeOutput(const std::string& path, const std::string& text) {
  if (path == "-") {
    std::fwrite(text.data(), 1, text.size(), stdout);
    return std::fflush(stdout) == 0;
  }
  std::string tmp = path + ".cucatch-tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out || !out.write(text.data(), static_cast<std::streamsize>(text.size())) || !out.flush()) {
      fmt::print(stderr, "cucatch-ptx: error: cannot write '{}': {}\n", path, std::strerror(errno));
      std::filesystem::remove(tmp);
      return false;
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    fmt::print(stderr, "cucatch-ptx: error: cannot write '{}': {}\n", path, ec.message());
    std::filesystem::remove(tmp);
    return false;
  }
  return true;
}

void printStats(const std::string& name, const cucatch::instrument::Stats& s) {
  size_t instrumented = 0, unchecked = 0;
  for (const auto& [k, n] : s.instrumented) instrumented += n;
  for (const auto& [k, n] : s.unchecked) unchecked += n;
  fmt::print(stderr,
             "{}: {} accesses instrumented, {} left unchecked, {} proven in bounds statically; {} metadata reads; "
             "{} accesses reached by several bases\n",
             name, instrumented, unchecked, s.provenInBounds, s.metadataReads, s.phiAccesses);
  for (const auto& [k, n] : s.instrumented) fmt::print(stderr, "  instrumented {:>6}  {}\n", n, k);
  for (const auto& [k, n] : s.unchecked) fmt::print(stderr, "  unchecked    {:>6}  {}\n", n, k);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"cucatch-ptx: instrument a PTX module for memory-safety checking"};
  std::string input, output;
  std::string mode = "check";
  bool stats = false;
  std::string moduleName;
  app.add_option("input", input, "input PTX file ('-' for stdin)")->required();
  app.add_option("-o,--output", output, "output PTX file ('-' for stdout)")->required();
  app.add_option("--mode", mode,
                 "check (default): instrument global and generic accesses (Shadow TBB); "
                 "none: parse and print the module unchanged (round trip)")
      ->check(CLI::IsMember({"none", "check"}));
  app.add_flag("--stats", stats,
               "print to stderr how many accesses were instrumented, by space and kind, and "
               "how many were left unchecked and why");
  app.add_option("--module-name", moduleName,
                 "the module's name in the site table, which reports show (default: the input path; "
                 "cucatch-nvcc passes the .cu file and the virtual architecture)");
  CLI11_PARSE(app, argc, argv);

  std::string text;
  if (!readInput(input, text)) return 2;
  std::string sourceName = input == "-" ? "<stdin>" : input;
  auto result = cucatch::ptx::parseModule(text, sourceName);
  if (!result.ok()) {
    for (const auto& d : result.errors) fmt::print(stderr, "{}\n", d.str());
    return 2;
  }
  cucatch::ptx::Module& module = *result.module;
  if (!moduleName.empty()) module.sourceName = moduleName;
  if (mode == "check") {
    cucatch::instrument::Result r;
    try {
      r = cucatch::instrument::instrumentGlobalAccesses(module);
    } catch (const std::runtime_error& e) {
      fmt::print(stderr, "{}: error: {}\n", sourceName, e.what());
      return 2;
    }
    if (stats) printStats(sourceName, r.stats);
  }
  return writeOutput(output, cucatch::ptx::print(module)) ? 0 : 1;
}
