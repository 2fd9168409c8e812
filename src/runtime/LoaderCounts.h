// How many objects the dynamic loader has loaded and unloaded so far (dl_iterate_phdr's
// dlpi_adds and dlpi_subs). A change since a count was taken says when to look at the loaded
// objects again (Rebind) or to drop what was learned about the code at their addresses
// (Unwinder). One dl_iterate_phdr call that stops at the first object: no symbol lookup.
#pragma once

#include <link.h>

#include <cstddef>

namespace cucatch::runtime {

struct LoaderCounts {
  unsigned long long adds = 0, subs = 0;
};

inline LoaderCounts loaderCounts() {
  LoaderCounts c;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t size, void* out) {
        auto* c = static_cast<LoaderCounts*>(out);
        c->adds = info->dlpi_adds;
        if (size >= offsetof(dl_phdr_info, dlpi_subs) + sizeof(info->dlpi_subs)) c->subs = info->dlpi_subs;
        return 1;
      },
      &c);
  return c;
}

}  // namespace cucatch::runtime
