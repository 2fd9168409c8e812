// What an instruction means for memory safety: does it access memory, in which state space,
// how many bytes, through which operand. Written from the PTX ISA (9.0); the one place
// analysis and instrumentation ask. Instructions not listed here do not access memory as far
// as cucatch is concerned (textures and surfaces go through their own descriptors).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ptx/IR.h"

namespace cucatch::ptx {

enum class Space : uint8_t { Generic, Global, Shared, SharedCluster, Local, Const, Param, Other };
std::string_view spaceName(Space s);

enum class AccessKind : uint8_t { Read, Write, Atomic };
std::string_view accessKindName(AccessKind k);

struct MemoryAccess {
  Space space = Space::Generic;
  AccessKind kind = AccessKind::Read;
  unsigned size = 0;            // bytes touched at the address; 0 when not known statically
  unsigned addressOperand = 0;  // index of the [address] operand
  // Set when cucatch knows this accesses memory but cannot check it (yet): why.
  std::string_view uncheckable;
  // Only the lanes below this give an address; the others' address operands are ignored and
  // may hold anything (ldmatrix/stmatrix .x1: 8, .x2: 16). 0: every thread's address is used.
  unsigned lanes = 0;
  // Where the bytes touched are known only at run time (size 0): operand `operand` (a register or
  // an immediate, unsigned 32 bits) times `perUnit`, plus `fixed`. A bulk copy's byte count
  // (perUnit 1); a wmma fragment's stride in elements (perUnit: the element's bytes times the
  // fragment's lines less one; fixed: one line's bytes).
  struct Extent {
    unsigned operand = 0;
    uint64_t perUnit = 1;
    uint64_t fixed = 0;
  };
  std::optional<Extent> extent;
};

// The memory accesses an instruction makes: none, one, or two for an instruction that
// accesses two places (cp.async: its shared destination, then its global source).
std::vector<MemoryAccess> memoryAccessesOf(const Instruction& in);

// The state space named by an instruction's modifiers (.global, .shared::cta, ...), Generic
// when none is named.
Space spaceOfModifiers(const Instruction& in);

// Bytes of a fundamental type modifier (".u32" -> 4, ".v4" is not a type); 0 if not a type.
unsigned typeSize(std::string_view modifier);

// The callee of a direct call and its argument list: call[.uni] [(ret),] callee, (args)[, proto].
// Null where the instruction has none (an indirect call's callee is a register: still a Name).
// `prototype`: an indirect call's last operand, the label of its .callprototype or .calltargets
// list; null for a direct call.
struct CallShape {
  const Operand* callee = nullptr;
  const Operand* arguments = nullptr;
  const Operand* prototype = nullptr;
};
CallShape callShape(const Instruction& in);

// Each call statement of `f`'s body with the `st.param` statements that store its arguments: those
// before it in its call sequence's scope (`{ ... }`), writing a parameter its argument list names.
struct CallArgumentStores {
  size_t call = 0;
  std::vector<size_t> stores;
};
std::vector<CallArgumentStores> callArgumentStores(const Function& f);

// Whether control may not come back to the statement after `in`: a call (it may never return),
// exit, ret, trap, brkpt. Straight-line code with none of them between two statements runs the
// second whenever it runs the first.
bool mayNotComeBack(const Instruction& in);

// The dimension a special register's component names (%tid.x: 0, .y: 1, .z: 2); 3 for any other
// (or none).
size_t dimensionOf(const Operand& o);

// Registers written by an instruction (destination operands), by name.
void forEachDefinedRegister(const Instruction& in, const std::function<void(const std::string&)>& f);

}  // namespace cucatch::ptx
