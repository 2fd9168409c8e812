// cucatch-expect: clean
// cucatch-flags: -G
// The same as ok_local_arrays, in a debug build (-G): every local array is reached through the
// generic frame pointer, and each such pointer is checked against its own array.
#include "local_arrays.h"
