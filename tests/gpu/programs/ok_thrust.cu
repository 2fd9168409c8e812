// cucatch-expect: clean
#include <thrust/device_vector.h>
#include <thrust/reduce.h>
#include <thrust/sort.h>
#include <thrust/sequence.h>
#include "common.h"
int main() {
  const int n = 1 << 18;
  thrust::device_vector<int> v(n);
  thrust::sequence(v.begin(), v.end());
  for (int i = 0; i < 3; ++i) v[i * 1000] = n - i;
  thrust::sort(v.begin(), v.end(), thrust::greater<int>());
  long s = thrust::reduce(v.begin(), v.end(), 0L);
  int first = v[0], last = v[n - 1];
  std::printf("sum %ld first %d last %d\n", s, first, last);
}
