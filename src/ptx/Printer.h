// Printing the IR back to PTX text. The inverse of parsing: the output re-parses to an equal
// Module, and every element that came from the input is put back on its source line (see
// IR.h for why lines matter to ptxas). Synthetic elements (line 0) go on lines of their own,
// after which original elements continue on their lines where still possible.
#pragma once

#include <string>

#include "ptx/IR.h"

namespace cucatch::ptx {

std::string print(const Module& module);

// One statement or operand as text, on one line: for diagnostics, site tables and tests.
std::string printStatement(const Statement& statement);
std::string printOperand(const Operand& operand);

}  // namespace cucatch::ptx
