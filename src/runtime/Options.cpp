#include "runtime/Options.h"

#include <charconv>

#include "runtime/Unwinder.h"

namespace cucatch::runtime {

const std::vector<OptionInfo>& optionTable() {
  static const std::vector<OptionInfo> table = {
#define CUCATCH_OPTION(member, type, flag, env, def, help) {#member, #type, flag, env, def, help},
#include "runtime/Options.inc"
#undef CUCATCH_OPTION
  };
  return table;
}

namespace {

std::string parseValue(const char* env, const char* text, bool& out) {
  std::string v(text);
  if (v == "1" || v == "yes" || v == "true" || v == "on") out = true;
  else if (v == "0" || v == "no" || v == "false" || v == "off") out = false;
  else return std::string(env) + "=" + v + ": expected 1 or 0";
  return {};
}

std::string parseValue(const char* env, const char* text, int64_t& out) {
  std::string_view v(text);
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (ec != std::errc() || end != v.data() + v.size() || v.empty())
    return std::string(env) + "=" + std::string(v) + ": expected an integer";
  return {};
}

std::string parseValue(const char*, const char* text, std::string& out) {
  out = text;
  return {};
}

}  // namespace

std::string Options::load(const std::function<const char*(const char*)>& lookup) {
  std::string error;
#define CUCATCH_OPTION(member, type, flag, env, def, help)             \
  if (error.empty()) {                                                  \
    const char* value = lookup(env);                                    \
    if (value && *value) error = parseValue(env, value, member);        \
  }
#include "runtime/Options.inc"
#undef CUCATCH_OPTION
  if (!error.empty()) return error;
  if (mode != "abort" && mode != "continue") return "CUCATCH_MODE=" + mode + ": expected abort or continue";
  if (!report.empty() && report.rfind("json:", 0) != 0)
    return "CUCATCH_REPORT=" + report + ": expected json:PATH";
  if (std::string error = Unwinder::checkChoice(unwinder); !error.empty()) return error;
  if (report == "json:") return "CUCATCH_REPORT=json: needs a path";
  if (errorExitCode < 0 || errorExitCode > 255) return "CUCATCH_ERROR_EXITCODE: expected 0..255";
  if (maxErrors < 1 || maxErrors > (1 << 24)) return "CUCATCH_MAX_ERRORS: expected 1..16777216";
  if (backtraceDepth < 0 || backtraceDepth > 256) return "CUCATCH_BACKTRACE_DEPTH: expected 0..256";
  if (bstCapacity < 512 || bstCapacity > (1 << 26)) return "CUCATCH_BST_CAPACITY: expected 512..67108864";
  return {};
}

Options Options::defaults() {
  Options o;
  std::string error;
#define CUCATCH_OPTION(member, type, flag, env, def, help) parseValue(env, def, o.member);
#include "runtime/Options.inc"
#undef CUCATCH_OPTION
  return o;
}

std::string Options::jsonReportPath() const { return report.rfind("json:", 0) == 0 ? report.substr(5) : std::string(); }

}  // namespace cucatch::runtime
