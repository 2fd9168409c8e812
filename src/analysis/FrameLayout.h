// The arrays of a function's frame, as nvcc lays them out (LocalChecks for `.local` accesses,
// GlobalChecks for generic pointers made from them; `cucatch-ptx --no-local-objects` leaves
// them unused):
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
// the false boundary reported. Not seen in nvcc 13.0's (or clang 14's) PTX at any level
// (docs/design.md names the patterns looked at). So a frame is kept whole (its objects not told
// apart) where an access made from one start, local or generic, has an offset bounded
// (ValueRanges) to a range that reaches past that object into another: a correct program never
// steps from a true start into the next object, so either the start is false or the bound is
// wider than the values used. (An unbounded offset, or one that only leaves the frame, says
// nothing of its objects.)
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "analysis/PointerAnalysis.h"
#include "analysis/ValueRange.h"
#include "ptx/IR.h"

namespace cucatch::analysis {

struct LocalObject {
  std::string frame;   // the frame's symbol
  uint64_t start = 0;  // offset in the frame
  uint64_t size = 0;
};

class FrameLayout {
 public:
  FrameLayout(const ptx::Function& f, const PointerAnalysis& pa, const SymbolTable& symbols, const ValueRanges& ranges);
  // Where objects start in each frame (by its symbol).
  const std::map<std::string, std::set<uint64_t>>& starts() const { return starts_; }
  // The frames whose objects are not told apart (above).
  const std::set<std::string>& keptWhole() const { return keptWhole_; }
  // The object access `a` (its address register) is made from on every path; none where the
  // address reaches the frame register itself, several starts, or anything else, and none in a
  // frame kept whole.
  std::optional<LocalObject> objectOf(const AccessSite& a) const;
  // The object pointer definition `def` (an index into the analysis' defs) makes: the frame
  // register plus the object's start; none for any other definition, and in a frame kept whole.
  std::optional<LocalObject> startedBy(size_t def) const;
  // Whether some start of an object told apart reaches register `reg` (through the definitions
  // that move a pointer): its metadata may be an object's bounds, not its frame's.
  bool reachedByStart(const std::string& reg) const;

 private:
  // The frame a register holds the address of (local or generic, unmoved), if it does.
  std::optional<std::string> frameOf(const std::string& reg) const;
  // The object starting at `start` of `frame`: to the next start or the frame's end.
  LocalObject object(const std::string& frame, uint64_t start) const;
  // What register `reg` is made from, back through the definitions that move a pointer
  // (arithmetic, copies, selects, cvta.local to generic: every definition of every register,
  // flow-insensitive): the starts (definition indices) it reaches, and whether it reaches
  // anything else too (the frame register itself, a register with no definition, any other
  // origin).
  struct Origins {
    std::set<size_t> starts;
    bool other = false;
  };
  Origins originsOf(const std::string& reg) const;
  // The object `a`'s address is made from, whether or not its frame is kept whole.
  std::optional<LocalObject> anyObjectOf(const AccessSite& a) const;
  void keepWholeWhereOffsetsCross(const ValueRanges& ranges);

  const PointerAnalysis& pa_;
  std::map<std::string, uint64_t> frameBytes_;          // frame symbol -> size
  std::map<std::string, std::string> frameRegisters_;   // register -> frame symbol
  std::map<size_t, std::pair<std::string, uint64_t>> startDefs_;  // def index -> (frame, start)
  std::map<std::string, std::set<uint64_t>> starts_;
  std::set<std::string> keptWhole_;
};

// The local memory that is live while kernel `f` itself runs (not a function it called): its
// own frame only, since no caller's frame exists and every callee has returned. Any other
// local address a kernel meets is in the frame of a function that has returned, or was never
// made: a pointer to it is used after its scope. That frame is the kernel's only local variable
// (nvcc's `__local_depot<n>`), `frame`; or none at all (`frame` empty), for a kernel with no
// local variable, which has nothing in its frame a pointer could point to. Unknown (nullopt)
// for a device function (its callers' frames are live too, and where they lie is ptxas' choice:
// on the H100, a callee's frame was seen below its caller's and, at -O2 with no recursion,
// above it), and for a kernel that makes an alloca (its blocks are live too) or has several
// local variables.
struct LiveLocalBound {
  std::string frame;
};
std::optional<LiveLocalBound> liveLocalBound(const ptx::Function& f);

}  // namespace cucatch::analysis
