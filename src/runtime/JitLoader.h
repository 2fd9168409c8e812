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
// - Relocatable device code (nvcc -rdc): the image the CUDA runtime loads is nvlink's, SASS only;
//   in JIT mode the compilation units it was linked from (their PTX in the program's
//   __nv_relfatbin) are instrumented and linked again by the driver in its place
//   (jit/LinkInputs.h), register caps applied where the driver's first link made a kernel accept
//   smaller blocks than the image's did.
// - Cubins, and PTX instrumented already (a cucatch-nvcc build's), load as they are; in JIT mode
//   a cubin that is not instrumented is named once ("not instrumented: a cubin").
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
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "jit/LinkInputs.h"

namespace cucatch::runtime {

class JitLoader {
 public:
  // `helper`: the path of cucatch-fatbin; empty where it was not found (then nothing can be
  // instrumented, which is said once, at the first image that needed it). `jitMode`:
  // fatbinaries are instrumented too. `ptxFlags`: cucatch-ptx's options for the helper, as
  // CUCATCH_PTX_FLAGS holds them (such as "--shared-parts"). `deviceArch`: the compute capability (90 for 9.0) of the
  // device a module is loaded for, 0 where unknown; asked only when something is instrumented.
  // `link`: links relocatable units with the driver in place of an image (below).
  using Linker = std::function<std::string(const std::vector<jit::LinkInput>& inputs, const void* original,
                                           std::string& why)>;
  JitLoader(std::string helper, bool jitMode, std::string ptxFlags, std::function<unsigned()> deviceArch,
            Linker link = {})
      : helper_(std::move(helper)), jitMode_(jitMode), ptxFlags_(std::move(ptxFlags)),
        deviceArch_(std::move(deviceArch)), link_(std::move(link)) {}

  // What to load instead of `image` (handed to the driver by the program): the instrumented
  // PTX, NUL-terminated (or the cubin linked from instrumented relocatable units), kept for the
  // life of the process; nullptr to load `image` as it is. `caller`: the code that asked the
  // driver to load it (a CUDA library's own modules are left alone, also from its heap).
  const char* replacement(const void* image, const void* caller = nullptr);
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
  // What reports call an image: its file or object, or, for one without, its kind numbered in
  // the order such images were instrumented ("run-time PTX 3").
  struct ImageName {
    std::string name;
    bool numbered = false;
  };
  // `ptx` instrumented (instrument), or nullptr where it is instrumented already.
  const char* instrumentPtx(std::string ptx, ImageName name, bool relocatable);
  // `bytes` (PTX or a fatbinary) instrumented, with register caps unless `relocatable`; nullptr
  // where there is nothing to load in its place. What an image got is what it gets again
  // (replaced_). Called with mutex_ held.
  const char* instrument(const std::string& bytes, ImageName name, bool relocatable, const std::string& object = {},
                         const void* original = nullptr);
  // What instrument hands out for an image, and whether the image alone decided it (the
  // helper's output, or its verdict that there is nothing to instrument) rather than a helper
  // that could not run, was killed, failed, or a link that failed.
  struct Outcome {
    const char* replacement = nullptr;
    bool decidedByImage = false;
  };
  // Runs the helper for instrument. A fatbinary `original` held by the loaded object `object` may
  // be the link of its relocatable units: then they are linked again (link_), instrumented.
  Outcome runHelperOn(const std::string& bytes, const ImageName& name, bool relocatable, const std::string& object,
                      const void* original, unsigned deviceArch);
  // In JIT mode, names the first cubin the program loads that is not instrumented already
  // (cucatch-nvcc's): it cannot be (no PTX).
  void noteCubin(std::string_view cubin, const std::string& name);
  // Says `text` on stderr once per `key`.
  void sayOnce(const std::string& key, const std::string& text);

  const std::string helper_;
  const bool jitMode_;
  const std::string ptxFlags_;
  const std::function<unsigned()> deviceArch_;
  const Linker link_;
  std::mutex mutex_;
  std::deque<std::string> loaded_;  // every replacement handed out (the driver may keep a pointer)
  // What each image instrumented got (a pointer into loaded_, or nullptr), keyed by what decides
  // the helper's output: the device's architecture, whether relocatable, the object, the name
  // (a numbered one excepted), and the bytes (their size and two hashes).
  std::map<std::string, const char*> replaced_;
  std::set<std::string> said_;
  unsigned images_ = 0;             // numbers the images without a name
};

}  // namespace cucatch::runtime
