#include "instrument/BodyEdit.h"

#include "ptx/Parser.h"

namespace cucatch::instrument {

using namespace cucatch::ptx;

void applyEdits(Function& f, const BodyEdits& edits) {
  std::vector<Statement> body;
  body.reserve(f.body.size() * 2);
  auto append = [&](const std::string& text) {
    if (text.empty()) return;
    for (auto& s : parseSyntheticStatements(text)) body.push_back(std::move(s));
  };
  size_t i = 0;
  while (i < f.body.size() && std::holds_alternative<VariableDecl>(f.body[i])) body.push_back(std::move(f.body[i++]));
  append(edits.prologue);
  for (; i < f.body.size(); ++i) {
    if (auto it = edits.before.find(i); it != edits.before.end()) append(it->second);
    body.push_back(std::move(f.body[i]));
    if (auto it = edits.after.find(i); it != edits.after.end()) append(it->second);
  }
  append(edits.epilogue);
  f.body = std::move(body);
}

}  // namespace cucatch::instrument
