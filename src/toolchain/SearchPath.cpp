#include "toolchain/SearchPath.h"

#include <unistd.h>

#include <filesystem>

namespace cucatch::toolchain {

std::string findOnPath(const std::string& name, std::string_view searchPath) {
  namespace fs = std::filesystem;
  if (searchPath.empty()) return {};  // no search path at all, not the current directory
  while (true) {
    size_t colon = searchPath.find(':');
    std::string_view dir = searchPath.substr(0, colon);
    fs::path candidate = fs::path(dir.empty() ? "." : std::string(dir)) / name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
    if (colon == std::string_view::npos) return {};
    searchPath.remove_prefix(colon + 1);
  }
}

}  // namespace cucatch::toolchain
