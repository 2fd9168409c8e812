#include "runtime/JitLoader.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <span>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "fatbin/Image.h"
#include "jit/JitImage.h"
#include "runtime/Report.h"
#include "support/Fnv1a.h"

extern char** environ;

namespace cucatch::runtime {

namespace {

namespace fs = std::filesystem;

using jit::kHelperInstrumentedAlready, jit::kHelperLinkInputs, jit::kHelperNoPtx, jit::kHelperWithoutCaps;

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// The CUDA toolkit's own libraries, whose kernels JIT mode leaves alone: their PTX, where they
// ship any, is large and not the program's, and they are not what a user checks.
bool isCudaLibrary(const std::string& object) {
  std::string name = fs::path(object).filename().string();
  for (const char* prefix : {"libcu", "libnv", "libnpp", "libnccl"})
    if (name.rfind(prefix, 0) == 0) return true;
  return false;
}

// The loaded object whose memory holds `p` (an embedded fatbinary), or empty.
std::string objectHolding(const void* p) {
  Dl_info info{};
  if (!dladdr(p, &info) || !info.dli_fname) return {};
  return info.dli_fname;
}

// A file for the helper's input, and its output and messages beside it; removed on every path.
class TempFiles {
 public:
  TempFiles() {
    const char* dir = std::getenv("TMPDIR");
    std::string pattern = fmt::format("{}/cucatch-jit-XXXXXX", dir && *dir ? dir : "/tmp");
    std::vector<char> name(pattern.begin(), pattern.end());
    name.push_back('\0');
    int fd = mkstemp(name.data());
    if (fd < 0) return;
    ::close(fd);
    input_ = name.data();
  }
  ~TempFiles() {
    if (input_.empty()) return;
    for (const std::string& p : {input_, output(), messages()}) ::unlink(p.c_str());
  }
  TempFiles(const TempFiles&) = delete;
  TempFiles& operator=(const TempFiles&) = delete;
  bool ok() const { return !input_.empty(); }
  const std::string& input() const { return input_; }
  std::string output() const { return input_ + ".ptx"; }
  std::string messages() const { return input_ + ".txt"; }

 private:
  std::string input_;
};

// Runs `argv` with stdout and stderr into `messages`, without the preloaded runtime; its exit
// status, or -1 where it could not be run or waited for.
int runHelper(const std::vector<std::string>& argv, const std::string& messages) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::vector<char*> env;
  for (char** e = environ; e && *e; ++e)
    if (std::strncmp(*e, "LD_PRELOAD=", 11) != 0) env.push_back(*e);
  env.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, messages.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid = 0;
  int spawned = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), env.data());
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) return -1;
  int status = 0;
  pid_t waited;
  do waited = waitpid(pid, &status, 0);
  while (waited < 0 && errno == EINTR);
  if (waited != pid || !WIFEXITED(status)) return -1;
  return WEXITSTATUS(status);
}

std::string trimmed(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

}  // namespace

std::string JitLoader::findHelper(const std::string& runtimePath) {
  fs::path dir = fs::path(runtimePath).parent_path();
  for (const fs::path& candidate : {dir / "../tools/cucatch-fatbin", dir / "../bin/cucatch-fatbin"}) {
    std::error_code ec;
    if (fs::is_regular_file(candidate, ec)) return fs::weakly_canonical(candidate, ec).string();
  }
  return {};
}

const char* JitLoader::replacement(const void* image, const void* caller) {
  if (!image) return nullptr;
  const auto* first = static_cast<const uint8_t*>(image);
  // Text first (a short PTX string may end before four bytes could be read): PTX starts with a
  // comment, a directive or white space; the binary formats with none of those bytes.
  bool text = *first == '/' || *first == '.' || *first == ' ' || *first == '\t' || *first == '\n' || *first == '\r';
  std::lock_guard lock(mutex_);
  if (text) {
    std::string_view ptx(static_cast<const char*>(image));
    auto head = std::span(reinterpret_cast<const uint8_t*>(ptx.data()), std::min<size_t>(ptx.size(), 4096));
    if (fatbin::classifyImage(head) != fatbin::ImageKind::Ptx) return nullptr;
    return instrumentPtx(std::string(ptx), {"run-time PTX", true}, false);
  }
  if (!jitMode_) return nullptr;
  auto kind = fatbin::classifyImage(std::span(first, 4));
  const void* container = kind == fatbin::ImageKind::Fatbinary          ? image
                          : kind == fatbin::ImageKind::FatbinaryWrapper ? fatbin::wrappedContainer(image)
                                                                       : nullptr;
  if (kind != fatbin::ImageKind::Cubin && !container) return nullptr;
  // Where the image lies, else (memory of its own) who loads it.
  std::string object = objectHolding(container ? container : image);
  if (object.empty() && caller) {
    // The shared CUDA runtime calls the driver for the program (cudaLibraryLoadData of its own
    // buffer): what it loads is not a library's own.
    std::string callerObject = objectHolding(caller);
    if (!fs::path(callerObject).filename().string().starts_with("libcudart")) object = callerObject;
  }
  if (!object.empty() && isCudaLibrary(object)) {
    sayOnce("library " + object,
            fmt::format("cucatch: note: JIT mode leaves the CUDA libraries' own kernels uninstrumented ({}): they run "
                        "unchecked, with untagged arguments\n",
                        fs::path(object).filename().string()));
    return nullptr;
  }
  if (kind == fatbin::ImageKind::Cubin) {
    if (auto size = fatbin::elfImageSize(image))
      noteCubin(std::string_view(static_cast<const char*>(image), *size), "cubins loaded from memory");
    return nullptr;
  }
  auto size = fatbin::containerSize(container);
  if (!size) return nullptr;
  ImageName name = object.empty() ? ImageName{"fatbinary", true} : ImageName{object};
  // The image itself (the CUDA runtime's wrapper, which may list the relocatable units the driver
  // links at load time) is what the relinked kernels are measured against.
  return instrument(std::string(static_cast<const char*>(container), *size), name, false, object, image);
}

const char* JitLoader::replacementForFile(const char* path) {
  if (!path) return nullptr;
  std::string bytes = readFile(path);
  if (bytes.size() < 4) return nullptr;  // the driver says what is wrong with it
  auto kind = fatbin::classifyImage(std::span(reinterpret_cast<const uint8_t*>(bytes.data()),
                                              std::min<size_t>(bytes.size(), 4096)));
  std::lock_guard lock(mutex_);
  if (kind == fatbin::ImageKind::Ptx) return instrumentPtx(std::move(bytes), {path}, false);
  if (kind == fatbin::ImageKind::Fatbinary && jitMode_) return instrument(bytes, {path}, false);
  if (kind == fatbin::ImageKind::Cubin && jitMode_) noteCubin(bytes, path);
  return nullptr;
}

void JitLoader::noteCubin(std::string_view cubin, const std::string& name) {
  if (jit::isInstrumented(cubin)) return;  // a cucatch-nvcc build's
  // Once per process: a program may load one per kernel (Triton, torch.compile).
  sayOnce("cubin", fmt::format("cucatch: note: {}: not instrumented: a cubin holds SASS only, no PTX; its kernels run "
                               "unchecked, with untagged arguments (further cubins are not named)\n",
                               name));
}

const char* JitLoader::replacementForLink(const void* data, size_t size, bool ptx, const char* name) {
  if (!data || size == 0 || (!ptx && !jitMode_)) return nullptr;
  std::string bytes(static_cast<const char*>(data), size);
  std::lock_guard lock(mutex_);
  ImageName label = name && *name ? ImageName{name} : ImageName{"linked input", true};
  // A link's inputs are relocatable code: no register caps (JitLoader.h).
  if (!ptx) {
    auto kind = fatbin::classifyImage(std::span(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
    return kind == fatbin::ImageKind::Fatbinary ? instrument(bytes, label, true) : nullptr;
  }
  bytes.resize(std::strlen(bytes.c_str()));  // up to a terminator the size may include
  return instrumentPtx(std::move(bytes), label, true);
}

const char* JitLoader::replacementForLinkFile(const char* path, bool ptx) {
  if (!path) return nullptr;
  std::string bytes = readFile(path);
  return replacementForLink(bytes.data(), bytes.size(), ptx, path);
}

const char* JitLoader::instrumentPtx(std::string ptx, ImageName name, bool relocatable) {
  if (jit::isInstrumented(ptx)) return nullptr;  // a cucatch-nvcc build's, or one handed out here
  return instrument(ptx, std::move(name), relocatable);
}

const char* JitLoader::instrument(const std::string& bytes, ImageName imageName, bool relocatable,
                                  const std::string& object, const void* original) {
  if (helper_.empty()) {
    sayOnce("helper", "cucatch: warning: cucatch-fatbin was not found beside libcucatch (../tools or ../bin), so PTX "
                      "the program loads cannot be instrumented: such modules run unchecked, with untagged "
                      "arguments\n");
    return nullptr;
  }
  unsigned deviceArch = deviceArch_();
  if (!deviceArch) {
    sayOnce("arch", "cucatch: warning: the driver does not say the device's architecture, so PTX the program loads "
                    "cannot be instrumented: such modules run unchecked, with untagged arguments\n");
    return nullptr;
  }
  // The same image loaded again (a program that loads and unloads a module in a loop) gets what
  // the first load got, without running the helper: what was handed out is kept for the life of
  // the process, so that memory is bounded by the distinct images. Keyed by the image's size and
  // two independent 64-bit hashes of its bytes, not the bytes: a copy of every image, kept for
  // the process's life, would double what an NVRTC or Triton program keeps (a review's find).
  // Only outcomes that the image decides are kept: a helper that could not run, was killed or
  // failed is asked again at the next load, as before (a review's find).
  const std::string key = fmt::format("{}\n{}\n{}\n{}\n{}:{:016x}{:016x}", deviceArch, relocatable, object,
                                      imageName.numbered ? "" : imageName.name, bytes.size(),
                                      std::hash<std::string_view>{}(bytes),
                                      support::fnv1a64(bytes));  // (independent of std::hash)
  if (auto known = replaced_.find(key); known != replaced_.end()) return known->second;
  const Outcome outcome = runHelperOn(bytes, imageName, relocatable, object, original, deviceArch);
  if (outcome.decidedByImage) replaced_.emplace(key, outcome.replacement);
  return outcome.replacement;
}

JitLoader::Outcome JitLoader::runHelperOn(const std::string& bytes, const ImageName& imageName, bool relocatable,
                                          const std::string& object, const void* original, unsigned deviceArch) {
  const std::string name = imageName.numbered ? fmt::format("{} {}", imageName.name, ++images_) : imageName.name;
  TempFiles files;
  if (!files.ok()) {
    sayOnce("temp", fmt::format("cucatch: warning: no temporary file for JIT instrumentation ({}): modules load "
                                "uninstrumented\n",
                                std::strerror(errno)));
    return {};
  }
  {
    std::ofstream in(files.input(), std::ios::binary);
    in.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  // Register caps as cucatch-nvcc's, but not for relocatable code (a link's inputs): its device
  // functions are capped by the link, which the driver does here.
  std::vector<std::string> argv{helper_, "jit", files.input(), "--arch", fmt::format("sm_{}", deviceArch), "-o",
                                files.output(), "--cache", "auto", "--name", name, "--ptxas",
                                relocatable ? "none" : "auto"};
  if (!object.empty() && link_) argv.insert(argv.end(), {"--relocatable-from", object});
  if (!ptxFlags_.empty()) argv.insert(argv.end(), {"--ptx-flags", ptxFlags_});
  // A module loaded on its own (not a link's input) is all the device code its kernels run.
  if (!relocatable) argv.push_back("--whole-program");
  int status = runHelper(argv, files.messages());
  // What the helper says names the module by `name` (it never shows its temporary input).
  std::string said = trimmed(readFile(files.messages()));
  if (said.rfind("cucatch-fatbin: ", 0) == 0) said = said.substr(16);
  if (status == kHelperWithoutCaps)
    sayOnce("caps " + name, fmt::format("cucatch: note: {} (its kernels may accept smaller blocks than without cucatch; "
                                        "a launch the driver refuses is explained)\n",
                                        said));
  if (status == 0 || status == kHelperWithoutCaps) {
    std::string ptx = readFile(files.output());
    if (!ptx.empty()) {
      loaded_.push_back(std::move(ptx));
      return {loaded_.back().c_str(), true};
    }
  }
  if (status == kHelperLinkInputs) {
    auto inputs = jit::unpackLinkInputs(readFile(files.output()));
    std::string why = inputs ? "" : "the helper's list of link inputs is malformed";
    std::string cubin = inputs ? link_(*inputs, original, why) : "";
    if (cubin.empty()) {
      sayOnce("failed " + name, fmt::format("cucatch: warning: {}: its relocatable device code could not be linked "
                                            "again, instrumented ({}), so it loads as it is and runs unchecked\n",
                                            name, why));
      return {};
    }
    if (!why.empty()) sayOnce("link " + name, fmt::format("cucatch: note: {}: {}\n", name, why));
    loaded_.push_back(std::move(cubin));
    return {loaded_.back().data(), true};
  }
  if (status == kHelperInstrumentedAlready) return {nullptr, true};
  if (status == kHelperNoPtx) {
    sayOnce("no PTX " + name,
            fmt::format("cucatch: note: {}; its kernels run unchecked, with untagged arguments\n", said));
    return {nullptr, true};
  }
  sayOnce("failed " + name, fmt::format("cucatch: warning: {} could not be instrumented, so it loads as it is and runs "
                                        "unchecked ({} exited {}):\n{}\n",
                                        name, helper_, status, said));
  return {};
}

void JitLoader::sayOnce(const std::string& key, const std::string& text) {
  if (said_.insert(key).second) writeStderr(text);
}

}  // namespace cucatch::runtime
