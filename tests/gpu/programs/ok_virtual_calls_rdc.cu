// cucatch-expect: clean
// cucatch-expect-checked: shapes
// cucatch-link: -rdc=true
// ok_virtual_calls built as relocatable device code (-rdc, CMake's CUDA_SEPARABLE_COMPILATION),
// as the cuda-samples newdelete program is: its device functions are compiled on their own, so
// a kernel's .maxnreg does not bound them; the whole module gets ptxas -maxrregcount instead, and
// the kernels still launch with 1024 threads.
#include "ok_virtual_calls.cu"
