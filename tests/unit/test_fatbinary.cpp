// The fatbinary reader (src/fatbin) on containers built byte by byte: the layout as
// docs/fatbinary.md describes it, and every malformed input refused with its offset, never a
// read past the bytes given. (Files the toolkit makes are checked against cuobjdump in
// tests/fatbin.)
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <cstring>
#include <zstd.h>

#include "fatbin/Fatbinary.h"

using namespace cucatch::fatbin;

namespace {

template <class T>
void put(std::vector<uint8_t>& b, size_t at, T v) {
  if (b.size() < at + sizeof v) b.resize(at + sizeof v);
  std::memcpy(b.data() + at, &v, sizeof v);
}

// An entry: header (64 bytes) then the payload padded to 8.
std::vector<uint8_t> entry(uint16_t kind, unsigned arch, uint16_t major, uint16_t minor, uint64_t flags,
                           const std::vector<uint8_t>& stored, uint64_t uncompressed = 0) {
  // Sized once, the payload copied into place (GCC 12 warns wrongly about growing it).
  uint64_t padded = (stored.size() + 7) / 8 * 8;
  std::vector<uint8_t> e(64 + padded, 0);
  put<uint16_t>(e, 0, kind);
  put<uint16_t>(e, 2, 0x0101);
  put<uint32_t>(e, 4, 64);
  put<uint64_t>(e, 8, padded);
  if (uncompressed) put<uint32_t>(e, 16, static_cast<uint32_t>(stored.size()));
  put<uint16_t>(e, 24, minor);
  put<uint16_t>(e, 26, major);
  put<uint32_t>(e, 28, arch);
  put<uint64_t>(e, 40, flags);
  put<uint64_t>(e, 56, uncompressed);
  std::copy(stored.begin(), stored.end(), e.begin() + 64);
  return e;
}

std::vector<uint8_t> container(const std::vector<std::vector<uint8_t>>& entries) {
  std::vector<uint8_t> c(16, 0);
  size_t size = 0;
  for (const auto& e : entries) size += e.size();
  put<uint32_t>(c, 0, kContainerMagic);
  put<uint16_t>(c, 4, 1);
  put<uint16_t>(c, 6, 16);
  put<uint64_t>(c, 8, size);
  for (const auto& e : entries) c.insert(c.end(), e.begin(), e.end());
  return c;
}

std::vector<uint8_t> bytes(const std::string& s) { return {s.begin(), s.end()}; }

}  // namespace

TEST_CASE("a container's entries: kind, architecture, version, payload", "[fatbin]") {
  auto ptx = bytes(".version 9.0\n.target sm_90\n");
  auto elf = bytes("\x7f" "ELF fake cubin");
  auto c = container({entry(2, 90, 1, 8, kFlag64Bit | kFlagLinux, elf), entry(1, 90, 9, 0, kFlag64Bit | kFlagLinux, ptx)});
  auto parsed = parse(c);
  REQUIRE(parsed.size() == 1);
  REQUIRE(parsed[0].entries.size() == 2);
  const Entry& s = parsed[0].entries[0];
  CHECK(s.isElf());
  CHECK(s.kindName() == "sass");
  CHECK(s.arch == 90);
  CHECK((s.major == 1 && s.minor == 8));
  CHECK(s.compression == Compression::None);
  CHECK(s.offset == 16);
  const Entry& p = parsed[0].entries[1];
  CHECK(p.isPtx());
  // The padding NULs are not part of the PTX text.
  auto text = payload(p);
  CHECK(std::string(text.begin(), text.end()) == ".version 9.0\n.target sm_90\n");
}

TEST_CASE("zstd-compressed entries decompress to their size", "[fatbin]") {
  std::string ptx(5000, 'x');
  std::vector<uint8_t> packed(ZSTD_compressBound(ptx.size()));
  packed.resize(ZSTD_compress(packed.data(), packed.size(), ptx.data(), ptx.size(), 3));
  auto c = container({entry(1, 80, 9, 0, kFlag64Bit | kFlagCompressedZstd, packed, ptx.size())});
  auto e = parse(c)[0].entries[0];
  CHECK(e.compression == Compression::Zstd);
  CHECK(e.compressionName() == "zstd");
  CHECK(e.payload.size() == packed.size());
  auto text = payload(e);
  CHECK(std::string(text.begin(), text.end()) == ptx);
  // A size that does not match what the payload gives is malformed.
  auto wrong = container({entry(1, 80, 9, 0, kFlagCompressedZstd, packed, ptx.size() + 1)});
  CHECK_THROWS_AS(payload(parse(wrong)[0].entries[0]), FormatError);
}

TEST_CASE("the older compression scheme is named, not guessed at", "[fatbin]") {
  auto c = container({entry(1, 75, 8, 5, kFlagCompressedLegacy, bytes("opaque"), 100)});
  auto e = parse(c)[0].entries[0];
  CHECK(e.compression == Compression::Unsupported);
  CHECK_THROWS_AS(payload(e), UnsupportedCompression);
}

TEST_CASE("several containers, with section padding between them", "[fatbin]") {
  auto a = container({entry(2, 80, 1, 8, 0, bytes("one"))});
  auto b = container({entry(2, 90, 1, 8, 0, bytes("two"))});
  std::vector<uint8_t> section = a;
  section.resize(section.size() + 8, 0);  // alignment padding
  size_t second = section.size();
  section.insert(section.end(), b.begin(), b.end());
  auto parsed = parse(section);
  REQUIRE(parsed.size() == 2);
  CHECK(parsed[1].offset == second);
  CHECK(parsed[1].entries[0].arch == 90);
}

TEST_CASE("malformed fatbinaries are refused with their offset", "[fatbin]") {
  auto good = container({entry(1, 90, 9, 0, 0, bytes("ptx"))});
  SECTION("not a container") {
    auto bad = good;
    bad[0] = 0x12;
    try {
      parse(bad);
      FAIL("accepted");
    } catch (const FormatError& e) {
      CHECK(e.offset() == 0);
      CHECK(std::string(e.what()).find("not a fatbinary container") != std::string::npos);
    }
  }
  SECTION("a container larger than the bytes") {
    auto bad = good;
    bad.resize(bad.size() - 8);
    CHECK_THROWS_AS(parse(bad), FormatError);
  }
  SECTION("a truncated container header") {
    std::vector<uint8_t> bad(good.begin(), good.begin() + 10);
    CHECK_THROWS_AS(parse(bad), FormatError);
  }
  SECTION("an entry overrunning its container") {
    auto bad = good;
    put<uint64_t>(bad, 16 + 8, 1 << 20);
    try {
      parse(bad);
      FAIL("accepted");
    } catch (const FormatError& e) {
      CHECK(e.offset() == 16);
    }
  }
  SECTION("an entry header too small") {
    auto bad = good;
    put<uint32_t>(bad, 16 + 4, 8);
    CHECK_THROWS_AS(parse(bad), FormatError);
  }
  SECTION("another container version") {
    auto bad = good;
    put<uint16_t>(bad, 4, 2);
    CHECK_THROWS_AS(parse(bad), FormatError);
  }
  SECTION("a container header larger than the bytes") {  // (read past the end before; found by fuzzing)
    auto bad = good;
    put<uint16_t>(bad, 6, 0xFFFF);
    put<uint64_t>(bad, 8, 0);
    CHECK_THROWS_AS(parse(bad), FormatError);
  }
}

TEST_CASE("a compressed entry whose header gives another size than its frame is refused, not allocated",
          "[fatbin]") {
  // A damaged header once had payload() allocate and clear the 16 GiB it gave (found by fuzzing).
  std::string ptx(5000, 'x');
  std::vector<uint8_t> packed(ZSTD_compressBound(ptx.size()));
  packed.resize(ZSTD_compress(packed.data(), packed.size(), ptx.data(), ptx.size(), 3));
  auto huge = container({entry(1, 80, 9, 0, kFlagCompressedZstd, packed, uint64_t(16) << 30)});
  try {
    payload(parse(huge)[0].entries[0]);
    FAIL("accepted");
  } catch (const FormatError& e) {
    CHECK(std::string(e.what()).find("17179869184 bytes by its entry header and 5000 by its frame") != std::string::npos);
  }
  auto garbage = container({entry(1, 80, 9, 0, kFlagCompressedZstd, bytes("not zstd at all"), 5000)});
  CHECK_THROWS_AS(payload(parse(garbage)[0].entries[0]), FormatError);
}

TEST_CASE("the PTX JIT mode chooses for a device: highest architecture it runs, most specific, newest ISA", "[fatbin]") {
  auto ptx = [](unsigned arch, uint64_t flags, unsigned major, unsigned minor) {
    Entry e;
    e.kind = static_cast<uint16_t>(EntryKind::Ptx);
    e.arch = arch;
    e.flags = flags;
    e.major = major;
    e.minor = minor;
    return e;
  };
  Entry sass;
  sass.kind = static_cast<uint16_t>(EntryKind::Elf);
  sass.arch = 90;
  // compute_80, compute_90a, compute_100f, compute_90 (ISA 8.0 and 9.0), and SASS for sm_90.
  std::vector<Entry> entries{ptx(80, 0, 9, 0), ptx(90, kFlagArchSpecific, 9, 0), ptx(100, kFlagArchFamily, 9, 0),
                             ptx(90, 0, 8, 0), ptx(90, 0, 9, 0), sass};
  CHECK(entries[1].archName() == "sm_90a");
  CHECK(entries[2].archName() == "sm_100f");
  CHECK(entries[0].archName() == "sm_80");
  CHECK_FALSE(ptxForDevice(entries, 75));        // nothing runs there
  CHECK(ptxForDevice(entries, 80) == size_t(0));
  CHECK(ptxForDevice(entries, 89) == size_t(0));
  CHECK(ptxForDevice(entries, 90) == size_t(1));   // "a" for exactly sm_90 first
  CHECK(ptxForDevice(entries, 100) == size_t(2));  // the family's own
  CHECK(ptxForDevice(entries, 103) == size_t(2));  // a later member of the family
  CHECK(ptxForDevice(entries, 120) == size_t(4));  // another family: plain compute_90, newest ISA
  CHECK_FALSE(sass.ptxRunsOn(90));                 // SASS is never chosen
  CHECK_FALSE(entries[2].ptxRunsOn(110));
  CHECK_FALSE(entries[1].ptxRunsOn(100));
}

#include "fatbin/RelocatableUnits.h"

TEST_CASE("ptxFunctions: definitions of kernels and device functions, not declarations", "[fatbin]") {
  const char* ptx = R"(.version 9.0
.target sm_90
.address_size 64
.extern .func (.param .b32 func_retval0) declared_elsewhere(.param .b64 p);
.weak .func (.param .b32 func_retval0) _Z6weightPKfi(.param .b64 p, .param .b32 n)
{
  ret;
}
.func internal_helper()
{
  ret;
}
.visible .entry _Z8sum_rowsPKfPfii(.param .u64 a)
{
  ret;
}
  .entry indented_kernel()
{
  ret;
}
)";
  auto f = cucatch::fatbin::ptxFunctions(ptx);
  CHECK(f == std::set<std::string>{"_Z6weightPKfi", "internal_helper", "_Z8sum_rowsPKfPfii", "indented_kernel"});
}
