// The properties every input must have, checked by the fuzz target, the unit tests and the
// corpus round trip: any input gives a module or diagnostics; the fast reader and the grammar
// alone accept the same inputs and build the same IR; print then parse gives the same IR;
// printing is idempotent.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "ptx/Parser.h"
#include "ptx/Printer.h"

namespace cucatch::test {

// The first property the input violates, or nullopt. `printed`, when given, receives the
// printed module.
inline std::optional<std::string> checkFrontEndProperties(std::string_view text,
                                                          std::string* printed = nullptr) {
  using namespace cucatch::ptx;
  ParseResult fast = parseModule(text, "input.ptx");
  ParseResult grammar = parseModule(text, "input.ptx", ParseOptions{.grammarOnly = true});
  if (!fast.ok()) {
    if (fast.errors.empty()) return "a failed parse carries diagnostics";
    if (grammar.ok()) return "the grammar accepts what the fast reader refuses";
    return std::nullopt;
  }
  if (!grammar.ok()) return "the fast reader accepts what the grammar refuses";
  if (!(*grammar.module == *fast.module)) return "the fast reader and the grammar build different IR";
  std::string out = print(*fast.module);
  ParseResult again = parseModule(out, "printed.ptx");
  if (!again.ok()) return "the printed module parses";
  if (!(*again.module == *fast.module)) return "print then parse gives the same IR";
  if (print(*again.module) != out) return "printing is idempotent";
  if (printed) *printed = std::move(out);
  return std::nullopt;
}

}  // namespace cucatch::test
