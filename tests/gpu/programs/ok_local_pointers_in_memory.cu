// cucatch-expect: clean
// cucatch-expect-checked: local_pointers
// Pointers to a caller's local array, kept in global memory, used by functions with frames of
// their own (local_pointers.h), in an optimized build.
#include "local_pointers.h"
