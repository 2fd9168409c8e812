// corpus-nvrtc: 124 118
__global__ void per_thread_buffers(int* out, int n) {
  int* buf = (int*)malloc(n * sizeof(int));
  if (!buf) { out[threadIdx.x] = -1; return; }
  for (int i = 0; i < n; ++i) buf[i] = i * threadIdx.x;
  int s = 0;
  for (int i = 0; i < n; ++i) s += buf[i];
  out[threadIdx.x] = s;
  free(buf);
}
