#include "ptx/Printer.h"

#include <fmt/format.h>

namespace cucatch::ptx {
namespace {

// Writes text while keeping track of the output line, so that elements can be placed on the
// line they came from.
class LayoutWriter {
 public:
  explicit LayoutWriter(std::string& out, bool keepLines = true) : out_(out), keepLines_(keepLines) {}

  // Start a statement: on its source line if that is still ahead, on the current line if it
  // shared its source line with the previous statement, else on a new line.
  void startStatement(SourceLoc loc, bool indent) {
    bool fromSource = keepLines_ && !loc.isSynthetic();
    if (fromSource && loc.line > line_) {
      newlines(loc.line - line_);
    } else if (fromSource && loc.line == line_ && loc.line == previousStatementLine_) {
      if (!atLineStart_) out_ += ' ';
    } else if (!atLineStart_) {
      newlines(1);
    }
    previousStatementLine_ = fromSource ? loc.line : 0;
    if (indent && atLineStart_ && keepLines_) out_ += '\t';
    atLineStart_ = false;
  }

  // Place an element inside a statement: move down to its source line if that is ahead,
  // else continue on the current line after `separator`.
  void place(SourceLoc loc, std::string_view separator = " ") {
    if (keepLines_ && !loc.isSynthetic() && loc.line > line_) {
      newlines(loc.line - line_);
      out_ += '\t';
    } else if (!atLineStart_) {
      out_ += separator;
    }
    atLineStart_ = false;
  }

  void write(std::string_view s) {
    out_ += s;
    atLineStart_ = false;
  }
  void write(char c) {
    out_ += c;
    atLineStart_ = false;
  }
  void finish() {
    if (!atLineStart_) newlines(1);
  }

 private:
  void newlines(uint32_t n) {
    out_.append(n, '\n');
    line_ += n;
    atLineStart_ = true;
  }

  std::string& out_;
  bool keepLines_;
  uint32_t line_ = 1;
  uint32_t previousStatementLine_ = 0;  // source line of the last statement started; 0 if synthetic
  bool atLineStart_ = true;
};

class Printer {
 public:
  explicit Printer(LayoutWriter& w) : w_(w) {}

  void topLevel(const TopLevel& item) {
    std::visit([this](const auto& x) { print(x); }, item);
  }
  void statement(const Statement& s) {
    std::visit([this](const auto& x) { print(x); }, s);
  }

  void operand(const Operand& op) {
    switch (op.kind) {
      case OperandKind::Name:
        if (op.negated) w_.write('!');
        w_.write(op.text);
        w_.write(op.extra);
        break;
      case OperandKind::Integer:
      case OperandKind::Float:
      case OperandKind::Expression:
        w_.write(op.text);
        break;
      case OperandKind::Vector:
        w_.write('{');
        elements(op.elements);
        w_.write('}');
        break;
      case OperandKind::Address:
        w_.write('[');
        if (!op.extra.empty()) {
          w_.write(op.extra);  // absolute address as spelled, or a complex expression
        } else if (op.text.empty()) {
          w_.write(fmt::format("{}", op.value));
        } else {
          w_.write(op.text);
          if (op.value != 0 || op.explicitOffset) w_.write(fmt::format("+{}", op.value));
        }
        for (const auto& e : op.elements) {
          w_.write(", ");
          operand(e);
        }
        w_.write(']');
        break;
      case OperandKind::List:
        w_.write('(');
        elements(op.elements);
        w_.place(op.closeLoc, "");
        w_.write(')');
        break;
      case OperandKind::PredicatePair:
        w_.write(op.text);
        w_.write('|');
        w_.write(op.extra);
        break;
    }
  }

 private:
  void elements(const std::vector<Operand>& elems) {
    for (size_t i = 0; i < elems.size(); ++i) {
      if (i) w_.write(',');
      w_.place(elems[i].loc, i ? " " : "");
      operand(elems[i]);
    }
  }

  void print(const VersionDirective& d) {
    w_.startStatement(d.loc, false);
    w_.write(".version ");
    w_.write(d.version);
  }
  void print(const TargetDirective& d) {
    w_.startStatement(d.loc, false);
    w_.write(".target ");
    w_.write(fmt::format("{}", fmt::join(d.targets, ", ")));
  }
  void print(const AddressSizeDirective& d) {
    w_.startStatement(d.loc, false);
    w_.write(fmt::format(".address_size {}", d.bits));
  }
  void print(const FileDirective& d) {
    w_.startStatement(d.loc, inBody_);
    w_.write(fmt::format(".file {} {}", d.index, d.path));
    for (const auto& e : d.extra) w_.write(fmt::format(", {}", e));
  }
  void print(const AliasDirective& d) {
    w_.startStatement(d.loc, false);
    w_.write(fmt::format(".alias {}, {};", d.alias, d.aliasee));
  }
  void print(const Pragma& p) {
    w_.startStatement(p.loc, inBody_);
    w_.write(fmt::format(".pragma {};", fmt::join(p.strings, ", ")));
  }
  void print(const Section& s) {
    w_.startStatement(s.loc, true);
    w_.write(".section ");
    w_.write(s.name);
    w_.place(s.open);
    w_.write('{');
    for (const auto& e : s.entries) {
      w_.startStatement(e.loc, false);
      if (e.values.empty() && !e.label.empty()) {
        w_.write(e.label);
        w_.write(':');
      } else {
        w_.write(e.dataType);
        w_.write(' ');
        for (size_t i = 0; i < e.values.size(); ++i) {
          if (i) w_.write(',');
          w_.write(e.values[i]);
        }
      }
    }
    w_.startStatement(s.close, true);
    w_.write('}');
  }

  void attribute(const FunctionAttribute& a) {
    w_.place(a.loc);
    w_.write(a.directive);
    if (a.parenthesized) {
      w_.write(fmt::format("({})", fmt::join(a.arguments, ", ")));
    } else if (!a.arguments.empty()) {
      w_.write(' ');
      w_.write(fmt::format("{}", fmt::join(a.arguments, ", ")));
    }
  }

  void paramList(const ParamList& l, std::string_view separator = " ") {
    w_.place(l.open, separator);
    w_.write('(');
    for (size_t i = 0; i < l.params.size(); ++i) {
      if (i) w_.write(',');
      w_.place(l.params[i].loc, i ? " " : "");
      declaration(l.params[i]);
    }
    w_.place(l.close, "");
    w_.write(')');
  }

  void print(const Function& f) {
    w_.startStatement(f.loc, false);
    bool first = true;
    auto word = [&](std::string_view s) {
      if (!first) w_.write(' ');
      w_.write(s);
      first = false;
    };
    for (const auto& l : f.linkage) word(l);
    word(f.isEntry ? ".entry" : ".func");
    for (const auto& a : f.leadingAttributes) attribute(a);
    if (f.returns) paramList(*f.returns);
    w_.place(f.nameLoc);
    w_.write(f.name);
    if (f.params) paramList(*f.params, "");
    for (const auto& a : f.attributes) attribute(a);
    if (!f.hasBody) {
      w_.place(f.bodyClose, "");
      w_.write(';');
      return;
    }
    w_.place(f.bodyOpen);
    w_.write('{');
    inBody_ = true;
    for (const auto& s : f.body) statement(s);
    inBody_ = false;
    w_.startStatement(f.bodyClose, false);
    w_.write('}');
  }

  void initializer(const Initializer& init) {
    if (!init.isList) {
      w_.write(init.expression);
      return;
    }
    w_.write('{');
    for (size_t i = 0; i < init.list.size(); ++i) {
      if (i) w_.write(", ");
      initializer(init.list[i]);
    }
    w_.write('}');
  }

  // The declaration without its ';' (shared by variables and parameters).
  void declaration(const VariableDecl& v) {
    for (const auto& l : v.linkage) {
      w_.write(l);
      w_.write(' ');
    }
    w_.write(v.space);
    for (const auto& q : v.qualifiers) {
      w_.write(' ');
      w_.write(q.word);
      if (q.number) w_.write(fmt::format(" {}", *q.number));
      if (q.word == ".attribute") w_.write(fmt::format("({})", q.parenthesized));
    }
    for (size_t i = 0; i < v.declarators.size(); ++i) {
      const auto& d = v.declarators[i];
      w_.write(i ? ", " : " ");
      w_.write(d.name);
      if (d.rangeCount) w_.write(fmt::format("<{}>", *d.rangeCount));
      for (const auto& dim : d.dimensions) w_.write(fmt::format("[{}]", dim.value_or("")));
      if (d.initializer) {
        w_.write(" = ");
        initializer(*d.initializer);
      }
    }
  }

  void print(const VariableDecl& v) {
    w_.startStatement(v.loc, inBody_);
    declaration(v);
    w_.write(';');
  }

  void print(const Instruction& in) {
    w_.startStatement(in.loc, true);
    if (in.guard) w_.write(fmt::format("@{}{} ", in.guard->negated ? "!" : "", in.guard->predicate));
    w_.write(in.opcode);
    for (const auto& m : in.modifiers) w_.write(m);
    for (size_t i = 0; i < in.operands.size(); ++i) {
      if (i) w_.write(',');
      w_.place(in.operands[i].loc);
      operand(in.operands[i]);
    }
    w_.place(in.endLoc, "");
    w_.write(';');
  }

  void print(const Label& l) {
    w_.startStatement(l.loc, false);
    w_.write(l.name);
    w_.write(':');
  }

  void print(const LocDirective& l) {
    w_.startStatement(l.loc, true);
    w_.write(fmt::format(".loc {} {}", l.file, l.line));
    if (l.column) w_.write(fmt::format(" {}", *l.column));
    for (const auto& a : l.attributes) w_.write(fmt::format(", {}", a));
  }

  void print(const ScopeBrace& b) {
    w_.startStatement(b.loc, true);
    w_.write(b.open ? '{' : '}');
  }

  void print(const TargetList& t) {
    w_.startStatement(t.loc, true);
    w_.write(fmt::format("{} {};", t.directive, fmt::join(t.targets, ", ")));
  }

  void print(const CallPrototype& p) {
    w_.startStatement(p.loc, true);
    w_.write(".callprototype");
    if (p.returns) paramList(*p.returns);
    w_.write(' ');
    w_.write(p.name);
    if (p.params) paramList(*p.params);
    for (const auto& a : p.attributes) attribute(a);
    w_.place(p.endLoc, "");
    w_.write(';');
  }

  LayoutWriter& w_;
  bool inBody_ = false;  // statements inside a function body are indented
};

}  // namespace

std::string print(const Module& module) {
  std::string out;
  out.reserve(1 << 16);
  LayoutWriter w(out);
  Printer p(w);
  for (const auto& item : module.items) p.topLevel(item);
  w.finish();
  return out;
}

std::string printStatement(const Statement& statement) {
  std::string out;
  LayoutWriter w(out, /*keepLines=*/false);
  Printer(w).statement(statement);
  return out;
}

std::string printOperand(const Operand& operand) {
  std::string out;
  LayoutWriter w(out, false);
  Printer(w).operand(operand);
  return out;
}

}  // namespace cucatch::ptx
