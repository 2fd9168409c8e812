// cucatch-expect: clean
// Thrust (its kernels are instantiated here, so they are instrumented too): tabulate,
// sort and reduce on a device_vector.
#include <cstdio>
#include <cstdlib>
#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <thrust/reduce.h>
#include <thrust/sort.h>
#include <thrust/tabulate.h>
#include <thrust/functional.h>
#include <cuda_runtime.h>

struct Scramble {
  __host__ __device__ int operator()(int i) const {
    unsigned x = unsigned(i) * 2654435761u;
    return int((x >> 7) % 1000003u) - 500000;
  }
};

int main() {
  const int n = 100003;
  thrust::device_vector<int> v(n);
  thrust::tabulate(v.begin(), v.end(), Scramble());
  long long before = thrust::reduce(v.begin(), v.end(), 0LL, thrust::plus<long long>());
  thrust::sort(v.begin(), v.end());
  long long after = thrust::reduce(v.begin(), v.end(), 0LL, thrust::plus<long long>());
  int biggest = thrust::reduce(v.begin(), v.end(), -1000000000, thrust::maximum<int>());
  thrust::host_vector<int> h = v;
  bool sorted = true;
  for (int i = 1; i < n; ++i) sorted = sorted && h[i - 1] <= h[i];
  printf("sum %lld %lld sorted %d first %d middle %d last %d max %d\n", before, after,
         (int)sorted, h[0], h[n / 2], h[n - 1], biggest);
  cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) { fprintf(stderr, "%s\n", cudaGetErrorString(e)); return 2; }
  return 0;
}
