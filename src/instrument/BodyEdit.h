// What a pass inserts into a function body, as PTX text (parsed as cucatch's own, synthetic
// statements): one place for the rebuild every pass does.
#pragma once

#include <string>
#include <unordered_map>

#include "ptx/IR.h"

namespace cucatch::instrument {

struct BodyEdits {
  std::string prologue;  // after the body's leading declarations, before its first statement
  std::unordered_map<size_t, std::string> before, after;  // around statement i of the body
  std::string epilogue;  // after the last statement
};

void applyEdits(ptx::Function& f, const BodyEdits& edits);

}  // namespace cucatch::instrument
