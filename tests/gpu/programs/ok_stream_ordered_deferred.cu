// cucatch-expect: clean
// Stream-ordered allocations, whose table changes cucatch keeps pending until a call that could
// order a kernel after them (docs/design.md, "Device tables"), used by kernels the program
// orders after them in each way it can: later in the same stream, on another stream after an
// event, after the allocating stream was synchronized, after a synchronous copy (the legacy
// stream's implicit synchronization), after a host function ran; and thousands of allocations
// freed at once, which no kernel sees, between them (the pool hands the same address back), also
// while a kernel of the stream still uses the memory and the index an earlier allocation had
// there; a stream held by a host function with an allocation behind it while another stream
// runs; and more allocations pending at once than are kept. A kernel
// that met an allocation before its change reached the device would report a correct access.
#include <atomic>

#include "common.h"

// Waits until the host sets *go, then does what fillAndSum does: a kernel still running in its
// stream while the host goes on.
__global__ void fillAndSumWhenTold(const volatile int* go, int* p, int n, int v, unsigned long long* total) {
  if (threadIdx.x == 0)
    while (*go == 0) {
    }
  __syncthreads();
  unsigned long long sum = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    p[i] = v ^ i;
    sum += static_cast<unsigned>(p[i]);
  }
  atomicAdd(total, sum);
}

// Writes p[i] and adds what it reads back to *total.
__global__ void fillAndSum(int* p, int n, int v, unsigned long long* total) {
  unsigned long long sum = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    p[i] = v ^ i;
    sum += static_cast<unsigned>(p[i]);
  }
  atomicAdd(total, sum);
}

constexpr int kInts = 1 << 18;  // 1 MiB
constexpr size_t kBytes = kInts * sizeof(int);

void use(int* p, cudaStream_t s, int v, unsigned long long* total) {
  fillAndSum<<<64, 256, 0, s>>>(p, kInts, v, total);
  CHECK(cudaGetLastError());
}

// Allocations freed at once on `s`: no kernel sees them.
void pairs(cudaStream_t s, int count) {
  for (int i = 0; i < count; ++i) {
    void* q = nullptr;
    CHECK(cudaMallocAsync(&q, kBytes, s));
    CHECK(cudaFreeAsync(q, s));
  }
}

std::atomic<bool> reached{false};
void CUDART_CB hostFunction(void*) { reached = true; }
// Holds its stream until the host says so.
std::atomic<bool> release{false};
void CUDART_CB holdStream(void*) {
  while (!release) {
  }
}

int main() {
  cudaStream_t a, b, blocking;
  CHECK(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking));
  CHECK(cudaStreamCreate(&blocking));
  cudaEvent_t e;
  CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  unsigned long long* total;
  CHECK(cudaMalloc(&total, sizeof *total));
  CHECK(cudaMemset(total, 0, sizeof *total));
  int* p = nullptr;

  // The same stream, after pairs on two streams.
  for (int round = 0; round < 4; ++round) {
    pairs(a, 700);
    pairs(b, 300);
    CHECK(cudaMallocAsync(&p, kBytes, a));
    use(p, a, round, total);
    CHECK(cudaFreeAsync(p, a));
  }
  // Another stream, after an event recorded behind the allocation.
  pairs(a, 100);
  CHECK(cudaMallocAsync(&p, kBytes, a));
  CHECK(cudaEventRecord(e, a));
  CHECK(cudaStreamWaitEvent(b, e, 0));
  use(p, b, 10, total);
  CHECK(cudaFreeAsync(p, b));
  // Another stream, after the allocating one was synchronized.
  CHECK(cudaMallocAsync(&p, kBytes, a));
  CHECK(cudaStreamSynchronize(a));
  use(p, b, 20, total);
  CHECK(cudaFreeAsync(p, b));
  CHECK(cudaStreamSynchronize(b));
  // A non-blocking stream, after a synchronous copy, which waits for the blocking stream that
  // allocated.
  CHECK(cudaMallocAsync(&p, kBytes, blocking));
  unsigned long long seen = 0;
  CHECK(cudaMemcpy(&seen, total, sizeof seen, cudaMemcpyDeviceToHost));
  use(p, a, 30, total);
  CHECK(cudaFreeAsync(p, a));
  // Another stream, once a host function behind the allocation ran.
  CHECK(cudaMallocAsync(&p, kBytes, a));
  CHECK(cudaLaunchHostFunc(a, hostFunction, nullptr));
  while (!reached) {
  }
  use(p, b, 40, total);
  CHECK(cudaFreeAsync(p, b));
  CHECK(cudaStreamSynchronize(b));
  // Memory a freed allocation had, handed to another stream once the free is done.
  pairs(a, 50);
  CHECK(cudaStreamSynchronize(a));
  CHECK(cudaMallocAsync(&p, kBytes, b));
  use(p, b, 50, total);
  CHECK(cudaFreeAsync(p, b));
  // A kernel still using an allocation while the same stream frees it and allocates at its
  // address again and again, so that its index comes back (after 64 others) to allocations no
  // kernel sees, and a launch elsewhere takes what is pending then. (This kernel's bounds come
  // from its launch, so it does not read the index's entry again; that such an entry stays in
  // the stream is PendingUpdates::cancel's, unit-tested.)
  int* go = nullptr;
  CHECK(cudaHostAlloc(&go, sizeof *go, cudaHostAllocMapped));
  *go = 0;
  int* goOnDevice = nullptr;
  CHECK(cudaHostGetDevicePointer(&goOnDevice, go, 0));
  CHECK(cudaMallocAsync(&p, kBytes, a));
  fillAndSumWhenTold<<<64, 256, 0, a>>>(goOnDevice, p, kInts, 60, total);
  CHECK(cudaGetLastError());
  CHECK(cudaFreeAsync(p, a));
  pairs(a, 200);
  // (While `a` is held, `b` allocates where it freed last, and launches only kernels it launched
  // before: the pool could otherwise make it wait for memory `a` frees, and loading a kernel the
  // first time may wait for the device.)
  int* other = nullptr;
  CHECK(cudaMallocAsync(&other, kBytes, b));
  use(other, b, 65, total);
  CHECK(cudaStreamSynchronize(b));
  *reinterpret_cast<volatile int*>(go) = 1;
  CHECK(cudaFreeAsync(other, b));
  CHECK(cudaMallocAsync(&p, kBytes, a));
  use(p, a, 70, total);
  CHECK(cudaFreeAsync(p, a));
  CHECK(cudaStreamSynchronize(a));
  CHECK(cudaFreeHost(go));
  // A stream held by a host function, then an allocation in it: a launch on another stream,
  // which the host waits for before it lets the first go on, must not wait for that stream.
  CHECK(cudaLaunchHostFunc(a, holdStream, nullptr));
  CHECK(cudaMallocAsync(&p, kBytes, a));
  CHECK(cudaMallocAsync(&other, kBytes, b));
  use(other, b, 80, total);
  CHECK(cudaStreamSynchronize(b));
  release = true;
  use(p, a, 90, total);
  CHECK(cudaFreeAsync(p, a));
  CHECK(cudaFreeAsync(other, b));
  // More allocations pending at once than cucatch keeps (it enqueues them in batches), each then
  // used on its own stream.
  {
    constexpr int kMany = 300;
    int* many[kMany];
    for (auto& m : many) CHECK(cudaMallocAsync(&m, 4096, a));
    for (int k = 0; k < kMany; k += 37) {
      fillAndSum<<<1, 256, 0, a>>>(many[k], 1024, k, total);
    }
    CHECK(cudaGetLastError());
    for (auto& m : many) CHECK(cudaFreeAsync(m, a));
  }

  CHECK(cudaDeviceSynchronize());
  unsigned long long h = 0;
  CHECK(cudaMemcpy(&h, total, sizeof h, cudaMemcpyDeviceToHost));
  std::printf("total %llu (seen %llu)\n", h, seen);
  CHECK(cudaFree(total));
  return 0;
}
