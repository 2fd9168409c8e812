// The PTX IR: what the parser builds, analysis reads, instrumentation edits and the printer
// writes. Small value types, no parse-tree pointers: a Module owns everything it holds.
//
// Source lines are part of the IR. ptxas records PTX line numbers in the cubin's line tables
// (.nv_debug_line_sass), so printing an unmodified module must put every element back on the
// line it came from; elements the instrumentation creates have line 0 ("synthetic").
// Columns are kept for diagnostics only and are not compared.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace cucatch::ptx {

struct SourceLoc {
  uint32_t line = 0;  // 1-based; 0 = created by cucatch, not from the input
  uint32_t column = 0;

  bool isSynthetic() const { return line == 0; }
  // Lines are semantic (see above); columns are layout.
  bool operator==(const SourceLoc& other) const { return line == other.line; }
};

// ----------------------------------------------------------------------------- operands

enum class OperandKind : uint8_t {
  Name,           // register, symbol or label: %r1, _Z3fooPf_param_0, $L__BB0_2, _ ; may carry
                  // a component (%tid.x) or a negation (!%p1)
  Integer,        // 42, -1, 0x1F, 017, 0b101, 7U
  Float,          // 0f3F800000, 0d3FF0000000000000, 1.5
  Expression,     // any other constant expression, kept as canonical text: sym+4, (1<<3)
  Vector,         // {%r1, %r2, _}
  Address,        // [%rd1+8], [sym], [0x100], [tex, {%f1, %f2}]
  List,           // (param0, param1) in call
  PredicatePair,  // %p1|%p2, %r1|%p1 (setp / shfl with two results)
};

struct Operand {
  OperandKind kind = OperandKind::Name;
  bool negated = false;  // Name only: !%p
  // Address only: the offset was written out, even as +0. ptxas at -O0 (-G) emits different
  // code for [%SP+0] and [%SP], so the spelling is kept.
  bool explicitOffset = false;
  // Name: the identifier. Integer/Float/Expression: the source spelling, printed back verbatim.
  // Address: the base register or symbol ("" for an absolute address or a complex expression).
  // PredicatePair: the first name.
  std::string text;
  // Name: a component such as ".x" (%tid.x). PredicatePair: the second name.
  // Address: the spelling of an absolute address ([0x100]; `value` holds it too), or of a
  // complex address expression that is not base+offset (canonical text).
  std::string extra;
  int64_t value = 0;              // Integer: its value. Address: the byte offset.
  std::vector<Operand> elements;  // Vector/List: the elements. Address: operands after the
                                  // first, e.g. texture coordinates.
  SourceLoc loc;
  SourceLoc closeLoc;  // List: where ')' stood (nvcc splits call lists across lines)

  bool operator==(const Operand&) const = default;

  static Operand name(std::string n, SourceLoc l = {});
  static Operand integer(int64_t v, SourceLoc l = {});
  static Operand address(std::string base, int64_t offset, SourceLoc l = {});
  static Operand vector(std::vector<Operand> elems, SourceLoc l = {});

  bool isName() const { return kind == OperandKind::Name; }
  // A '%'-prefixed name. Inline-asm blocks may declare registers without '%'; analyses that
  // need certainty consult the function's .reg declarations.
  bool isPercentName() const { return kind == OperandKind::Name && !text.empty() && text[0] == '%'; }
};

// ----------------------------------------------------------------------------- declarations

// One word of a declaration, in source order: `.align 8`, `.b32`, `.global`, `.ptr`,
// `.attribute(.managed)`. Kept as a sequence so a declaration prints exactly as it was.
struct DeclQualifier {
  std::string word;              // ".align", ".b32", ".global", ".attribute", ...
  std::optional<int64_t> number; // .align N
  std::string parenthesized;     // .attribute(...) contents, canonical text
  bool operator==(const DeclQualifier&) const = default;
};

struct Initializer {
  // Either a brace list of initializers or one constant expression (canonical text).
  std::string expression;
  std::vector<Initializer> list;
  bool isList = false;
  bool operator==(const Initializer&) const = default;
};

struct Declarator {
  std::string name;
  std::optional<uint32_t> rangeCount;               // %r<12>: 12 registers %r0..%r11
  std::vector<std::optional<std::string>> dimensions; // [16], [] (as text, may be an expression)
  std::optional<Initializer> initializer;
  bool operator==(const Declarator&) const = default;
};

// A variable or parameter declaration: [linkage] space qualifiers declarator{, declarator}
struct VariableDecl {
  std::vector<std::string> linkage;   // .visible .extern .weak .common
  std::string space;                  // .reg .global .shared .local .const .param .tex .sreg
  std::vector<DeclQualifier> qualifiers;
  std::vector<Declarator> declarators;
  SourceLoc loc;
  bool operator==(const VariableDecl&) const = default;

  // Convenience views over `qualifiers`.
  std::optional<int64_t> alignment() const;
  std::string type() const;  // the first qualifier that names a fundamental type (.b8, .u64, ...)
  bool hasQualifier(std::string_view word) const;
};

// ----------------------------------------------------------------------------- body statements

struct Guard {
  std::string predicate;
  bool negated = false;
  bool operator==(const Guard&) const = default;
};

struct Instruction {
  std::optional<Guard> guard;
  std::string opcode;                  // "ld"
  std::vector<std::string> modifiers;  // {".global", ".v4", ".u32"}
  std::vector<Operand> operands;
  SourceLoc loc;
  SourceLoc endLoc;  // where ';' stood
  bool operator==(const Instruction&) const = default;

  bool hasModifier(std::string_view m) const;
  std::string fullOpcode() const;  // "ld.global.v4.u32"
};

struct Label {
  std::string name;
  SourceLoc loc;
  bool operator==(const Label&) const = default;
};

// .loc file line [column] {, attribute}: attributes kept as text (function_name, inlined_at).
struct LocDirective {
  uint32_t file = 0;
  uint32_t line = 0;
  std::optional<uint32_t> column;
  std::vector<std::string> attributes;
  SourceLoc loc;
  bool operator==(const LocDirective&) const = default;
};

struct Pragma {
  std::vector<std::string> strings;  // with their quotes, as written
  SourceLoc loc;
  bool operator==(const Pragma&) const = default;
};

// `{` or `}` of a nested scope inside a function body (call sequences, inline asm).
struct ScopeBrace {
  bool open = true;
  SourceLoc loc;
  bool operator==(const ScopeBrace&) const = default;
};

// .branchtargets / .calltargets: label or function lists for brx.idx and indirect calls.
struct TargetList {
  std::string directive;  // ".branchtargets" or ".calltargets"
  std::vector<std::string> targets;
  SourceLoc loc;
  bool operator==(const TargetList&) const = default;
};

// A generic dotted directive with numeric arguments: .maxntid 256, 1, 1 / .noreturn /
// .attribute(...) / .pragma "..." in a function header.
struct FunctionAttribute {
  std::string directive;
  std::vector<std::string> arguments;  // source spelling
  bool parenthesized = false;          // .attribute( ... )
  SourceLoc loc;
  bool operator==(const FunctionAttribute&) const = default;
};

struct ParamList {
  std::vector<VariableDecl> params;
  SourceLoc open, close;
  bool operator==(const ParamList&) const = default;
};

// .callprototype [(ret)] _ (params) [attributes];
struct CallPrototype {
  std::optional<ParamList> returns;
  std::string name;  // always "_" in practice
  std::optional<ParamList> params;
  std::vector<FunctionAttribute> attributes;
  SourceLoc loc;
  SourceLoc endLoc;
  bool operator==(const CallPrototype&) const = default;
};

using Statement = std::variant<Instruction, Label, VariableDecl, LocDirective, Pragma, ScopeBrace,
                               TargetList, CallPrototype>;

// ----------------------------------------------------------------------------- module level

struct Function {
  std::vector<std::string> linkage;  // .visible .extern .weak
  bool isEntry = false;              // .entry (kernel) vs .func
  std::vector<FunctionAttribute> leadingAttributes;  // between .func and the name
  std::optional<ParamList> returns;
  std::string name;
  SourceLoc nameLoc;
  std::optional<ParamList> params;
  std::vector<FunctionAttribute> attributes;  // .maxntid, .reqntid, .noreturn, ...
  bool hasBody = false;                       // false: a declaration ending in ';'
  std::vector<Statement> body;
  SourceLoc loc, bodyOpen, bodyClose;  // bodyClose: '}' or ';'
  bool operator==(const Function&) const = default;
};

struct SectionEntry {
  // A label (`$L__info_string0:`) when `values` is empty and `label` is set; otherwise a data
  // directive `.b8 1, 2, 3`.
  std::string label;
  std::string dataType;
  std::vector<std::string> values;
  SourceLoc loc;
  bool operator==(const SectionEntry&) const = default;
};

struct Section {
  std::string name;  // ".debug_info"
  std::vector<SectionEntry> entries;
  SourceLoc loc, open, close;
  bool operator==(const Section&) const = default;
};

struct VersionDirective {
  std::string version;  // "9.0"
  SourceLoc loc;
  bool operator==(const VersionDirective&) const = default;
  int major() const;
  int minor() const;
};
struct TargetDirective {
  std::vector<std::string> targets;  // {"sm_90a"} or {"sm_80", "debug"}
  SourceLoc loc;
  bool operator==(const TargetDirective&) const = default;
};
struct AddressSizeDirective {
  uint32_t bits = 64;
  SourceLoc loc;
  bool operator==(const AddressSizeDirective&) const = default;
};
struct FileDirective {
  uint32_t index = 0;
  std::string path;                 // with quotes, as written
  std::vector<std::string> extra;   // timestamp, size
  SourceLoc loc;
  bool operator==(const FileDirective&) const = default;
};
struct AliasDirective {
  std::string alias, aliasee;
  SourceLoc loc;
  bool operator==(const AliasDirective&) const = default;
};

using TopLevel = std::variant<VersionDirective, TargetDirective, AddressSizeDirective,
                              FileDirective, Section, Function, VariableDecl, AliasDirective,
                              Pragma>;

struct Module {
  std::string sourceName;  // for diagnostics; not compared
  std::vector<TopLevel> items;

  bool operator==(const Module& other) const { return items == other.items; }

  const VersionDirective* version() const;
  const TargetDirective* target() const;
  // "sm_90a" from `.target sm_90a, debug`; "" when absent.
  std::string smTarget() const;
  std::vector<Function*> functions();
  std::vector<const Function*> functions() const;
};

// Marks IR built from cucatch's own text as synthetic: every source location becomes 0, so the
// printer puts it on lines of its own.
void makeSynthetic(Statement& s);
void makeSynthetic(TopLevel& t);

// Source location of any statement (for diagnostics and layout).
SourceLoc locOf(const Statement& s);
SourceLoc locOf(const TopLevel& t);

}  // namespace cucatch::ptx
