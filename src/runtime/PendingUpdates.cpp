#include "runtime/PendingUpdates.h"

#include <algorithm>

namespace cucatch::runtime {

void PendingUpdates::add(Change change) {
  if (change.entries.empty() && change.writes.empty()) return;
  if (change.mapped != 0) {
    change.previousSeen = change.mapped >= seen_.size() || seen_[change.mapped];
    if (change.mapped < seen_.size()) seen_[change.mapped] = false;
  }
  changes_.push_back(std::move(change));
}

void PendingUpdates::markSeen(uint32_t index) {
  if (index < seen_.size()) seen_[index] = true;
}

bool PendingUpdates::maps(uint32_t index) const {
  return index != 0 && std::any_of(changes_.begin(), changes_.end(), [&](const Change& c) {
           return c.mapped == index &&
                  std::any_of(c.writes.begin(), c.writes.end(), [&](const ShadowMap::Write& w) { return w.value == index; });
         });
}

PendingUpdates::Cancelled PendingUpdates::cancel(uint32_t index, std::vector<uint32_t>& entries) {
  if (index == 0) return Cancelled::NotPending;
  auto it = std::find_if(changes_.begin(), changes_.end(), [&](const Change& c) { return c.mapped == index; });
  if (it == changes_.end()) return Cancelled::NotPending;
  std::erase_if(it->writes, [&](const ShadowMap::Write& w) { return w.value == index; });
  it->mapped = 0;
  const Cancelled how = it->previousSeen ? Cancelled::InStream : Cancelled::Anywhere;
  // As before this allocation came: a kernel may still use the index's earlier holder, whose
  // pointers the next holder's entry would otherwise be written over anywhere (a review's find:
  // the holder after a cancelled one took Anywhere while a kernel ahead still used the first).
  if (index < seen_.size()) seen_[index] = it->previousSeen;
  if (how == Cancelled::Anywhere) {
    entries.insert(entries.end(), it->entries.begin(), it->entries.end());
    it->entries.clear();
  }
  if (it->writes.empty() && it->entries.empty()) changes_.erase(it);
  return how;
}

std::vector<PendingUpdates::StreamUpdate> PendingUpdates::take() {
  std::vector<StreamUpdate> out;
  for (Change& c : changes_) {
    markSeen(c.mapped);
    auto same = [&](const StreamUpdate& u) { return u.context == c.context && u.stream == c.stream; };
    auto it = std::find_if(out.begin(), out.end(), same);
    if (it == out.end()) {
      out.push_back({c.context, c.stream, {}, {}});
      it = std::prev(out.end());
    }
    it->entries.insert(it->entries.end(), c.entries.begin(), c.entries.end());
    it->writes.insert(it->writes.end(), c.writes.begin(), c.writes.end());
  }
  for (StreamUpdate& u : out) {
    std::sort(u.entries.begin(), u.entries.end());
    u.entries.erase(std::unique(u.entries.begin(), u.entries.end()), u.entries.end());
  }
  changes_.clear();
  return out;
}

}  // namespace cucatch::runtime
