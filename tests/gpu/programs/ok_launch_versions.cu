// cucatch-expect: clean
// Kernels whose shared accesses are proven for launches that satisfy a condition on the block's
// dimensions and dynamic shared memory (docs/design.md, "Launch versions"), launched both where
// it holds (the copy without those checks runs) and where it does not (the checked body runs):
// a kernel whose threads past a count it is given leave the dynamic array alone, launched with
// room for that count only (the condition fails, the program is correct); a 32 x 33 tile at the
// block shapes it is written for and at shapes the condition refuses, whose guards keep it
// inside; a 1-D stencil whose first 4 threads load its halo (proven for them); and a reversal
// under __launch_bounds__, proven for every launch. (A ping-pong scan at
// block sizes from 32 to 1024, with exactly and more than the dynamic memory it needs, is
// ok_shared_ping_pong.) Silent, and the plain build's output.
#include "common.h"
__global__ void firstCount(const int* in, int* out, int count) {
  extern __shared__ int part[];
  int t = threadIdx.x;
  if (t < count) part[t] = in[t] * 2;
  __syncthreads();
  if (t < count) out[t] = part[count - 1 - t] + t;
}
__global__ void tileTranspose(const float* in, float* out) {
  __shared__ float tile[32][33];
  int x = threadIdx.x, y = threadIdx.y;
#pragma unroll
  for (int r = 0; r < 32; r += 8)
    if (y + r < 32 && x < 32) tile[y + r][x] = in[(y + r) * 32 + x];
  __syncthreads();
#pragma unroll
  for (int r = 0; r < 32; r += 8)
    if (y + r < 32 && x < 32) out[(y + r) * 32 + x] = tile[x][y + r];
}
// A 1-D stencil's tile with a halo of 4 on each side, loaded by the first 4 threads: inside the
// tile for those threads at any block size; the block's own part needs blockDim.x <= 256.
__global__ void halo(const float* in, float* out, int n) {
  __shared__ float tile[256 + 8];
  int t = threadIdx.x, g = blockIdx.x * blockDim.x + t;
  tile[t + 4] = g < n ? in[g] : 0.0f;
  if (t < 4) {
    tile[t] = g >= 4 ? in[g - 4] : 0.0f;
    tile[t + 4 + blockDim.x] = g + blockDim.x < n ? in[g + blockDim.x] : 0.0f;
  }
  __syncthreads();
  float v = 0;
  for (int k = 0; k <= 8; ++k) v += tile[t + k];
  if (g < n) out[g] = v;
}
__global__ void __launch_bounds__(256) reverse(int* data) {
  __shared__ int s[256];
  int t = threadIdx.x;
  s[t] = data[t];
  __syncthreads();
  data[t] = s[blockDim.x - 1 - t];
}
template <typename T>
unsigned long long digest(const T* d, int n) {
  T* h = new T[n];
  CHECK(cudaMemcpy(h, d, n * sizeof(T), cudaMemcpyDeviceToHost));
  unsigned long long s = 0;
  for (int i = 0; i < n; ++i) s = s * 1000003 + static_cast<unsigned long long>(h[i] * 3);
  delete[] h;
  return s;
}
int main() {
  const int total = 512;
  unsigned hin[total];
  for (int i = 0; i < total; ++i) hin[i] = (i * 7) % 13;

  int *iin, *iout;
  CHECK(cudaMalloc(&iin, 512 * sizeof(int)));
  CHECK(cudaMalloc(&iout, 512 * sizeof(int)));
  CHECK(cudaMemcpy(iin, hin, sizeof hin, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(iout, 0, 512 * sizeof(int)));
  firstCount<<<1, 256, 100 * sizeof(int)>>>(iin, iout, 100);  // room for 100 of 256 threads
  CHECK(cudaGetLastError());
  std::printf("first count: %llu\n", digest(iout, 256));
  firstCount<<<1, 256, 256 * sizeof(int)>>>(iin, iout, 256);
  CHECK(cudaGetLastError());
  std::printf("all: %llu\n", digest(iout, 256));

  float hf[1024];
  for (int i = 0; i < 1024; ++i) hf[i] = float(i % 29);
  float *fin, *fout;
  CHECK(cudaMalloc(&fin, sizeof hf));
  CHECK(cudaMalloc(&fout, sizeof hf));
  CHECK(cudaMemcpy(fin, hf, sizeof hf, cudaMemcpyHostToDevice));
  // (Every shape writes all 32 rows of the tile before any is read: at 33 x 4 the rows the
  // loop's stride of 8 skips were read unwritten, whatever an earlier kernel left in shared
  // memory, and a parallel run of the suite once printed another digest for the cucatch build.)
  for (dim3 block : {dim3(32, 8), dim3(32, 32), dim3(33, 8), dim3(64, 16)}) {
    CHECK(cudaMemset(fout, 0, sizeof hf));
    tileTranspose<<<1, block>>>(fin, fout);
    CHECK(cudaGetLastError());
    std::printf("transpose %ux%u: %llu\n", block.x, block.y, digest(fout, 1024));
  }

  for (int block : {64, 256}) {
    CHECK(cudaMemset(fout, 0, sizeof hf));
    halo<<<1024 / block, block>>>(fin, fout, 1000);
    CHECK(cudaGetLastError());
    std::printf("halo %d: %llu\n", block, digest(fout, 1024));
  }

  for (int n : {64, 256}) {
    reverse<<<1, n>>>(iin);
    CHECK(cudaGetLastError());
    std::printf("reverse %d: %llu\n", n, digest(iin, n));
  }
  CHECK(cudaDeviceSynchronize());
  return 0;
}
