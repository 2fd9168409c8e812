__global__ void __launch_bounds__(256, 4) bounded(float* d) { d[blockIdx.x * 256 + threadIdx.x] *= 3.0f; }
__global__ void __launch_bounds__(128) bounded_one(float* d) { d[threadIdx.x] += 1.0f; }
__global__ void __maxnreg__(32) few_regs(float* d) { d[threadIdx.x] = d[threadIdx.x] * d[threadIdx.x + 1]; }
