__global__ void dynamic_local(const int* sizes, float* out) {
  int n = sizes[threadIdx.x] & 31;
  float* scratch = (float*)__builtin_alloca(n * sizeof(float) + 4);
  for (int i = 0; i < n; ++i) scratch[i] = i * 0.5f;
  float s = 0;
  for (int i = 0; i < n; ++i) s += scratch[(i * 7) % n];
  out[threadIdx.x] = s;
}
