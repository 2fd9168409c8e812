// cucatch-nvcc: nvcc, with every PTX module instrumented and the cucatch runtime linked in.
//
// The real nvcc runs the whole compilation itself (so every flag, diagnostic, exit code, -M,
// -v, --keep and temporary file behaves as nvcc's own); cucatch-nvcc only changes where nvcc
// finds cicc, the compiler that writes PTX. nvcc normally reads that from nvcc.profile; here
// the profile is evaluated by cucatch-nvcc, passed in the environment with
// --dont-use-profile, and CICC_PATH points at a directory whose `cicc` is this very program.
// Called as `cicc`, it runs the real cicc and then rewrites the PTX it wrote (cucatch-ptx
// --mode=check) before ptxas or fatbinary ever read it. The runtime library is added to the
// profile's LIBRARIES, which nvcc puts on its host link line. nvcc runs as a child, so that
// the directory where the register measurements leave their objects for cucatch's ptxas
// (toolchain/CubinReuse.h) is removed when it is done.
//
//   CUCATCH_NVCC         the real nvcc (default: the one this build was configured with)
//   CUCATCH_RUNTIME_LIB  libcucatch.so to link (default: next to this program)
//   CUCATCH_PTX          the rewriter (default: cucatch-ptx next to this program)
//   CUCATCH_PTXAS_REUSE  0: ptxas compiles every instrumented module again, not taking the
//                        register measurement's object (toolchain/CubinReuse.h)
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "toolchain/CubinReuse.h"
#include "toolchain/Ptxas.h"
#include "toolchain/SearchPath.h"

#ifndef CUCATCH_DEFAULT_NVCC
#define CUCATCH_DEFAULT_NVCC "/usr/local/cuda/bin/nvcc"
#endif

namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail(const std::string& message) {
  std::fprintf(stderr, "cucatch-nvcc: error: %s\n", message.c_str());
  std::exit(1);
}

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

fs::path selfDirectory() {
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) fail("cannot find where cucatch-nvcc is installed (/proc/self/exe)");
  return self.parent_path();
}

// The first existing file of `candidates`, or an error naming `what` and `variable`.
fs::path locate(const std::string& what, const char* variable, const std::vector<fs::path>& candidates) {
  if (std::string v = env(variable); !v.empty()) {
    if (!fs::exists(v)) fail(std::string(variable) + "=" + v + ": no such file");
    return fs::absolute(v);
  }
  for (const auto& c : candidates)
    // Absolute but not resolved: the cicc wrapper is a link whose name matters.
    if (!c.empty() && fs::exists(c)) return fs::absolute(c).lexically_normal();
  fail("cannot find " + what + " (set " + variable + ")");
}

// `argv` as execv takes it (pointing into `argv`, which must outlive it).
std::vector<char*> execArguments(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  return args;
}

// Runs `argv` and returns its exit status (128 + signal when it was killed).
int run(const std::vector<std::string>& argv) {
  std::vector<char*> args = execArguments(argv);
  pid_t pid = fork();
  if (pid < 0) fail("fork failed");
  if (pid == 0) {
    execv(args[0], args.data());
    std::fprintf(stderr, "cucatch-nvcc: error: cannot run %s: %s\n", args[0], std::strerror(errno));
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) fail("waitpid failed");
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + WTERMSIG(status);
}

// Replaces this process with `argv` (argv[0] the program's path).
[[noreturn]] void execOrFail(const std::vector<std::string>& argv) {
  std::vector<char*> args = execArguments(argv);
  execv(args[0], args.data());
  fail("cannot run " + argv[0] + ": " + std::strerror(errno));
}

// ---- the ptxas wrapper --------------------------------------------------------------------------

// nvcc runs "ptxas" from the profile's PATH, where this program comes first under that name: it
// runs the real ptxas, with the -maxrregcount a module's first line asks for (cucatch-ptx puts
// it there for relocatable code whose device functions must fit a kernel's cap), and otherwise
// exactly as nvcc asked.
int asPtxas(int argc, char** argv) {
  std::string real = env("CUCATCH_REAL_PTXAS");
  if (real.empty()) fail("called as ptxas outside cucatch-nvcc (CUCATCH_REAL_PTXAS is not set)");
  std::vector<std::string> args(argv + 1, argv + argc);
  std::optional<unsigned> cap;
  for (const auto& a : args) {
    if (a.size() < 4 || a.compare(a.size() - 4, 4, ".ptx") != 0) continue;
    std::ifstream in(a);
    std::string first;
    if (in && std::getline(in, first)) cap = cucatch::toolchain::readRegisterCapMarker(first);
  }
  if (cap) args = cucatch::toolchain::withMaxRegisterCount(args, *cap);
  // The object the register measurement compiled from this very text with these very options
  // is the one ptxas would write (CubinReuse.h).
  if (std::string dir = env("CUCATCH_PTXAS_REUSE_DIR"); !dir.empty() && !cap) {
    if (auto reusable = cucatch::toolchain::findReusable(dir, args)) {
      // The bytes only, into a file made (or kept) as ptxas makes it: copy_file would give it
      // the measurement's temporary file's mode, 0600 (a review's find).
      std::ifstream in(reusable->object, std::ios::binary);
      std::ofstream out(reusable->output, std::ios::binary | std::ios::trunc);
      out << in.rdbuf();
      out.close();
      if (in && out) {
        if (!env("CUCATCH_NVCC_VERBOSE").empty())
          std::fprintf(stderr, "#$ cucatch-nvcc: %s is the object cucatch-ptx compiled to measure registers\n",
                       reusable->output.c_str());
        return 0;
      }
    }
  }
  args.insert(args.begin(), real);
  execOrFail(args);
}

// ---- the cicc wrapper ---------------------------------------------------------------------------

int asCicc(int argc, char** argv) {
  std::string real = env("CUCATCH_REAL_CICC");
  if (real.empty()) fail("called as cicc outside cucatch-nvcc (CUCATCH_REAL_CICC is not set)");
  std::vector<std::string> args{real};
  std::optional<std::string> output;
  std::string source, arch;
  bool lto = false, relocatable = false, debug = false;
  // What ptxas will be given for this PTX, as far as it changes register counts: nvcc hands
  // cicc -maxrregcount as "-maxreg N", and -G as -g; the user's -Xptxas options come from the
  // nvcc command line (CUCATCH_PTXAS_OPTIONS, set by cucatch-nvcc).
  std::string ptxasOptions = env("CUCATCH_PTXAS_OPTIONS");
  for (int i = 1; i < argc; ++i) {
    args.push_back(argv[i]);
    if (std::strcmp(argv[i], "-o") == 0 && i + 1 < argc) output = argv[i + 1];
    if (std::strcmp(argv[i], "--orig_src_path_name") == 0 && i + 1 < argc) source = argv[i + 1];
    if (std::strcmp(argv[i], "-arch") == 0 && i + 1 < argc) arch = argv[i + 1];
    if (std::strcmp(argv[i], "-lto") == 0 || std::strcmp(argv[i], "--lto") == 0) lto = true;
    // (As nvcc passes them to ptxas, so that the measurement's object is the one ptxas would
    // write and cucatch's ptxas can take it: CubinReuse.h.)
    if (std::strcmp(argv[i], "-maxreg") == 0 && i + 1 < argc) ptxasOptions += std::string(" -maxrregcount=") + argv[i + 1];
    if (std::strcmp(argv[i], "-g") == 0) debug = true;
    if (std::strcmp(argv[i], "-m64") == 0) ptxasOptions += " -m64";
    if (std::strcmp(argv[i], "-generate-line-info") == 0) ptxasOptions += " --generate-line-info";
    // Relocatable device code (-rdc): ptxas compiles it with --compile-only.
    // (Extensible whole-program code, -ewp, may be linked with other device code: not whole.)
    if (std::strstr(argv[i], "extensible-whole-program") || std::strcmp(argv[i], "-ewp") == 0) relocatable = true;
    if (std::strcmp(argv[i], "--device-c") == 0) {
      ptxasOptions += " --compile-only";
      relocatable = true;
    }
  }
  // -G: cicc gets -g (and --debug_mode), ptxas -g and two more.
  if (debug) ptxasOptions += " -g --dont-merge-basicblocks --return-at-end";
  int status = run(args);
  if (status != 0) return status;
  if (!output || lto || fs::path(*output).extension() != ".ptx") {
    std::fprintf(stderr,
                 "cucatch-nvcc: warning: cicc wrote %s, not PTX (link-time optimization?): that device code "
                 "is not instrumented\n",
                 output ? output->c_str() : "no output file");
    return 0;
  }
  std::string ptx = env("CUCATCH_PTX");
  std::vector<std::string> rewrite{ptx, "--mode=check", *output, "-o", *output};
  // The kernels' registers are measured with the toolkit's own ptxas, which nvcc runs next.
  if (std::string ptxas = env("CUCATCH_REAL_PTXAS"); !ptxas.empty()) rewrite.push_back("--ptxas=" + ptxas);
  if (!ptxasOptions.empty()) rewrite.push_back("--ptxas-options=" + ptxasOptions);
  if (!relocatable) rewrite.push_back("--whole-program");
  if (std::string reuse = env("CUCATCH_PTXAS_REUSE_DIR"); !reuse.empty() && !relocatable)
    rewrite.push_back("--ptxas-reuse-dir=" + reuse);
  // Reports name the module by its source, not by nvcc's temporary file.
  if (!source.empty()) rewrite.push_back("--module-name=" + source + (arch.empty() ? "" : " (" + arch + ")"));
  // CUCATCH_PTX_FLAGS: cucatch-ptx's options, as many as it holds (split at white space).
  if (std::string extra = env("CUCATCH_PTX_FLAGS"); !extra.empty()) {
    auto words = cucatch::toolchain::splitOptions(extra);
    rewrite.insert(rewrite.begin() + 2, words.begin(), words.end());
  }
  status = run(rewrite);
  if (status != 0) {
    std::fprintf(stderr, "cucatch-nvcc: error: cucatch-ptx could not instrument the PTX of this compilation (above)\n");
    return status;
  }
  return 0;
}

// ---- running nvcc ---------------------------------------------------------------------------

pid_t nvccChild = -1;

// Signals that end a process by default and that a build tool or a user sends: meant for
// cucatch-nvcc, they go on to nvcc, which ends as it would have; cucatch-nvcc then cleans up and
// ends the same way. (SIGKILL cannot be caught: nvcc gets it too, as its parent-death signal.)
constexpr int kForwardedSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM};

void forwardSignal(int signal) {
  if (nvccChild > 0) ::kill(nvccChild, signal);
}

// Runs nvcc (`argv`) with a directory for the register measurements' objects
// (CUCATCH_PTXAS_REUSE_DIR), removes the directory, and returns nvcc's exit status, or ends
// with the signal that ended nvcc.
int runNvcc(const std::vector<std::string>& argv) {
  const char* tmp = std::getenv("TMPDIR");
  std::string dir = std::string(tmp && *tmp ? tmp : "/tmp") + "/cucatch-nvcc-XXXXXX";
  // Without the directory everything works as before (ptxas compiles every module).
  const std::string reuse = env("CUCATCH_PTXAS_REUSE");
  if (!reuse.empty() && reuse != "0" && reuse != "1") fail("CUCATCH_PTXAS_REUSE takes 0 or 1, not '" + reuse + "'");
  if (reuse != "0" && ::mkdtemp(dir.data())) {
    setenv("CUCATCH_PTXAS_REUSE_DIR", dir.c_str(), 1);
  } else {
    dir.clear();
    unsetenv("CUCATCH_PTXAS_REUSE_DIR");  // (not another cucatch-nvcc's, which it may remove)
  }
  auto removeDirectory = [&] {
    std::error_code ec;
    if (!dir.empty()) fs::remove_all(dir, ec);
  };
  constexpr size_t n = std::size(kForwardedSignals);
  // Blocked until the child's pid is known, so that none arrives with nowhere to go.
  sigset_t forwarded, before;
  sigemptyset(&forwarded);
  for (int sig : kForwardedSignals) sigaddset(&forwarded, sig);
  ::sigprocmask(SIG_BLOCK, &forwarded, &before);
  struct sigaction forward{}, saved[n];
  forward.sa_handler = forwardSignal;
  sigemptyset(&forward.sa_mask);
  for (size_t i = 0; i < n; ++i) ::sigaction(kForwardedSignals[i], &forward, &saved[i]);
  std::vector<char*> args = execArguments(argv);
  const pid_t parent = ::getpid();
  nvccChild = ::fork();
  if (nvccChild < 0) {
    removeDirectory();
    fail("fork failed");
  }
  if (nvccChild == 0) {
    for (size_t i = 0; i < n; ++i) ::sigaction(kForwardedSignals[i], &saved[i], nullptr);
    ::sigprocmask(SIG_SETMASK, &before, nullptr);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(137);  // (cucatch-nvcc was killed before that)
    ::execv(args[0], args.data());
    std::fprintf(stderr, "cucatch-nvcc: error: cannot run %s: %s\n", args[0], std::strerror(errno));
    ::_exit(127);
  }
  ::sigprocmask(SIG_SETMASK, &before, nullptr);
  int status = 0;
  while (::waitpid(nvccChild, &status, 0) < 0)
    if (errno != EINTR) fail("waitpid failed");
  removeDirectory();
  if (WIFSIGNALED(status)) {
    for (size_t i = 0; i < n; ++i) ::sigaction(kForwardedSignals[i], &saved[i], nullptr);
    std::signal(WTERMSIG(status), SIG_DFL);
    ::raise(WTERMSIG(status));
    return 128 + WTERMSIG(status);
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

// ---- nvcc.profile -----------------------------------------------------------------------------

std::string trim(std::string s) {
  size_t b = s.find_first_not_of(" \t\r");
  size_t e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

// Evaluates the toolkit's nvcc.profile the way nvcc does: `NAME = v` sets, `NAME += v`
// prepends to the inherited value, `NAME =+ v` appends, `$(NAME)` expands.
using Profile = std::vector<std::pair<std::string, std::string>>;  // in the profile's order

std::string& setting(Profile& p, const std::string& name) {
  for (auto& [n, v] : p)
    if (n == name) return v;
  return p.emplace_back(name, "").second;
}

Profile evaluateProfile(const fs::path& nvcc) {
  fs::path here = nvcc.parent_path();
  std::map<std::string, std::string> vars{{"_HERE_", here.string()},
                                          {"_THERE_", here.string()},
                                          {"_SPACE_", " "},
                                          {"_TARGET_SIZE_", ""},
                                          {"_TARGET_DIR_", "targets/x86_64-linux"},
                                          {"_NVVM_BRANCH_", "nvvm"},
                                          {"_CUDART_", "cudart"}};
  auto lookup = [&](const std::string& name) -> std::string {
    if (auto it = vars.find(name); it != vars.end()) return it->second;
    return env(name.c_str());
  };
  auto expand = [&](std::string v) {
    std::string out;
    for (size_t i = 0; i < v.size(); ++i) {
      if (v[i] == '$' && i + 1 < v.size() && v[i + 1] == '(') {
        size_t close = v.find(')', i);
        if (close == std::string::npos) break;
        out += lookup(v.substr(i + 2, close - i - 2));
        i = close;
      } else {
        out += v[i];
      }
    }
    return out;
  };
  std::ifstream in(here / "nvcc.profile");
  if (!in) fail("cannot read " + (here / "nvcc.profile").string());
  Profile result;
  std::string line;
  while (std::getline(in, line)) {
    line = trim(line);
    if (line.empty() || line[0] == '#') continue;
    size_t eq = line.find('=');
    if (eq == std::string::npos) continue;
    std::string op = "=";
    std::string name = line.substr(0, eq);
    std::string value = line.substr(eq + 1);
    if (!name.empty() && name.back() == '+') {
      op = "+=";
      name.pop_back();
    } else if (!name.empty() && name.back() == '?') {
      op = "?=";
      name.pop_back();
    } else if (!value.empty() && value[0] == '+') {
      op = "=+";
      value.erase(0, 1);
    }
    name = trim(name);
    value = expand(trim(value));
    std::string current = lookup(name);
    if (op == "+=") value = value + current;
    else if (op == "=+") value = current + value;
    else if (op == "?=" && !current.empty()) value = current;
    vars[name] = value;
    setting(result, name) = value;
  }
  return result;
}

// The ptxas nvcc will run: the first on the PATH its profile sets ("" if none: cucatch-ptx then
// says so when it needs one).
std::string ptxasOf(const std::string& path) { return cucatch::toolchain::findOnPath("ptxas", path); }

// The options the nvcc command line passes to ptxas (-Xptxas A,B / --ptxas-options=A,B), as one
// string, for measuring the original kernels the way ptxas will compile them.
std::string ptxasOptionsOf(int argc, char** argv) {
  std::string out;
  auto add = [&](std::string list) {
    for (char& c : list)
      if (c == ',') c = ' ';
    out += " " + list;
  };
  for (int i = 1; i < argc; ++i) {
    std::string_view a(argv[i]);
    for (std::string_view name : {"-Xptxas", "--ptxas-options"}) {
      if (a == name && i + 1 < argc) add(argv[++i]);
      else if (a.size() > name.size() && a.substr(0, name.size()) == name && a[name.size()] == '=')
        add(std::string(a.substr(name.size() + 1)));
    }
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::string invokedAs = fs::path(argv[0]).filename().string();
  if (invokedAs == "cicc") return asCicc(argc, argv);
  if (invokedAs == "ptxas") return asPtxas(argc, argv);

  fs::path here = selfDirectory();
  std::string nvccSetting = env("CUCATCH_NVCC");
  fs::path nvcc = nvccSetting.empty() ? fs::path(CUCATCH_DEFAULT_NVCC) : fs::path(nvccSetting);
  if (!fs::exists(nvcc)) fail("the real nvcc, " + nvcc.string() + ", does not exist (set CUCATCH_NVCC)");
  // Absolute, not resolved: nvcc derives its paths (and the dependency lists it prints) from
  // the path it was run by.
  if (fs::canonical(nvcc).parent_path() == fs::canonical(here)) fail("CUCATCH_NVCC names cucatch-nvcc itself");
  nvcc = fs::absolute(nvcc).lexically_normal();

  fs::path runtime = locate("the cucatch runtime (libcucatch.so)", "CUCATCH_RUNTIME_LIB",
                            {here / "../lib/libcucatch.so", here / "../src/libcucatch.so"});
  fs::path rewriter = locate("cucatch-ptx", "CUCATCH_PTX", {here / "cucatch-ptx"});
  fs::path wrapper = locate("cucatch's cicc wrapper", "CUCATCH_CICC_WRAPPER",
                            {here / "libexec/cicc", here / "../libexec/cucatch/cicc"});

  Profile profile = evaluateProfile(nvcc);
  std::string realCicc = setting(profile, "CICC_PATH") + "/cicc";
  if (!fs::exists(realCicc)) fail("nvcc.profile names no usable cicc (" + realCicc + ")");
  setting(profile, "CICC_PATH") = wrapper.parent_path().string();
  // nvcc puts LIBRARIES on its host link line (and nvlink's, which skips host libraries).
  // As -L/-l, which build systems that link by themselves (CMake) pick up from nvcc -v.
  const std::string runtimeLibrary = runtime.stem().string().substr(3);  // libcucatch.so -> cucatch
  setting(profile, "LIBRARIES") += " \"-L" + runtime.parent_path().string() + "\" -l" + runtimeLibrary;
  std::string realPtxas = ptxasOf(setting(profile, "PATH"));
  // nvcc then finds cucatch's ptxas first (the wrapper directory has cicc and ptxas); where the
  // profile's PATH has no ptxas, nvcc fails as it would have.
  if (!realPtxas.empty()) setting(profile, "PATH") = wrapper.parent_path().string() + ":" + setting(profile, "PATH");
  for (const auto& [name, value] : profile) setenv(name.c_str(), value.c_str(), 1);
  setenv("CUCATCH_REAL_CICC", realCicc.c_str(), 1);
  setenv("CUCATCH_REAL_PTXAS", realPtxas.c_str(), 1);
  setenv("CUCATCH_PTXAS_OPTIONS", ptxasOptionsOf(argc, argv).c_str(), 1);
  setenv("CUCATCH_PTX", rewriter.c_str(), 1);

  std::vector<std::string> args{nvcc.string(), "--dont-use-profile"};
  bool verbose = false;
  for (int i = 1; i < argc; ++i) {
    args.push_back(argv[i]);
    std::string_view a(argv[i]);
    verbose |= a == "-v" || a == "--verbose" || a == "-dryrun" || a == "--dryrun";
  }
  // A device link (-rdc) keeps only the kernels the host refers to (nvlink uses the host
  // objects' information): the units' marker kernels, by which the runtime knows a module is
  // instrumented, have no host stub and were removed, so every -rdc program ran unchecked. Keep
  // all device code the host could refer to; it changes the binary's size, not what runs.
  // (nvcc ignores the option where it does not link.)
  args.push_back("-Xnvlink=-ignore-host-info");
  // The program needs the runtime although it calls none of it (it interposes on the driver):
  // a linker run --as-needed (GCC's default on Ubuntu) dropped LIBRARIES' -lcucatch wherever
  // the program links the shared CUDA runtime (-lcudart: NVIDIA's nccl-tests), whose
  // references libcucatch does not satisfy; that program then ran unchecked, saying nothing.
  // Asked for here without --as-needed, and only here (push-state, pop-state); nvcc passes
  // -Xlinker to the host link only, and ignores it where it does not link. (-L: LIBRARIES'.)
  args.push_back("-Xlinker");
  args.push_back("--push-state,--no-as-needed,-l" + runtimeLibrary + ",--pop-state");
  // nvcc lists the profile's settings under -v; without a profile it cannot, and build
  // systems (CMake's compiler detection) read them there.
  if (verbose)
    for (const auto& [name, value] : profile) std::fprintf(stderr, "#$ %s=%s\n", name.c_str(), value.c_str());
  std::fflush(stderr);
  if (verbose) setenv("CUCATCH_NVCC_VERBOSE", "1", 1);
  return runNvcc(args);
}
