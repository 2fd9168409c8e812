// A library loaded while another thread rebinds GOT slots (Rebind.h), whose constructor calls a
// hook (and so rebindReferences) while this thread holds the loader's lock: both must go on.
// Before, the rebinding thread held its mutex and waited in dladdr for the loader's lock, and
// the constructor waited for the mutex: the process hung (the test's timeout fails it).
#include <dlfcn.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <string>
#include <thread>
#include <unordered_map>

#include "runtime/Rebind.h"

using cucatch::runtime::RebindTargets;

namespace {
// A symbol no object references: nothing is rewritten, only the objects are looked at.
std::unordered_map<std::string, void*> definitions{{"cucatch_test_no_such_symbol", reinterpret_cast<void*>(&usleep)}};
}  // namespace

// What a hook of libcucatch does first (rebindNewObjects); the library's constructor calls it.
extern "C" __attribute__((visibility("default"))) void cucatch_test_hook() {
  RebindTargets targets;
  targets.definitions = &definitions;
  targets.self = reinterpret_cast<const void*>(&cucatch_test_hook);
  targets.foreign = [](const std::string&) -> void* { return nullptr; };
  cucatch::runtime::rebindReferences(targets);
}

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s LIBRARY\n", argv[0]);
    return 2;
  }
  cucatch_test_hook();
  std::atomic<bool> stop{false};
  std::thread launcher([&] {
    while (!stop) {
      cucatch_test_hook();  // a launch on another thread
      usleep(500);
    }
  });
  void* library = dlopen(argv[1], RTLD_NOW);
  stop = true;
  launcher.join();
  if (!library) {
    std::fprintf(stderr, "dlopen: %s\n", dlerror());
    return 1;
  }
  std::printf("loaded, no hang\n");
  return 0;
}
