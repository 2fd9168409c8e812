// Builds the IR from the ANTLR parse tree. The parse tree never escapes this file.
#include "ptx/Parser.h"

#include <fmt/format.h>

#include <cstring>
#include <memory>
#include <stdexcept>

#include "ptx/FastLexer.h"
#include "PTXLexer.h"
#include "PTXParser.h"
#include "antlr4-runtime.h"

namespace cucatch::ptx {

std::string Diagnostic::str() const {
  return fmt::format("{}:{}:{}: error: {}", file, line, column, message);
}

namespace {

using antlr4::Token;
using P = PTXParser;

// Collects syntax errors from the lexer and the parser.
class CollectingErrorListener : public antlr4::BaseErrorListener {
 public:
  CollectingErrorListener(std::string file, unsigned maxErrors)
      : file_(std::move(file)), maxErrors_(maxErrors) {}

  void syntaxError(antlr4::Recognizer*, Token* offending, size_t line, size_t column,
                   const std::string& msg, std::exception_ptr) override {
    if (errors.size() >= maxErrors_) return;
    std::string text = msg;
    if (offending && offending->getType() == PTXLexer::ERROR_CHAR)
      text = fmt::format("unexpected character '{}'", offending->getText());
    errors.push_back({file_, static_cast<uint32_t>(line), static_cast<uint32_t>(column + 1),
                      std::move(text)});
  }

  std::vector<Diagnostic> errors;

 private:
  std::string file_;
  unsigned maxErrors_;
};

SourceLoc locOfToken(const Token* t) {
  return {static_cast<uint32_t>(t->getLine()), static_cast<uint32_t>(t->getCharPositionInLine() + 1)};
}
SourceLoc locOfCtx(antlr4::ParserRuleContext* ctx) { return locOfToken(ctx->getStart()); }

bool isWordChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '$' || c == '.' || c == '%';
}

// Canonical text of a token range: tokens joined with a space only where joining them
// directly could make the lexer read something else (two words, or two operator characters
// that would form `<<`, `&&`, ...).
class Speller {
 public:
  explicit Speller(antlr4::TokenStream& tokens) : tokens_(tokens) {}

  std::string spell(antlr4::ParserRuleContext* ctx) const {
    std::string out;
    size_t first = ctx->getStart()->getTokenIndex(), last = ctx->getStop()->getTokenIndex();
    for (size_t i = first; i <= last; ++i) {
      const std::string& t = tokens_.get(i)->getText();
      if (!out.empty() && !t.empty()) {
        char a = out.back(), b = t.front();
        bool aWord = isWordChar(a), bWord = isWordChar(b);
        if ((aWord && bWord) || (!aWord && !bWord && a != '(' && a != ')' && b != '(' &&
                                 b != ')' && a != ',' && b != ','))
          out += ' ';
      }
      out += t;
    }
    return out;
  }

 private:
  antlr4::TokenStream& tokens_;
};

// Parses an integer literal's value: decimal, 0x hex, 0b binary, leading-0 octal, 'U' suffix.
// Values above INT64_MAX keep their 64-bit pattern.
std::optional<int64_t> integerValue(std::string_view s) {
  if (!s.empty() && s.back() == 'U') s.remove_suffix(1);
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s.remove_prefix(2);
  } else if (s.size() > 2 && s[0] == '0' && (s[1] == 'b' || s[1] == 'B')) {
    base = 2;
    s.remove_prefix(2);
  } else if (s.size() > 1 && s[0] == '0') {
    base = 8;
    s.remove_prefix(1);
  }
  uint64_t v = 0;
  for (char c : s) {
    unsigned d = (c >= '0' && c <= '9') ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10 : c - 'A' + 10;
    if (d >= static_cast<unsigned>(base)) return std::nullopt;
    if (v > (UINT64_MAX - d) / base) return std::nullopt;  // does not fit in 64 bits
    v = v * base + d;
  }
  return static_cast<int64_t>(v);
}

class Builder {
 public:
  Builder(antlr4::TokenStream& tokens, std::string file, std::vector<Diagnostic>& errors)
      : speller_(tokens), file_(std::move(file)), errors_(errors) {}

  Module build(P::ModuleContext* ctx) {
    Module m;
    m.sourceName = file_;
    m.items.reserve(ctx->topStatement().size());
    for (auto* st : ctx->topStatement()) m.items.push_back(topLevel(st));
    return m;
  }

  void error(SourceLoc at, std::string message) {
    errors_.push_back({file_, at.line, at.column, std::move(message)});
  }

  uint32_t u32(antlr4::tree::TerminalNode* node) {
    auto v = integerValue(node->getText());
    if (!v || *v < 0 || *v > UINT32_MAX) {
      error(locOfToken(node->getSymbol()), fmt::format("integer '{}' out of range", node->getText()));
      return 0;
    }
    return static_cast<uint32_t>(*v);
  }

  TopLevel topLevel(P::TopStatementContext* st) {
    if (auto* c = st->versionDirective())
      return VersionDirective{c->DEC_FLOAT()->getText(), locOfCtx(c)};
    if (auto* c = st->targetDirective()) {
      TargetDirective t{{}, locOfCtx(c)};
      for (auto* id : c->ID()) t.targets.push_back(id->getText());
      return t;
    }
    if (auto* c = st->addressSizeDirective()) return AddressSizeDirective{u32(c->INT()), locOfCtx(c)};
    if (auto* c = st->fileDirective()) {
      FileDirective f{u32(c->INT(0)), c->STRING()->getText(), {}, locOfCtx(c)};
      for (size_t i = 1; i < c->INT().size(); ++i) f.extra.push_back(c->INT(i)->getText());
      return f;
    }
    if (auto* c = st->sectionDirective()) return section(c);
    if (auto* c = st->functionDirective()) return function(c);
    if (auto* c = st->variableDeclaration()) return variable(c);
    if (auto* c = st->aliasDirective())
      return AliasDirective{c->ID(0)->getText(), c->ID(1)->getText(), locOfCtx(c)};
    return pragma(st->pragmaDirective());
  }

  Pragma pragma(P::PragmaDirectiveContext* c) {
    Pragma p{{}, locOfCtx(c)};
    for (auto* s : c->STRING()) p.strings.push_back(s->getText());
    return p;
  }

  Section section(P::SectionDirectiveContext* c) {
    Section s;
    s.name = c->DOTNAME()->getText();
    s.loc = locOfCtx(c);
    s.open = locOfToken(c->LBRACE()->getSymbol());
    s.close = locOfToken(c->RBRACE()->getSymbol());
    s.entries.reserve(c->sectionEntry().size());
    for (auto* e : c->sectionEntry()) {
      SectionEntry entry;
      entry.loc = locOfCtx(e);
      if (auto* l = dynamic_cast<P::SectionLabelContext*>(e)) {
        entry.label = l->ID()->getText();
      } else {
        auto* d = static_cast<P::SectionDataContext*>(e);
        entry.dataType = d->DOTNAME()->getText();
        for (auto* x : d->expr()) entry.values.push_back(speller_.spell(x));
      }
      s.entries.push_back(std::move(entry));
    }
    return s;
  }

  FunctionAttribute functionAttribute(P::FunctionAttributeContext* c) {
    FunctionAttribute a;
    a.loc = locOfCtx(c);
    if (c->DOTNAME()) {
      a.directive = c->DOTNAME()->getText();
      for (auto* i : c->INT()) a.arguments.push_back(i->getText());
    } else if (c->ATTRIBUTE()) {
      a.directive = c->ATTRIBUTE()->getText();
      a.parenthesized = true;
      for (auto* x : c->expr()) a.arguments.push_back(speller_.spell(x));
    } else {
      a.directive = c->PRAGMA()->getText();
      for (auto* s : c->STRING()) a.arguments.push_back(s->getText());
    }
    return a;
  }

  ParamList paramList(P::ParamListContext* c) {
    ParamList l;
    l.open = locOfToken(c->LPAREN()->getSymbol());
    l.close = locOfToken(c->RPAREN()->getSymbol());
    for (auto* p : c->paramDeclaration()) {
      VariableDecl d;
      d.loc = locOfCtx(p);
      d.space = p->stateSpace()->getText();
      for (auto* q : p->declQualifier()) d.qualifiers.push_back(qualifier(q));
      d.declarators.push_back(declarator(p->declarator()));
      l.params.push_back(std::move(d));
    }
    return l;
  }

  Function function(P::FunctionDirectiveContext* c) {
    Function f = functionHeader(c->functionHeader());
    if (auto* b = c->functionBody()) {
      f.hasBody = true;
      f.bodyOpen = locOfToken(b->LBRACE()->getSymbol());
      f.bodyClose = locOfToken(b->RBRACE()->getSymbol());
      f.body.reserve(b->statement().size());
      for (auto* s : b->statement()) statement(s, f.body);
    } else {
      f.bodyClose = locOfToken(c->SEMI()->getSymbol());
    }
    return f;
  }

 public:
  // Everything of a function but its body.
  Function functionHeader(P::FunctionHeaderContext* c) {
    Function f;
    f.loc = locOfCtx(c);
    for (auto* l : c->linkage()) f.linkage.push_back(l->getText());
    f.isEntry = c->ENTRY() != nullptr;
    f.name = c->ID()->getText();
    f.nameLoc = locOfToken(c->ID()->getSymbol());
    if (c->returnList) f.returns = paramList(c->returnList);
    if (c->parameters) f.params = paramList(c->parameters);
    // Attributes before the name are "leading"; the rest follow the parameter list.
    size_t nameIndex = c->ID()->getSymbol()->getTokenIndex();
    for (auto* a : c->functionAttribute()) {
      if (a->getStart()->getTokenIndex() < nameIndex)
        f.leadingAttributes.push_back(functionAttribute(a));
      else
        f.attributes.push_back(functionAttribute(a));
    }
    return f;
  }

  void statements(P::StatementSequenceContext* c, std::vector<Statement>& out) {
    for (auto* s : c->statement()) statement(s, out);
  }
  void topLevels(P::ModuleContext* c, std::vector<TopLevel>& out) {
    for (auto* st : c->topStatement()) out.push_back(topLevel(st));
  }
  Section section(P::SectionAloneContext* c) { return section(c->sectionDirective()); }

  DeclQualifier qualifier(P::DeclQualifierContext* q) {
    DeclQualifier d;
    if (q->ALIGN()) {
      d.word = q->ALIGN()->getText();
      auto v = integerValue(q->INT()->getText());
      if (!v) error(locOfCtx(q), fmt::format("integer '{}' out of range", q->INT()->getText()));
      d.number = v.value_or(0);
    } else if (q->ATTRIBUTE()) {
      d.word = q->ATTRIBUTE()->getText();
      std::string inner;
      for (auto* x : q->expr()) {
        if (!inner.empty()) inner += ", ";
        inner += speller_.spell(x);
      }
      d.parenthesized = inner;
    } else {
      d.word = q->getText();
    }
    return d;
  }

  Initializer initializer(P::InitializerContext* c) {
    Initializer init;
    if (c->expr()) {
      init.expression = speller_.spell(c->expr());
    } else {
      init.isList = true;
      init.list.reserve(c->initializer().size());
      for (auto* i : c->initializer()) init.list.push_back(initializer(i));
    }
    return init;
  }

  Declarator declarator(P::DeclaratorContext* c) {
    Declarator d;
    d.name = c->ID()->getText();
    if (c->INT()) d.rangeCount = u32(c->INT());
    for (auto* dim : c->arrayDimension())
      d.dimensions.push_back(dim->expr() ? std::optional(speller_.spell(dim->expr())) : std::nullopt);
    if (c->initializer()) d.initializer = initializer(c->initializer());
    return d;
  }

  VariableDecl variable(P::VariableDeclarationContext* c) {
    VariableDecl v;
    v.loc = locOfCtx(c);
    for (auto* l : c->linkage()) v.linkage.push_back(l->getText());
    v.space = c->stateSpace()->getText();
    for (auto* q : c->declQualifier()) v.qualifiers.push_back(qualifier(q));
    for (auto* d : c->declarator()) v.declarators.push_back(declarator(d));
    return v;
  }

  // Appends the statement; a nested block becomes its braces around its statements.
  void statement(P::StatementContext* s, std::vector<Statement>& out) {
    if (auto* c = dynamic_cast<P::BlockStatementContext*>(s)) {
      out.push_back(ScopeBrace{true, locOfToken(c->LBRACE()->getSymbol())});
      for (auto* inner : c->statement()) statement(inner, out);
      out.push_back(ScopeBrace{false, locOfToken(c->RBRACE()->getSymbol())});
      return;
    }
    out.push_back(simpleStatement(s));
  }

  Statement simpleStatement(P::StatementContext* s) {
    if (auto* c = dynamic_cast<P::InstructionStatementContext*>(s)) return instruction(c->instruction());
    if (auto* c = dynamic_cast<P::LabelStatementContext*>(s)) return Label{c->ID()->getText(), locOfCtx(c)};
    if (auto* c = dynamic_cast<P::DeclarationStatementContext*>(s)) return variable(c->variableDeclaration());
    if (auto* c = dynamic_cast<P::LocStatementContext*>(s)) return loc(c->locDirective());
    if (auto* c = dynamic_cast<P::PragmaStatementContext*>(s)) return pragma(c->pragmaDirective());
    if (auto* c = dynamic_cast<P::BranchTargetsStatementContext*>(s)) return targets(c->BRANCHTARGETS(), c->ID(), c);
    if (auto* c = dynamic_cast<P::CallTargetsStatementContext*>(s)) return targets(c->CALLTARGETS(), c->ID(), c);
    auto* c = static_cast<P::CallPrototypeStatementContext*>(s);
    CallPrototype p;
    p.loc = locOfCtx(c);
    p.endLoc = locOfToken(c->SEMI()->getSymbol());
    p.name = c->ID()->getText();
    if (c->returnList) p.returns = paramList(c->returnList);
    if (c->parameters) p.params = paramList(c->parameters);
    for (auto* a : c->functionAttribute()) p.attributes.push_back(functionAttribute(a));
    return p;
  }

  TargetList targets(antlr4::tree::TerminalNode* directive,
                     const std::vector<antlr4::tree::TerminalNode*>& ids, antlr4::ParserRuleContext* c) {
    TargetList t{directive->getText(), {}, locOfCtx(c)};
    for (auto* id : ids) t.targets.push_back(id->getText());
    return t;
  }

  LocDirective loc(P::LocDirectiveContext* c) {
    LocDirective l;
    l.loc = locOfCtx(c);
    l.file = u32(c->INT(0));
    l.line = u32(c->INT(1));
    if (c->INT().size() > 2) l.column = u32(c->INT(2));
    for (auto* a : c->locAttribute()) l.attributes.push_back(speller_.spell(a));
    return l;
  }

  Instruction instruction(P::InstructionContext* c) {
    Instruction in;
    in.loc = locOfCtx(c);
    in.endLoc = locOfToken(c->SEMI()->getSymbol());
    if (auto* g = c->guard()) in.guard = Guard{g->ID()->getText(), g->BANG() != nullptr};
    in.opcode = c->opcode->getText();
    in.modifiers.reserve(c->modifier().size());
    for (auto* m : c->modifier()) in.modifiers.push_back(m->getText());
    in.operands.reserve(c->operand().size());
    for (auto* o : c->operand()) in.operands.push_back(operand(o));
    return in;
  }

  Operand operand(P::OperandContext* o) {
    Operand op;
    op.loc = locOfCtx(o);
    if (auto* c = dynamic_cast<P::ExpressionOperandContext*>(o)) {
      expressionInto(c->expr(), op);
    } else if (auto* c = dynamic_cast<P::VectorOperandContext*>(o)) {
      op.kind = OperandKind::Vector;
      for (auto* e : c->operand()) op.elements.push_back(operand(e));
    } else if (auto* c = dynamic_cast<P::AddressOperandContext*>(o)) {
      op.kind = OperandKind::Address;
      auto ops = c->operand();
      addressInto(ops[0], op);
      for (size_t i = 1; i < ops.size(); ++i) op.elements.push_back(operand(ops[i]));
    } else if (auto* c = dynamic_cast<P::ListOperandContext*>(o)) {
      op.kind = OperandKind::List;
      op.closeLoc = locOfToken(c->RPAREN()->getSymbol());
      for (auto* e : c->operand()) op.elements.push_back(operand(e));
    } else if (auto* c = dynamic_cast<P::PredicatePairOperandContext*>(o)) {
      op.kind = OperandKind::PredicatePair;
      op.text = c->ID(0)->getText();
      op.extra = c->ID(1)->getText();
    } else if (auto* c = dynamic_cast<P::NegatedOperandContext*>(o)) {
      op.negated = true;
      op.text = c->ID()->getText();
    } else {
      auto* cc = static_cast<P::ComponentOperandContext*>(o);
      op.text = cc->ID()->getText();
      op.extra = cc->DOTNAME()->getText();
    }
    return op;
  }

  // A plain operand expression: a name, a literal, or anything else as canonical text.
  void expressionInto(P::ExprContext* e, Operand& op) {
    if (auto* p = dynamic_cast<P::PrimaryExprContext*>(e)) {
      auto* prim = p->primary();
      if (prim->ID() && !prim->LPAREN()) {
        op.kind = OperandKind::Name;
        op.text = prim->ID()->getText();
        return;
      }
      if (prim->INT()) {
        op.kind = OperandKind::Integer;
        op.text = prim->INT()->getText();
        auto v = integerValue(op.text);
        if (!v) error(op.loc, fmt::format("integer '{}' out of range", op.text));
        op.value = v.value_or(0);
        return;
      }
      if (prim->HEX_FLOAT() || prim->DEC_FLOAT()) {
        op.kind = OperandKind::Float;
        op.text = prim->getText();
        return;
      }
    }
    if (auto* u = dynamic_cast<P::UnaryExprContext*>(e); u && u->op->getType() == PTXLexer::MINUS) {
      if (auto* p = dynamic_cast<P::PrimaryExprContext*>(u->expr()); p && p->primary()->INT()) {
        op.kind = OperandKind::Integer;
        op.text = speller_.spell(u);
        auto v = integerValue(p->primary()->INT()->getText());
        if (!v) error(op.loc, fmt::format("integer '{}' out of range", op.text));
        op.value = -static_cast<int64_t>(v.value_or(0));
        return;
      }
    }
    op.kind = OperandKind::Expression;
    op.text = speller_.spell(e);
  }

  // [base], [base+imm], [base+-imm], [base-imm], [imm]; anything else stays an expression.
  void addressInto(P::OperandContext* o, Operand& addr) {
    auto* eo = dynamic_cast<P::ExpressionOperandContext*>(o);
    if (!eo) {
      addr.extra = speller_.spell(o);
      return;
    }
    Operand inner;
    inner.loc = addr.loc;
    auto* e = eo->expr();
    if (auto* b = dynamic_cast<P::BinaryExprContext*>(e);
        b && (b->op->getType() == PTXLexer::PLUS || b->op->getType() == PTXLexer::MINUS)) {
      Operand lhs, rhs;
      expressionInto(b->expr(0), lhs);
      expressionInto(b->expr(1), rhs);
      if (lhs.kind == OperandKind::Name && rhs.kind == OperandKind::Integer) {
        addr.text = lhs.text;
        addr.value = b->op->getType() == PTXLexer::PLUS ? rhs.value : -rhs.value;
        addr.explicitOffset = true;
        return;
      }
    } else {
      expressionInto(e, inner);
      if (inner.kind == OperandKind::Name) {
        addr.text = inner.text;
        return;
      }
      if (inner.kind == OperandKind::Integer) {
        addr.value = inner.value;
        addr.extra = inner.text;
        return;
      }
    }
    addr.extra = speller_.spell(e);
  }

  Speller speller_;
  std::string file_;
  std::vector<Diagnostic>& errors_;
};

// Length of the valid UTF-8 sequence starting at s[i], or 0 if it is not valid.
size_t utf8SequenceLength(std::string_view s, size_t i) {
  auto b = static_cast<unsigned char>(s[i]);
  size_t n = b < 0x80 ? 1 : (b >> 5) == 6 ? 2 : (b >> 4) == 14 ? 3 : (b >> 3) == 30 ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k)
    if ((static_cast<unsigned char>(s[i + k]) >> 6) != 2) return 0;
  return n;
}

// Line and column of a byte offset, for diagnostics found by scanning the raw text.
SourceLoc locAtOffset(std::string_view text, size_t offset) {
  SourceLoc loc{1, 1};
  for (size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++loc.line;
      loc.column = 1;
    } else {
      ++loc.column;
    }
  }
  return loc;
}

// Checks what the parser cannot: the text must be UTF-8 (PTX is ASCII outside comments and
// strings), and it must not nest deeper than the recursive-descent parsers can safely take
// (open brackets plus runs of prefix operators; strings and comments are skipped).
std::optional<Diagnostic> prescan(std::string_view text, const std::string& file, unsigned limit) {
  for (size_t i = 0; i < text.size(); ++i) {
    // Eight bytes at a time while they are all ASCII and none is NUL (nearly all PTX).
    constexpr uint64_t kHigh = 0x8080808080808080ull, kOnes = 0x0101010101010101ull;
    while (i + 8 <= text.size()) {
      uint64_t w;
      std::memcpy(&w, text.data() + i, 8);
      if ((w & kHigh) || ((w - kOnes) & ~w & kHigh)) break;
      i += 8;
    }
    if (i >= text.size()) break;
    auto c = static_cast<unsigned char>(text[i]);
    if (c - 1u < 0x7fu) continue;  // 0x01..0x7f
    size_t n = c == 0 ? 0 : utf8SequenceLength(text, i);
    if (n == 0) {
      SourceLoc at = locAtOffset(text, i);
      return Diagnostic{file, at.line, at.column,
                        fmt::format("invalid byte 0x{:02x} (PTX text must be UTF-8 without NUL)", c)};
    }
    i += n - 1;
  }
  // A byte-order mark is skipped at the start of the text (as the ANTLR runtime does) and is
  // an error anywhere else; said here because the runtime would also skip one that happens
  // to start a piece handed to the grammar.
  if (size_t bom = text.find("\xEF\xBB\xBF", 1); bom != std::string_view::npos) {
    SourceLoc at = locAtOffset(text, bom);
    return Diagnostic{file, at.line, at.column, "unexpected byte-order mark (U+FEFF)"};
  }
  unsigned depth = 0, prefixRun = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    switch (c) {
      case ' ': case '\t': case '\r': case '\n':
        continue;
      case '"':  // a string: skip to the closing quote on this line
        while (++i < text.size() && text[i] != '"' && text[i] != '\n')
          if (text[i] == '\\') ++i;
        prefixRun = 0;
        continue;
      case '/':
        if (i + 1 < text.size() && text[i + 1] == '/') {
          size_t end = text.find('\n', i);
          i = end == std::string_view::npos ? text.size() : end;
          continue;
        }
        if (i + 1 < text.size() && text[i + 1] == '*') {
          size_t end = text.find("*/", i + 2);
          i = end == std::string_view::npos ? text.size() : end + 1;
          continue;
        }
        break;
      case '(': case '[': case '{':
        ++depth;
        break;
      case ')': case ']': case '}':
        if (depth > 0) --depth;
        break;
      default:
        break;
    }
    if (c == '-' || c == '+' || c == '!' || c == '~' || c == '?' || c == '(') ++prefixRun;
    else prefixRun = 0;
    if (depth > limit || prefixRun > limit) {
      SourceLoc at = locAtOffset(text, i);
      return Diagnostic{file, at.line, at.column, fmt::format("input nested deeper than {} levels", limit)};
    }
  }
  return std::nullopt;
}

// ----------------------------------------------------------------------------- ANTLR side

// Runs the generated parser over a piece of the text, starting at a given rule, with
// positions reported relative to the whole module. Two-stage: fast SLL prediction that bails
// on the first error, then, only for pieces with errors, full LL with error reporting.
class AntlrPiece {
 public:
  AntlrPiece(std::string_view piece, SourceLoc start, const std::string& file, unsigned maxErrors)
      : input_(piece.data(), piece.size()),
        lexer_(&input_),
        lexerErrors_(file, maxErrors),
        parserErrors_(file, maxErrors),
        tokens_(&lexer_),
        parser_(&tokens_) {
    lexer_.setLine(start.line);
    lexer_.setCharPositionInLine(start.column - 1);
    lexer_.removeErrorListeners();
    lexer_.addErrorListener(&lexerErrors_);
    parser_.removeErrorListeners();
  }

  // Parses with `rule` (a PTXParser member function); returns the tree, or nullptr with the
  // diagnostics appended to `errors`.
  template <typename Ctx>
  Ctx* parse(Ctx* (PTXParser::*rule)(), std::vector<Diagnostic>& errors) {
    Ctx* tree = nullptr;
    parser_.getInterpreter<antlr4::atn::ParserATNSimulator>()->setPredictionMode(
        antlr4::atn::PredictionMode::SLL);
    parser_.setErrorHandler(std::make_shared<antlr4::BailErrorStrategy>());
    try {
      tree = (parser_.*rule)();
    } catch (const antlr4::ParseCancellationException&) {
      tree = nullptr;
    }
    if (!tree) {
      tokens_.seek(0);
      parser_.reset();
      parser_.addErrorListener(&parserErrors_);
      parser_.setErrorHandler(std::make_shared<antlr4::DefaultErrorStrategy>());
      parser_.getInterpreter<antlr4::atn::ParserATNSimulator>()->setPredictionMode(
          antlr4::atn::PredictionMode::LL);
      tree = (parser_.*rule)();
    }
    // Lexer errors first: they are earlier in the text than what they make the parser trip on.
    if (lexerErrors_.errors.empty() && parserErrors_.errors.empty()) return tree;
    errors.insert(errors.end(), lexerErrors_.errors.begin(), lexerErrors_.errors.end());
    errors.insert(errors.end(), parserErrors_.errors.begin(), parserErrors_.errors.end());
    return nullptr;
  }

  antlr4::TokenStream& tokens() { return tokens_; }

 private:
  antlr4::ANTLRInputStream input_;
  PTXLexer lexer_;
  CollectingErrorListener lexerErrors_, parserErrors_;
  antlr4::CommonTokenStream tokens_;
  PTXParser parser_;
};

// ----------------------------------------------------------------------------- fast path

bool isStateSpace(int type) {
  return type == PTXLexer::REG || type == PTXLexer::SREG || type == PTXLexer::GLOBAL ||
         type == PTXLexer::SHARED || type == PTXLexer::LOCAL || type == PTXLexer::CONST ||
         type == PTXLexer::PARAM || type == PTXLexer::TEX;
}
bool isLinkage(int type) {
  return type == PTXLexer::VISIBLE || type == PTXLexer::EXTERN || type == PTXLexer::WEAK ||
         type == PTXLexer::COMMON;
}
// What may follow a complete operand.
bool endsOperand(int type) {
  return type == PTXLexer::COMMA || type == PTXLexer::SEMI || type == PTXLexer::RBRACE ||
         type == PTXLexer::RBRACK || type == PTXLexer::RPAREN;
}
SourceLoc locOf(const FastToken& t) { return {t.line, t.column}; }

// Reads a module. Function bodies and DWARF sections, the bulk of every module, are read
// statement by statement from FastLexer tokens; a statement the fast path does not fully
// recognise, and every other piece of the module, is parsed by the grammar (AntlrPiece).
// The fast path only ever builds what the grammar would build: the differential tests parse
// the corpus both ways and compare (ParseOptions::grammarOnly).
class ModuleReader {
 public:
  ModuleReader(std::string_view text, std::string file, const ParseOptions& options)
      : text_(text), file_(std::move(file)), options_(options), lexer_(text) {}

  ParseResult read() {
    Module m;
    m.sourceName = file_;
    while (errors_.size() < options_.maxErrors) {
      FastLexer::State start = lexer_.save();
      FastToken t = lexer_.next();
      if (t.type == FastLexer::kEof) break;
      lexer_.restore(start);
      if (t.type == PTXLexer::SECTION) {
        readSection(m);
      } else if (startsFunction()) {
        readFunction(m);
      } else if (isLinkage(t.type) || isStateSpace(t.type)) {
        readTopLevelDeclaration(m);
      } else {
        readOtherTopLevel(m);
      }
    }
    ParseResult r;
    if (errors_.empty()) r.module = std::move(m);
    r.errors = std::move(errors_);
    return r;
  }

 private:
  std::string_view slice(const FastToken& first, size_t endOffset) const {
    return text_.substr(first.offset, endOffset - first.offset);
  }
  static size_t endOf(const FastToken& t) { return t.offset + t.text.size(); }

  // Does a function (linkage* (.entry|.func)) start at the lexer's position?
  bool startsFunction() {
    FastLexer::State start = lexer_.save();
    FastToken t = lexer_.next();
    while (isLinkage(t.type)) t = lexer_.next();
    lexer_.restore(start);
    return t.type == PTXLexer::ENTRY || t.type == PTXLexer::FUNC;
  }

  // A maximal run of module-level statements that are neither functions nor sections.
  void readOtherTopLevel(Module& m) {
    FastToken first = lexer_.next();
    size_t end = endOf(first);
    while (true) {
      FastLexer::State before = lexer_.save();
      FastToken t = lexer_.next();
      if (t.type == FastLexer::kEof) break;
      if (t.type == PTXLexer::SECTION || isLinkage(t.type) || t.type == PTXLexer::ENTRY ||
          t.type == PTXLexer::FUNC) {
        lexer_.restore(before);
        if (t.type == PTXLexer::SECTION || startsFunction()) break;
        // Linkage of a variable: consume the run and go on.
        while (isLinkage(t.type)) {
          end = endOf(t);
          before = lexer_.save();
          t = lexer_.next();
        }
        lexer_.restore(before);
        continue;
      }
      end = endOf(t);
    }
    AntlrPiece piece(slice(first, end), locOf(first), file_, options_.maxErrors);
    if (auto* tree = piece.parse(&PTXParser::module, errors_)) {
      Builder b(piece.tokens(), file_, errors_);
      b.topLevels(tree, m.items);
    }
  }

  void readSection(Module& m) {
    FastLexer::State start = lexer_.save();
    FastToken first = lexer_.next();
    if (auto s = fastSection(first)) {
      m.items.push_back(std::move(*s));
      return;
    }
    // Not plain data: the whole section goes to the grammar, up to its closing brace.
    lexer_.restore(start);
    lexer_.next();
    size_t end = endOf(first);
    int depth = 0;
    for (FastToken t = lexer_.next(); t.type != FastLexer::kEof; t = lexer_.next()) {
      end = endOf(t);
      if (t.type == PTXLexer::LBRACE) ++depth;
      if (t.type == PTXLexer::RBRACE && --depth <= 0) break;
    }
    AntlrPiece piece(slice(first, end), locOf(first), file_, options_.maxErrors);
    if (auto* tree = piece.parse(&PTXParser::sectionAlone, errors_)) {
      Builder b(piece.tokens(), file_, errors_);
      m.items.push_back(b.section(tree));
    }
  }

  // `.section .name { label: | .bN value{, value} }`, a value being one token or sym+N.
  std::optional<Section> fastSection(const FastToken& first) {
    Section s;
    s.loc = locOf(first);
    FastToken name = lexer_.next();
    if (name.type != PTXLexer::DOTNAME) return std::nullopt;
    s.name = name.text;
    FastToken open = lexer_.next();
    if (open.type != PTXLexer::LBRACE) return std::nullopt;
    s.open = locOf(open);
    FastToken t = lexer_.next();
    while (true) {
      if (t.type == PTXLexer::RBRACE) {
        s.close = locOf(t);
        return s;
      }
      SectionEntry e;
      e.loc = locOf(t);
      if (t.type == PTXLexer::ID) {
        FastToken colon = lexer_.next();
        if (colon.type != PTXLexer::COLON) return std::nullopt;
        e.label = t.text;
        t = lexer_.next();
      } else if (t.type == PTXLexer::DOTNAME) {
        e.dataType = t.text;
        while (true) {
          FastToken v = lexer_.next();
          if (v.unsure || !(v.type == PTXLexer::INT || v.type == PTXLexer::ID ||
                            v.type == PTXLexer::DOTNAME || v.type == PTXLexer::HEX_FLOAT))
            return std::nullopt;
          e.values.emplace_back(v.text);
          t = lexer_.next();
          if (t.type == PTXLexer::PLUS && v.type != PTXLexer::INT) {  // .debug_loc+64
            FastToken offset = lexer_.next();
            if (offset.type != PTXLexer::INT || offset.unsure) return std::nullopt;
            e.values.back() += '+';
            e.values.back() += offset.text;
            t = lexer_.next();
          }
          if (t.type != PTXLexer::COMMA) break;
        }
        // The value must end here: next comes another entry or the closing brace.
        if (t.type != PTXLexer::DOTNAME && t.type != PTXLexer::ID && t.type != PTXLexer::RBRACE)
          return std::nullopt;
      } else {
        return std::nullopt;
      }
      s.entries.push_back(std::move(e));
    }
  }

  void readFunction(Module& m) {
    // The header: up to the body's '{' or the declaration's ';'.
    toks_.clear();
    int parens = 0;
    for (FastToken t = lexer_.next();; t = lexer_.next()) {
      if (t.type == FastLexer::kEof) {
        errors_.push_back({file_, toks_[0].line, toks_[0].column, "function header is not followed by '{' or ';'"});
        return;
      }
      toks_.push_back(t);
      if (t.type == PTXLexer::LPAREN) ++parens;
      if (t.type == PTXLexer::RPAREN) --parens;
      if (parens == 0 && (t.type == PTXLexer::LBRACE || t.type == PTXLexer::SEMI)) break;
    }
    FastToken terminator = toks_.back();
    Function f;
    if (!fastFunctionHeader(f)) {
      f = Function{};
      AntlrPiece piece(slice(toks_.front(), terminator.offset), locOf(toks_.front()), file_, options_.maxErrors);
      auto* tree = piece.parse(&PTXParser::functionHeaderAlone, errors_);
      if (!tree) return;
      f = Builder(piece.tokens(), file_, errors_).functionHeader(tree->functionHeader());
    }
    if (terminator.type == PTXLexer::SEMI) {
      f.bodyClose = locOf(terminator);
    } else {
      f.hasBody = true;
      f.bodyOpen = locOf(terminator);
      if (!readBody(f)) return;
    }
    m.items.push_back(std::move(f));
  }

  // Statements up to the '}' that closes the body.
  bool readBody(Function& f) {
    int scopes = 0;
    while (errors_.size() < options_.maxErrors) {
      FastLexer::State start = lexer_.save();
      FastToken t = lexer_.next();
      switch (t.type) {
        case FastLexer::kEof:
          errors_.push_back({file_, f.bodyOpen.line, f.bodyOpen.column,
                             fmt::format("body of '{}' is not closed", f.name)});
          return false;
        case PTXLexer::RBRACE:
          if (scopes == 0) {
            f.bodyClose = locOf(t);
            return true;
          }
          --scopes;
          f.body.push_back(ScopeBrace{false, locOf(t)});
          continue;
        case PTXLexer::LBRACE:
          ++scopes;
          f.body.push_back(ScopeBrace{true, locOf(t)});
          continue;
        default:
          break;
      }
      if (t.type == PTXLexer::ID) {
        FastLexer::State afterId = lexer_.save();
        if (lexer_.next().type == PTXLexer::COLON) {
          f.body.push_back(Label{std::string(t.text), locOf(t)});
          continue;
        }
        lexer_.restore(afterId);
      }
      lexer_.restore(start);
      if (t.type == PTXLexer::LOC) {
        readLoc(f.body);
      } else {
        readStatement(f.body, t.type == PTXLexer::ID || t.type == PTXLexer::AT);
      }
    }
    return false;
  }

  // Tokens of one statement: up to its ';' at bracket depth 0, not past a '}' that closes
  // the enclosing scope.
  void collectStatement() {
    toks_.clear();
    int depth = 0;
    while (true) {
      FastLexer::State before = lexer_.save();
      FastToken t = lexer_.next();
      if (t.type == FastLexer::kEof) return;
      if (t.type == PTXLexer::RBRACE && depth == 0 && !toks_.empty()) {
        lexer_.restore(before);
        return;
      }
      toks_.push_back(t);
      if (t.type == PTXLexer::LBRACE || t.type == PTXLexer::LBRACK || t.type == PTXLexer::LPAREN) ++depth;
      if (t.type == PTXLexer::RBRACE || t.type == PTXLexer::RBRACK || t.type == PTXLexer::RPAREN) --depth;
      if (t.type == PTXLexer::SEMI && depth <= 0) return;
    }
  }

  void readStatement(std::vector<Statement>& out, bool maybeInstruction) {
    collectStatement();
    if (maybeInstruction) {
      Instruction in;
      if (fastInstruction(in)) {
        out.push_back(std::move(in));
        return;
      }
    } else if (!toks_.empty() && isStateSpace(toks_[0].type)) {
      VariableDecl v;
      if (fastDeclaration(v)) {
        out.push_back(std::move(v));
        return;
      }
    }
    parseStatementsWithGrammar(out);
  }

  // space {.word | .align N} declarator {, declarator} ; with declarators `name`, `%r<N>`,
  // `name[N]`, `name[]` (no initializers: those go to the grammar).
  bool fastDeclaration(VariableDecl& v) {
    size_t i = 0;
    if (toks_.empty() || toks_.back().type != PTXLexer::SEMI) return false;
    while (isLinkage(toks_[i].type)) v.linkage.emplace_back(toks_[i++].text);
    if (!isStateSpace(toks_[i].type)) return false;
    return fastDeclarationAt(i, v, /*oneDeclarator=*/false) && i == toks_.size() - 1;
  }

  // A module-level variable (nvcc writes many, with long byte-string initializers): the fast
  // path when plain, else the grammar, one declaration at a time.
  void readTopLevelDeclaration(Module& m) {
    collectStatement();
    VariableDecl v;
    if (fastDeclaration(v)) {
      m.items.push_back(std::move(v));
      return;
    }
    AntlrPiece piece(slice(toks_.front(), endOf(toks_.back())), locOf(toks_.front()), file_, options_.maxErrors);
    if (auto* tree = piece.parse(&PTXParser::module, errors_)) Builder(piece.tokens(), file_, errors_).topLevels(tree, m.items);
  }

  // One initializer element: INT, -INT or a float bit pattern, spelled as the grammar's
  // builder spells it.
  bool fastInitializerValue(size_t& i, Initializer& out) {
    bool negative = toks_[i].type == PTXLexer::MINUS;
    const FastToken& t = toks_[i + (negative ? 1 : 0)];
    if (t.unsure || !(t.type == PTXLexer::INT || (!negative && t.type == PTXLexer::HEX_FLOAT))) return false;
    out.expression = negative ? "-" + std::string(t.text) : std::string(t.text);
    i += negative ? 2 : 1;
    return true;
  }

  // = value  |  = { value {, value} }   (flat lists only; anything else goes to the grammar)
  bool fastInitializer(size_t& i, Initializer& init) {
    if (toks_[i].type != PTXLexer::LBRACE) return fastInitializerValue(i, init);
    init.isList = true;
    ++i;
    while (true) {
      Initializer e;
      if (!fastInitializerValue(i, e)) return false;
      init.list.push_back(std::move(e));
      if (toks_[i].type == PTXLexer::RBRACE) {
        ++i;
        return true;
      }
      if (toks_[i].type != PTXLexer::COMMA) return false;
      ++i;
    }
  }

  // A declaration starting at toks_[i] (its state space), up to the first token that cannot
  // continue it. toks_ must end with a terminator (';' or '{') that stops every loop here.
  bool fastDeclarationAt(size_t& i, VariableDecl& v, bool oneDeclarator) {
    v.loc = locOf(toks_[i]);
    v.space = toks_[i++].text;
    while (true) {
      int type = toks_[i].type;
      if (type == PTXLexer::DOTNAME || isStateSpace(type)) {
        v.qualifiers.push_back(DeclQualifier{std::string(toks_[i++].text), std::nullopt, {}});
      } else if (type == PTXLexer::ALIGN) {
        if (toks_[i + 1].type != PTXLexer::INT || toks_[i + 1].unsure) return false;
        auto value = integerValue(toks_[i + 1].text);
        if (!value) return false;
        v.qualifiers.push_back(DeclQualifier{std::string(toks_[i].text), *value, {}});
        i += 2;
      } else {
        break;
      }
    }
    while (true) {
      if (toks_[i].type != PTXLexer::ID) return false;
      Declarator d;
      d.name = toks_[i++].text;
      if (toks_[i].type == PTXLexer::LT) {
        uint32_t count = 0;
        if (!fastU32(toks_[i + 1], count) || toks_[i + 2].type != PTXLexer::GT) return false;
        d.rangeCount = count;
        i += 3;
      }
      while (toks_[i].type == PTXLexer::LBRACK) {
        if (toks_[i + 1].type == PTXLexer::RBRACK) {
          d.dimensions.emplace_back(std::nullopt);
          i += 2;
        } else if (toks_[i + 1].type == PTXLexer::INT && !toks_[i + 1].unsure &&
                   toks_[i + 2].type == PTXLexer::RBRACK) {
          d.dimensions.emplace_back(std::string(toks_[i + 1].text));
          i += 3;
        } else {
          return false;
        }
      }
      if (toks_[i].type == PTXLexer::ASSIGN) {
        ++i;
        if (!fastInitializer(i, d.initializer.emplace())) return false;
      }
      v.declarators.push_back(std::move(d));
      if (oneDeclarator || toks_[i].type != PTXLexer::COMMA) return true;
      ++i;
    }
  }

  // ( decl {, decl} ) or ( ) at toks_[i].
  bool fastParamList(size_t& i, ParamList& l) {
    l.open = locOf(toks_[i++]);
    if (toks_[i].type != PTXLexer::RPAREN) {
      while (true) {
        if (!isStateSpace(toks_[i].type)) return false;
        VariableDecl d;
        if (!fastDeclarationAt(i, d, /*oneDeclarator=*/true)) return false;
        l.params.push_back(std::move(d));
        if (toks_[i].type == PTXLexer::RPAREN) break;
        if (toks_[i].type != PTXLexer::COMMA) return false;
        ++i;
      }
    }
    l.close = locOf(toks_[i++]);
    return true;
  }

  // linkage* (.entry|.func) [(returns)] name [(params)] {.directive [N {, N}]}, ending at
  // the terminator ('{' or ';') that toks_ ends with.
  bool fastFunctionHeader(Function& f) {
    size_t i = 0;
    f.loc = locOf(toks_[0]);
    while (isLinkage(toks_[i].type)) f.linkage.emplace_back(toks_[i++].text);
    if (toks_[i].type != PTXLexer::ENTRY && toks_[i].type != PTXLexer::FUNC) return false;
    f.isEntry = toks_[i++].type == PTXLexer::ENTRY;
    if (toks_[i].type == PTXLexer::LPAREN && !fastParamList(i, f.returns.emplace())) return false;
    if (toks_[i].type != PTXLexer::ID) return false;
    f.name = toks_[i].text;
    f.nameLoc = locOf(toks_[i++]);
    if (toks_[i].type == PTXLexer::LPAREN && !fastParamList(i, f.params.emplace())) return false;
    while (toks_[i].type == PTXLexer::DOTNAME) {
      FunctionAttribute a;
      a.loc = locOf(toks_[i]);
      a.directive = toks_[i++].text;
      if (toks_[i].type == PTXLexer::INT) {
        while (true) {
          if (toks_[i].type != PTXLexer::INT || toks_[i].unsure) return false;
          a.arguments.emplace_back(toks_[i++].text);
          if (toks_[i].type != PTXLexer::COMMA) break;
          ++i;
        }
      }
      f.attributes.push_back(std::move(a));
    }
    return i == toks_.size() - 1;
  }

  // `.loc` ends at the end of its line in everything nvcc writes; anything else on that line
  // goes to the grammar with it.
  void readLoc(std::vector<Statement>& out) {
    toks_.clear();
    FastToken first = lexer_.next();
    toks_.push_back(first);
    while (true) {
      FastLexer::State before = lexer_.save();
      FastToken t = lexer_.next();
      if (t.type == FastLexer::kEof || t.line != first.line) {
        lexer_.restore(before);
        break;
      }
      toks_.push_back(t);
    }
    LocDirective l;
    if (fastLoc(l)) {
      out.push_back(std::move(l));
      return;
    }
    parseStatementsWithGrammar(out);
  }

  void parseStatementsWithGrammar(std::vector<Statement>& out) {
    if (toks_.empty()) return;
    AntlrPiece piece(slice(toks_.front(), endOf(toks_.back())), locOf(toks_.front()), file_,
                     options_.maxErrors);
    if (auto* tree = piece.parse(&PTXParser::statementSequence, errors_))
      Builder(piece.tokens(), file_, errors_).statements(tree, out);
  }

  bool fastU32(const FastToken& t, uint32_t& out) {
    if (t.type != PTXLexer::INT || t.unsure) return false;
    auto v = integerValue(t.text);
    if (!v || *v < 0 || *v > UINT32_MAX) return false;
    out = static_cast<uint32_t>(*v);
    return true;
  }

  bool fastLoc(LocDirective& l) {
    size_t n = toks_.size(), i = 1;
    l.loc = locOf(toks_[0]);
    uint32_t column = 0;
    if (n < 3 || !fastU32(toks_[1], l.file) || !fastU32(toks_[2], l.line)) return false;
    i = 3;
    if (i < n && toks_[i].type == PTXLexer::INT) {
      if (!fastU32(toks_[i], column)) return false;
      l.column = column;
      ++i;
    }
    while (i < n) {  // , name ID  |  , name INT INT [INT]   (as locAttribute in the grammar)
      if (toks_[i].type != PTXLexer::COMMA || i + 2 >= n || toks_[i + 1].type != PTXLexer::ID) return false;
      std::string attribute(toks_[i + 1].text);
      size_t words = toks_[i + 2].type == PTXLexer::ID ? 1 : (i + 4 < n && toks_[i + 4].type == PTXLexer::INT) ? 3 : 2;
      for (size_t k = 0; k < words; ++k) {
        if (i + 2 + k >= n) return false;
        const FastToken& w = toks_[i + 2 + k];
        if (w.unsure || w.type != (words == 1 ? PTXLexer::ID : PTXLexer::INT)) return false;
        attribute += ' ';
        attribute += w.text;
      }
      i += 2 + words;
      l.attributes.push_back(std::move(attribute));
    }
    return true;
  }

  bool fastInstruction(Instruction& in) {
    size_t n = toks_.size(), i = 0;
    if (n == 0 || toks_[n - 1].type != PTXLexer::SEMI) return false;
    in.loc = locOf(toks_[0]);
    in.endLoc = locOf(toks_[n - 1]);
    if (toks_[i].type == PTXLexer::AT) {
      Guard g;
      if (++i < n && toks_[i].type == PTXLexer::BANG) {
        g.negated = true;
        ++i;
      }
      if (i >= n || toks_[i].type != PTXLexer::ID) return false;
      g.predicate = toks_[i++].text;
      in.guard = std::move(g);
    }
    if (i >= n || toks_[i].type != PTXLexer::ID) return false;
    in.opcode = toks_[i++].text;
    while (i < n && (toks_[i].type == PTXLexer::DOTNAME || isStateSpace(toks_[i].type) ||
                     toks_[i].type == PTXLexer::ALIGN || toks_[i].type == PTXLexer::FUNC ||
                     toks_[i].type == PTXLexer::WEAK))
      in.modifiers.emplace_back(toks_[i++].text);
    if (toks_[i].type == PTXLexer::SEMI) return i == n - 1;
    while (true) {
      Operand op;
      if (!fastOperand(i, op)) return false;
      in.operands.push_back(std::move(op));
      if (toks_[i].type == PTXLexer::SEMI) return i == n - 1;
      if (toks_[i].type != PTXLexer::COMMA) return false;
      ++i;
    }
  }

  // One operand starting at toks_[i]; on success i is just past it (on a token that ends it).
  bool fastOperand(size_t& i, Operand& op) {
    const FastToken& t = toks_[i];
    if (t.unsure) return false;
    op.loc = locOf(t);
    switch (t.type) {
      case PTXLexer::ID: {
        op.kind = OperandKind::Name;
        op.text = t.text;
        ++i;
        if (toks_[i].type == PTXLexer::PIPE) {
          if (toks_[i + 1].type != PTXLexer::ID) return false;
          op.kind = OperandKind::PredicatePair;
          op.extra = toks_[i + 1].text;
          i += 2;
        } else if (toks_[i].type == PTXLexer::DOTNAME) {
          op.extra = toks_[i].text;
          ++i;
        }
        return endsOperand(toks_[i].type);
      }
      case PTXLexer::BANG:
        if (toks_[i + 1].type != PTXLexer::ID) return false;
        op.negated = true;
        op.text = toks_[i + 1].text;
        i += 2;
        return endsOperand(toks_[i].type);
      case PTXLexer::INT:
      case PTXLexer::MINUS: {
        if (!fastInteger(i, op)) return false;
        return endsOperand(toks_[i].type);
      }
      case PTXLexer::HEX_FLOAT:
        op.kind = OperandKind::Float;
        op.text = t.text;
        ++i;
        return endsOperand(toks_[i].type);
      case PTXLexer::LBRACE:
      case PTXLexer::LPAREN: {
        bool vector = t.type == PTXLexer::LBRACE;
        int close = vector ? PTXLexer::RBRACE : PTXLexer::RPAREN;
        op.kind = vector ? OperandKind::Vector : OperandKind::List;
        ++i;
        if (!vector && toks_[i].type == close) {
          op.closeLoc = locOf(toks_[i++]);
          return endsOperand(toks_[i].type);
        }
        while (true) {
          Operand e;
          if (!fastOperand(i, e)) return false;
          op.elements.push_back(std::move(e));
          if (toks_[i].type == close) break;
          if (toks_[i].type != PTXLexer::COMMA) return false;
          ++i;
        }
        if (!vector) op.closeLoc = locOf(toks_[i]);
        ++i;
        return endsOperand(toks_[i].type);
      }
      case PTXLexer::LBRACK: {
        op.kind = OperandKind::Address;
        ++i;
        if (toks_[i].unsure) return false;
        if (toks_[i].type == PTXLexer::ID) {
          op.text = toks_[i++].text;
          int sign = toks_[i].type == PTXLexer::PLUS ? 1 : toks_[i].type == PTXLexer::MINUS ? -1 : 0;
          if (sign != 0) {
            ++i;
            Operand offset;
            if (!fastInteger(i, offset)) return false;
            op.value = sign * offset.value;
            op.explicitOffset = true;
          }
        } else {
          Operand absolute;
          if (!fastInteger(i, absolute)) return false;
          op.value = absolute.value;
          op.extra = absolute.text;
        }
        while (toks_[i].type == PTXLexer::COMMA) {
          ++i;
          Operand e;
          if (!fastOperand(i, e)) return false;
          op.elements.push_back(std::move(e));
        }
        if (toks_[i].type != PTXLexer::RBRACK) return false;
        ++i;
        return endsOperand(toks_[i].type);
      }
      default:
        return false;
    }
  }

  // INT or -INT, as the grammar's builder reads it.
  bool fastInteger(size_t& i, Operand& op) {
    bool negative = toks_[i].type == PTXLexer::MINUS;
    const FastToken& digits = toks_[i + (negative ? 1 : 0)];
    if (digits.type != PTXLexer::INT || digits.unsure) return false;
    auto v = integerValue(digits.text);
    if (!v) return false;
    op.kind = OperandKind::Integer;
    op.text = negative ? "-" + std::string(digits.text) : std::string(digits.text);
    op.value = negative ? -*v : *v;
    i += negative ? 2 : 1;
    return true;
  }

  std::string_view text_;
  std::string file_;
  const ParseOptions& options_;
  FastLexer lexer_;
  std::vector<FastToken> toks_;  // the statement being read
  std::vector<Diagnostic> errors_;
};

// The whole module through the grammar: the reference the fast path is tested against.
ParseResult parseWithGrammarOnly(std::string_view text, const std::string& file, const ParseOptions& options) {
  ParseResult result;
  AntlrPiece piece(text, {1, 1}, file, options.maxErrors);
  auto* tree = piece.parse(&PTXParser::module, result.errors);
  if (!tree) return result;
  Builder builder(piece.tokens(), file, result.errors);
  Module m = builder.build(tree);
  if (result.errors.empty()) result.module = std::move(m);
  return result;
}

}  // namespace

ParseResult parseModule(std::string_view text, std::string sourceName, const ParseOptions& options) {
  ParseResult result;
  if (auto d = prescan(text, sourceName, options.maxNesting)) {
    result.errors.push_back(*d);
    return result;
  }
  try {
    if (options.grammarOnly) return parseWithGrammarOnly(text, sourceName, options);
    return ModuleReader(text, sourceName, options).read();
  } catch (const std::exception& e) {
    // The prescan makes this unreachable for every input we know of; never let the
    // runtime's exceptions escape as a crash.
    result.errors.push_back({sourceName, 1, 1, fmt::format("internal parser error: {}", e.what())});
    return result;
  }
}

namespace {
Module parseOwnText(const std::string& text) {
  ParseResult r = parseModule(text, "<cucatch>");
  if (!r.ok()) {
    std::string message = "cucatch emitted PTX it cannot parse:";
    for (const auto& d : r.errors) message += "\n  " + d.str();
    message += "\n" + text;
    throw std::logic_error(message);
  }
  return std::move(*r.module);
}
}  // namespace

std::vector<Statement> parseSyntheticStatements(std::string_view text) {
  std::string wrapped = ".entry __cucatch_snippet()\n{\n";
  wrapped += text;
  wrapped += "\n}\n";
  Module m = parseOwnText(wrapped);
  auto& body = std::get<Function>(m.items.at(0)).body;
  for (auto& s : body) makeSynthetic(s);
  return std::move(body);
}

std::vector<TopLevel> parseSyntheticItems(std::string_view text) {
  Module m = parseOwnText(std::string(text));
  for (auto& item : m.items) makeSynthetic(item);
  return std::move(m.items);
}

}  // namespace cucatch::ptx
