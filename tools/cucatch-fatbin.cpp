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

#include "fatbin/FatbinFile.h"
#include "fatbin/Listing.h"

namespace fs = std::filesystem;
using namespace cucatch::fatbin;

namespace {

// Every entry of `path` with its payload, for extraction.
int extract(const std::string& path, const std::string& dir) {
  FatbinFile file(path);
  fs::create_directories(dir);
  size_t n = 0;
  for (const auto& region : file.regions())
    for (const auto& c : file.containers(region))
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
