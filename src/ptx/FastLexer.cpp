#include "ptx/FastLexer.h"

#include <string>
#include <unordered_map>
#include <vector>

#include "PTXLexer.h"
#include "antlr4-runtime.h"

namespace cucatch::ptx {
namespace {

bool isIdStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$';
}
bool isIdChar(char c) { return isIdStart(c) || (c >= '0' && c <= '9'); }
bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isHex(char c) { return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

// The grammar's dotted keywords (.version, .global, ...), read from the generated lexer's
// vocabulary so that the keyword list exists in one place: PTX.g4.
struct KeywordTable {
  std::vector<std::string> words;
  std::unordered_map<std::string_view, int> types;  // views into `words`
};

const KeywordTable& keywordTable() {
  static const KeywordTable table = [] {
    KeywordTable t;
    antlr4::ANTLRInputStream empty("");
    PTXLexer lexer(&empty);
    const auto& vocabulary = lexer.getVocabulary();
    std::vector<std::pair<std::string, int>> found;
    for (size_t type = 1; type <= vocabulary.getMaxTokenType(); ++type) {
      std::string literal = vocabulary.getLiteralName(type);  // e.g. "'.version'"
      if (literal.size() > 3 && literal[1] == '.')
        found.emplace_back(literal.substr(1, literal.size() - 2), static_cast<int>(type));
    }
    t.words.reserve(found.size());  // no reallocation: the map keeps views into these strings
    for (auto& [word, type] : found) {
      t.words.push_back(word);
      t.types.emplace(t.words.back(), type);
    }
    return t;
  }();
  return table;
}

}  // namespace

int FastLexer::dottedWordType(std::string_view word) {
  const auto& types = keywordTable().types;
  auto it = types.find(word);
  return it == types.end() ? PTXLexer::DOTNAME : it->second;
}

void FastLexer::advance(size_t n) {  // over text that may contain newlines (block comments)
  for (size_t i = 0; i < n; ++i) {
    if (text_[pos_ + i] == '\n') {
      ++line_;
      column_ = 1;
    } else {
      ++column_;
    }
  }
  pos_ += n;
}

void FastLexer::skipSpaceAndComments() {
  while (pos_ < text_.size()) {
    char c = text_[pos_];
    if (c == ' ' || c == '\t' || c == '\r' || c == '\f') {
      ++pos_;
      ++column_;
    } else if (c == '\n') {
      ++pos_;
      ++line_;
      column_ = 1;
    } else if (c == '/' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '/') {
      size_t end = text_.find_first_of("\r\n", pos_);  // as the grammar: ~[\r\n]*
      if (end == std::string_view::npos) end = text_.size();
      column_ += static_cast<uint32_t>(end - pos_);
      pos_ = end;
    } else if (c == '/' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '*') {
      size_t end = text_.find("*/", pos_ + 2);
      if (end == std::string_view::npos) return;  // unterminated: next() reports it
      advance(end + 2 - pos_);
    } else {
      return;
    }
  }
}

FastToken FastLexer::next() {
  skipSpaceAndComments();
  FastToken t;
  t.line = line_;
  t.column = column_;
  t.offset = pos_;
  if (pos_ >= text_.size()) {
    t.type = kEof;
    return t;
  }
  const char* s = text_.data() + pos_;
  size_t left = text_.size() - pos_;
  size_t n = 1;
  char c = s[0];
  auto gluedToWord = [&](size_t len) { return len < left && (isIdChar(s[len]) || s[len] == '.'); };

  if (isIdStart(c) || (c == '%' && left > 1 && isIdChar(s[1]))) {
    while (n < left && isIdChar(s[n])) ++n;
    t.type = PTXLexer::ID;
  } else if (c == '.' && left > 1 && isIdChar(s[1])) {
    while (true) {
      while (n < left && isIdChar(s[n])) ++n;
      if (n + 2 < left && s[n] == ':' && s[n + 1] == ':' && isIdChar(s[n + 2])) {
        n += 2;
        continue;
      }
      break;
    }
    t.type = dottedWordType(std::string_view(s, n));
  } else if (isDigit(c)) {
    if (c == '0' && left > 1 && (s[1] == 'f' || s[1] == 'F' || s[1] == 'd' || s[1] == 'D')) {
      size_t digits = (s[1] == 'f' || s[1] == 'F') ? 8 : 16;
      size_t k = 2;
      while (k < left && k < 2 + digits && isHex(s[k])) ++k;
      if (k == 2 + digits) {
        n = k;
        t.type = PTXLexer::HEX_FLOAT;
      } else {
        n = 1;  // a plain 0 followed by a word: leave it to the grammar's lexer
        t.type = PTXLexer::INT;
        t.unsure = true;
      }
    } else if (c == '0' && left > 2 && (s[1] == 'x' || s[1] == 'X') && isHex(s[2])) {
      n = 3;
      while (n < left && isHex(s[n])) ++n;
      t.type = PTXLexer::INT;
    } else if (c == '0' && left > 2 && (s[1] == 'b' || s[1] == 'B') && (s[2] == '0' || s[2] == '1')) {
      n = 3;
      while (n < left && (s[n] == '0' || s[n] == '1')) ++n;
      t.type = PTXLexer::INT;
    } else if (c == '0') {
      while (n < left && s[n] >= '0' && s[n] <= '7') ++n;
      t.type = PTXLexer::INT;
    } else {
      while (n < left && isDigit(s[n])) ++n;
      t.type = PTXLexer::INT;
    }
    if (t.type == PTXLexer::INT && n < left && s[n] == 'U') ++n;
    // 1.5, 1e5, 09, 0x1g...: decimal floats and odd spellings are the grammar lexer's job.
    if (gluedToWord(n)) t.unsure = true;
  } else if (c == '"') {
    while (n < left && s[n] != '"' && s[n] != '\n') n += (s[n] == '\\' && n + 1 < left) ? 2 : 1;
    if (n < left && s[n] == '"') {
      ++n;
      t.type = PTXLexer::STRING;
    } else {
      n = 1;
      t.type = PTXLexer::ERROR_CHAR;
    }
  } else {
    char d = left > 1 ? s[1] : '\0';
    switch (c) {
      case ',': t.type = PTXLexer::COMMA; break;
      case ';': t.type = PTXLexer::SEMI; break;
      case ':': t.type = PTXLexer::COLON; break;
      case '{': t.type = PTXLexer::LBRACE; break;
      case '}': t.type = PTXLexer::RBRACE; break;
      case '[': t.type = PTXLexer::LBRACK; break;
      case ']': t.type = PTXLexer::RBRACK; break;
      case '(': t.type = PTXLexer::LPAREN; break;
      case ')': t.type = PTXLexer::RPAREN; break;
      case '@': t.type = PTXLexer::AT; break;
      case '+': t.type = PTXLexer::PLUS; break;
      case '-': t.type = PTXLexer::MINUS; break;
      case '*': t.type = PTXLexer::STAR; break;
      case '/': t.type = PTXLexer::SLASH; break;
      case '%': t.type = PTXLexer::PERCENT; break;
      case '~': t.type = PTXLexer::TILDE; break;
      case '^': t.type = PTXLexer::CARET; break;
      case '?': t.type = PTXLexer::QUESTION; break;
      case '!': t.type = d == '=' ? (n = 2, PTXLexer::NE) : PTXLexer::BANG; break;
      case '|': t.type = d == '|' ? (n = 2, PTXLexer::OROR) : PTXLexer::PIPE; break;
      case '&': t.type = d == '&' ? (n = 2, PTXLexer::ANDAND) : PTXLexer::AMP; break;
      case '=': t.type = d == '=' ? (n = 2, PTXLexer::EQEQ) : PTXLexer::ASSIGN; break;
      case '<':
        t.type = d == '<' ? (n = 2, PTXLexer::SHL) : d == '=' ? (n = 2, PTXLexer::LE) : PTXLexer::LT;
        break;
      case '>':
        t.type = d == '>' ? (n = 2, PTXLexer::SHR) : d == '=' ? (n = 2, PTXLexer::GE) : PTXLexer::GT;
        break;
      default: t.type = PTXLexer::ERROR_CHAR; break;
    }
  }
  t.text = std::string_view(s, n);
  pos_ += n;  // tokens never span lines
  column_ += static_cast<uint32_t>(n);
  return t;
}

}  // namespace cucatch::ptx
