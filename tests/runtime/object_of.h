// For the runtime's lookup tests (driver-by-name, library-by-name): which loaded object an
// address lies in, by its file name.
#pragma once
#include <dlfcn.h>

#include <string>

inline std::string objectOf(void* p) {
  Dl_info info;
  if (!p || !dladdr(p, &info) || !info.dli_fname) return "(nothing)";
  return info.dli_fname;
}
