// cucatch-run [options] -- PROGRAM [ARGS...]
// cucatch-run --list -- PROGRAM
//
// Runs a program under the cucatch runtime: its CUCATCH_* options given as flags (the same
// table the runtime reads, src/runtime/Options.inc), and libcucatch.so preloaded, so that a
// program built by plain nvcc or linked by hand gets the interposer too. (Its kernels are only
// checked where they were built by cucatch-nvcc.)
//
// --list runs nothing: it reads the program and the shared libraries it links (as `ldd` finds
// them) and prints one line per fatbinary entry (architecture, PTX or SASS, compression) and
// whether cucatch instrumented it. No GPU needed.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <cstring>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "fatbin/Listing.h"
#include "runtime/Options.h"
#include "toolchain/SearchPath.h"

namespace fs = std::filesystem;

namespace {

// The program and the shared libraries the dynamic linker would load for it, as `ldd` says.
std::vector<std::string> programAndLibraries(const std::string& program) {
  std::vector<std::string> files{program};
  std::string command = "ldd '" + program + "' 2>/dev/null";
  FILE* p = ::popen(command.c_str(), "r");
  if (!p) return files;
  char line[4096];
  while (std::fgets(line, sizeof line, p)) {
    std::string_view l(line);
    auto arrow = l.find("=> ");
    if (arrow == std::string_view::npos) continue;
    auto path = l.substr(arrow + 3);
    path = path.substr(0, path.find(" ("));
    while (!path.empty() && (path.back() == '\n' || path.back() == ' ')) path.remove_suffix(1);
    if (!path.empty() && path[0] == '/') files.emplace_back(path);
  }
  ::pclose(p);
  return files;
}

int listDeviceCode(const std::string& name) {
  std::string program = name;
  if (program.find('/') == std::string::npos)  // as execvp would find it
    if (const char* path = std::getenv("PATH"))
      if (std::string found = cucatch::toolchain::findOnPath(program, path); !found.empty()) program = found;
  std::vector<cucatch::fatbin::ListedEntry> all;
  int status = 0;
  for (const auto& file : programAndLibraries(program)) {
    try {
      auto entries = cucatch::fatbin::listFile(file);
      all.insert(all.end(), entries.begin(), entries.end());
    } catch (const std::exception& e) {
      fmt::print(stderr, "cucatch-run: error: {}\n", e.what());
      status = 2;
    }
  }
  if (all.empty()) fmt::print("{}: no device code (no fatbinary) in the program or the libraries it links\n", program);
  else fmt::print("{}", cucatch::fatbin::formatListing(all));
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"cucatch-run: run a CUDA program under the cucatch runtime"};
  std::map<std::string, std::string> values;
  for (const auto& o : cucatch::runtime::optionTable()) {
    std::string help = fmt::format("{} (sets {}; default {})", o.help, o.env, *o.defaultValue ? o.defaultValue : "unset");
    // A switch is given as --jit (on) or --jit=0 / --jit=1.
    bool isSwitch = std::string_view(o.type) == "Bool";
    auto* opt = isSwitch ? app.add_flag(fmt::format("--{}{{1}}", o.flag), values[o.env], help)
                         : app.add_option(fmt::format("--{}", o.flag), values[o.env], help);
    if (isSwitch) opt->check(CLI::IsMember({"0", "1"}).description(""))->option_text("[=0|1]");
    if (std::string_view(o.type) == "Int") opt->check(CLI::Number)->type_name("N");
    if (std::string_view(o.env) == "CUCATCH_MODE") opt->check(CLI::IsMember({"abort", "continue"}));
  }
  std::string runtimeLib;
  app.add_option("--runtime", runtimeLib, "libcucatch.so to preload (default: the one installed with this tool)");
  std::vector<std::string> command;
  app.add_option("command", command, "the program and its arguments (after --)")->required();
  bool list = false;
  app.add_flag("--list", list,
               "run nothing: list the device code in the program and the shared libraries it links, and "
               "whether cucatch instrumented it");
  app.allow_extras(false);
  CLI11_PARSE(app, argc, argv);
  if (list) return listDeviceCode(command[0]);

  // Options are checked by the runtime's own parser, so the two cannot disagree.
  cucatch::runtime::Options check = cucatch::runtime::Options::defaults();
  std::string error = check.load([&](const char* env) -> const char* {
    auto it = values.find(env);
    return it != values.end() && !it->second.empty() ? it->second.c_str() : std::getenv(env);
  });
  if (!error.empty()) {
    fmt::print(stderr, "cucatch-run: error: {}\n", error);
    return 2;
  }
  for (const auto& [env, value] : values)
    if (!value.empty()) setenv(env.c_str(), value.c_str(), 1);

  if (runtimeLib.empty()) {
    fs::path here = fs::read_symlink("/proc/self/exe").parent_path();
    for (fs::path c : {here / "../lib/libcucatch.so", here / "../src/libcucatch.so"})
      if (fs::exists(c)) {
        runtimeLib = fs::canonical(c).string();
        break;
      }
  }
  if (runtimeLib.empty() || !fs::exists(runtimeLib)) {
    fmt::print(stderr, "cucatch-run: error: cannot find libcucatch.so (use --runtime)\n");
    return 2;
  }
  std::string preload = runtimeLib;
  if (const char* old = std::getenv("LD_PRELOAD"); old && *old) preload += std::string(":") + old;
  setenv("LD_PRELOAD", preload.c_str(), 1);

  std::vector<char*> args;
  for (auto& a : command) args.push_back(a.data());
  args.push_back(nullptr);
  execvp(args[0], args.data());
  fmt::print(stderr, "cucatch-run: error: cannot run {}: {}\n", command[0], std::strerror(errno));
  return 127;
}
