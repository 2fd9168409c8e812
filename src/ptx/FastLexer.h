// A hand-written tokenizer that produces the same tokens as the grammar's lexer (PTX.g4),
// with the grammar's own token types, at a small fraction of the cost. The parser uses it to
// find statement boundaries and to read the regular bulk of a module (instructions, labels,
// .loc) directly; everything it is unsure about goes to the ANTLR parser.
//
// "Unsure" is explicit: a token whose extent could depend on the longest-match subtleties of
// the grammar's lexer (a number glued to letters, a lone `%`, ...) is marked `unsure`, and the
// fast path never builds IR from such a token. The differential tests check the rest.
#pragma once

#include <cstdint>
#include <string_view>

namespace cucatch::ptx {

struct FastToken {
  int type = 0;           // a PTXLexer token type; FastLexer::kEof at the end
  std::string_view text;
  uint32_t line = 1;
  uint32_t column = 1;
  size_t offset = 0;      // byte offset of the token in the text
  bool unsure = false;    // the grammar's lexer might split or join this differently
};

class FastLexer {
 public:
  static constexpr int kEof = -1;  // antlr4::Token::EOF

  explicit FastLexer(std::string_view text, uint32_t line = 1, uint32_t column = 1)
      : text_(text), line_(line), column_(column) {}

  FastToken next();

  // Where the next token's scan starts (after the previous token).
  size_t offset() const { return pos_; }
  uint32_t line() const { return line_; }

  struct State {
    size_t pos;
    uint32_t line, column;
  };
  State save() const { return {pos_, line_, column_}; }
  void restore(State s) {
    pos_ = s.pos;
    line_ = s.line;
    column_ = s.column;
  }

  // Type of a dotted word: its keyword token type if it is one of the grammar's keywords,
  // else DOTNAME.
  static int dottedWordType(std::string_view word);

 private:
  void skipSpaceAndComments();
  void advance(size_t n);

  std::string_view text_;
  size_t pos_ = 0;
  uint32_t line_, column_;
  bool badComment_ = false;
};

}  // namespace cucatch::ptx
