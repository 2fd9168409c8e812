// cucatch-expect: use-after-scope read 4 kernel=stale_in_callee table-frame=fill_and_keep
// cucatch-link: -rdc=true
// bug_use_after_scope_in_callee in relocatable code (.visible device functions): fill_and_keep
// keeps a pointer to its local array in global memory and returns; read_kept, the device
// function that called it, reads through the pointer after the frame is gone. The frame table
// reaches both through their private bodies and names the frame that returned.
#include "bug_use_after_scope_in_callee.cu"
