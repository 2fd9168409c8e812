// What device code a file carries: every fatbinary entry of an executable, shared library,
// relocatable object or .fatbin file, and whether cucatch instrumented it. What `cucatch-run
// --list` and `cucatch-fatbin list` print.
#pragma once

#include <string>
#include <vector>

#include "fatbin/Fatbinary.h"

namespace cucatch::fatbin {

struct ListedEntry {
  std::string file, section;  // section "" for a .fatbin file
  // 0-based: the container's number in the file (over its sections in order), the entry's in it.
  size_t container = 0, index = 0;
  Entry entry;
  // "instrumented" (cucatch's state symbol is in it), "not instrumented", or why it could not
  // be told ("compressed with the older scheme").
  std::string status;
  // What JIT mode does with it: for a PTX entry, the devices it is instrumented for ("sm_80 to
  // sm_89", "sm_90 and newer"), of the architectures CUDA 13.0 targets, or "-" where another entry
  // is chosen; for SASS, "-" where JIT mode has PTX for its device (and drops the SASS), "relinked
  // from 2 relocatable units (their PTX instrumented)" for nvlink's image of -rdc code whose units
  // have PTX for it, or "no PTX for sm_80: runs uninstrumented".
  std::string jit;
};

// The compute capabilities CUDA 13.0 can target (nvcc --list-gpu-code), for the JIT column.
const std::vector<unsigned>& knownDeviceArchitectures();
// The JIT column for every entry of one container (in order).
std::vector<std::string> jitChoices(const std::vector<Entry>& entries);

// The entries of `path`: an ELF file's fatbinary sections, or a raw fatbinary file. Throws
// std::runtime_error (FormatError) naming the file for what it cannot read.
std::vector<ListedEntry> listFile(const std::string& path);

// One line per entry, columns aligned: file, section, container ("unit"), arch, kind, version,
// compression, size, status, JIT mode.
std::string formatListing(const std::vector<ListedEntry>& entries);

}  // namespace cucatch::fatbin
