// cucatch-expect: clean
// cucatch-expect-checked: local_pointers
// cucatch-flags: -G
// The same as ok_local_pointers_in_memory, in a debug build (-G), where every function has a
// frame and every access is generic.
#include "local_pointers.h"
