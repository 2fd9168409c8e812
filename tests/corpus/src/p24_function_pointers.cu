// corpus-nvrtc: 124 118
typedef float (*unary_fn)(float);
__device__ float twice(float x) { return 2 * x; }
__device__ float negate(float x) { return -x; }
__device__ float square(float x) { return x * x; }
__device__ unary_fn fns[3] = {twice, negate, square};
__global__ void apply(float* d, const int* which, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) d[i] = fns[which[i] % 3](d[i]);
}
struct Shape { virtual __device__ float area() const = 0; };
struct Square : Shape { float s; __device__ Square(float s) : s(s) {} __device__ float area() const override { return s * s; } };
__global__ void virt(float* out) {
  Square sq(out[threadIdx.x]);
  const Shape* sh = &sq;
  out[threadIdx.x] = sh->area();
}
