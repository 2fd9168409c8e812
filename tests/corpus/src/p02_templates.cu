// corpus-nvrtc: 124 118
template <typename T, int N>
__global__ void scale_unrolled(T* data, T factor, int n) {
  int base = (blockIdx.x * blockDim.x + threadIdx.x) * N;
#pragma unroll
  for (int k = 0; k < N; ++k)
    if (base + k < n) data[base + k] *= factor;
}
template <typename T> struct Plus { __device__ T operator()(T a, T b) const { return a + b; } };
template <typename T, typename Op>
__global__ void zip(const T* a, const T* b, T* out, int n, Op op) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = op(a[i], b[i]);
}
template __global__ void scale_unrolled<float, 4>(float*, float, int);
template __global__ void scale_unrolled<double, 2>(double*, double, int);
template __global__ void scale_unrolled<int, 8>(int*, int, int);
template __global__ void zip<float, Plus<float>>(const float*, const float*, float*, int, Plus<float>);
template __global__ void zip<long long, Plus<long long>>(const long long*, const long long*, long long*, int, Plus<long long>);
