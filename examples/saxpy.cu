// The bundled example: a saxpy kernel and a kernel that reads through a pointer loaded from
// memory, the two access patterns cucatch's checks are built around.
__global__ void saxpy(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

struct Table {
  float* rows[4];
};

__global__ void gather(const Table* t, const int* which, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = t->rows[which[i] & 3][i];
}
