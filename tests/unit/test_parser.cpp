#include <catch2/catch.hpp>

#include "ptx/Parser.h"
#include "ptx_samples.h"

using namespace cucatch::ptx;

namespace {

Module parseOk(std::string_view text) {
  auto r = parseModule(text, "test.ptx");
  if (!r.ok())
    for (const auto& d : r.errors) FAIL(d.str());
  REQUIRE(r.ok());
  return std::move(*r.module);
}

const Function& functionNamed(const Module& m, std::string_view name) {
  for (const Function* f : m.functions())
    if (f->name == name) return *f;
  FAIL("no function " << name);
  throw;
}

// The n-th instruction of a function whose full opcode is `op`.
const Instruction& instructionNamed(const Function& f, std::string_view op, int n = 0) {
  for (const auto& s : f.body)
    if (auto* in = std::get_if<Instruction>(&s))
      if (in->fullOpcode() == op && n-- == 0) return *in;
  FAIL("no instruction " << op);
  throw;
}

}  // namespace

TEST_CASE("module directives", "[parser]") {
  Module m = parseOk(cucatch::test::kEverythingPtx);
  REQUIRE(m.version());
  CHECK(m.version()->version == "8.7");
  CHECK(m.version()->major() == 8);
  CHECK(m.version()->minor() == 7);
  CHECK(m.target()->targets == std::vector<std::string>{"sm_90a", "debug"});
  CHECK(m.smTarget() == "sm_90a");
  CHECK(m.version()->loc.line == 4);
}

TEST_CASE("global declarations keep every qualifier and initializer", "[parser]") {
  Module m = parseOk(cucatch::test::kEverythingPtx);
  std::vector<const VariableDecl*> globals;
  for (const auto& item : m.items)
    if (auto* v = std::get_if<VariableDecl>(&item)) globals.push_back(v);
  REQUIRE(globals.size() == 10);

  const VariableDecl& g = *globals[0];
  CHECK(g.space == ".global");
  CHECK(g.alignment() == 4);
  CHECK(g.type() == ".b8");
  REQUIRE(g.declarators.size() == 1);
  CHECK(g.declarators[0].name == "g");
  CHECK(g.declarators[0].dimensions.at(0) == "16");
  REQUIRE(g.declarators[0].initializer);
  CHECK(g.declarators[0].initializer->isList);
  CHECK(g.declarators[0].initializer->list.size() == 13);

  CHECK(globals[1]->declarators[0].initializer->expression == "generic(g)+4");
  CHECK(globals[2]->declarators[0].initializer->list.at(1).expression == "generic(g)+8");
  CHECK(globals[3]->linkage == std::vector<std::string>{".visible"});
  CHECK(globals[3]->hasQualifier(".attribute"));
  CHECK(globals[3]->qualifiers[0].parenthesized == ".managed");
  CHECK(globals[4]->linkage == std::vector<std::string>{".weak"});
  CHECK(globals[4]->declarators[0].initializer->expression == "-1");
  CHECK(globals[5]->linkage == std::vector<std::string>{".common"});
  CHECK(globals[6]->declarators[0].initializer->list.at(1).expression == "0fBF800000");
  CHECK(globals[8]->linkage == std::vector<std::string>{".extern"});
  CHECK(globals[8]->space == ".shared");
  REQUIRE(globals[8]->declarators[0].dimensions.size() == 1);
  CHECK_FALSE(globals[8]->declarators[0].dimensions[0].has_value());
  CHECK(globals[9]->type() == ".texref");
}

TEST_CASE("function headers: linkage, return and parameter lists, attributes", "[parser]") {
  Module m = parseOk(cucatch::test::kEverythingPtx);
  const Function& vprintf = functionNamed(m, "vprintf");
  CHECK(vprintf.linkage == std::vector<std::string>{".extern"});
  CHECK_FALSE(vprintf.hasBody);
  REQUIRE(vprintf.returns);
  CHECK(vprintf.returns->params.at(0).declarators[0].name == "func_retval0");
  CHECK(vprintf.params->params.size() == 2);

  const Function& callee = functionNamed(m, "callee");
  CHECK_FALSE(callee.isEntry);
  REQUIRE(callee.attributes.size() == 1);
  CHECK(callee.attributes[0].directive == ".noreturn");

  const Function& k = functionNamed(m, "kernel");
  CHECK(k.isEntry);
  CHECK(k.linkage == std::vector<std::string>{".visible"});
  REQUIRE(k.params->params.size() == 3);
  const VariableDecl& p0 = k.params->params[0];
  CHECK(p0.space == ".param");
  CHECK(p0.type() == ".u64");
  CHECK(p0.hasQualifier(".ptr"));
  CHECK(p0.alignment() == 8);
  CHECK(k.params->params[2].declarators[0].dimensions.at(0) == "32");
  REQUIRE(k.attributes.size() == 5);
  CHECK(k.attributes[0].directive == ".maxntid");
  CHECK(k.attributes[0].arguments == std::vector<std::string>{"256", "1", "1"});
  CHECK(k.attributes[1].directive == ".minnctapersm");
  CHECK(k.attributes[2].directive == ".explicitcluster");
  CHECK(k.attributes[2].arguments.empty());
  CHECK(k.attributes[3].directive == ".reqnctapercluster");
  CHECK(k.attributes[4].directive == ".reqntid");
  CHECK(k.attributes[4].arguments == std::vector<std::string>{"256"});
}

TEST_CASE("register declarations with ranges", "[parser]") {
  Module m = parseOk(cucatch::test::kEverythingPtx);
  const Function& k = functionNamed(m, "kernel");
  const auto* regs = std::get_if<VariableDecl>(&k.body[2]);
  REQUIRE(regs);
  CHECK(regs->space == ".reg");
  CHECK(regs->type() == ".b32");
  CHECK(regs->declarators[0].name == "%r");
  CHECK(regs->declarators[0].rangeCount == 20u);
}

TEST_CASE("instruction operands", "[parser]") {
  Module m = parseOk(cucatch::test::kEverythingPtx);
  const Function& k = functionNamed(m, "kernel");

  const Instruction& ldParam = instructionNamed(k, "ld.param.u64");
  CHECK(ldParam.opcode == "ld");
  CHECK(ldParam.modifiers == std::vector<std::string>{".param", ".u64"});
  CHECK(ldParam.operands.at(0).kind == OperandKind::Name);
  CHECK(ldParam.operands.at(0).text == "%rd1");
  CHECK(ldParam.operands.at(1).kind == OperandKind::Address);
  CHECK(ldParam.operands.at(1).text == "kernel_param_0");
  CHECK(ldParam.operands.at(1).value == 0);

  const Instruction& tid = instructionNamed(k, "mov.u32");
  CHECK(tid.operands.at(1).text == "%tid");
  CHECK(tid.operands.at(1).extra == ".x");

  const Instruction& vec = instructionNamed(k, "ld.global.nc.L1::no_allocate.v4.u32");
  CHECK(vec.modifiers.at(2) == ".L1::no_allocate");
  REQUIRE(vec.operands.at(0).kind == OperandKind::Vector);
  CHECK(vec.operands.at(0).elements.size() == 4);
  CHECK(vec.operands.at(1).text == "%rd4");
  CHECK(vec.operands.at(1).value == 16);

  const Instruction& negOff = instructionNamed(k, "st.global.u32");
  CHECK(negOff.operands.at(0).value == -4);

  const Instruction& bra = instructionNamed(k, "bra");
  REQUIRE(bra.guard);
  CHECK(bra.guard->predicate == "%p1");
  CHECK_FALSE(bra.guard->negated);
  const Instruction& braUni = instructionNamed(k, "bra.uni");
  CHECK(braUni.guard->negated);
  CHECK(braUni.operands.at(0).text == "$L__BB0_2");

  const Instruction& setp = instructionNamed(k, "setp.lt.s32");
  CHECK(setp.operands.at(0).kind == OperandKind::PredicatePair);
  CHECK(setp.operands.at(0).text == "%p1");
  CHECK(setp.operands.at(0).extra == "%p2");
  CHECK(setp.operands.at(2).kind == OperandKind::Integer);
  CHECK(setp.operands.at(2).value == 31);

  const Instruction& shfl = instructionNamed(k, "shfl.sync.bfly.b32");
  CHECK(shfl.operands.at(4).value == -1);

  CHECK(instructionNamed(k, "mov.u32", 1).operands.at(1).value == 15);   // octal
  CHECK(instructionNamed(k, "mov.u32", 2).operands.at(1).value == 5);    // binary
  CHECK(instructionNamed(k, "mov.u32", 3).operands.at(1).value == 4294967295);
  CHECK(instructionNamed(k, "mov.f32").operands.at(1).kind == OperandKind::Float);
  CHECK(instructionNamed(k, "mov.f32").operands.at(1).text == "0f3F800000");

  const Instruction& cp = instructionNamed(k, "cp.async.cg.shared.global.L2::128B");
  CHECK(cp.operands.at(1).text == "%rd4");

  const Instruction& abs = instructionNamed(k, "ld.u32");
  CHECK(abs.operands.at(1).kind == OperandKind::Address);
  CHECK(abs.operands.at(1).text.empty());
  CHECK(abs.operands.at(1).value == 0x100);

  const Instruction& tex = instructionNamed(k, "tex.2d.v4.f32.f32");
  CHECK(tex.operands.at(0).elements.at(3).text == "_");
  REQUIRE(tex.operands.at(1).elements.size() == 1);
  CHECK(tex.operands.at(1).elements[0].kind == OperandKind::Vector);

  const Instruction& expr = instructionNamed(k, "mov.u32", 4);
  CHECK(expr.operands.at(1).kind == OperandKind::Expression);
  CHECK(expr.operands.at(1).text == "(1<<3)+2");

  const Instruction& call = instructionNamed(k, "call.uni");
  REQUIRE(call.operands.size() == 3);
  CHECK(call.operands[0].kind == OperandKind::List);
  CHECK(call.operands[1].text == "callee");
  CHECK(call.operands[2].elements.at(0).text == "param0");
  // nvcc spreads calls over lines; every element remembers its own.
  CHECK(call.operands[1].loc.line == call.loc.line + 1);
  CHECK(call.operands[2].closeLoc.line == call.loc.line + 4);
  CHECK(call.endLoc.line == call.loc.line + 4);

  const Instruction& indirect = instructionNamed(k, "call");
  CHECK(indirect.operands.at(3).text == "prototype_0");
}

TEST_CASE("body directives: loc, scopes, prototypes, branch targets, pragmas", "[parser]") {
  Module m = parseOk(cucatch::test::kEverythingPtx);
  const Function& k = functionNamed(m, "kernel");
  int opens = 0, closes = 0, protos = 0, targets = 0, pragmas = 0, locs = 0, labels = 0;
  for (const auto& s : k.body) {
    if (auto* b = std::get_if<ScopeBrace>(&s)) (b->open ? opens : closes)++;
    if (auto* p = std::get_if<CallPrototype>(&s)) {
      ++protos;
      CHECK(p->name == "_");
      CHECK(p->returns->params.size() == 1);
      CHECK(p->params->params.size() == 1);
    }
    if (auto* t = std::get_if<TargetList>(&s)) {
      ++targets;
      if (t->directive == ".branchtargets")
        CHECK(t->targets == std::vector<std::string>{"$L__BB0_2", "$L__BB0_3"});
      else
        CHECK(t->targets == std::vector<std::string>{"callee"});
    }
    if (std::get_if<Pragma>(&s)) ++pragmas;
    if (auto* l = std::get_if<LocDirective>(&s)) {
      ++locs;
      CHECK(l->file == 1u);
      CHECK(l->line == 13u);
      CHECK(l->column == 5u);
      CHECK(l->attributes == std::vector<std::string>{"function_name $L__info_string0", "inlined_at 1 21 3"});
    }
    if (std::get_if<Label>(&s)) ++labels;
  }
  CHECK(opens == 1);
  CHECK(closes == 1);
  CHECK(protos == 1);
  CHECK(targets == 2);
  CHECK(pragmas == 1);
  CHECK(locs == 1);
  CHECK(labels == 5);  // $L__BB0_2, $L_calls, prototype_0, $L_brx_0, $L__BB0_3
}

TEST_CASE("files, sections and aliases", "[parser]") {
  Module m = parseOk(cucatch::test::kEverythingPtx);
  const FileDirective* file = nullptr;
  const Section* section = nullptr;
  const AliasDirective* alias = nullptr;
  for (const auto& item : m.items) {
    if (auto* f = std::get_if<FileDirective>(&item)) file = f;
    if (auto* s = std::get_if<Section>(&item)) section = s;
    if (auto* a = std::get_if<AliasDirective>(&item)) alias = a;
  }
  REQUIRE(file);
  CHECK(file->index == 1u);
  CHECK(file->path == "\"/tmp/everything.cu\"");
  CHECK(file->extra == std::vector<std::string>{"1700000000", "1234"});
  REQUIRE(section);
  CHECK(section->name == ".debug_str");
  REQUIRE(section->entries.size() == 4);
  CHECK(section->entries[0].label == "$L__info_string0");
  CHECK(section->entries[1].dataType == ".b8");
  CHECK(section->entries[1].values.size() == 8);
  CHECK(section->entries[2].values == std::vector<std::string>{".debug_abbrev"});
  REQUIRE(alias);
  CHECK(alias->alias == "callee_alias");
  CHECK(alias->aliasee == "callee");
}

TEST_CASE("older ISA constructs parse", "[parser]") {
  // PTX 6.x-era spellings: .tex variables, texmode, sm_50, old-style ld.global without .nc.
  Module m = parseOk(R"(
.version 6.4
.target sm_50, texmode_independent
.address_size 64
.tex .u64 oldtex;
.entry k(.param .u64 p)
{
	.reg .b64 %rd<3>;
	.reg .f32 %f<2>;
	ld.param.u64 %rd1, [p];
	ld.global.f32 %f1, [%rd1];
	ret;
}
)");
  CHECK(m.smTarget() == "sm_50");
  CHECK(m.version()->major() == 6);
}
