// Finding a program the way execvp does, for the tools that must name the file they will run or
// read (the ptxas nvcc runs, the program cucatch-run lists).
#pragma once

#include <string>
#include <string_view>

namespace cucatch::toolchain {

// The first executable `name` in the colon-separated directories of `searchPath` (a PATH value;
// an empty entry is the current directory, as for execvp; an empty value has no entries); ""
// if there is none.
std::string findOnPath(const std::string& name, std::string_view searchPath);

}  // namespace cucatch::toolchain
