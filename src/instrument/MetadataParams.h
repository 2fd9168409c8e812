// Metadata that travels with a pointer into the module's own device functions. A function that
// is not inlined (a __noinline__ helper, recursion, every function of a debug build) used to
// meet each pointer parameter as a new base: READMETADATA looked the pointer up in the tables,
// which know allocations, not the `__shared__` array, the local frame or the `__constant__`
// array the caller made it from (a shared pointer got the block's whole shared window, a local
// one nothing). Here the caller hands the callee the bounds it holds: each selected pointer
// parameter gets three more parameters (base, size, metadata word), which the callee loads in
// place of READMETADATA and the caller fills at every call from the argument's metadata
// registers (GlobalChecks). A callee overrunning its caller's shared or local array through a
// generic pointer is then reported against that array, and the table walk moves out of the
// callee (to the caller, where it was not made already).
//
// Only where every call is seen and can be rewritten: a function with a body and no linkage
// (not .visible, .weak or .extern: no other unit calls it; .visible is admitted in a module
// compiled whole, where nvcc -G makes every device function .visible), whose name appears nowhere but as
// the callee of direct calls (its address is never taken: no indirect call, no virtual table),
// and each of whose calls stores every selected argument with one st.param in the call's
// scope; and not variadic (its last parameter, an unsized array, must stay last). Parameters
// selected: 64-bit scalars that the function loads into a register some access's address is
// made from, or converts to a shared address itself (`cvta.to.shared`: SharedChecks checks the
// shared accesses made from it against the bounds the callers pass).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/PointerAnalysis.h"
#include "ptx/IR.h"

namespace cucatch::instrument {

struct MetadataParams {
  struct Param {
    size_t position = 0;  // among the function's parameters (and so its calls' arguments)
    std::string name;
  };
  // Function -> its parameters that get metadata parameters, in parameter order.
  std::map<std::string, std::vector<Param>> byFunction;

  // The parameters of `function` that receive `param`'s metadata: base (.b64), size (.b64),
  // metadata word (.b32); empty where `param` gets none.
  std::vector<std::string> of(const std::string& function, const std::string& param) const;
};

// The metadata parameters of `module`'s functions (before the rewrite: reads the module only).
// `wholeProgram`: the module is all the device code its kernels run, so .visible functions are
// the module's own too.
MetadataParams metadataParamsOf(const ptx::Module& module, const analysis::SymbolTable& moduleSymbols,
                                bool wholeProgram);

// Adds the metadata parameters to the selected functions' signatures (definitions and
// declarations alike), after their own parameters. Call after every function's checks.
void addMetadataParams(ptx::Module& module, const MetadataParams& params);

// The st.param that stores argument `argument` of the call at `callStatement` in `caller`
// (searched back to the call's scope's opening brace): its statement, where there is exactly
// one, a scalar store of the whole parameter at offset 0.
std::optional<size_t> argumentStore(const ptx::Function& caller, size_t callStatement, const std::string& argument);

}  // namespace cucatch::instrument
