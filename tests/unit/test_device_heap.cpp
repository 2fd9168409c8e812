// The device heap's place in the rewrite (instrument/DeviceHeap): which units must read a
// device-heap block's table entry past L1, because code running in one kernel with theirs may
// malloc or free.
#include <catch2/catch.hpp>

#include "instrument/DeviceHeap.h"
#include "ptx/Parser.h"

using namespace cucatch::instrument;

namespace {

DeviceHeapEntries entriesOf(const std::string& declarations, const std::string& kernelBody = "ret;",
                            bool wholeProgram = false) {
  std::string text = ".version 8.0\n.target sm_80\n.address_size 64\n" + declarations +
                     "\n.visible .entry k(.param .u64 p)\n{\n.reg .b64 %rd<3>;\n" + kernelBody + "\n}\n";
  auto parsed = cucatch::ptx::parseModule(text, "heap.ptx");
  REQUIRE(parsed.ok());
  UnitResult unit;
  redirectDeviceHeapCalls(*parsed.module, unit);
  return deviceHeapEntriesMayChange(*parsed.module, unit, wholeProgram);
}

const char* kMallocCall =
    "{ .param .b64 a; .param .b64 r; st.param.b64 [a], 16; call.uni (r), malloc, (a); ld.param.b64 %rd1, [r]; }\n"
    "ret;";

}  // namespace

TEST_CASE("device-heap entries: through L1 in a whole-program module without a malloc", "[device-heap]") {
  CHECK(entriesOf("") == DeviceHeapEntries::ThroughL1);
  // printf, assert, the device runtime, and a forward declaration of the module's own function.
  CHECK(entriesOf(".extern .func (.param .b32 r) vprintf(.param .b64 f, .param .b64 a);\n"
                  ".extern .func __assertfail(.param .b64 m);\n"
                  ".extern .func (.param .b64 r) cudaGetParameterBufferV2(.param .b64 f);\n"
                  ".func (.param .b32 r) own(.param .b64 p);\n"
                  ".func (.param .b32 r) own(.param .b64 p)\n{\nst.param.b32 [r], 0;\nret;\n}\n") ==
        DeviceHeapEntries::ThroughL1);
  // malloc declared and never called: nothing to wrap, nothing changes entries.
  CHECK(entriesOf(".extern .func (.param .b64 r) malloc(.param .b64 n);\n") == DeviceHeapEntries::ThroughL1);
}

TEST_CASE("device-heap entries: from L2 where a kernel running this unit's code may malloc or free",
          "[device-heap]") {
  // The unit's own malloc.
  CHECK(entriesOf(".extern .func (.param .b64 r) malloc(.param .b64 n);\n", kMallocCall) ==
        DeviceHeapEntries::FromL2);
  // Relocatable code: a device function other units' kernels may call...
  CHECK(entriesOf(".visible .func (.param .b32 r) shared_helper(.param .b64 p)\n{\nst.param.b32 [r], 0;\nret;\n}\n") ==
        DeviceHeapEntries::FromL2);
  CHECK(entriesOf(".weak .func (.param .b32 r) inline_helper(.param .b64 p)\n{\nst.param.b32 [r], 0;\nret;\n}\n") ==
        DeviceHeapEntries::FromL2);
  // ... or a function of another unit this one calls: declared (a user's cuda_-named function
  // is no CUDA API's), or reached through a pointer (another unit's variable, a virtual table).
  CHECK(entriesOf(".extern .func (.param .b64 r) make_node(.param .b32 v);\n") == DeviceHeapEntries::FromL2);
  CHECK(entriesOf(".extern .func (.param .b64 r) cuda_pool_alloc(.param .b32 v);\n") == DeviceHeapEntries::FromL2);
  const std::string indirect =
      "ld.global.u64 %rd2, [producer];\n{\n.param .b64 a;\nst.param.b64 [a], %rd1;\n"
      "proto: .callprototype _ (.param .b64 _);\ncall %rd2, (a), proto;\n}\nret;";
  CHECK(entriesOf(".extern .global .align 8 .u64 producer;\n", indirect) == DeviceHeapEntries::FromL2);
  // In a whole program the same calls reach the module's own functions, and no other unit calls
  // its .visible ones.
  CHECK(entriesOf(".extern .global .align 8 .u64 producer;\n", indirect, true) == DeviceHeapEntries::ThroughL1);
  CHECK(entriesOf(".visible .func (.param .b32 r) helper(.param .b64 p)\n{\nst.param.b32 [r], 0;\nret;\n}\n", "ret;",
                  true) == DeviceHeapEntries::ThroughL1);
}
