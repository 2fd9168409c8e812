#include "jit/PtxCache.h"

#include <fcntl.h>
#include <openssl/evp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <system_error>
#include <vector>

#include <fmt/format.h>

namespace cucatch::jit {

namespace fs = std::filesystem;

namespace {

// The first line of every entry; what follows it is the content.
constexpr std::string_view kMagic = "// cucatch jit cache v1 sha256=";
constexpr std::string_view kSuffix = ".ptx";

}  // namespace

std::string sha256Hex(std::string_view bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned length = 0;
  if (!EVP_Digest(bytes.data(), bytes.size(), digest, &length, EVP_sha256(), nullptr))
    throw std::runtime_error("SHA-256 failed (OpenSSL)");
  std::string out;
  for (unsigned i = 0; i < length; ++i) out += fmt::format("{:02x}", digest[i]);
  return out;
}

PtxCache::PtxCache(std::string directory, uint64_t maxBytes) : directory_(std::move(directory)), maxBytes_(maxBytes) {
  std::error_code ec;
  fs::create_directories(directory_, ec);
  if (ec || !fs::is_directory(directory_))
    throw std::runtime_error(fmt::format("{}: cannot make the cache directory: {}", directory_, ec.message()));
}

std::string PtxCache::defaultDirectory() {
  if (const char* d = std::getenv("CUCATCH_CACHE_DIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/cucatch";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/cucatch";
  return {};
}

std::string PtxCache::key(std::string_view original, std::string_view how) {
  // The length first, so that no two (original, how) pairs give the same bytes.
  return sha256Hex(fmt::format("{}:{}", how.size(), how) + std::string(original));
}

std::string PtxCache::buildIdentity(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return {};
  return fmt::format("{}-{}.{}", st.st_size, st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
}

std::string PtxCache::pathOf(const std::string& key) const { return directory_ + "/" + key + std::string(kSuffix); }

std::optional<std::string> PtxCache::find(const std::string& key) const {
  std::string path = pathOf(key);
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  size_t newline = text.find('\n');
  bool whole = text.compare(0, kMagic.size(), kMagic) == 0 && newline != std::string::npos &&
               text.substr(kMagic.size(), newline - kMagic.size()) == sha256Hex(std::string_view(text).substr(newline + 1));
  if (!whole) {
    ::unlink(path.c_str());  // damaged: the next store writes it again
    return std::nullopt;
  }
  // Touched, for the least-recently-used bound.
  ::utimensat(AT_FDCWD, path.c_str(), nullptr, 0);
  return text.substr(newline + 1);
}

std::string PtxCache::store(const std::string& key, std::string_view content) const {
  std::string path = pathOf(key);
  std::string temporary = fmt::format("{}.{}.XXXXXX", path, ::getpid());
  int fd = ::mkstemp(temporary.data());
  if (fd < 0) return fmt::format("{}: cannot create a cache entry: {}", directory_, std::strerror(errno));
  std::string text = fmt::format("{}{}\n", kMagic, sha256Hex(content)) + std::string(content);
  for (size_t done = 0; done < text.size();) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      std::string why = std::strerror(errno);
      ::close(fd);
      ::unlink(temporary.c_str());
      return fmt::format("{}: cannot write a cache entry: {}", directory_, why);
    }
    done += static_cast<size_t>(n);
  }
  ::close(fd);
  // Atomic: a concurrent reader sees the old entry, the new one, or none, never part of one.
  if (::rename(temporary.c_str(), path.c_str()) != 0) {
    std::string why = std::strerror(errno);
    ::unlink(temporary.c_str());
    return fmt::format("{}: cannot place a cache entry: {}", directory_, why);
  }
  evict(key);
  return {};
}

void PtxCache::evict(const std::string& keep) const {
  struct Found {
    fs::path path;
    fs::file_time_type used;
    uint64_t bytes;
  };
  std::vector<Found> entries;
  uint64_t total = 0;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(directory_, ec)) {
    std::error_code each;
    if (e.path().extension() != kSuffix || !e.is_regular_file(each)) continue;
    uint64_t bytes = e.file_size(each);
    auto used = e.last_write_time(each);
    if (each) continue;  // removed meanwhile by another process
    total += bytes;
    entries.push_back({e.path(), used, bytes});
  }
  if (total <= maxBytes_) return;
  std::sort(entries.begin(), entries.end(), [](const Found& a, const Found& b) { return a.used < b.used; });
  for (const auto& e : entries) {
    if (total <= maxBytes_) break;
    if (e.path.stem() == keep) continue;
    std::error_code gone;
    if (fs::remove(e.path, gone)) total -= e.bytes;
  }
}

}  // namespace cucatch::jit
