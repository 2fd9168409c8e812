// cucatch-expect: clean
// Ping-pong buffers in shared memory, as scans and iterative stencils keep them: offsets or
// pointers swapped each step (so they only ever hold two values), a loop that rotates three
// buffers, and one whose offset is `1 - cur`. Correct sizes: silent, and the output is the
// plain build's.
#include "common.h"
__global__ void scanOffsets(const unsigned* in, unsigned* out) {
  extern __shared__ unsigned buf[];
  int t = threadIdx.x, n = blockDim.x;
  int from = 0, to = n;
  buf[t] = in[blockIdx.x * n + t];
  __syncthreads();
  for (int d = 1; d < n; d <<= 1) {
    buf[to + t] = t >= d ? buf[from + t] + buf[from + t - d] : buf[from + t];
    __syncthreads();
    int swap = from;
    from = to;
    to = swap;
  }
  out[blockIdx.x * n + t] = buf[from + t];
}
__global__ void smoothPointers(const float* in, float* out, int steps) {
  __shared__ float a[258], b[258];
  int t = threadIdx.x + 1;
  float* cur = a;
  float* next = b;
  a[t] = b[t] = in[blockIdx.x * 256 + t - 1];
  if (t == 1) a[0] = b[0] = a[257] = b[257] = 0;
  __syncthreads();
  for (int s = 0; s < steps; ++s) {
    next[t] = (cur[t - 1] + cur[t] + cur[t + 1]) / 3;
    __syncthreads();
    float* swap = cur;
    cur = next;
    next = swap;
  }
  out[blockIdx.x * 256 + t - 1] = cur[t];
}
__global__ void rotateThree(const int* in, int* out, int steps) {
  __shared__ int ring[3 * 128];
  int t = threadIdx.x;
  int x = 0, y = 128, z = 256;
  ring[t] = in[t];
  ring[128 + t] = ring[256 + t] = 0;
  __syncthreads();
  for (int s = 0; s < steps; ++s) {
    ring[z + t] = ring[x + t] + ring[y + ((t + 1) & 127)] + s;
    __syncthreads();
    int w = x;
    x = y;
    y = z;
    z = w;
  }
  out[t] = ring[x + t] + ring[y + t] + ring[z + t];
}
__global__ void notACopy(const int* in, int* out, int steps) {
  __shared__ int two[2][128];
  int t = threadIdx.x, cur = 0;
  two[0][t] = in[t];
  __syncthreads();
  for (int s = 0; s < steps; ++s) {
    two[1 - cur][t] = two[cur][t] * 3 + two[cur][(t + 5) & 127];
    __syncthreads();
    cur = 1 - cur;
  }
  out[t] = two[cur][t];
}
int main() {
  const int n = 256, blocks = 4;
  unsigned hin[n * blocks];
  for (int i = 0; i < n * blocks; ++i) hin[i] = (i * 7) % 13;
  unsigned *in, *out;
  CHECK(cudaMalloc(&in, sizeof hin));
  CHECK(cudaMalloc(&out, sizeof hin));
  CHECK(cudaMemcpy(in, hin, sizeof hin, cudaMemcpyHostToDevice));
  // Block sizes from 32 to 1024 (blocks of n over the same 1024 words), each with exactly and
  // with more than the 2 * blockDim.x words the scan needs: where the launch gives them, an
  // instrumented build runs its copy without the proven checks (docs/design.md, "Launch versions").
  for (int size : {32, 96, 256, 1024})
    for (int extra : {0, 100}) {
      CHECK(cudaMemset(out, 0, sizeof hin));
      scanOffsets<<<n * blocks / size, size, (2 * size + extra) * sizeof(unsigned)>>>(in, out);
      CHECK(cudaGetLastError());
      unsigned hout[n * blocks];
      CHECK(cudaMemcpy(hout, out, sizeof hout, cudaMemcpyDeviceToHost));
      unsigned long long sum = 0;
      for (int i = 0; i < n * blocks; ++i) sum = sum * 31 + hout[i];
      std::printf("scan %d (+%d): %llu (last %u)\n", size, extra, sum, hout[n * blocks - 1]);
    }

  float hf[n * blocks];
  for (int i = 0; i < n * blocks; ++i) hf[i] = float(i % 17);
  float *fin, *fout;
  CHECK(cudaMalloc(&fin, sizeof hf));
  CHECK(cudaMalloc(&fout, sizeof hf));
  CHECK(cudaMemcpy(fin, hf, sizeof hf, cudaMemcpyHostToDevice));
  smoothPointers<<<blocks, 256>>>(fin, fout, 9);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(hf, fout, sizeof hf, cudaMemcpyDeviceToHost));
  double fsum = 0;
  for (int i = 0; i < n * blocks; ++i) fsum += hf[i] * (i % 5 + 1);
  std::printf("smooth: %.4f\n", fsum);

  int hi[128], ho[128];
  for (int i = 0; i < 128; ++i) hi[i] = i * 3 % 11;
  int *iin, *iout;
  CHECK(cudaMalloc(&iin, sizeof hi));
  CHECK(cudaMalloc(&iout, sizeof ho));
  CHECK(cudaMemcpy(iin, hi, sizeof hi, cudaMemcpyHostToDevice));
  rotateThree<<<1, 128>>>(iin, iout, 7);
  CHECK(cudaMemcpy(ho, iout, sizeof ho, cudaMemcpyDeviceToHost));
  long long h = 0;
  for (int i = 0; i < 128; ++i) h = h * 31 + ho[i];
  std::printf("rotate: %lld\n", h);
  notACopy<<<1, 128>>>(iin, iout, 6);
  CHECK(cudaMemcpy(ho, iout, sizeof ho, cudaMemcpyDeviceToHost));
  h = 0;
  for (int i = 0; i < 128; ++i) h = h * 31 + ho[i];
  std::printf("not a copy: %lld\n", h);
  CHECK(cudaDeviceSynchronize());
  return 0;
}
