// cucatch-expect: clean
// cucatch-jit-env: CUCATCH_TAGS=1
// Correct use of the device heap stays silent, with output identical to a plain build: blocks
// allocated in one kernel, written in a second, read and freed in a third; more live blocks
// than cucatch has device-heap tags for (the rest go out untagged, unchecked); new/delete of
// objects with constructors and destructors; __nv_aligned_device_malloc's alignment; and a
// block of one thread written by every thread of the block through a pointer in shared memory.
#include "common.h"
#include <cstdint>
struct Counter {
  int hits;
  int id;
  __device__ explicit Counter(int i) : hits(0), id(i) {}
  __device__ ~Counter() { hits = -1; }
};
__global__ void allocate(int** rows, int width) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  rows[t] = static_cast<int*>(malloc(width * sizeof(int)));
}
__global__ void write(int** rows, int width) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (int* r = rows[t])
    for (int i = 0; i < width; ++i) r[i] = t * width + i;
}
__global__ void sum_and_release(int** rows, int width, unsigned long long* total) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int* r = rows[t];
  if (!r) return;
  unsigned long long s = 0;
  for (int i = 0; i < width; ++i) s += r[i];
  atomicAdd(total, s);
  free(r);
}
__global__ void objects(int* out) {
  Counter* c = new Counter(static_cast<int>(threadIdx.x));
  Counter* many = new Counter[1] {Counter(7)};
  c->hits += many[0].id;
  out[threadIdx.x] = c->hits + c->id;
  delete[] many;
  delete c;
  void* a = __nv_aligned_device_malloc(100, 256);
  out[32 + threadIdx.x] = a ? static_cast<int>(reinterpret_cast<uintptr_t>(a) % 256) : -1;
  free(a);
}
__global__ void shared_block(int* out) {
  __shared__ int* block;
  if (threadIdx.x == 0) block = static_cast<int*>(malloc(blockDim.x * sizeof(int)));
  __syncthreads();
  if (!block) return;
  block[threadIdx.x] = static_cast<int>(threadIdx.x) * 2;
  __syncthreads();
  if (threadIdx.x == 0) {
    int s = 0;
    for (unsigned i = 0; i < blockDim.x; ++i) s += block[i];
    out[blockIdx.x] = s;
    free(block);
  }
}
int main() {
  const int blocks = 4, threads = 128, width = 16;  // 512 live blocks at once
  int** rows;
  unsigned long long* total;
  int* out;
  CHECK(cudaMalloc(&rows, blocks * threads * sizeof(int*)));
  CHECK(cudaMalloc(&total, sizeof(unsigned long long)));
  CHECK(cudaMemset(total, 0, sizeof(unsigned long long)));
  CHECK(cudaMalloc(&out, 64 * sizeof(int)));
  allocate<<<blocks, threads>>>(rows, width);
  write<<<blocks, threads>>>(rows, width);
  sum_and_release<<<blocks, threads>>>(rows, width, total);
  objects<<<1, 32>>>(out);
  int host[64];
  CHECK(cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost));
  unsigned long long t = 0;
  CHECK(cudaMemcpy(&t, total, sizeof t, cudaMemcpyDeviceToHost));
  std::printf("total %llu\n", t);
  for (int i = 0; i < 64; ++i) std::printf("%d%c", host[i], i % 16 == 15 ? '\n' : ' ');
  shared_block<<<3, 64>>>(out);
  CHECK(cudaMemcpy(host, out, 3 * sizeof(int), cudaMemcpyDeviceToHost));
  std::printf("shared blocks %d %d %d\n", host[0], host[1], host[2]);
}
