// cucatch-nvcc compiles each instrumented module with ptxas twice: while rewriting it, to learn
// its kernels' registers (RegisterLimits.h), and again when nvcc runs ptxas on the PTX it was
// handed. Where the measurement compiled exactly the text nvcc's ptxas is given, with exactly
// its options, the second compile would write the same bytes: ptxas 13.0 is deterministic, and
// its object records the options it was given (`.note.nv.tkinfo`: `-v` or `-m64` change the
// object) but not the names of its input and output files nor the options' order. So the
// measurement leaves its object in a directory cucatch-nvcc makes for the compilation, beside the
// text and the options, and cucatch-nvcc's ptxas copies it where the text and the options are
// the same. Anything else (another -arch, an option given twice, a warning ptxas printed) is
// compiled again.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace cucatch::toolchain {

// The options of one ptxas command as compared for reuse (without the input file and -o FILE):
// sorted. nullopt where two commands with these options could compile differently although
// they compare equal, or where the command asks ptxas to print or write anything besides the
// object: an option whose value is a word of its own, one given twice (the last one counts),
// -v, -g (debug information names the input and output files), and options files.
std::optional<std::vector<std::string>> reuseKey(const std::vector<std::string>& options);

// Keeps `object`, which `ptxas ARCH OPTIONS` compiled from `ptx` printing nothing, in
// `directory` for findReusable (moved there: `object` must lie in `directory`). Options that
// have no reuseKey keep nothing.
void storeForReuse(const std::string& directory, const std::string& ptx, const std::string& object,
                   const std::string& arch, const std::vector<std::string>& options);

// The object in `directory` that ptxas with `arguments` (a whole command line but the program:
// options, one input .ptx, -o FILE) would write, where one is there; and the output path.
struct Reusable {
  std::string object, output;
};
std::optional<Reusable> findReusable(const std::string& directory, const std::vector<std::string>& arguments);

}  // namespace cucatch::toolchain
