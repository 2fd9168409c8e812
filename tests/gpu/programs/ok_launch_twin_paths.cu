// cucatch-expect: clean
// cucatch-link: -lcuda
// cucatch-expect-launch-twin: scale_into (cuLaunchKernel) x4
// cucatch-expect-launch-twin: scale_into (cuLaunchKernelEx) x1
// cucatch-expect-launch-twin: scale_into (cuLaunchCooperativeKernel) x1
// cucatch-expect-launch-twin: big_shared (cuLaunchKernel) x2
// cucatch-expect-launch-twin: cluster_shape (cuLaunchKernel) x1
// cucatch-jit-env: CUCATCH_TAGS=1
// Launch twins (instrument/LaunchMetadata.h): a kernel with pointer parameters launched every way
// the runtime may or may not rewrite, each with correct accesses, must behave as plain: through
// its twin (<<<>>>, cudaLaunchKernelEx, a cooperative launch), and through the kernel itself (a
// graph made by stream capture, packed `extra` arguments through the driver API, a device-heap
// block as an argument), with a null and a host-mapped pointer, a buffer freed and allocated
// again between launches, and attributes the program sets on the kernel, which the twin must
// take too: more dynamic shared memory than the default, set after the kernel's first launch,
// and a cluster shape (a twin launched without it would see clusters of one block). scale_into's
// twin runs for four of its <<<>>> launches, the kernel itself for the captured, packed and heap ones
// (JIT mode with tags on: with them off, the device-heap block's pointer is untagged, and its bounds
// the host's as the device's, so the twin runs for it too).
#include <cooperative_groups.h>
#include <cuda.h>

#include "common.h"
namespace cg = cooperative_groups;

__global__ void scale_into(float* out, const float* in, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && in) out[i] = s * in[i];
}
__global__ void big_shared(float* out, int n) {
  extern __shared__ float tile[];
  int i = threadIdx.x;
  tile[i] = float(i);
  __syncthreads();
  if (i < n) out[i] = tile[n - 1 - i];
}
__global__ void cluster_shape(int* out) {
  cg::cluster_group cluster = cg::this_cluster();
  cluster.sync();
  if (threadIdx.x == 0) out[blockIdx.x] = int(cluster.num_blocks()) * 100 + int(cluster.block_rank());
}
__global__ void heap_make(float** keep, int n) {
  float* block = static_cast<float*>(malloc(n * sizeof(float)));
  for (int i = 0; block && i < n; ++i) block[i] = float(i);
  *keep = block;
}
__global__ void heap_drop(float** keep) { free(*keep); }

static double sum(const float* d, int n) {
  float h[1024];
  CHECK(cudaMemcpy(h, d, n * sizeof(float), cudaMemcpyDeviceToHost));
  double s = 0;
  for (int i = 0; i < n; ++i) s += h[i];
  return s;
}

int main() {
  const int n = 1000;
  float *in, *out;
  CHECK(cudaMalloc(&in, n * sizeof(float)));
  CHECK(cudaMalloc(&out, n * sizeof(float)));
  float h[n];
  for (int i = 0; i < n; ++i) h[i] = float(i % 17);
  CHECK(cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice));

  scale_into<<<4, 256>>>(out, in, 2.0f, n);
  std::printf("triple chevrons: %.0f\n", sum(out, n));

  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(8);
  config.blockDim = dim3(128);
  CHECK(cudaLaunchKernelEx(&config, scale_into, out, static_cast<const float*>(in), 3.0f, n));
  std::printf("cudaLaunchKernelEx: %.0f\n", sum(out, n));

  int cooperative = 0;
  CHECK(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, 0));
  if (cooperative) {
    float s = 4.0f;
    int count = n;
    const float* cin = in;
    void* args[] = {&out, &cin, &s, &count};
    CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<void*>(scale_into), dim3(4), dim3(256), args, 0, 0));
  }
  std::printf("cooperative: %.0f\n", sum(out, n));

  // A stream being captured gets the kernel itself: the graph replays the arguments it was made
  // with, and bounds taken at capture could be stale by then.
  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  scale_into<<<4, 256, 0, stream>>>(out, in, 5.0f, n);
  CHECK(cudaStreamEndCapture(stream, &graph));
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  CHECK(cudaGraphLaunch(exec, stream));
  CHECK(cudaStreamSynchronize(stream));
  std::printf("graph: %.0f\n", sum(out, n));

  // Packed arguments through the driver API: the kernel itself.
  cudaFunction_t function;
  CHECK(cudaGetFuncBySymbol(&function, reinterpret_cast<void*>(scale_into)));
  struct {
    float* out;
    const float* in;
    float s;
    int n;
  } packed = {out, in, 6.0f, n};
  size_t bytes = sizeof packed;
  void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &packed, CU_LAUNCH_PARAM_BUFFER_SIZE, &bytes, CU_LAUNCH_PARAM_END};
  if (cuLaunchKernel(reinterpret_cast<CUfunction>(function), 4, 1, 1, 256, 1, 1, 0, 0, nullptr, extra) != CUDA_SUCCESS) {
    std::fprintf(stderr, "cuLaunchKernel with packed arguments failed\n");
    return 2;
  }
  std::printf("packed: %.0f\n", sum(out, n));

  // A device-heap block as an argument: its bounds are the device's to know.
  float** keep;
  float* block;
  CHECK(cudaMalloc(&keep, sizeof(float*)));
  heap_make<<<1, 1>>>(keep, n);
  CHECK(cudaMemcpy(&block, keep, sizeof block, cudaMemcpyDeviceToHost));
  if (block) scale_into<<<4, 256>>>(out, block, 7.0f, n);
  heap_drop<<<1, 1>>>(keep);
  std::printf("heap block: %.0f\n", sum(out, n));

  // A null input (the kernel tests it) and a host-mapped output.
  float* mapped;
  CHECK(cudaHostAlloc(&mapped, n * sizeof(float), cudaHostAllocMapped));
  float* mappedDevice;
  CHECK(cudaHostGetDevicePointer(&mappedDevice, mapped, 0));
  scale_into<<<4, 256>>>(out, nullptr, 1.0f, n);
  scale_into<<<4, 256>>>(mappedDevice, in, 8.0f, n);
  CHECK(cudaDeviceSynchronize());
  double m = 0;
  for (int i = 0; i < n; ++i) m += mapped[i];
  std::printf("mapped: %.0f\n", m);

  // More dynamic shared memory than the default 48 KiB, allowed by an attribute set on the kernel
  // after its first launch.
  big_shared<<<1, 256, 1024>>>(out, 200);
  std::printf("dynamic shared memory: %.0f\n", sum(out, 200));
  const int shared = 64 * 1024;
  CHECK(cudaFuncSetAttribute(big_shared, cudaFuncAttributeMaxDynamicSharedMemorySize, shared));
  big_shared<<<1, 256, shared>>>(out, 200);
  std::printf("large dynamic shared memory: %.0f\n", sum(out, 200));

  // Clusters of two blocks, set on the kernel at run time.
  int* shapes;
  CHECK(cudaMalloc(&shapes, 4 * sizeof(int)));
  CHECK(cudaFuncSetAttribute(cluster_shape, cudaFuncAttributeRequiredClusterWidth, 2));
  CHECK(cudaFuncSetAttribute(cluster_shape, cudaFuncAttributeRequiredClusterHeight, 1));
  CHECK(cudaFuncSetAttribute(cluster_shape, cudaFuncAttributeRequiredClusterDepth, 1));
  cluster_shape<<<4, 32>>>(shapes);
  int shape[4];
  CHECK(cudaMemcpy(shape, shapes, sizeof shape, cudaMemcpyDeviceToHost));
  std::printf("clusters: %d %d %d %d\n", shape[0], shape[1], shape[2], shape[3]);
  CHECK(cudaFree(shapes));

  // The input freed and allocated again, larger, between two launches.
  CHECK(cudaFree(in));
  CHECK(cudaMalloc(&in, 2 * n * sizeof(float)));
  CHECK(cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice));
  scale_into<<<8, 256>>>(out, in, 9.0f, n);
  std::printf("after reallocation: %.0f\n", sum(out, n));

  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(graph));
  CHECK(cudaFree(in));
  CHECK(cudaFree(out));
  CHECK(cudaFree(keep));
  CHECK(cudaFreeHost(mapped));
}
