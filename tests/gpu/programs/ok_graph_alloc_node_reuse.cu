// cucatch-expect: clean
// A graph's own allocation (cudaGraphAddMemAllocNode: memory cucatch does not track) used by
// the graph's kernel, made after the program freed a stream-ordered allocation of the same size
// and trimmed the pool, so that the graph's memory may lie where the freed one did (stderr says
// whether it did). Nothing about the freed allocation may be said of the graph's memory. Then a
// graph whose allocation is freed outside it (cudaFreeAsync after each launch, as the CUDA
// programming guide allows): the next launch allocates at the same addresses again, so each
// free goes to the driver.
#include "common.h"

__global__ void fill(int* p, size_t n, int v) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    p[i] = v + static_cast<int>(i % 13);
}

__global__ void sum(const int* p, size_t n, unsigned long long* total) {
  unsigned long long s = 0;
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) s += p[i];
  atomicAdd(total, s);
}

int main() {
  const size_t bytes = size_t(64) << 20, n = bytes / sizeof(int);
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  unsigned long long* total = nullptr;
  CHECK(cudaMalloc(&total, sizeof *total));
  int device = 0;
  CHECK(cudaGetDevice(&device));
  cudaMemPool_t pool;
  CHECK(cudaDeviceGetDefaultMemPool(&pool, device));

  int* freed = nullptr;
  CHECK(cudaMallocAsync(&freed, bytes, s));
  CHECK(cudaMemsetAsync(total, 0, sizeof *total, s));
  fill<<<256, 256, 0, s>>>(freed, n, 1);
  sum<<<256, 256, 0, s>>>(freed, n, total);
  unsigned long long host = 0;
  CHECK(cudaMemcpyAsync(&host, total, sizeof host, cudaMemcpyDeviceToHost, s));
  CHECK(cudaFreeAsync(freed, s));
  CHECK(cudaStreamSynchronize(s));
  CHECK(cudaMemPoolTrimTo(pool, 0));
  std::printf("before: %llu\n", host);

  cudaGraph_t graph;
  CHECK(cudaGraphCreate(&graph, 0));
  cudaMemAllocNodeParams alloc{};
  alloc.poolProps.allocType = cudaMemAllocationTypePinned;
  alloc.poolProps.location.type = cudaMemLocationTypeDevice;
  alloc.poolProps.location.id = device;
  alloc.bytesize = bytes;
  cudaGraphNode_t allocNode, fillNode, sumNode, freeNode;
  CHECK(cudaGraphAddMemAllocNode(&allocNode, graph, nullptr, 0, &alloc));
  int* mine = static_cast<int*>(alloc.dptr);
  int v = 7;
  size_t count = n;
  void* fillArgs[] = {&mine, &count, &v};
  cudaKernelNodeParams k{};
  k.func = reinterpret_cast<void*>(fill);
  k.gridDim = dim3(256);
  k.blockDim = dim3(256);
  k.kernelParams = fillArgs;
  CHECK(cudaGraphAddKernelNode(&fillNode, graph, &allocNode, 1, &k));
  void* sumArgs[] = {&mine, &count, &total};
  k.func = reinterpret_cast<void*>(sum);
  k.kernelParams = sumArgs;
  CHECK(cudaGraphAddKernelNode(&sumNode, graph, &fillNode, 1, &k));
  CHECK(cudaGraphAddMemFreeNode(&freeNode, graph, &sumNode, 1, alloc.dptr));
  cudaGraphExec_t exec;
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  for (int round = 0; round < 3; ++round) {
    CHECK(cudaMemsetAsync(total, 0, sizeof *total, s));
    CHECK(cudaGraphLaunch(exec, s));
    CHECK(cudaMemcpyAsync(&host, total, sizeof host, cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));
    std::printf("graph round %d: %llu\n", round, host);
  }
  // An allocation the graph leaves to the program to free.
  cudaGraph_t kept;
  CHECK(cudaGraphCreate(&kept, 0));
  cudaGraphNode_t keptAlloc, keptFill;
  alloc.dptr = nullptr;
  CHECK(cudaGraphAddMemAllocNode(&keptAlloc, kept, nullptr, 0, &alloc));
  int* left = static_cast<int*>(alloc.dptr);
  v = 3;
  void* keptArgs[] = {&left, &count, &v};
  k.func = reinterpret_cast<void*>(fill);
  k.kernelParams = keptArgs;
  CHECK(cudaGraphAddKernelNode(&keptFill, kept, &keptAlloc, 1, &k));
  cudaGraphExec_t keptExec;
  CHECK(cudaGraphInstantiate(&keptExec, kept, 0));
  for (int round = 0; round < 3; ++round) {
    CHECK(cudaMemsetAsync(total, 0, sizeof *total, s));
    CHECK(cudaGraphLaunch(keptExec, s));
    sum<<<256, 256, 0, s>>>(left, n, total);
    CHECK(cudaMemcpyAsync(&host, total, sizeof host, cudaMemcpyDeviceToHost, s));
    CHECK(cudaFreeAsync(left, s));
    CHECK(cudaStreamSynchronize(s));
    std::printf("kept graph round %d: %llu\n", round, host);
  }
  CHECK(cudaGraphExecDestroy(keptExec));
  CHECK(cudaGraphDestroy(kept));
  // (Under cucatch-nvcc the freed pointer carries a tag in its top byte.)
  std::fprintf(stderr, "the graph's allocation at %p, the freed one at %p\n", static_cast<void*>(mine),
               static_cast<void*>(freed));
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(graph));
  CHECK(cudaFree(total));
  return 0;
}
