// cucatch-expect: out-of-bounds write 4 kernel=weak_method object=__local_depot0 space=local
// cucatch-link: -rdc=true
// An inline member function (.weak in relocatable code: every unit that uses it defines it, and
// the device linker keeps one) writes one element past the array of the local object it was
// called on. The unit's calls reach its own copy of the function, which is given `this`'s
// bounds as the unit's other functions are: the caller's frame. (Before, a .weak callee was
// given none, and a pointer into its caller's frame went unchecked there.)
#include "common.h"
struct Window {
  int v[8];
  __device__ __noinline__ void put(int i, int x) { v[i] = x; }  // cucatch-bug-line
  __device__ __noinline__ int sum() const {
    int s = 0;
    for (int i = 0; i < 8; ++i) s += v[i];
    return s;
  }
};
__device__ __noinline__ int fill(int n, int base) {
  Window w;
  for (int i = 0; i < n; ++i) w.put(i, base + i);  // n = 9: w.v[8] is past the object
  return w.sum();
}
__global__ void weak_method(int* out, int n) { out[threadIdx.x] = fill(n, int(threadIdx.x)); }
int main() {
  int* out;
  CHECK(cudaMalloc(&out, 32 * sizeof(int)));
  weak_method<<<1, 32>>>(out, 9);
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
}
