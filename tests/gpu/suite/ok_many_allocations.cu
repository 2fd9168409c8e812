// cucatch-expect: clean
// 3000 live cudaMalloc allocations of varied sizes, each touched by a kernel through a
// device array of pointers; then half are freed, 1500 more allocated, and all touched again.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>
#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(2); } } while (0)

__global__ void fill(int* const* bufs, const int* lens, int count, int salt) {
  int k = blockIdx.x;
  if (k >= count) return;
  int* b = bufs[k];
  for (int j = threadIdx.x; j < lens[k]; j += blockDim.x) b[j] = (k * 31 + j + salt) & 0xffff;
}

__global__ void sum(int* const* bufs, const int* lens, int count, unsigned long long* sums) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= count) return;
  const int* b = bufs[k];
  unsigned long long s = 0;
  for (int j = 0; j < lens[k]; ++j) s += (unsigned long long)b[j] * (j + 1);
  sums[k] = s;
}

static unsigned long long pass(const std::vector<int*>& bufs, const std::vector<int>& lens, int salt) {
  int count = (int)bufs.size();
  int** d_bufs;
  int* d_lens;
  unsigned long long* d_sums;
  CHECK(cudaMalloc(&d_bufs, count * sizeof(int*)));
  CHECK(cudaMalloc(&d_lens, count * sizeof(int)));
  CHECK(cudaMalloc(&d_sums, count * sizeof(unsigned long long)));
  CHECK(cudaMemcpy(d_bufs, bufs.data(), count * sizeof(int*), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_lens, lens.data(), count * sizeof(int), cudaMemcpyHostToDevice));
  fill<<<count, 128>>>(d_bufs, d_lens, count, salt);
  sum<<<(count + 127) / 128, 128>>>(d_bufs, d_lens, count, d_sums);
  CHECK(cudaGetLastError());
  std::vector<unsigned long long> sums(count);
  CHECK(cudaMemcpy(sums.data(), d_sums, count * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
  unsigned long long total = 0;
  for (int k = 0; k < count; ++k) total = total * 1000003ull + sums[k];
  CHECK(cudaFree(d_bufs));
  CHECK(cudaFree(d_lens));
  CHECK(cudaFree(d_sums));
  return total;
}

int main() {
  std::vector<int*> bufs;
  std::vector<int> lens;
  for (int k = 0; k < 3000; ++k) {
    int len = 1 + (k * 7919) % 997;  // 4 .. 3988 bytes
    int* p;
    CHECK(cudaMalloc(&p, len * sizeof(int)));
    bufs.push_back(p);
    lens.push_back(len);
  }
  unsigned long long first = pass(bufs, lens, 1);
  std::vector<int*> kept;
  std::vector<int> kept_lens;
  for (int k = 0; k < 3000; ++k) {
    if (k % 2 == 0) { CHECK(cudaFree(bufs[k])); continue; }
    kept.push_back(bufs[k]);
    kept_lens.push_back(lens[k]);
  }
  for (int k = 0; k < 1500; ++k) {
    int len = 1 + (k * 104729) % 1499;
    int* p;
    CHECK(cudaMalloc(&p, len * sizeof(int)));
    kept.push_back(p);
    kept_lens.push_back(len);
  }
  unsigned long long second = pass(kept, kept_lens, 2);
  for (int* p : kept) CHECK(cudaFree(p));
  printf("first %llu second %llu\n", first, second);
  return 0;
}
