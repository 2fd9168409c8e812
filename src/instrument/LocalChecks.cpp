#include "instrument/LocalChecks.h"

#include <fmt/format.h>

#include "analysis/FrameLayout.h"
#include "analysis/ValueRange.h"
#include "instrument/Sequences.h"
#include "ptx/InstrInfo.h"

namespace cucatch::instrument {

using namespace cucatch::ptx;
using namespace cucatch::analysis;

namespace {

class LocalChecks {
 public:
  explicit LocalChecks(FunctionChecks& f) : fc_(f), pa_(f.analysis), ranges_(f.function, f.analysis) {
    if (f.options.localObjects) layout_.emplace(f.function, f.analysis, f.symbols);
  }

  void run() {
    Stats& stats = fc_.unit.stats;
    for (const auto& a : pa_.accesses()) {
      if (a.access.space != Space::Local) continue;
      std::string variable = variableOf(a);
      if (!a.access.uncheckable.empty()) {
        ++stats.unchecked[std::string(a.access.uncheckable)];
        continue;
      }
      if (variable.empty()) {
        ++stats.unchecked[a.addressRegister.empty() || !pa_.registers().is64Bit(a.addressRegister)
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

  // The address is the variable's symbol plus terms whose sum is bounded inside it.
  bool provenInBounds(const AccessSite& a, const std::string& variable) const {
    if (a.access.size == 0) return false;
    Interval offset{0, 0};
    if (a.addressSymbol.empty()) {
      auto from = ranges_.offsetFromSymbol(a.addressRegister);
      if (!from || from->first != variable) return false;
      offset = from->second;
    }
    int64_t extra = std::get<Instruction>(fc_.function.body[a.statement]).operands[a.access.addressOperand].value;
    return offset.lo + extra >= 0 &&
           static_cast<uint64_t>(offset.hi + extra) + a.access.size <= fc_.symbols.at(variable).size;
  }

  void check(const AccessSite& a, const std::string& variable) {
    auto& in = std::get<Instruction>(fc_.function.body[a.statement]);
    Site site = fc_.newSite(a);
    site.object = variable;
    site.objectBytes = fc_.symbols.at(variable).size;
    site.objectSpace = "local";
    std::optional<LocalObject> array = layout_ ? layout_->objectOf(a) : std::nullopt;
    if (array && array->frame == variable) {
      site.objectFrameArray = true;
      site.objectFrameOffset = array->start;
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
  const ValueRanges ranges_;
  std::optional<FrameLayout> layout_;  // --local-objects
};

}  // namespace

void checkLocalAccesses(FunctionChecks& f) { LocalChecks(f).run(); }

}  // namespace cucatch::instrument
