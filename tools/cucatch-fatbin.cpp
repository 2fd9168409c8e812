// cucatch-fatbin: the device code in executables, shared libraries, objects and .fatbin files,
// read by cucatch's own fatbinary reader (src/fatbin).
//
//   cucatch-fatbin list FILE...                  one line per entry (docs/fatbinary.md)
//   cucatch-fatbin extract FILE -o DIR            every entry, decompressed, as
//                                                 DIR/<n>.sm_<arch>.{ptx,cubin}
//
// Exit status: 0; 2 when a file cannot be read or is malformed (file: what is wrong).
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <filesystem>
#include <fstream>

#include "fatbin/ElfFile.h"
#include "fatbin/Fatbinary.h"
#include "fatbin/Listing.h"

namespace fs = std::filesystem;
using namespace cucatch::fatbin;

namespace {

// Every entry of `path` with its payload, for extraction.
int extract(const std::string& path, const std::string& dir) {
  std::vector<std::vector<uint8_t>> holder;  // a raw file's bytes
  std::unique_ptr<ElfFile> elf;
  std::vector<std::span<const uint8_t>> regions;
  {
    std::ifstream in(path, std::ios::binary);
    uint32_t magic = 0;
    if (!in || !in.read(reinterpret_cast<char*>(&magic), sizeof magic)) throw std::runtime_error(path + ": cannot read");
    if (magic == kContainerMagic) {
      holder.emplace_back((std::istreambuf_iterator<char>(in.seekg(0))), std::istreambuf_iterator<char>());
      regions.emplace_back(holder.back());
    } else {
      elf = std::make_unique<ElfFile>(path);
      for (const auto& s : elf->fatbinSections()) regions.push_back(s.bytes);
    }
  }
  fs::create_directories(dir);
  size_t n = 0;
  for (auto region : regions)
    for (const auto& c : parse(region))
      for (const auto& e : c.entries) {
        ++n;
        std::string name = fmt::format("{}/{}.sm_{}.{}", dir, n, e.arch, e.isPtx() ? "ptx" : e.isElf() ? "cubin" : "bin");
        try {
          auto bytes = payload(e);
          std::ofstream(name, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                                      static_cast<std::streamsize>(bytes.size()));
          fmt::print("{}\n", name);
        } catch (const UnsupportedCompression& x) {
          fmt::print(stderr, "cucatch-fatbin: {}: {}: not extracted\n", path, x.what());
        }
      }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"cucatch-fatbin: the device code in a program, library, object or .fatbin file"};
  app.require_subcommand(1);
  std::vector<std::string> files;
  auto* list = app.add_subcommand("list", "one line per fatbinary entry");
  list->add_option("files", files, "executables, shared libraries, objects, .fatbin files")->required();
  std::string file, dir;
  auto* ex = app.add_subcommand("extract", "write every entry, decompressed, to a directory");
  ex->add_option("file", file)->required();
  ex->add_option("-o,--output", dir, "directory")->required();
  CLI11_PARSE(app, argc, argv);
  try {
    if (*list) {
      std::vector<ListedEntry> all;
      for (const auto& f : files) {
        auto entries = listFile(f);
        all.insert(all.end(), entries.begin(), entries.end());
      }
      fmt::print("{}", formatListing(all));
      return 0;
    }
    return extract(file, dir);
  } catch (const std::exception& e) {
    fmt::print(stderr, "cucatch-fatbin: error: {}\n", e.what());
    return 2;
  }
}
