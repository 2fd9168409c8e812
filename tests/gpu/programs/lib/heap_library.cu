// Device code of a static library built by plain nvcc (-rdc -lib), linked into a program that
// cucatch-nvcc builds (ok_heap_pointer_to_library_kernel.cu): its kernel is not instrumented and
// must get a raw pointer, here one into a block a kernel allocated on the device heap.
__global__ void library_sum(const int* p, int n, int* out) {
  int s = 0;
  for (int i = threadIdx.x; i < n; i += blockDim.x) s += p[i];
  atomicAdd(out, s);
}
void launch_library_sum(const int* p, int n, int* out) { library_sum<<<1, 64>>>(p, n, out); }
