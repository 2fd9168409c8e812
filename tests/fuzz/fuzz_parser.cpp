// libFuzzer target for the PTX front end: no input may crash, hang or exhaust memory, and
// every input must have the properties of tests/support/frontend_properties.h.
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "frontend_properties.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  if (auto violated = cucatch::test::checkFrontEndProperties(text)) {
    std::fprintf(stderr, "fuzz-parser: property violated: %s\n", violated->c_str());
    std::abort();
  }
  return 0;
}
