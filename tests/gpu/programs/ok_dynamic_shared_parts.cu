// cucatch-expect: clean
// cucatch-build-env: CUCATCH_PTX_FLAGS=--shared-parts
// Dynamic shared memory carved correctly, checked part by part (--shared-parts): parts of three
// types whose sizes are parameters and blockDim, each filled to its last element and read back
// from every thread, a part reached through a pointer stepped in a loop, and a part whose size
// is 0 at one launch.
#include "common.h"
__global__ void carve(const float* in, float* out, int nf, int ni) {
  extern __shared__ double dyn[];
  double* d = dyn;                                     // blockDim.x doubles
  float* f = reinterpret_cast<float*>(d + blockDim.x);  // nf floats
  int* k = reinterpret_cast<int*>(f + nf);              // ni ints
  int t = threadIdx.x;
  d[t] = in[t];
  for (int i = t; i < nf; i += blockDim.x) f[i] = 2.0f * i;
  for (int i = t; i < ni; i += blockDim.x) k[i] = i;
  __syncthreads();
  float s = static_cast<float>(d[blockDim.x - 1 - t]);
  if (nf) s += f[nf - 1 - (t % nf)];
  if (ni) s += k[(t * 7) % ni];
  for (float* p = f; p < f + nf; p += 32) s += *p;
  out[blockIdx.x * blockDim.x + t] = s;
}
int main() {
  float *in, *out, host[256];
  CHECK(cudaMalloc(&in, 256 * sizeof(float)));
  CHECK(cudaMalloc(&out, 2 * 256 * sizeof(float)));
  for (int i = 0; i < 256; ++i) host[i] = i;
  CHECK(cudaMemcpy(in, host, sizeof host, cudaMemcpyHostToDevice));
  const int shapes[][3] = {{128, 300, 77}, {256, 1, 1000}, {64, 0, 5}};
  for (const auto& s : shapes) {
    size_t bytes = s[0] * sizeof(double) + s[1] * sizeof(float) + s[2] * sizeof(int);
    carve<<<2, s[0], bytes>>>(in, out, s[1], s[2]);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost));
    double sum = 0;
    for (float v : host) sum += v;
    std::printf("%d threads, %d floats, %d ints: %.1f\n", s[0], s[1], s[2], sum);
  }
}
