// cucatch-expect: clean
// More live allocations than there are direct tags (240), then half freed and more made:
// every pointer keeps working, and a kernel touches each through a device pointer table.
#include <vector>
#include "common.h"
__global__ void touch_all(int** ptrs, const int* sizes, int count) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < count) {
    int n = sizes[k] / 4;
    ptrs[k][0] = k;
    ptrs[k][n - 1] += k;
  }
}
long pass(std::vector<int*>& ptrs, std::vector<int>& sizes) {
  int** dptrs;
  int* dsizes;
  int count = static_cast<int>(ptrs.size());
  CHECK(cudaMalloc(&dptrs, count * sizeof(int*)));
  CHECK(cudaMalloc(&dsizes, count * sizeof(int)));
  CHECK(cudaMemcpy(dptrs, ptrs.data(), count * sizeof(int*), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dsizes, sizes.data(), count * sizeof(int), cudaMemcpyHostToDevice));
  touch_all<<<(count + 127) / 128, 128>>>(dptrs, dsizes, count);
  long s = 0;
  for (int k = 0; k < count; ++k) {
    int first, last;
    CHECK(cudaMemcpy(&first, ptrs[k], 4, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&last, ptrs[k] + sizes[k] / 4 - 1, 4, cudaMemcpyDeviceToHost));
    s += first + last;
  }
  CHECK(cudaFree(dptrs));
  CHECK(cudaFree(dsizes));
  return s;
}
int main() {
  std::vector<int*> ptrs;
  std::vector<int> sizes;
  for (int k = 0; k < 3000; ++k) {
    int bytes = 4 * (1 + (k * 37) % 500);
    int* p;
    CHECK(cudaMalloc(&p, bytes));
    CHECK(cudaMemset(p, 0, bytes));
    ptrs.push_back(p);
    sizes.push_back(bytes);
  }
  long s = pass(ptrs, sizes);
  for (size_t k = 0; k < ptrs.size(); k += 2) CHECK(cudaFree(ptrs[k]));
  std::vector<int*> p2;
  std::vector<int> s2;
  for (size_t k = 1; k < ptrs.size(); k += 2) {
    p2.push_back(ptrs[k]);
    s2.push_back(sizes[k]);
  }
  for (int k = 0; k < 1500; ++k) {
    int bytes = 4 * (1 + (k * 53) % 300);
    int* p;
    CHECK(cudaMalloc(&p, bytes));
    CHECK(cudaMemset(p, 0, bytes));
    p2.push_back(p);
    s2.push_back(bytes);
  }
  s += pass(p2, s2);
  std::printf("checksum %ld\n", s);
}
