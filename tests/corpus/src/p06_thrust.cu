#include <thrust/device_ptr.h>
#include <thrust/sort.h>
#include <thrust/reduce.h>
#include <thrust/transform.h>
#include <thrust/execution_policy.h>
struct square { __host__ __device__ float operator()(float x) const { return x * x; } };
float sum_of_squares(float* d, int n) {
  thrust::device_ptr<float> p(d);
  thrust::transform(thrust::device, p, p + n, p, square());
  thrust::sort(thrust::device, p, p + n);
  return thrust::reduce(thrust::device, p, p + n);
}
