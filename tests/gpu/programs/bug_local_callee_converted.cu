// cucatch-expect: out-of-bounds write 4 kernel=fill_and_sum object=__local_depot1 space=local
// A device function that is not inlined fills its caller's local array and writes one element
// past its end. Every caller passes it a local pointer, so nvcc converts the parameter to a
// local address in the function (cvta.to.local) and its stores are .local: the kernel passes its
// frame's bounds with the pointer, and the function checks its local stores against them, moved
// to local addresses.
#include "common.h"
__device__ __noinline__ void fill(int* a, int n) {
  for (int i = 0; i <= n; ++i) a[i] = i * 3;  // cucatch-bug-line
}
__global__ void fill_and_sum(int* out, int n) {
  int arr[16];
  fill(arr, n);  // n = 16: arr[16] is past the array
  int s = 0;
  for (int i = 0; i < 16; ++i) s += arr[i];
  out[threadIdx.x] = s;
}
int main() {
  int* out;
  CHECK(cudaMalloc(&out, 32 * sizeof(int)));
  fill_and_sum<<<1, 32>>>(out, 16);
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
}
