// Parsing PTX text into the IR (src/ptx/IR.h).
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "ptx/IR.h"

namespace cucatch::ptx {

// A problem in the input, reported as `file:line:col: error: message`.
struct Diagnostic {
  std::string file;
  uint32_t line = 0;
  uint32_t column = 0;
  std::string message;

  std::string str() const;
};

// An input the tools cannot take, about a place in it the parser accepted (a directive whose
// value cucatch refuses): tools print it as a Diagnostic of the input file.
struct InputError : std::runtime_error {
  SourceLoc loc;
  InputError(SourceLoc where, const std::string& message) : std::runtime_error(message), loc(where) {}
};

struct ParseResult {
  std::optional<Module> module;         // set when there were no errors
  std::vector<Diagnostic> errors;       // at most a few dozen; parsing stops being useful after

  bool ok() const { return module.has_value(); }
};

struct ParseOptions {
  // Inputs nested deeper than this (brackets, braces, parentheses, prefix operators) are
  // refused with a diagnostic instead of risking the recursive-descent parser's stack.
  // nvcc output never nests deeper than a handful of levels.
  unsigned maxNesting = 256;
  // Stop collecting errors after this many.
  unsigned maxErrors = 20;
  // Parse the whole module with the ANTLR grammar alone, without the fast statement reader.
  // Slower by an order of magnitude; the reference the fast path is tested against.
  bool grammarOnly = false;
};

// Parse a whole PTX module. Never throws on bad input: every problem is a Diagnostic.
ParseResult parseModule(std::string_view text, std::string sourceName,
                        const ParseOptions& options = {});

// Statements of a function body written by cucatch itself (instrumentation sequences), as
// synthetic statements (line 0). Malformed text is a bug in the caller: throws
// std::logic_error with the diagnostics.
std::vector<Statement> parseSyntheticStatements(std::string_view text);
// Module-level items written by cucatch itself (declarations, functions), likewise.
std::vector<TopLevel> parseSyntheticItems(std::string_view text);

}  // namespace cucatch::ptx
