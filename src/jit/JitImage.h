// JIT mode's transformation of one image a program hands the driver (issue 11): choose the PTX
// the device runs from a fatbinary, instrument it exactly as cucatch-nvcc's rewriter does, and
// give back the text the driver is to JIT-compile instead (its SASS for the same code dropped).
// Everything here is host code with no CUDA: the runtime's load hooks and `cucatch-fatbin jit`
// call it. Instrumented modules carry their site tables, so reports are as in compiled mode.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "fatbin/Image.h"
#include "instrument/Instrument.h"
#include "jit/PtxCache.h"
#include "runtime/cucatch_abi.h"

namespace cucatch::jit {

// The exit statuses of JIT mode's helper (`cucatch-fatbin jit`), which the runtime reads: 0, the
// module instrumented; 2, an error (on stderr); and these.
enum HelperExit : int {
  kHelperNoPtx = 3,                // no PTX there runs on the device (why on stderr)
  kHelperInstrumentedAlready = 4,  // nothing written
  kHelperWithoutCaps = 5,          // instrumented without the register caps --ptxas asked for
  kHelperLinkInputs = 6,           // what it wrote is the units to link in the image's place
};

// What the driver was given (fatbin/Image.h, shared with the runtime).
using fatbin::classifyImage;
using fatbin::ImageKind;

// The PTX of one fatbinary container that a device of `deviceArch` runs (fatbin::ptxForDevice),
// decompressed; or none, with why ("no PTX: SASS for sm_80 only", "its PTX is compressed with
// the older scheme", "its PTX is for sm_90a, which sm_80 does not run").
struct ChosenPtx {
  std::optional<std::string> text;
  std::string description;  // "compute_90 PTX, ISA 9.0" where chosen; else why not
};
// `containerBytes` is one container (the driver is handed one at a time). Throws
// fatbin::FormatError for bytes that are not one.
ChosenPtx choosePtx(std::span<const uint8_t> containerBytes, unsigned deviceArch);

// Whether `ptx` was instrumented already (by cucatch-nvcc: a fatbinary of a cucatch build, or
// PTX a cucatch run wrote): its module declares the runtime state.
// (Inline: the runtime asks it too, without linking the rewriter.)
inline bool isInstrumented(std::string_view ptx) { return ptx.find(CUCATCH_STATE_SYMBOL) != std::string_view::npos; }

struct InstrumentedPtx {
  std::string text;
  bool fromCache = false;
};
// Register caps as cucatch-nvcc sets them: each kernel's registers, original and instrumented,
// measured with this ptxas for this device architecture ("sm_90"), and an instrumented kernel
// that would accept smaller blocks than the original held to the original's (.maxnreg), so
// that it launches wherever the original did once the driver compiles it.
struct RegisterCaps {
  std::string ptxas;
  std::string arch;
  // Relocatable code, which the driver links again at run time: not capped here (the runtime
  // checks the linked kernels against the image's, JitLoader.h); ptxas --compile-only only
  // measures its functions' frames, for the unit's part of the call graph (StackReserve.h).
  bool relocatable = false;
};
// The rewriter's switches (cucatch-ptx's: tools/CheckFlags.h, which JIT mode's helper reads from
// CUCATCH_PTX_FLAGS), and what tells them apart from the defaults in the cache's key.
struct Switches {
  instrument::InstrumentOptions options;
  std::string key;
};

// Instruments `ptx` (its reports name it `moduleName`) with `switches` (cucatch-ptx's defaults
// where none are given); with
// `caps`, also its register caps (without, a launch the driver refuses for resources is
// explained by the runtime). With a cache, a module instrumented before is read back, keyed
// by the PTX, the caps and `rewriterIdentity` (what makes this rewriter's output differ from
// another's). Throws std::runtime_error with the parser's diagnostics, the rewriter's refusal,
// or ptxas's.
InstrumentedPtx instrumentPtx(const std::string& ptx, const std::string& moduleName,
                              const std::string& rewriterIdentity, const PtxCache* cache,
                              const RegisterCaps* caps = nullptr, const Switches& switches = {});

}  // namespace cucatch::jit
