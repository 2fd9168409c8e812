// corpus-nvrtc: 124 118
struct Node { int value; Node* next; };
__global__ void chase(Node* const* heads, int* out, int hops) {
  Node* n = heads[blockIdx.x * blockDim.x + threadIdx.x];
  int s = 0;
  for (int h = 0; h < hops && n; ++h) { s += n->value; n = n->next; }
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
__global__ void indirect(float** rows, const int* idx, float* out) {
  out[threadIdx.x] = rows[idx[threadIdx.x]][threadIdx.x];
}
