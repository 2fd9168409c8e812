// cucatch-expect: out-of-bounds read 4 kernel=gather object=buf space=shared
// A kernel launched with all the dynamic shared memory its proven accesses need, so it runs the
// copy of its body without their checks (docs/design.md, "Launch versions"), and an index read
// from memory past the region: that access keeps its check in the copy too, and is reported.
#include "common.h"
__global__ void gather(const int* in, const int* index, int* out) {
  extern __shared__ int buf[];
  int t = threadIdx.x, n = blockDim.x;
  buf[t] = in[t];
  buf[n + t] = in[t] + 1;
  __syncthreads();
  out[t] = buf[index[t]];  // cucatch-bug-line
}
int main() {
  const int n = 128;
  int hin[n], hidx[n];
  for (int i = 0; i < n; ++i) {
    hin[i] = i;
    hidx[i] = i == 77 ? 2 * n + 3 : (i * 5) % (2 * n);
  }
  int *in, *index, *out;
  CHECK(cudaMalloc(&in, sizeof hin));
  CHECK(cudaMalloc(&index, sizeof hidx));
  CHECK(cudaMalloc(&out, sizeof hin));
  CHECK(cudaMemcpy(in, hin, sizeof hin, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(index, hidx, sizeof hidx, cudaMemcpyHostToDevice));
  gather<<<1, n, 2 * n * sizeof(int)>>>(in, index, out);
  CHECK(cudaDeviceSynchronize());
  std::printf("done\n");
}
