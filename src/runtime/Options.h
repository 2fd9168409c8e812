// The runtime's options (CUCATCH_* environment variables), generated from Options.inc. No CUDA.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace cucatch::runtime {

struct Options {
#define CUCATCH_OPTION_TYPE_Bool bool
#define CUCATCH_OPTION_TYPE_Int int64_t
#define CUCATCH_OPTION_TYPE_String std::string
#define CUCATCH_OPTION_TYPE_Choice std::string
#define CUCATCH_OPTION(member, type, flag, env, def, help) CUCATCH_OPTION_TYPE_##type member{};
#include "runtime/Options.inc"
#undef CUCATCH_OPTION

  bool continueMode() const { return mode == "continue"; }
  // The path of CUCATCH_REPORT=json:PATH, or empty.
  std::string jsonReportPath() const;

  // Defaults, then every variable `lookup` finds. Returns an error message ("CUCATCH_MODE=x:
  // expected abort or continue") for the first value it cannot use, or empty.
  std::string load(const std::function<const char*(const char*)>& lookup);
  static Options defaults();
};

struct OptionInfo {
  const char* member;
  const char* type;  // "Bool", "Int", "String" or "Choice"
  const char* flag;  // cucatch-run's --flag
  const char* env;
  const char* defaultValue;
  const char* help;
};
const std::vector<OptionInfo>& optionTable();

}  // namespace cucatch::runtime
