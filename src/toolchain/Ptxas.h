// Running the toolkit's ptxas from cucatch's tools: to learn what the original (uninstrumented)
// kernels of a module cost in registers, so that the instrumented ones can be held to launch
// wherever the originals launched (instrument/RegisterLimit.h). No CUDA runtime here, only a
// child process.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace cucatch::toolchain {

// The ptxas to use: $CUCATCH_PTXAS, else the one beside `nvccHint` (the nvcc cucatch was built
// for), else $CUDA_HOME/bin/ptxas, else /usr/local/cuda/bin/ptxas, else `ptxas` on PATH; "" if
// none exists.
std::string findPtxas(const std::string& nvccHint = "");

struct RegisterCounts {
  std::map<std::string, unsigned> kernels;  // kernel name -> registers per thread
  // Relocatable code only: every other function with a body, compiled on its own at this count
  // (a kernel of another unit calling it runs with the larger of the two after linking).
  std::map<std::string, unsigned> deviceFunctions;
  // Why the object's counts could not be read (a layout this reader does not know): the device
  // functions are then not measured, which the caller must say.
  std::string deviceFunctionsUnread;
  // Every function's own stack frame in bytes (kernels and device functions, as ptxas -v prints
  // "Function properties for NAME" and then "N bytes stack frame").
  std::map<std::string, unsigned> stackFrames;
};

// Compiles `ptx` with `ptxas -arch=ARCH -v OPTIONS` and reads each kernel's register count from
// what ptxas prints; under --compile-only also each device function's, from the object ptxas
// wrote (ptxas -v prints none for them there; the object is deleted after). Throws
// std::runtime_error with ptxas's diagnostics when it cannot be run or rejects the module
// (`what` names the module in the message).
RegisterCounts measureRegisters(const std::string& ptxas, const std::string& arch,
                                const std::vector<std::string>& options, const std::string& ptx,
                                const std::string& what);

// Compiles whole-program `ptx` with `ptxas -arch=ARCH OPTIONS` exactly (no -v: ptxas records its
// options in the object) and reads every kernel's register count (`kernels` names them) from
// the object: the same counts as ptxas -v prints (every kernel of the 802 corpus modules, ptxas
// 13.0, sm_90, whole-program and relocatable), but no frames (a whole-program object names some
// after the kernel that inlined them and records none for others). Where `reuseDirectory` is
// given and ptxas printed nothing, the object stays there for cucatch-nvcc's ptxas
// (CubinReuse.h). Throws std::runtime_error as measureRegisters, and where the object does not
// give every kernel a count; std::logic_error for relocatable code.
RegisterCounts measureFromObject(const std::string& ptxas, const std::string& arch,
                                 const std::vector<std::string>& options, const std::string& ptx,
                                 const std::set<std::string>& kernels, const std::string& what,
                                 const std::string& reuseDirectory = "");

// Parses `ptxas -v` output: "Compiling entry function 'NAME' for 'sm_XX'" followed (before the
// next entry) by "Used N registers"; and "Function properties for NAME" followed by "N bytes
// stack frame".
RegisterCounts parseVerboseOutput(const std::string& text);

// The -maxrregcount in a ptxas option list (-maxrregcount=N, -maxrregcount N, --maxrregcount ...).
std::optional<unsigned> maxRegisterCount(const std::vector<std::string>& options);

// Whether the options make ptxas compile relocatable code (--compile-only / -c, as nvcc passes
// under -rdc): device functions are then compiled on their own, at their own register counts.
bool compilesRelocatable(const std::vector<std::string>& options);

// The line cucatch-ptx puts first in a module that ptxas must compile with -maxrregcount=N
// (relocatable code whose device functions must fit a kernel's cap), and what cucatch-nvcc's
// ptxas reads back from the PTX it is given (none when the text has no such first line).
std::string registerCapMarker(unsigned registers);
std::optional<unsigned> readRegisterCapMarker(std::string_view ptxText);
// `options` with every -maxrregcount replaced by -maxrregcount=N.
std::vector<std::string> withMaxRegisterCount(const std::vector<std::string>& options, unsigned registers);

// Splits a ptxas option string as a shell would split simple words (no quoting).
std::vector<std::string> splitOptions(const std::string& text);

}  // namespace cucatch::toolchain
