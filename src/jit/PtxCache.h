// JIT mode's on-disk cache of instrumented PTX (issue 11; docs/runtime.md, "JIT mode and PTX loaded at run time"): one file
// per module, named by the SHA-256 of what determines the result (the original PTX and how it
// was instrumented), so that a second run of a program pays no instrumentation. Safe under
// concurrent processes: an entry is written to a temporary file and renamed into place, so a
// reader sees a whole entry or none; each entry carries the SHA-256 of its content, and one
// that does not match (truncated, overwritten) is removed and counts as a miss. The directory
// is kept under a size bound by removing the least recently used entries. No CUDA.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace cucatch::jit {

// Lower-case hexadecimal SHA-256 of `bytes`.
std::string sha256Hex(std::string_view bytes);

class PtxCache {
 public:
  // `directory` is created where missing (with its parents). `maxBytes` bounds the entries'
  // total size. Throws std::runtime_error naming the directory when it cannot be made.
  PtxCache(std::string directory, uint64_t maxBytes);

  // The default directory: $CUCATCH_CACHE_DIR, else $XDG_CACHE_HOME/cucatch, else
  // $HOME/.cache/cucatch; empty when none of them is set.
  static std::string defaultDirectory();

  // The key for `original` instrumented under `how` (the rewriter's version and options).
  static std::string key(std::string_view original, std::string_view how);
  // Which build of the rewriter a file is (its size and modification time): part of `how`, so
  // that a rebuilt cucatch does not read back what an older one wrote. Empty if not readable.
  static std::string buildIdentity(const std::string& path);

  // The entry for `key`, or none (a missing or damaged entry, removed).
  std::optional<std::string> find(const std::string& key) const;
  // Stores `content` under `key`, then removes the least recently used entries while the total
  // is over the bound (never the one just stored). Failures to write are returned as a message
  // (a full disk must not stop the program; the caller says it once), empty on success.
  std::string store(const std::string& key, std::string_view content) const;

  const std::string& directory() const { return directory_; }

 private:
  std::string pathOf(const std::string& key) const;
  void evict(const std::string& keep) const;
  std::string directory_;
  uint64_t maxBytes_;
};

}  // namespace cucatch::jit
