// ptx-roundtrip IN.ptx OUT.ptx
// Parses IN, prints it to OUT, parses OUT again and checks that both parses give the same IR
// and that printing is idempotent; also checks that the fast statement reader builds exactly
// what the grammar alone builds. Exit 0 when lossless, 1 when not, 2 on a parse error.
#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "ptx/Parser.h"
#include "ptx/Printer.h"

using namespace cucatch::ptx;

static std::string slurp(const char* path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return std::move(ss).str();
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fmt::print(stderr, "usage: ptx-roundtrip IN.ptx OUT.ptx\n");
    return 2;
  }
  auto first = parseModule(slurp(argv[1]), argv[1]);
  if (!first.ok()) {
    for (const auto& d : first.errors) fmt::print(stderr, "{}\n", d.str());
    return 2;
  }
  auto reference = parseModule(slurp(argv[1]), argv[1], ParseOptions{.grammarOnly = true});
  if (!reference.ok() || !(*reference.module == *first.module)) {
    fmt::print(stderr, "{}: the fast reader and the grammar disagree\n", argv[1]);
    return 1;
  }
  std::string printed = print(*first.module);
  std::ofstream(argv[2], std::ios::binary) << printed;
  auto second = parseModule(printed, argv[2]);
  if (!second.ok()) {
    fmt::print(stderr, "{}: printed module does not parse:\n", argv[1]);
    for (const auto& d : second.errors) fmt::print(stderr, "{}\n", d.str());
    return 1;
  }
  if (!(*first.module == *second.module)) {
    const auto& a = first.module->items;
    const auto& b = second.module->items;
    size_t i = 0;
    while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
    fmt::print(stderr, "{}: IR differs after print/parse at top-level item {} (line {})\n", argv[1], i,
               i < a.size() ? locOf(a[i]).line : 0);
    return 1;
  }
  if (print(*second.module) != printed) {
    fmt::print(stderr, "{}: printing is not idempotent\n", argv[1]);
    return 1;
  }
  return 0;
}
