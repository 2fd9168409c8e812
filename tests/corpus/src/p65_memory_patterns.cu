// corpus-nvrtc: 124 118
// Memory-access shapes an instrumenting rewriter must handle: pointers loaded from memory and
// from shared tables, selects between arrays, pointer increments with mixed strides, byte
// pointers reinterpreted as wider types, gathers/scatters through index arrays, an off-by-one
// bound, stack arrays of pointers indexed dynamically, and pointer comparisons/differences.
struct Span { float* begin; float* end; };

__global__ void pointer_tables(float** tables, const int* which, Span* spans, float* out, int n) {
  __shared__ float* shared_ptrs[4];
  if (threadIdx.x < 4) shared_ptrs[threadIdx.x] = tables[threadIdx.x];
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float* local_ptrs[4] = {tables[0] + i, tables[1] + 2 * i, shared_ptrs[2], out};
  float* p = local_ptrs[which[i] & 3];
  float* q = shared_ptrs[(which[i] >> 2) & 3] + (i & 15);
  Span s = spans[i & 63];
  float acc = 0.f;
  for (float* it = s.begin; it < s.end; it += 3) acc += *it;
  ptrdiff_t len = s.end - s.begin;
  out[i] = *p + *q + acc + (float)len + (p < q ? 1.f : 0.f);
}

__global__ void reinterpret_bytes(const unsigned char* bytes, int* words, long long* dwords, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const unsigned char* base = bytes + i * 16;
  int4 v = *reinterpret_cast<const int4*>(base);                   // 16-byte aligned vector load
  int2 w = *reinterpret_cast<const int2*>(base + 8);
  unsigned short h = *reinterpret_cast<const unsigned short*>(base + 2);
  char c = (char)base[15];
  words[i] = v.x ^ v.y ^ v.z ^ v.w ^ w.x ^ h ^ c;
  reinterpret_cast<int2*>(dwords)[i] = make_int2(w.y, v.x);
  *reinterpret_cast<short*>(reinterpret_cast<char*>(words) + 4 * n + 2 * i) = (short)h;
}

__global__ void gather_scatter(const float* src, const int* gidx, const int* sidx, float* dst, int n, int m) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > n) return;                       // off by one: i == n reads gidx[n]
  int g = gidx[i], s = sidx[i];
  float v = src[g] + src[(g + 1) % m];
  dst[s] = v;
  atomicAdd(&dst[m + (s & 255)], v);
}

__global__ void strided_walk(const double* a, double* b, int rows, int cols, size_t pitch_bytes) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= cols) return;
  const char* rp = reinterpret_cast<const char*>(a) + c * sizeof(double);
  char* wp = reinterpret_cast<char*>(b) + c * sizeof(double);
  double run = 0.0;
  for (int r = 0; r < rows; ++r, rp += pitch_bytes, wp += pitch_bytes) {
    run += *reinterpret_cast<const double*>(rp);
    *reinterpret_cast<double*>(wp) = run;
  }
  double* last = reinterpret_cast<double*>(wp - pitch_bytes);
  last[0] += (double)(rp - reinterpret_cast<const char*>(a));
}

__device__ __noinline__ float* choose(float* a, float* b, int k) { return (k & 1) ? a + k : b - k; }

__global__ void select_and_call(float* a, float* b, const int* k, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float* p = choose(a + n, b + n, k[i]);
  float* r = k[i] > 0 ? a : (k[i] < 0 ? b : out);
  out[i] = p[0] + r[i];
}
