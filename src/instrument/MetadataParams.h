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
//
// Functions reached through pointers (a table of device functions, a virtual call): in a module
// compiled whole, every function whose address is taken and every indirect call are in the
// module, so caller and callee can agree on a rule that does not depend on which function a
// pointer holds: every 64-bit scalar parameter of such a function, and of an indirect call's
// prototype, gets metadata parameters, whether or not it is a pointer (an integer argument is
// given what READMETADATA finds for its value, which the callee never uses). All or nothing:
// where one address-taken function or one indirect call cannot follow the rule (no body,
// linkage, variadic, an argument stored otherwise than by one st.param, a call through
// .calltargets), no function or call in the module does, and they keep their signatures.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_set>
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
  // Indirect calls: (caller, the call's prototype label) -> the prototype's parameters that get
  // metadata parameters, in parameter order (`name` is the prototype's, "_").
  std::map<std::pair<std::string, std::string>, std::vector<Param>> byPrototype;

  // The arguments of `call` (a call instruction of `caller`) whose metadata it passes, in
  // parameter order: its callee's or its prototype's; null where it passes none.
  const std::vector<Param>* passedBy(const std::string& caller, const ptx::Instruction& call) const;

  // The parameters of `function` that receive `param`'s metadata: base (.b64), size (.b64),
  // metadata word (.b32); empty where `param` gets none.
  std::vector<std::string> of(const std::string& function, const std::string& param) const;
};

// Whether another unit may call `f` (or define it in place of this one): .visible (unless
// `wholeProgram`), .weak, .extern or .common.
bool callableFromElsewhere(const ptx::Function& f, bool wholeProgram);

// Every name the module's instructions use, except as the callee of a direct call; and the
// names module-level initializers and aliases mention. A function among them may be reached
// by other means than the calls a rewrite sees (its address is taken).
std::unordered_set<std::string> namesUsedOtherwise(const ptx::Module& module);

// A parameter list's last parameter is an unsized array in a variadic function
// (`.param .align 8 .b8 %VAParam[]`): it must stay last, no parameter can follow it.
bool hasUnsizedArray(const std::optional<ptx::ParamList>& params);

// A 64-bit scalar parameter (`.param .b64 name`, no array, no .ptr attribute): where a function
// reached from code that does not know its body takes metadata (MetadataParams' rule by type).
bool isScalar64Param(const ptx::VariableDecl& p);

// Whether the call at `statement` of `caller` can pass metadata by that rule to a callee (or
// prototype) with parameters `calleeParams`: as many arguments as parameters, and each 64-bit
// scalar argument stored by one plain st.param (argumentStore).
bool passesByType(const ptx::Function& caller, size_t statement, const std::optional<ptx::ParamList>& calleeParams);

// The parameters of `f` whose ld.param makes a register some access's address comes from (the
// whole 64-bit parameter), or that `f` converts to a shared address itself: what metadata
// parameters serve.
std::vector<MetadataParams::Param> pointerParams(const ptx::Function& f, const analysis::SymbolTable& moduleSymbols);
// ... from `f`'s analysis, where the caller has one.
std::vector<MetadataParams::Param> pointerParams(const ptx::Function& f, const analysis::PointerAnalysis& pa);

// The metadata parameters of `module`'s functions (before the rewrite: reads the module only).
// `wholeProgram`: the module is all the device code its kernels run, so .visible functions are
// the module's own too.
// `byType`: functions that take metadata for every 64-bit scalar parameter, whose every call
// here stores those arguments with one st.param (RelocatableCalls.h's entry points).
MetadataParams metadataParamsOf(const ptx::Module& module, const analysis::SymbolTable& moduleSymbols,
                                bool wholeProgram, const std::set<std::string>& byType = {});

// Adds the metadata parameters to the selected functions' signatures (definitions and
// declarations alike) and to the selected indirect calls' prototypes, after their own
// parameters. Call after every function's checks.
void addMetadataParams(ptx::Module& module, const MetadataParams& params);

// The st.param that stores argument `argument` of the call at `callStatement` in `caller`
// (searched back to the call's scope's opening brace): its statement, where there is exactly
// one, a scalar store of the whole parameter at offset 0.
std::optional<size_t> argumentStore(const ptx::Function& caller, size_t callStatement, const std::string& argument);

}  // namespace cucatch::instrument
