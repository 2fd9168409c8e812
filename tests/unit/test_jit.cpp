// JIT mode's pieces without CUDA (src/jit): the on-disk cache (hits and misses, damaged
// entries, writers in several processes at once, the size bound) and telling what an image
// handed to the driver is. (Choosing and instrumenting PTX from real files: tests/fatbin, jit.)
#include <catch2/catch.hpp>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <iterator>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "jit/JitImage.h"
#include "jit/PtxCache.h"
#include "fatbin/ElfFile.h"
#include "fatbin/Image.h"

namespace fs = std::filesystem;
using cucatch::jit::PtxCache;

namespace {

// A fresh directory under the system's temporary one, removed at the end of the test.
struct ScratchDir {
  std::string path;
  ScratchDir() {
    std::string t = (fs::temp_directory_path() / "cucatch-cache-test-XXXXXX").string();
    REQUIRE(::mkdtemp(t.data()));
    path = t;
  }
  ~ScratchDir() { fs::remove_all(path); }
};

size_t entriesIn(const std::string& dir) {
  size_t n = 0;
  for (const auto& e : fs::directory_iterator(dir)) n += e.path().extension() == ".ptx";
  return n;
}

}  // namespace

TEST_CASE("JIT cache: SHA-256 as the standard gives it", "[jit]") {
  CHECK(cucatch::jit::sha256Hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(cucatch::jit::sha256Hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST_CASE("JIT cache: a miss, then a hit with the content stored", "[jit]") {
  ScratchDir dir;
  PtxCache cache(dir.path + "/made/on/demand", 1 << 20);
  std::string k = PtxCache::key(".version 9.0\n.target sm_90\n", "cucatch 5 --check");
  CHECK(k.size() == 64);
  CHECK_FALSE(cache.find(k));
  CHECK(cache.store(k, "instrumented text\n").empty());
  auto hit = cache.find(k);
  REQUIRE(hit);
  CHECK(*hit == "instrumented text\n");
  // The key tells both the original and how it was instrumented apart.
  CHECK(PtxCache::key("a", "b") != PtxCache::key("a", "c"));
  CHECK(PtxCache::key("a", "bc") != PtxCache::key("ab", "c"));
  CHECK(PtxCache::key("xa", "b") != PtxCache::key("a", "bx"));
}

TEST_CASE("JIT cache: a damaged entry is a miss, and is removed", "[jit]") {
  ScratchDir dir;
  PtxCache cache(dir.path, 1 << 20);
  std::string k = PtxCache::key("original", "how");
  REQUIRE(cache.store(k, std::string(1000, 'p')).empty());
  std::string file = dir.path + "/" + k + ".ptx";
  SECTION("truncated") { fs::resize_file(file, fs::file_size(file) - 10); }
  SECTION("overwritten") {
    std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(-3, std::ios::end);
    f << "xyz";
  }
  SECTION("not an entry at all") { std::ofstream(file) << "garbage"; }
  CHECK_FALSE(cache.find(k));
  CHECK_FALSE(fs::exists(file));
  CHECK(cache.store(k, "again").empty());
  CHECK(cache.find(k) == std::string("again"));
}

TEST_CASE("JIT cache: writers in several processes, readers never see part of an entry", "[jit]") {
  ScratchDir dir;
  PtxCache cache(dir.path, 64 << 20);
  std::string k = PtxCache::key("shared module", "how");
  std::string content(2 << 20, 'q');  // larger than one write, so that a torn entry could show
  for (size_t i = 0; i < content.size(); i += 4096) content[i] = char('a' + i / 4096 % 26);
  std::vector<pid_t> writers;
  for (int w = 0; w < 4; ++w) {
    pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      PtxCache mine(dir.path, 64 << 20);
      for (int i = 0; i < 10; ++i)
        if (!mine.store(k, content).empty()) ::_exit(1);
      ::_exit(0);
    }
    writers.push_back(pid);
  }
  size_t hits = 0, reads = 0;
  for (bool done = false; !done;) {
    done = true;
    for (pid_t p : writers) done &= ::waitpid(p, nullptr, WNOHANG) == p || ::kill(p, 0) != 0;
    auto got = cache.find(k);
    ++reads;
    if (got) {
      ++hits;
      REQUIRE(*got == content);
    }
  }
  for (pid_t p : writers) {
    int status = 0;
    ::waitpid(p, &status, 0);
  }
  REQUIRE(cache.find(k) == content);
  CHECK(entriesIn(dir.path) == 1);
  // No temporary file is left behind.
  size_t files = 0;
  for (const auto& e : fs::directory_iterator(dir.path)) files += e.is_regular_file();
  CHECK(files == 1);
  INFO(hits << " of " << reads << " reads hit while writing");
}

TEST_CASE("JIT cache: the size bound removes the least recently used entries", "[jit]") {
  ScratchDir dir;
  PtxCache cache(dir.path, 2500);
  std::string a = PtxCache::key("a", ""), b = PtxCache::key("b", ""), c = PtxCache::key("c", "");
  REQUIRE(cache.store(a, std::string(1000, 'a')).empty());
  fs::last_write_time(dir.path + "/" + a + ".ptx", fs::file_time_type::clock::now() - std::chrono::hours(2));
  REQUIRE(cache.store(b, std::string(1000, 'b')).empty());
  fs::last_write_time(dir.path + "/" + b + ".ptx", fs::file_time_type::clock::now() - std::chrono::hours(3));
  // Reading a makes it the more recently used of the two.
  REQUIRE(cache.find(a));
  REQUIRE(cache.store(c, std::string(1000, 'c')).empty());
  CHECK(cache.find(a));
  CHECK(cache.find(c));
  CHECK_FALSE(cache.find(b));
  // An entry larger than the bound is still kept (the one just stored never goes).
  PtxCache tiny(dir.path, 10);
  REQUIRE(tiny.store(b, std::string(100, 'b')).empty());
  CHECK(tiny.find(b));
  CHECK(entriesIn(dir.path) == 1);
}

TEST_CASE("JIT cache: the default directory", "[jit]") {
  const char* saved = std::getenv("CUCATCH_CACHE_DIR");
  ::setenv("CUCATCH_CACHE_DIR", "/somewhere/cache", 1);
  CHECK(PtxCache::defaultDirectory() == "/somewhere/cache");
  ::unsetenv("CUCATCH_CACHE_DIR");
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  ::setenv("XDG_CACHE_HOME", "/xdg", 1);
  CHECK(PtxCache::defaultDirectory() == "/xdg/cucatch");
  if (xdg) ::setenv("XDG_CACHE_HOME", xdg, 1);
  else ::unsetenv("XDG_CACHE_HOME");
  if (saved) ::setenv("CUCATCH_CACHE_DIR", saved, 1);
}

TEST_CASE("JIT: what an image handed to the driver is", "[jit]") {
  using cucatch::jit::classifyImage;
  using cucatch::jit::ImageKind;
  auto bytes = [](std::string_view s) { return std::vector<uint8_t>(s.begin(), s.end()); };
  std::vector<uint8_t> container{0x50, 0xED, 0x55, 0xBA, 1, 0, 16, 0};
  CHECK(classifyImage(container) == ImageKind::Fatbinary);
  std::vector<uint8_t> wrapper{0xb1, 0x43, 0x62, 0x46, 1, 0, 0, 0};
  CHECK(classifyImage(wrapper) == ImageKind::FatbinaryWrapper);
  CHECK(classifyImage(bytes("\x7f" "ELF\x02\x01")) == ImageKind::Cubin);
  CHECK(classifyImage(bytes("//\n// Generated by NVIDIA NVVM Compiler\n\n.version 9.0\n.target sm_90\n")) == ImageKind::Ptx);
  CHECK(classifyImage(bytes("  \t.target sm_80\n")) == ImageKind::Ptx);
  CHECK(classifyImage(bytes("// only a comment")) == ImageKind::Unknown);
  CHECK(classifyImage(bytes("int main() {}")) == ImageKind::Unknown);
  CHECK(classifyImage({}) == ImageKind::Unknown);
}

// ---- the runtime's side (src/runtime/JitLoader): what it hands the driver instead of an image,
// with the real helper (cucatch-fatbin) in its own process.
#include "runtime/JitLoader.h"
#include "runtime/Report.h"
#include "runtime/cucatch_abi.h"

namespace {
const char* kRunTimePtx = R"(//
// run-time PTX, as NVRTC writes it
.version 8.0
.target sm_90
.address_size 64
.visible .entry bump(.param .u64 p)
{
  .reg .b64 %rd<3>;
  .reg .f32 %f<3>;
  ld.param.u64 %rd1, [p];
  cvta.to.global.u64 %rd2, %rd1;
  ld.global.f32 %f1, [%rd2];
  add.f32 %f2, %f1, 0f3F800000;
  st.global.f32 [%rd2], %f2;
  ret;
}
)";
}  // namespace

namespace {
// A loader for an sm_90 device, in JIT mode or not.
cucatch::runtime::JitLoader loaderFor(bool jitMode, std::string helper = CUCATCH_FATBIN_TOOL,
                                      std::string ptxFlags = {}) {
  return cucatch::runtime::JitLoader(std::move(helper), jitMode, std::move(ptxFlags), [] { return 90u; });
}
}  // namespace

TEST_CASE("JitLoader: run-time PTX is instrumented in every mode, once", "[jit]") {
  ScratchDir cache;
  setenv("CUCATCH_CACHE_DIR", cache.path.c_str(), 1);
  auto loader = loaderFor(false);
  const char* instrumented = loader.replacement(kRunTimePtx);
  REQUIRE(instrumented);
  std::string text(instrumented);
  CHECK(text.find(CUCATCH_STATE_SYMBOL) != std::string::npos);
  CHECK(text.find(".entry bump") != std::string::npos);
  CHECK(text.find(CUCATCH_SITES_PREFIX) != std::string::npos);  // the reports' site table travels with it
  // What it handed out is instrumented already: loaded as it is.
  CHECK(loaderFor(true).replacement(instrumented) == nullptr);
  // The helper filled the cache: the second module of the same text comes from there.
  CHECK(entriesIn(cache.path) == 1);
  unsetenv("CUCATCH_CACHE_DIR");
}

namespace {
// A helper at `path` that runs the shell commands `first`, then the real one: a stand-in that
// counts its runs or fails on purpose.
std::string wrappedHelper(const std::string& path, const std::string& first) {
  std::ofstream(path) << "#!/bin/sh\n" << first << "\nexec '" << CUCATCH_FATBIN_TOOL << "' \"$@\"\n";
  fs::permissions(path, fs::perms::owner_all);
  return path;
}
}  // namespace

TEST_CASE("JitLoader: an image loaded again gets what it got, without the helper", "[jit]") {
  // A program loading and unloading one module in a loop: before, each load ran the helper and
  // kept one more copy of the instrumented text for the life of the process.
  ScratchDir dir;
  setenv("CUCATCH_CACHE_DIR", dir.path.c_str(), 1);
  const std::string runs = dir.path + "/runs";
  const std::string counting = wrappedHelper(dir.path + "/helper", "echo run >> '" + runs + "'");
  auto helperRuns = [&] {
    std::ifstream in(runs);
    return std::count(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>(), '\n');
  };
  auto loader = loaderFor(false, counting);
  const char* first = loader.replacement(kRunTimePtx);
  REQUIRE(first);
  std::string copy(kRunTimePtx);  // the same text at another address, as a program's new buffer
  CHECK(loader.replacement(copy.c_str()) == first);
  CHECK(helperRuns() == 1);
  // Other text is instrumented anew.
  std::string other = copy;
  other.replace(other.find("bump"), 4, "bimp");
  const char* second = loader.replacement(other.c_str());
  REQUIRE(second);
  CHECK(second != first);
  CHECK(std::string(second).find(".entry bimp") != std::string::npos);
  CHECK(helperRuns() == 2);
  // A file: by its name and its bytes.
  const std::string file = dir.path + "/k.ptx";
  std::ofstream(file) << kRunTimePtx;
  const char* fromFile = loader.replacementForFile(file.c_str());
  REQUIRE(fromFile);
  CHECK(loader.replacementForFile(file.c_str()) == fromFile);
  CHECK(helperRuns() == 3);
  // A helper that failed is asked again at the next load: its exit status does not tell a
  // refused image from a failure of its own (an I/O error).
  const char* broken = ".version 8.0\n.target sm_90\n.address_size 64\n.entry broken( {\n";
  CHECK(loader.replacement(broken) == nullptr);
  CHECK(loader.replacement(broken) == nullptr);
  CHECK(helperRuns() == 5);
  unsetenv("CUCATCH_CACHE_DIR");
}

TEST_CASE("JitLoader: a helper killed at one load is asked again at the next", "[jit]") {
  // Killed (the out-of-memory killer, say): that says nothing of the image, so the next load of
  // the same image is instrumented (a review's find: the first outcome was kept for good).
  ScratchDir dir;
  setenv("CUCATCH_CACHE_DIR", dir.path.c_str(), 1);
  const std::string killedOnce = dir.path + "/killed";
  const std::string flaky = wrappedHelper(
      dir.path + "/helper", "if [ ! -e '" + killedOnce + "' ]; then touch '" + killedOnce + "'; kill -9 $$; fi");
  auto loader = loaderFor(false, flaky);
  CHECK(loader.replacement(kRunTimePtx) == nullptr);
  CHECK(fs::exists(killedOnce));
  const char* second = loader.replacement(kRunTimePtx);
  REQUIRE(second);
  CHECK(std::string(second).find(".entry bump") != std::string::npos);
  CHECK(loader.replacement(kRunTimePtx) == second);
  unsetenv("CUCATCH_CACHE_DIR");
}

TEST_CASE("JitLoader: cubins, and fatbinaries outside JIT mode, load as they are", "[jit]") {
  auto jit = loaderFor(true);
  // An ELF64 header alone (no sections): a cubin, which has no PTX (named once, in JIT mode).
  unsigned char cubin[64] = {0x7f, 'E', 'L', 'F', 2, 1, 1, 0};
  CHECK(jit.replacement(cubin) == nullptr);
  // A container header (magic, version 1, 16-byte header, no entries): outside JIT mode the
  // helper is not even asked.
  const unsigned char container[16] = {0x50, 0xed, 0x55, 0xba, 1, 0, 16, 0};
  CHECK(loaderFor(false).replacement(container) == nullptr);
  CHECK(jit.replacement(nullptr) == nullptr);
  CHECK(jit.replacement("not PTX at all") == nullptr);
}

namespace {
// An ELF64 image of `bytes` bytes, its section headers (64 bytes each) at offset 64, `sections`
// of them; `put` writes a little-endian value of `width` bytes at an offset.
struct TestElf {
  std::vector<unsigned char> bytes;
  TestElf(size_t size, uint64_t sections) : bytes(size, 0) {
    std::memcpy(bytes.data(), "\x7f" "ELF\x02\x01\x01", 7);
    put(0x28, 64, 8);  // e_shoff
    put(0x3A, 64, 2);  // e_shentsize
    put(0x3C, sections, 2);
  }
  void put(size_t at, uint64_t value, size_t width) { std::memcpy(bytes.data() + at, &value, width); }
};
}  // namespace

TEST_CASE("elfImageSize: a cubin in memory spans its headers, sections and segments", "[jit]") {
  // A header, one section header at 64 (type PROGBITS, bytes 256..356), and a section of NOBITS
  // far beyond (which occupies nothing in the image).
  TestElf image(512, 2);
  std::vector<unsigned char>& elf = image.bytes;
  auto put = [&](size_t at, uint64_t value, size_t width) { image.put(at, value, width); };
  put(64 + 4, 1, 4);  // PROGBITS
  put(64 + 0x18, 256, 8);
  put(64 + 0x20, 100, 8);
  put(128 + 4, 8, 4);  // NOBITS
  put(128 + 0x18, 4096, 8);
  put(128 + 0x20, 4096, 8);
  CHECK(cucatch::fatbin::elfImageSize(elf.data()) == 356u);
  // CUDA's shared-memory section (SHT_LOPROC + 0xa) gives a size and occupies nothing either.
  put(0x3C, 3, 2);
  put(192 + 4, 0x7000000a, 4);
  put(192 + 0x18, 356, 8);
  put(192 + 0x20, 32768, 8);
  CHECK(cucatch::fatbin::elfImageSize(elf.data()) == 356u);
  put(0x3A, 40, 2);  // section headers of another size: not a cubin's
  CHECK_FALSE(cucatch::fatbin::elfImageSize(elf.data()));
  put(0x3A, 64, 2);
  elf[4] = 1;  // ELF32: not a cubin of a 64-bit program
  CHECK_FALSE(cucatch::fatbin::elfImageSize(elf.data()));
}

TEST_CASE("ElfFile: CUDA's sections that only give a size occupy nothing of the file", "[jit]") {
  // A header and two section headers: the null section, and an uninitialized device variables'
  // section (.nv.global, SHT_LOPROC + 7) of 4 KiB placed at the file's end, as nvcc 13.0 wrote
  // it for a unit with a `__device__ int* a[64][8]` (read before as "overruns the file").
  TestElf image(192, 2);
  std::vector<unsigned char>& elf = image.bytes;
  auto put = [&](size_t at, uint64_t value, size_t width) { image.put(at, value, width); };
  put(128 + 4, 0x70000007, 4);
  put(128 + 0x18, 192, 8);
  put(128 + 0x20, 4096, 8);
  cucatch::fatbin::ElfFile file(std::span<const uint8_t>(elf.data(), elf.size()), "globals.cubin");
  REQUIRE(file.sections().size() == 2);
  CHECK(file.sections()[1].type == 0x70000007u);
  CHECK(file.sections()[1].bytes.empty());
  CHECK(cucatch::fatbin::elfImageSize(elf.data()) == 192u);
  // A section that does occupy bytes there is refused, naming the file.
  put(128 + 4, 1, 4);  // PROGBITS
  CHECK_THROWS_WITH(cucatch::fatbin::ElfFile(std::span<const uint8_t>(elf.data(), elf.size()), "globals.cubin"),
                    Catch::Contains("globals.cubin") && Catch::Contains("overruns the file"));
}

TEST_CASE("JitLoader: PTX the rewriter refuses, or no helper, loads as it is (with a warning)", "[jit]") {
  auto loader = loaderFor(false);
  CHECK(loader.replacement(".version 8.0\n.target sm_90\n.address_size 64\n.entry broken( {\n") == nullptr);
  auto without = loaderFor(false, "");
  CHECK(without.replacement(kRunTimePtx) == nullptr);
  CHECK(cucatch::runtime::JitLoader::findHelper("/nonexistent/lib/libcucatch.so").empty());
  // A device whose architecture the driver does not give: nothing to instrument for.
  cucatch::runtime::JitLoader unknownDevice(CUCATCH_FATBIN_TOOL, false, "", [] { return 0u; });
  CHECK(unknownDevice.replacement(kRunTimePtx) == nullptr);
}

TEST_CASE("JitLoader: cucatch-ptx's switches (CUCATCH_PTX_FLAGS) reach the helper, and key its cache", "[jit]") {
  ScratchDir cache;
  setenv("CUCATCH_CACHE_DIR", cache.path.c_str(), 1);
  // The store's check is left out by default (the load's dominates it); --no-dominated gives it
  // its own (--no-coalesce too, or they would share one): more code, and a cache entry of its own.
  auto defaults = loaderFor(false);
  // As CUCATCH_PTX_FLAGS holds them: one string, build-only options (--stats, --ptxas) accepted.
  auto uncoalesced = loaderFor(false, CUCATCH_FATBIN_TOOL, "--no-coalesce --stats --ptxas=/opt/none --no-dominated");
  const char* coalesced = defaults.replacement(kRunTimePtx);
  const char* separate = uncoalesced.replacement(kRunTimePtx);
  REQUIRE(coalesced);
  REQUIRE(separate);
  CHECK(std::string(separate).size() > std::string(coalesced).size());
  CHECK(entriesIn(cache.path) == 2);
  // A switch the helper does not know: the module loads as it is (with a warning).
  CHECK(loaderFor(false, CUCATCH_FATBIN_TOOL, "--no-such-switch").replacement(kRunTimePtx) == nullptr);
  unsetenv("CUCATCH_CACHE_DIR");
}

TEST_CASE("JitLoader: link inputs: PTX is instrumented, sized data without a terminator too", "[jit]") {
  auto loader = loaderFor(false);
  std::string ptx = kRunTimePtx;
  // cuLinkAddData's size may leave out the terminator: only `size` bytes are read.
  std::string padded = ptx + "garbage that is not part of the input";
  const char* linked = loader.replacementForLink(padded.data(), ptx.size(), true, "kernel.ptx");
  REQUIRE(linked);
  CHECK(std::string(linked).find(CUCATCH_STATE_SYMBOL) != std::string::npos);
  CHECK(std::string(linked).find("garbage") == std::string::npos);
  CHECK(loader.replacementForLink(linked, std::strlen(linked) + 1, true, nullptr) == nullptr);
  // A fatbinary input outside JIT mode, and nothing at all: linked as they are.
  const unsigned char container[16] = {0x50, 0xed, 0x55, 0xba, 1, 0, 16, 0};
  CHECK(loader.replacementForLink(container, sizeof container, false, nullptr) == nullptr);
  CHECK(loaderFor(true).replacementForLink(nullptr, 0, true, nullptr) == nullptr);
}

#include "jit/LinkInputs.h"

TEST_CASE("Link inputs: what the helper writes, the runtime reads back; anything else is refused", "[jit]") {
  using cucatch::jit::LinkInput;
  std::vector<LinkInput> inputs{{LinkInput::Kind::Ptx, ".version 9.0\n.target sm_90\n", "unit 1 of ./app"},
                                {LinkInput::Kind::Fatbinary, std::string("\x50\xed\x55\xba\0\n\0", 7), "unit 2 of ./app"},
                                {LinkInput::Kind::Ptx, "", "empty"}};
  auto back = cucatch::jit::unpackLinkInputs(cucatch::jit::packLinkInputs(inputs));
  REQUIRE(back);
  REQUIRE(back->size() == 3);
  for (size_t i = 0; i < 3; ++i) {
    CHECK((*back)[i].kind == inputs[i].kind);
    CHECK((*back)[i].bytes == inputs[i].bytes);
    CHECK((*back)[i].name == inputs[i].name);
  }
  CHECK(cucatch::jit::unpackLinkInputs("")->empty());
  std::string packed = cucatch::jit::packLinkInputs(inputs);
  CHECK_FALSE(cucatch::jit::unpackLinkInputs(packed.substr(0, packed.size() - 1)));  // cut short
  CHECK_FALSE(cucatch::jit::unpackLinkInputs("cucatch-link-input cubin 3 x\nabc"));  // unknown kind
  CHECK_FALSE(cucatch::jit::unpackLinkInputs("cucatch-link-input ptx many x\nabc"));
  CHECK_FALSE(cucatch::jit::unpackLinkInputs("something else"));
}

TEST_CASE("JIT mode: a relocatable unit carries its part of the call graph, its frames measured", "[jit]") {
  // The driver links relocatable units again at run time: no caps, but ptxas --compile-only
  // measures each function's frame in both builds for the runtime's stack reserve.
  const std::string ptx = R"(.version 8.0
.target sm_90
.address_size 64
.visible .func (.param .b32 r) down(.param .b32 n)
{
.local .align 4 .b8 __local_depot0[40];
.reg .b32 %r<4>;
.reg .b64 %rd<2>;
.reg .pred %p<2>;
mov.u64 %rd1, __local_depot0;
ld.param.u32 %r1, [n];
st.local.u32 [%rd1], %r1;
setp.eq.s32 %p1, %r1, 0;
mov.u32 %r3, 0;
@%p1 bra $done;
add.s32 %r2, %r1, -1;
{
.param .b32 a0;
st.param.b32 [a0+0], %r2;
.param .b32 r0;
call.uni (r0), down, (a0);
ld.param.b32 %r3, [r0+0];
}
$done:
ld.local.u32 %r2, [%rd1];
add.s32 %r3, %r3, %r2;
st.param.b32 [r+0], %r3;
ret;
}
.visible .entry k(.param .u64 out, .param .u32 n)
{
.reg .b32 %r<3>;
.reg .b64 %rd<2>;
ld.param.u64 %rd1, [out];
ld.param.u32 %r1, [n];
{
.param .b32 a0;
st.param.b32 [a0+0], %r1;
.param .b32 r0;
call.uni (r0), down, (a0);
ld.param.b32 %r2, [r0+0];
}
st.global.u32 [%rd1], %r2;
ret;
}
)";
  cucatch::jit::RegisterCaps frames{CUCATCH_TEST_PTXAS, "sm_90", true};
  cucatch::jit::Switches switches;
  auto out = cucatch::jit::instrumentPtx(ptx, "unit.ptx", "test", nullptr, &frames, switches);
  // The site table: its call graph, the recursive body private with the original's frame.
  auto at = out.text.find("__cucatch_sites_");
  REQUIRE(at != std::string::npos);
  auto open = out.text.find('{', at), close = out.text.find('}', open);
  std::string json;
  for (size_t i = open + 1; i < close;) {
    size_t comma = out.text.find(',', i);
    if (comma == std::string::npos || comma > close) comma = close;
    int c = std::stoi(out.text.substr(i, comma - i));
    if (c) json.push_back(static_cast<char>(c));
    i = comma + 1;
  }
  auto table = cucatch::runtime::SiteTable::parse(json);
  REQUIRE(table.callGraph.count("down__cc_body"));
  CHECK(table.callGraph["down__cc_body"].original > 0);
  CHECK(table.callGraph["down__cc_body"].frame >= table.callGraph["down__cc_body"].original);
  CHECK(table.callGraph["down__cc_body"].callees.count("down__cc_body"));
  CHECK(table.localFunctions.count("down__cc_body"));
  // No caps: no marker line for ptxas, no .maxnreg.
  CHECK(out.text.find("cucatch: ptxas -maxrregcount") == std::string::npos);
  CHECK(out.text.find(".maxnreg") == std::string::npos);
}
