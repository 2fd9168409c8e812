// cucatch-expect: clean
// Correct local-memory code (local_arrays.h), in an optimized build.
#include "local_arrays.h"
