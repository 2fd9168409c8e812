#include "runtime/DriverLink.h"

#include <map>
#include <optional>

#include <fmt/format.h>

#include "instrument/RegisterFile.h"

namespace cucatch::runtime {

namespace {

// A current context for the link and the loads that measure it: the program's, or device 0's
// primary context for the while (a cuLibrary may be loaded before any context is current).
class AnyContext {
 public:
  explicit AnyContext(const Driver& d) : d_(d) {
    CUcontext current = nullptr;
    if (d_.cuCtxGetCurrent(&current) == CUDA_SUCCESS && current) return;
    if (d_.cuDeviceGet(&device_, 0) != CUDA_SUCCESS || d_.cuDevicePrimaryCtxRetain(&primary_, device_) != CUDA_SUCCESS)
      return;
    if (d_.cuCtxPushCurrent(primary_) != CUDA_SUCCESS) {
      d_.cuDevicePrimaryCtxRelease(device_);
      primary_ = nullptr;
    }
  }
  ~AnyContext() {
    if (!primary_) return;
    CUcontext popped = nullptr;
    d_.cuCtxPopCurrent(&popped);
    d_.cuDevicePrimaryCtxRelease(device_);
  }
  AnyContext(const AnyContext&) = delete;
  AnyContext& operator=(const AnyContext&) = delete;

 private:
  const Driver& d_;
  CUdevice device_ = 0;
  CUcontext primary_ = nullptr;
};

// One link, with a register cap where one is given; the cubin, or empty with `why`.
std::string link(const Driver& d, const std::vector<jit::LinkInput>& inputs, std::optional<unsigned> cap,
                 std::string& why) {
  std::string errors(8192, '\0');
  std::vector<CUjit_option> options{CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  std::vector<void*> values{errors.data(), reinterpret_cast<void*>(errors.size())};
  if (cap) {
    options.push_back(CU_JIT_MAX_REGISTERS);
    values.push_back(reinterpret_cast<void*>(static_cast<uintptr_t>(*cap)));
  }
  CUlinkState state = nullptr;
  CUresult r = d.cuLinkCreate(static_cast<unsigned>(options.size()), options.data(), values.data(), &state);
  if (r != CUDA_SUCCESS) {
    why = fmt::format("cuLinkCreate: {}", d.errorName(r));
    return {};
  }
  std::string cubin;
  for (const auto& in : inputs) {
    bool ptx = in.kind == jit::LinkInput::Kind::Ptx;
    std::string bytes = in.bytes;
    if (ptx) bytes.push_back('\0');
    r = d.cuLinkAddData(state, ptx ? CU_JIT_INPUT_PTX : CU_JIT_INPUT_FATBINARY, bytes.data(), bytes.size(),
                        in.name.c_str(), 0, nullptr, nullptr);
    if (r != CUDA_SUCCESS) {
      why = fmt::format("cuLinkAddData of {}: {}: {}", in.name, d.errorName(r), errors.c_str());
      break;
    }
  }
  void* out = nullptr;
  size_t size = 0;
  if (why.empty()) {
    r = d.cuLinkComplete(state, &out, &size);
    if (r == CUDA_SUCCESS) cubin.assign(static_cast<const char*>(out), size);
    else why = fmt::format("cuLinkComplete: {}: {}", d.errorName(r), errors.c_str());
  }
  d.cuLinkDestroy(state);  // frees `out`
  return cubin;
}

// The largest block each kernel of `image` accepts, by name; empty, with `why`, where the driver
// does not say. The image is loaded as the CUDA runtime loads it (cuLibraryLoadData takes its
// wrapper, which may list relocatable units for the driver to link: cuModuleLoadData does not),
// and each kernel is looked up by name (which loads it, where lazy loading did not).
std::map<std::string, int> blockLimits(const Driver& d, const void* image, const char* which, std::string& why) {
  std::map<std::string, int> limits;
  CUlibrary library = nullptr;
  CUmodule module = nullptr;
  CUresult r = d.cuLibraryLoadData(&library, image, nullptr, nullptr, 0, nullptr, nullptr, 0);
  if (r == CUDA_SUCCESS && (r = d.cuLibraryGetModule(&module, library)) != CUDA_SUCCESS) d.cuLibraryUnload(library);
  if (r != CUDA_SUCCESS) {
    why = fmt::format("cuLibraryLoadData of {}: {}", which, d.errorName(r));
    return limits;
  }
  unsigned count = 0;
  std::vector<std::string> names;
  if ((r = d.cuModuleGetFunctionCount(&count, module)) == CUDA_SUCCESS) {
    std::vector<CUfunction> functions(count);
    if ((r = d.cuModuleEnumerateFunctions(functions.data(), count, module)) == CUDA_SUCCESS)
      for (CUfunction f : functions) {
        const char* name = nullptr;
        if (d.cuFuncGetName(&name, f) == CUDA_SUCCESS && name) names.emplace_back(name);
      }
  }
  if (r != CUDA_SUCCESS) why = fmt::format("listing the kernels of {}: {}", which, d.errorName(r));
  for (const auto& name : names) {
    CUfunction f = nullptr;
    int threads = 0;
    if ((r = d.cuModuleGetFunction(&f, module, name.c_str())) != CUDA_SUCCESS ||
        (r = d.cuFuncGetAttribute(&threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f)) != CUDA_SUCCESS) {
      why = fmt::format("the largest block of {} in {}: {}", name, which, d.errorName(r));
      limits.clear();
      break;
    }
    limits[name] = threads;
  }
  d.cuLibraryUnload(library);
  return limits;
}

}  // namespace

std::string linkInPlaceOf(const Driver& d, const std::vector<jit::LinkInput>& inputs, const void* original,
                          unsigned deviceArch, std::string& why) {
  AnyContext context(d);
  std::string cubin = link(d, inputs, std::nullopt, why);
  if (cubin.empty()) return {};
  auto limits = instrument::registerFileLimits(fmt::format("sm_{}", deviceArch));
  std::string unknown;
  std::map<std::string, int> before = blockLimits(d, original, "the image", unknown);
  std::map<std::string, int> after = blockLimits(d, cubin.data(), "the link", unknown);
  if (before.empty() || after.empty() || !limits) {
    why = fmt::format("linked without register caps: the driver did not say what blocks the kernels accept ({}), so "
                      "a launch it refuses for resources is explained",
                      !limits ? fmt::format("no register file known for sm_{}", deviceArch)
                              : unknown.empty() ? "no kernels" : unknown);
    return cubin;
  }
  std::optional<unsigned> cap;
  for (const auto& [name, threads] : before) {
    auto it = after.find(name);
    if (it == after.end() || it->second >= threads) continue;
    unsigned kernelCap = instrument::registerCapFor(static_cast<unsigned>(threads), *limits);
    cap = cap ? std::min(*cap, kernelCap) : kernelCap;
  }
  if (!cap) return cubin;
  // Silent, as cucatch-nvcc's caps are; where the capped link fails, the first one serves.
  std::string failed;
  std::string capped = link(d, inputs, cap, failed);
  if (!capped.empty()) return capped;
  why = fmt::format("linked without register caps: linking with at most {} registers failed ({}), so a launch the "
                    "driver refuses for resources is explained",
                    *cap, failed);
  return cubin;
}

}  // namespace cucatch::runtime
