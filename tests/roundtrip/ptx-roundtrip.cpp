// ptx-roundtrip IN.ptx OUT.ptx
// Parses IN, prints it to OUT, parses OUT again and checks that both parses give the same IR
// and that printing is idempotent; also checks that the fast statement reader builds exactly
// what the grammar alone builds. Exit 0 when lossless, 1 when not, 2 on a parse error.
#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "frontend_properties.h"

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
  std::string text = slurp(argv[1]);
  auto parsed = parseModule(text, argv[1]);
  if (!parsed.ok()) {
    for (const auto& d : parsed.errors) fmt::print(stderr, "{}\n", d.str());
    return 2;
  }
  std::string printed;
  if (auto violated = cucatch::test::checkFrontEndProperties(text, &printed)) {
    fmt::print(stderr, "{}: property violated: {}\n", argv[1], *violated);
    return 1;
  }
  std::ofstream(argv[2], std::ios::binary) << printed;
  return 0;
}
