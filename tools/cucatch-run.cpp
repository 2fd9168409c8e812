// cucatch-run [options] -- PROGRAM [ARGS...]
//
// Runs a program under the cucatch runtime: its CUCATCH_* options given as flags (the same
// table the runtime reads, src/runtime/Options.inc), and libcucatch.so preloaded, so that a
// program built by plain nvcc or linked by hand gets the interposer too. (Its kernels are only
// checked where they were built by cucatch-nvcc.)
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "runtime/Options.h"

namespace fs = std::filesystem;

int main(int argc, char** argv) {
  CLI::App app{"cucatch-run: run a CUDA program under the cucatch runtime"};
  std::map<std::string, std::string> values;
  for (const auto& o : cucatch::runtime::optionTable()) {
    std::string help = fmt::format("{} (sets {}; default {})", o.help, o.env, *o.defaultValue ? o.defaultValue : "unset");
    auto* opt = app.add_option(fmt::format("--{}", o.flag), values[o.env], help);
    if (std::string_view(o.type) == "Bool") opt->check(CLI::IsMember({"0", "1"}))->type_name("0|1");
    if (std::string_view(o.type) == "Int") opt->check(CLI::Number)->type_name("N");
    if (std::string_view(o.env) == "CUCATCH_MODE") opt->check(CLI::IsMember({"abort", "continue"}));
  }
  std::string runtimeLib;
  app.add_option("--runtime", runtimeLib, "libcucatch.so to preload (default: the one installed with this tool)");
  std::vector<std::string> command;
  app.add_option("command", command, "the program and its arguments (after --)")->required();
  app.allow_extras(false);
  CLI11_PARSE(app, argc, argv);

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
