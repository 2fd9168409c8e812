// The arrays of a function's frame, as nvcc lays them out (for `cucatch-ptx --local-objects`):
// nvcc's PTX has one .local variable per function, `__local_depot<n>`, that holds every
// address-taken or dynamically indexed local object, and materializes each object's address
// once, as the frame register plus the object's offset (`add.u64 %rd5, %SPL, 64`, or
// `%SP` for its generic address); element offsets are added to that register afterwards. The
// distinct constants of those adds are where objects start; an object ends where the next
// starts (or at the frame's end), so its padding counts as its own. An access whose address is
// made, on every path, from one such start is an access to that object.
//
// A heuristic: the PTX does not give the objects' sizes, and a start is only where nvcc put
// one. Were a start an element's offset folded into the frame address (NVPTX could select
// `(add FrameIndex, 8)` as one add), an array would be split in two and a correct index past
// the false boundary reported: so the option is off by default. Not seen in nvcc 13.0's -O3 or
// -G PTX (tests/unit/test_analysis.cpp names the patterns looked at).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "analysis/PointerAnalysis.h"
#include "ptx/IR.h"

namespace cucatch::analysis {

struct LocalObject {
  std::string frame;   // the frame's symbol
  uint64_t start = 0;  // offset in the frame
  uint64_t size = 0;
};

class FrameLayout {
 public:
  FrameLayout(const ptx::Function& f, const PointerAnalysis& pa, const SymbolTable& symbols);
  // Where objects start in each frame (by its symbol).
  const std::map<std::string, std::set<uint64_t>>& starts() const { return starts_; }
  // The object access `a` (its address register) is made from on every path; none where the
  // address reaches the frame register itself, several starts, or anything else.
  std::optional<LocalObject> objectOf(const AccessSite& a) const;

 private:
  // The frame a register holds the address of (local or generic, unmoved), if it does.
  std::optional<std::string> frameOf(const std::string& reg) const;

  const ptx::Function& f_;
  const PointerAnalysis& pa_;
  std::map<std::string, uint64_t> frameBytes_;          // frame symbol -> size
  std::map<std::string, std::string> frameRegisters_;   // register -> frame symbol
  std::map<size_t, std::pair<std::string, uint64_t>> startDefs_;  // def index -> (frame, start)
  std::map<std::string, std::set<uint64_t>> starts_;
};

}  // namespace cucatch::analysis
