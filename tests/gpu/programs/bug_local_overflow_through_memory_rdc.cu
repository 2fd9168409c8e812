// cucatch-expect: out-of-bounds write 4 kernel=through_memory table-frame=owner
// cucatch-link: -rdc=true
// bug_local_overflow_through_memory in relocatable code, where owner and fill_handed are .visible
// (another unit may call them): a callee overruns its caller's local array through a pointer it
// read from global memory. The unit's own calls reach the functions' private bodies, which take
// the frame table as the unit's other functions do, so the write one past owner's frame is
// reported against it. (Before, a .visible function of relocatable code had no table.)
#include "bug_local_overflow_through_memory.cu"
