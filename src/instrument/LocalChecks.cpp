#include "instrument/LocalChecks.h"

#include <fmt/format.h>

#include <map>

#include "analysis/ValueRange.h"
#include "instrument/Sequences.h"
#include "ptx/InstrInfo.h"
#include "ptx/Printer.h"

namespace cucatch::instrument {

using namespace cucatch::ptx;
using namespace cucatch::analysis;

namespace {

class LocalChecks {
 public:
  explicit LocalChecks(FunctionChecks& f) : fc_(f), pa_(f.analysis), ranges_(f.ranges) {}

  void run() {
    Stats& stats = fc_.unit.stats;
    for (const auto& a : pa_.accesses()) {
      if (a.access.space != Space::Local) continue;
      if (fc_.localThroughPassedPointer(a)) continue;  // GlobalChecks', with the bounds passed
      std::string variable = variableOf(a);
      if (!a.access.uncheckable.empty()) {
        ++stats.unchecked[std::string(a.access.uncheckable)];
        continue;
      }
      if (variable.empty()) {
        std::optional<size_t> alloca = allocaOf(a);
        if (alloca && !fc_.cfg.inLoop(fc_.cfg.blockOf(pa_.defs()[*alloca].statement))) {
          checkAlloca(a, *alloca);
          continue;
        }
        ++stats.unchecked[alloca ? "local address of an alloca in a loop"
                          : a.addressRegister.empty() || !pa_.registers().is64Bit(a.addressRegister)
                              ? "local address that is not a 64-bit register or a local variable's symbol"
                              : "local address not made from a local variable of known size"];
        continue;
      }
      if (provenInBounds(a, variable)) {
        ++stats.provenInBounds;
        continue;
      }
      check(a, variable);
    }
    if (!allocaBlocks_.empty())
      fc_.declarations += fmt::format(".reg .b64 {}<{}>;\n", kAllocaPrefix, 2 * allocaBlocks_.size());
  }

 private:
  // The local variable of known size that `a`'s address is made from on every path (its
  // symbol, or every base reaching its register), or "".
  std::string variableOf(const AccessSite& a) const {
    std::string symbol = a.addressSymbol;
    if (symbol.empty()) {
      if (a.addressRegister.empty() || !pa_.registers().is64Bit(a.addressRegister)) return {};
      symbol = pa_.symbolOfEveryBase(a);
    }
    return localVariable(fc_.symbols, symbol) ? symbol : std::string();
  }

  // The alloca every base of `a`'s 64-bit address register is (index into the defs), if any.
  std::optional<size_t> allocaOf(const AccessSite& a) const {
    if (a.addressRegister.empty() || !pa_.registers().is64Bit(a.addressRegister)) return std::nullopt;
    return pa_.allocaOfEveryBase(a);
  }

  // An access through the block alloca definition `def` made. The block's size and address are
  // kept in registers of their own around the alloca (its result register goes on to be
  // converted to a generic address and back, as nvcc does it). Only for an alloca outside every
  // loop: it then makes one block per call of the function, the one every pointer derived from
  // it points into; in a loop, a pointer kept from an earlier iteration would be checked
  // against the latest block.
  void checkAlloca(const AccessSite& a, size_t def) {
    const PointerDef& d = pa_.defs()[def];
    auto [it, fresh] = allocaBlocks_.try_emplace(def, allocaBlocks_.size());
    std::string base = fmt::format("{}{}", kAllocaPrefix, 2 * it->second);
    std::string size = fmt::format("{}{}", kAllocaPrefix, 2 * it->second + 1);
    if (fresh) {
      const auto& alloca = std::get<Instruction>(fc_.function.body[d.statement]);
      std::string g = alloca.guard ? guardPrefix(alloca.guard->predicate, alloca.guard->negated) : "";
      // (The size before the alloca, which may write the register that held it.)
      fc_.edits.before[d.statement] += fmt::format("{}mov.b64 {}, {};\n", g, size, printOperand(alloca.operands.at(1)));
      fc_.edits.after[d.statement] += fmt::format("{}mov.b64 {}, {};\n", g, base, printOperand(alloca.operands.at(0)));
    }
    auto& in = std::get<Instruction>(fc_.function.body[a.statement]);
    Site site = fc_.newSite(a);
    site.object = "alloca";
    site.objectSpace = "local";
    site.objectDynamic = true;  // (its size is the record's)
    ++fc_.unit.stats.localAllocaBlocks;
    CheckSite c = fc_.checkSite(a, site);
    CheckCode code = allocaCheck(fc_.regs, base, size, c, in.guard ? in.guard->predicate : "",
                                 in.guard && in.guard->negated);
    fc_.edits.before[a.statement] += code.inlined;
    fc_.outOfLine += code.outOfLine;
    fc_.addSite(std::move(site), a);
  }

  // The address is the variable's symbol plus terms whose sum is bounded inside it.
  bool provenInBounds(const AccessSite& a, const std::string& variable) const {
    if (a.access.size == 0) return false;
    auto from = ranges_.firstByteOffsets(a);
    if (!from || from->first != variable) return false;
    return from->second.lo >= 0 &&
           static_cast<uint64_t>(from->second.hi) + a.access.size <= fc_.symbols.at(variable).size;
  }

  void check(const AccessSite& a, const std::string& variable) {
    auto& in = std::get<Instruction>(fc_.function.body[a.statement]);
    Site site = fc_.newSite(a);
    site.object = variable;
    site.objectBytes = fc_.symbols.at(variable).size;
    site.objectSpace = "local";
    std::optional<LocalObject> array = fc_.frames ? fc_.frames->objectOf(a) : std::nullopt;
    if (array && array->frame == variable) {
      site.objectFrameArray = true;
      site.objectFrameOffset = array->start;
      site.objectFrameBytes = site.objectBytes;
      site.objectBytes = array->size;
      ++fc_.unit.stats.localArrays;
    } else {
      ++fc_.unit.stats.localWholeFrame;
    }
    CheckSite c = fc_.checkSite(a, site);
    CheckCode code = localCheck(fc_.regs, variable, site.objectFrameOffset, site.objectBytes, c,
                                in.guard ? in.guard->predicate : "", in.guard && in.guard->negated);
    fc_.edits.before[a.statement] += code.inlined;
    fc_.outOfLine += code.outOfLine;
    fc_.addSite(std::move(site), a);
  }

  FunctionChecks& fc_;
  const PointerAnalysis& pa_;
  const ValueRanges& ranges_;
  std::map<size_t, size_t> allocaBlocks_;  // alloca definition -> its pair of registers (base, size)
  static constexpr const char* kAllocaPrefix = "%__cc_alloca";
};

}  // namespace

void checkLocalAccesses(FunctionChecks& f) { LocalChecks(f).run(); }

}  // namespace cucatch::instrument
