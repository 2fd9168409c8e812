// The Shadow TBB pass for global memory: for every global or generic access whose address is
// a 64-bit register, metadata is read once at each base definition that reaches it, carried in
// registers alongside the pointer through arithmetic, copies and selects, and checked before
// the access, which then uses the untagged pointer.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "ptx/IR.h"

namespace cucatch::instrument {

// One instrumented access, for the runtime's reports (the module's site table).
struct Site {
  uint32_t id = 0;
  std::string function;
  uint32_t ptxLine = 0;
  uint32_t file = 0, line = 0, column = 0;  // from the last .loc before the access; 0: none
  // Where the code of that .loc was inlined (its inlined_at attribute); 0: not inlined.
  uint32_t inlinedFile = 0, inlinedLine = 0, inlinedColumn = 0;
  bool entry = false;  // the function is a kernel
  std::string instruction;
  std::string kind;   // read / write / atomic
  unsigned size = 0;
  std::string space;  // global / generic
};

struct Stats {
  std::map<std::string, size_t> instrumented;  // "global read", "generic write", ...
  std::map<std::string, size_t> unchecked;     // reason -> count
  size_t provenInBounds = 0;  // [sym+off] accesses inside a module variable: no check needed
  size_t metadataReads = 0;   // READMETADATA sequences (base definitions)
  size_t phiAccesses = 0;     // accesses reached by more than one base definition
  size_t functions = 0;
};

struct Result {
  uint32_t unit = 0;  // this compilation unit's id: a hash of the module as it came in
  std::vector<Site> sites;
  Stats stats;
};

struct Options {
  bool emitSiteTable = true;  // the JSON site table as a module variable
};

// Instruments `module` in place. Throws std::runtime_error for modules it must refuse (for
// example ones that already use cucatch's reserved names).
Result instrumentGlobalAccesses(ptx::Module& module, const Options& options = {});

// The site table as JSON (what the module embeds as __cucatch_sites).
std::string siteTableJson(const ptx::Module& module, uint32_t unit, const std::vector<Site>& sites);

}  // namespace cucatch::instrument
