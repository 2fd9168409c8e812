// Does not compile: cucatch-nvcc must fail exactly as nvcc does.
__global__ void k(float* p) { p[threadIdx.x] = undeclared_name; }
