// What the runtime hands the driver in place of an image the program loads (docs/design.md,
// "JIT mode"). No CUDA: the load hooks call it with the image and the device's architecture.
//
// - PTX text (NVRTC output, a .ptx file, PTX given to cuModuleLoadData) is instrumented in every
//   mode, so a cucatch-nvcc build that also compiles kernels at run time is checked throughout.
// - In JIT mode (CUCATCH_JIT=1) a fatbinary (or the CUDA runtime's wrapper of one) is too: the
//   PTX the device runs is chosen, instrumented and handed to the driver alone, which JIT-compiles
//   it (the SASS for the same code is dropped). A fatbinary with no such PTX loads as it is, and
//   is named once: its kernels run unchecked, with untagged arguments. The CUDA toolkit's own
//   libraries (libcublas, libcudnn, libcufft, ...: objects named libcu*, libnv*, libnpp*,
//   libnccl*) are left alone.
// - Cubins, and PTX instrumented already (a cucatch-nvcc build's), load as they are.
//
// The rewriter runs in a process of its own, `cucatch-fatbin jit` (the helper, found beside
// libcucatch): the program's address space gets neither the PTX parser nor its libraries, and a
// rewriter that fails cannot take the program down. The helper reads and fills the on-disk cache
// of instrumented PTX (CUCATCH_CACHE_DIR, default under $XDG_CACHE_HOME); the driver caches
// what it compiles from it in its own JIT cache (~/.nv/ComputeCache).
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <set>
#include <string>

namespace cucatch::runtime {

class JitLoader {
 public:
  // `helper`: the path of cucatch-fatbin; empty where it was not found (then nothing can be
  // instrumented, which is said once, at the first image that needed it). `jitMode`:
  // fatbinaries are instrumented too. `deviceArch`: the compute capability (90 for 9.0) of the
  // device a module is loaded for, 0 where unknown; asked only when something is instrumented.
  JitLoader(std::string helper, bool jitMode, std::function<unsigned()> deviceArch)
      : helper_(std::move(helper)), jitMode_(jitMode), deviceArch_(std::move(deviceArch)) {}

  // What to load instead of `image` (handed to the driver by the program): the instrumented
  // PTX, NUL-terminated and kept for the life of the process; nullptr to load `image` as it is.
  const char* replacement(const void* image);
  // The same for an image in a file (cuModuleLoad, cuLibraryLoadFromFile).
  const char* replacementForFile(const char* path);
  // The same for an input of a link at run time (cuLinkAddData, nvJitLinkAddData): `size` bytes
  // of PTX (`ptx`) or of a fatbinary, named `name` by the program (may be null); and for one in
  // a file (cuLinkAddFile, nvJitLinkAddFile).
  const char* replacementForLink(const void* data, size_t size, bool ptx, const char* name);
  const char* replacementForLinkFile(const char* path, bool ptx);

  // The helper's location for a runtime library at `runtimePath`: ../tools/cucatch-fatbin (a
  // build tree) or ../bin/cucatch-fatbin (an installation); empty if neither exists.
  static std::string findHelper(const std::string& runtimePath);

 private:
  // `ptx` instrumented (instrument), or nullptr where it is instrumented already.
  const char* instrumentPtx(std::string ptx, const std::string& name, bool relocatable);
  // Runs the helper on `bytes` (PTX or a fatbinary), named `name` in reports, with register
  // caps unless `relocatable`; nullptr where it gives nothing to load. Called with mutex_ held.
  const char* instrument(const std::string& bytes, const std::string& name, bool relocatable);
  // Says `text` on stderr once per `key`.
  void sayOnce(const std::string& key, const std::string& text);

  const std::string helper_;
  const bool jitMode_;
  const std::function<unsigned()> deviceArch_;
  std::mutex mutex_;
  std::deque<std::string> loaded_;  // every replacement handed out (the driver may keep a pointer)
  std::set<std::string> said_;
  unsigned images_ = 0;             // numbers the images without a name
};

}  // namespace cucatch::runtime
