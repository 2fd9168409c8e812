#include "toolchain/CubinReuse.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "support/Fnv1a.h"

namespace cucatch::toolchain {

namespace fs = std::filesystem;

namespace {

std::optional<std::string> readWhole(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return in.bad() ? std::nullopt : std::optional<std::string>(text.str());
}

bool writeWhole(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  return static_cast<bool>(out);
}

std::string joinLines(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += w + "\n";
  return out;
}

}  // namespace

std::optional<std::vector<std::string>> reuseKey(const std::vector<std::string>& options) {
  std::set<std::string> names;
  for (const auto& o : options) {
    if (o.size() < 2 || o[0] != '-') return std::nullopt;  // a value as its own word
    std::string name = o.substr(0, o.find('='));
    if (name.rfind("--", 0) == 0) name.erase(0, 1);  // -opt and --opt are one option
    // Values written onto the option, and the long spellings of the short ones.
    if (name.rfind("-O", 0) == 0 || name == "-opt-level") name = "-O";
    if (name.rfind("-m", 0) == 0 && name.find_first_not_of("0123456789", 2) == std::string::npos) name = "-machine";
    if (name == "-gpu-name") name = "-arch";
    if (name == "-v" || name == "-verbose") return std::nullopt;
    // Debug information names the input and output files (seen: an object of -g differs with
    // either name).
    if (name == "-g" || name == "-device-debug") return std::nullopt;
    // Options read from a file, or the input given as a string: what they say is not compared
    // (a review's find: -g in an options file).
    if (name == "-optf" || name == "-options-file" || name == "-ias" || name == "-input-as-string") return std::nullopt;
    if (!names.insert(name).second) return std::nullopt;
  }
  std::vector<std::string> key = options;
  std::sort(key.begin(), key.end());
  return key;
}

void storeForReuse(const std::string& directory, const std::string& ptx, const std::string& object,
                   const std::string& arch, const std::vector<std::string>& options) {
  std::vector<std::string> all{arch};
  all.insert(all.end(), options.begin(), options.end());
  auto key = reuseKey(all);
  std::error_code ec;
  if (!key) {
    fs::remove(object, ec);
    return;
  }
  // DIR/HASH-XXXXXX.ptx, .cubin and last (its presence says the entry is whole) .options.
  std::string stem = fmt::format("{}/{:016x}-XXXXXX", directory, support::fnv1a64(ptx));
  std::string ptxPath = stem + ".ptx";
  int fd = ::mkstemps(ptxPath.data(), 4);
  if (fd < 0) {
    fs::remove(object, ec);
    return;
  }
  ::close(fd);
  stem = ptxPath.substr(0, ptxPath.size() - 4);
  const std::string optionsPath = stem + ".options", partial = stem + ".options.partial";
  if (!writeWhole(ptxPath, ptx) || (fs::rename(object, stem + ".cubin", ec), ec) ||
      !writeWhole(partial, joinLines(*key)) || (fs::rename(partial, optionsPath, ec), ec)) {
    for (const auto& p : {ptxPath, stem + ".cubin", partial}) fs::remove(p, ec);
    fs::remove(object, ec);
  }
}

std::optional<Reusable> findReusable(const std::string& directory, const std::vector<std::string>& arguments) {
  std::vector<std::string> options;
  std::string input, output;
  for (size_t i = 0; i < arguments.size(); ++i) {
    const std::string& a = arguments[i];
    if (a == "-o" && i + 1 < arguments.size()) {
      if (!output.empty()) return std::nullopt;
      output = arguments[++i];
    } else if (!a.empty() && a[0] != '-' && a.ends_with(".ptx")) {
      if (!input.empty()) return std::nullopt;
      input = a;
    } else {
      options.push_back(a);
    }
  }
  if (input.empty() || output.empty()) return std::nullopt;
  auto key = reuseKey(options);
  if (!key) return std::nullopt;
  auto ptx = readWhole(input);
  if (!ptx) return std::nullopt;
  const std::string prefix = fmt::format("{:016x}-", support::fnv1a64(*ptx));
  const std::string wantedOptions = joinLines(*key);
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(directory, ec)) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with(prefix) || !name.ends_with(".options")) continue;
    const fs::path stem = entry.path().parent_path() / name.substr(0, name.size() - 8);
    if (readWhole(entry.path()) != wantedOptions) continue;
    if (readWhole(fs::path(stem.string() + ".ptx")) != ptx) continue;
    return Reusable{stem.string() + ".cubin", output};
  }
  return std::nullopt;
}

}  // namespace cucatch::toolchain
