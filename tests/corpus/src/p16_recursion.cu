// corpus-nvrtc: 124 118
__device__ int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
__device__ int depth(const int* tree, int node) {
  if (node < 0) return 0;
  int l = depth(tree, tree[2 * node]), r = depth(tree, tree[2 * node + 1]);
  return 1 + (l > r ? l : r);
}
__global__ void recurse(const int* tree, int* out) {
  out[threadIdx.x] = fib(threadIdx.x % 12) + depth(tree, 0);
}
