#include "toolchain/Ptxas.h"

#include <algorithm>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <regex>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

#include "fatbin/CubinAttributes.h"
#include "toolchain/CubinReuse.h"
#include "toolchain/SearchPath.h"

namespace cucatch::toolchain {

namespace fs = std::filesystem;

std::string findPtxas(const std::string& nvccHint) {
  std::vector<fs::path> candidates;
  if (const char* p = std::getenv("CUCATCH_PTXAS"); p && *p) return p;
  if (!nvccHint.empty()) candidates.push_back(fs::path(nvccHint).parent_path() / "ptxas");
  if (const char* home = std::getenv("CUDA_HOME"); home && *home) candidates.push_back(fs::path(home) / "bin/ptxas");
  candidates.push_back("/usr/local/cuda/bin/ptxas");
  for (const auto& c : candidates)
    if (::access(c.c_str(), X_OK) == 0) return c.string();
  const char* path = std::getenv("PATH");
  return path ? findOnPath("ptxas", path) : std::string();
}

RegisterCounts parseVerboseOutput(const std::string& text) {
  static const std::regex entry(R"(Compiling entry function '([^']+)')");
  static const std::regex used(R"(Used (\d+) registers)");
  static const std::regex properties(R"(Function properties for (\S+))");
  static const std::regex frame(R"(^\s*(\d+) bytes stack frame)");
  RegisterCounts out;
  std::string current, function;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_search(line, m, properties)) {
      function = m[1];
    } else if (!function.empty() && std::regex_search(line, m, frame)) {
      out.stackFrames[function] = static_cast<unsigned>(std::stoul(m[1]));
      function.clear();
    } else if (std::regex_search(line, m, entry)) {
      current = m[1];
    } else if (!current.empty() && std::regex_search(line, m, used)) {
      out.kernels[current] = static_cast<unsigned>(std::stoul(m[1]));
      current.clear();
    }
  }
  return out;
}

bool compilesRelocatable(const std::vector<std::string>& options) {
  return std::any_of(options.begin(), options.end(),
                     [](const std::string& o) { return o == "--compile-only" || o == "-c"; });
}

namespace {

// The register cap option at options[i], as ptxas spells it (-maxrregcount or -maxreg, one or
// two dashes, NAME=N or NAME N): how many options it spans, and its value (none for NAME as the
// last option); nullopt when options[i] is another option.
struct RegisterCapOption {
  size_t span;
  std::optional<std::string> value;
};
std::optional<RegisterCapOption> registerCapOptionAt(const std::vector<std::string>& options, size_t i) {
  std::string o = options[i];
  if (o.rfind("--", 0) == 0) o.erase(0, 1);
  for (std::string_view name : {"-maxrregcount", "-maxreg"}) {
    if (o == name)
      return i + 1 < options.size() ? RegisterCapOption{2, options[i + 1]} : RegisterCapOption{1, std::nullopt};
    if (o.size() > name.size() && o.compare(0, name.size(), name) == 0 && o[name.size()] == '=')
      return RegisterCapOption{1, o.substr(name.size() + 1)};
  }
  return std::nullopt;
}

constexpr std::string_view kCapMarker = "// cucatch: ptxas -maxrregcount=";

}  // namespace

std::string registerCapMarker(unsigned registers) { return fmt::format("{}{}\n", kCapMarker, registers); }

std::optional<unsigned> readRegisterCapMarker(std::string_view ptxText) {
  if (!ptxText.starts_with(kCapMarker)) return std::nullopt;
  ptxText.remove_prefix(kCapMarker.size());
  unsigned n = 0;
  auto [end, ec] = std::from_chars(ptxText.data(), ptxText.data() + ptxText.size(), n);
  if (ec != std::errc() || end == ptxText.data() || (end != ptxText.data() + ptxText.size() && *end != '\n'))
    return std::nullopt;
  return n;
}

std::vector<std::string> withMaxRegisterCount(const std::vector<std::string>& options, unsigned registers) {
  std::vector<std::string> out;
  for (size_t i = 0; i < options.size(); ++i) {
    if (auto cap = registerCapOptionAt(options, i)) {
      i += cap->span - 1;
      continue;
    }
    out.push_back(options[i]);
  }
  out.push_back(fmt::format("-maxrregcount={}", registers));
  return out;
}

std::vector<std::string> splitOptions(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

std::optional<unsigned> maxRegisterCount(const std::vector<std::string>& options) {
  auto number = [](const std::string& text) {
    unsigned n = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (ec != std::errc() || end != text.data() + text.size())
      throw std::runtime_error(fmt::format("-maxrregcount takes a number, not '{}'", text));
    return n;
  };
  std::optional<unsigned> n;
  for (size_t i = 0; i < options.size(); ++i)
    if (auto cap = registerCapOptionAt(options, i); cap && cap->value) n = number(*cap->value);
  return n;
}

namespace {

std::string temporaryDirectory() {
  const char* tmpdir = std::getenv("TMPDIR");
  return tmpdir && *tmpdir ? tmpdir : "/tmp";
}

// A new empty file `DIR/cucatch-measure-XXXXXX.SUFFIX`, its path.
std::string makeTemporary(const std::string& dir, const std::string& suffix) {
  std::string path = fmt::format("{}/cucatch-measure-XXXXXX{}", dir, suffix);
  int fd = ::mkstemps(path.data(), static_cast<int>(suffix.size()));
  if (fd < 0) throw std::runtime_error(fmt::format("cannot create a temporary file for ptxas: {}", std::strerror(errno)));
  ::close(fd);
  return path;
}

// Removes a file when it goes out of scope, unless released.
struct RemoveFile {
  std::string path;
  ~RemoveFile() {
    if (!path.empty()) ::unlink(path.c_str());
  }
};

void writeFile(const std::string& path, const std::string& text) {
  int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error(fmt::format("cannot write {}: {}", path, std::strerror(errno)));
  for (size_t done = 0; done < text.size();) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n <= 0) {
      ::close(fd);
      throw std::runtime_error(fmt::format("cannot write {}: {}", path, std::strerror(errno)));
    }
    done += static_cast<size_t>(n);
  }
  ::close(fd);
}

// Compiles `ptx` with `ptxas -arch=ARCH OPTIONS INPUT -o OBJECT` (INPUT a temporary file) and
// returns what it printed. Throws std::runtime_error with that text when it fails (`what`
// names the module: ptxas names its temporary input).
std::string runPtxas(const std::string& ptxas, const std::string& arch, const std::vector<std::string>& options,
                     const std::string& ptx, const std::string& object, const std::string& what) {
  RemoveFile input{makeTemporary(temporaryDirectory(), ".ptx")};
  writeFile(input.path, ptx);
  std::vector<std::string> argv{ptxas, "-arch=" + arch};
  argv.insert(argv.end(), options.begin(), options.end());
  argv.insert(argv.end(), {input.path, "-o", object});
  // Everything the child needs is made before fork: it only calls async-signal-safe functions.
  std::vector<char*> args;
  for (auto& a : argv) args.push_back(a.data());
  args.push_back(nullptr);
  static const char kCannotRun[] = "cannot run ptxas\n";
  int pipefd[2];
  if (::pipe2(pipefd, O_CLOEXEC) != 0) throw std::runtime_error(fmt::format("pipe failed: {}", std::strerror(errno)));
  pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(pipefd[1], 1);
    ::dup2(pipefd[1], 2);
    ::execv(args[0], args.data());
    (void)!::write(2, kCannotRun, sizeof kCannotRun - 1);
    ::_exit(127);
  }
  ::close(pipefd[1]);
  std::string output;
  char buf[4096];
  for (ssize_t n; (n = ::read(pipefd[0], buf, sizeof buf)) != 0;) {
    if (n < 0) {
      if (errno == EINTR) continue;
      break;
    }
    output.append(buf, static_cast<size_t>(n));
  }
  ::close(pipefd[0]);
  int status = 0;
  while (pid > 0 && ::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  if (pid < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw std::runtime_error(fmt::format("{} -arch={} could not compile {} to measure its kernels' registers:\n{}",
                                         ptxas, arch, what, output));
  return output;
}

}  // namespace

RegisterCounts measureRegisters(const std::string& ptxas, const std::string& arch,
                                const std::vector<std::string>& options, const std::string& ptx,
                                const std::string& what) {
  // Relocatable code's device functions have their counts only in the object.
  const bool relocatable = compilesRelocatable(options);
  RemoveFile object{relocatable ? makeTemporary(temporaryDirectory(), ".o") : std::string()};
  std::vector<std::string> verbose{"-v"};
  verbose.insert(verbose.end(), options.begin(), options.end());
  RegisterCounts counts =
      parseVerboseOutput(runPtxas(ptxas, arch, verbose, ptx, relocatable ? object.path : "/dev/null", what));
  if (relocatable) {
    try {
      for (const auto& [name, registers] : fatbin::functionRegisterCounts(fatbin::ElfFile(object.path)))
        if (!counts.kernels.count(name)) counts.deviceFunctions[name] = registers;
    } catch (const std::exception& e) {
      counts.deviceFunctions.clear();
      counts.deviceFunctionsUnread = fmt::format("cannot read the device functions' registers of {}: {}", what, e.what());
    }
  }
  return counts;
}

RegisterCounts measureFromObject(const std::string& ptxas, const std::string& arch,
                                 const std::vector<std::string>& options, const std::string& ptx,
                                 const std::set<std::string>& kernels, const std::string& what,
                                 const std::string& reuseDirectory) {
  if (compilesRelocatable(options))
    throw std::logic_error("measureFromObject: relocatable code's frames and device functions need ptxas -v");
  RemoveFile object{makeTemporary(reuseDirectory.empty() ? temporaryDirectory() : reuseDirectory, ".cubin")};
  const std::string output = runPtxas(ptxas, arch, options, ptx, object.path, what);
  RegisterCounts counts;
  try {
    for (const auto& [name, registers] : fatbin::functionRegisterCounts(fatbin::ElfFile(object.path)))
      if (kernels.count(name)) counts.kernels[name] = registers;
  } catch (const std::exception& e) {
    throw std::runtime_error(fmt::format("cannot read the registers ptxas recorded for {}: {}", what, e.what()));
  }
  for (const auto& k : kernels)
    if (!counts.kernels.count(k))
      throw std::runtime_error(fmt::format("ptxas recorded no register count for kernel {} of {}", k, what));
  // What ptxas printed (a warning) would be lost if nvcc's ptxas took this object: only a
  // compile that printed nothing is kept.
  if (!reuseDirectory.empty() && output.empty()) {
    storeForReuse(reuseDirectory, ptx, object.path, "-arch=" + arch, options);
    object.path.clear();
  }
  return counts;
}

}  // namespace cucatch::toolchain
