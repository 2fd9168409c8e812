// The stack limit of one context as the runtime keeps it, where a registered module has kernels
// that recurse and whose frames grew instrumented (instrument/StackReserve.h): the limit the
// program asked for (or the driver's before cucatch changed it), what those kernels need for it,
// and the limit as cucatch last left it. No CUDA here: the runtime reads and sets the limit and
// tells this what it saw (Runtime::reserveStack, setStackLimit, programStackLimit).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>

namespace cucatch::runtime {

class StackLimit {
 public:
  // One more module's kernels' reserve: the largest ratio and the largest extra (a bound for
  // every kernel, if not the tightest).
  void need(uint32_t ratioPerMille, uint64_t extraBytes) {
    ratioPerMille_ = std::max(ratioPerMille_, ratioPerMille);
    extraBytes_ = std::max(extraBytes_, extraBytes);
  }
  size_t neededFor(size_t bytes) const {
    return std::max<size_t>(bytes, (bytes * ratioPerMille_ + 999) / 1000 + extraBytes_);
  }

  // The limit the driver has now. The first one seen is the program's; one above what cucatch
  // left is the driver's raise for a launch (of a kernel with a larger static stack: it keeps
  // it), which the original program would have read too, so the program's from now on.
  void observed(size_t now) {
    if (!asked_ || (left_ && now > *left_)) {
      asked_ = now;
      raised_ = false;
    }
    left_ = now;
  }
  // What to set now for the program's limit: more than the limit, where the kernels need it.
  std::optional<size_t> toSet() const {
    if (!asked_ || !left_) return std::nullopt;
    const size_t needed = neededFor(*asked_);
    return needed > *left_ ? std::optional<size_t>(needed) : std::nullopt;
  }
  // The limit was set to `set` for the program's `asked`, and the driver reads it back as
  // `readBack` (it rounds up: what it reads later is compared with that, not with `set`).
  void setDone(size_t asked, size_t set, size_t readBack) {
    asked_ = asked;
    left_ = readBack;
    raised_ = set > asked;
  }
  bool known() const { return asked_ && left_; }
  std::optional<size_t> asked() const { return asked_; }
  // What the program reads as the limit: its own where cucatch raised it; none where the
  // driver's value is the program's.
  std::optional<size_t> programView() const { return raised_ ? asked_ : std::nullopt; }

  bool warned = false;  // a failed raise was said once

 private:
  std::optional<size_t> asked_, left_;
  bool raised_ = false;
  uint32_t ratioPerMille_ = 1000;
  uint64_t extraBytes_ = 0;
};

}  // namespace cucatch::runtime
