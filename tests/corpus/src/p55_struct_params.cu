// corpus-nvrtc: 124 118
// Kernel and function parameters of many shapes: big structs by value, __grid_constant__,
// unions, bit-fields, aligned structs, small scalar types, pointers to pointers, and
// non-inlined functions taking and returning aggregates (.param .align N .b8 x[M]).
struct Matrix4 { float m[4][4]; };
struct alignas(16) Particle { float pos[3]; float mass; int id; short flags; char tag; };
union Bits { float f; unsigned u; unsigned char b[4]; };
struct Packed { unsigned kind : 3; unsigned level : 5; unsigned count : 12; int delta : 12; };
struct Config { Matrix4 transform; Particle proto; Bits key; Packed packed; double scale; long long seed; };
struct Empty {};

__device__ __noinline__ Matrix4 multiply(Matrix4 a, const Matrix4& b) {
  Matrix4 r;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      float s = 0.f;
      for (int k = 0; k < 4; ++k) s += a.m[i][k] * b.m[k][j];
      r.m[i][j] = s;
    }
  return r;
}

__device__ __noinline__ Particle advance(Particle p, float dt, Packed info) {
  for (int k = 0; k < 3; ++k) p.pos[k] += dt * (float)(info.delta + (int)info.level);
  p.flags ^= (short)info.kind;
  p.tag = (char)(p.tag + info.count);
  return p;
}

__global__ void by_value(Config cfg, Particle* ps, Matrix4* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Particle p = advance(ps[i], (float)cfg.scale, cfg.packed);
  p.id = (int)(cfg.seed ^ i) + (int)cfg.key.b[i & 3];
  ps[i] = p;
  out[i] = multiply(cfg.transform, out[i]);
}

__global__ void grid_constant_param(const __grid_constant__ Config cfg, float* out) {
  const Matrix4* t = &cfg.transform;    // taking the address keeps the parameter in param space
  out[threadIdx.x] = t->m[threadIdx.x & 3][(threadIdx.x >> 2) & 3] * cfg.proto.mass + cfg.key.f;
}

__global__ void small_scalars(bool flag, char c, unsigned char uc, short s, unsigned short us, long long ll,
                              unsigned long long ull, float f, double d, Empty e, int** pp, const char* const* names,
                              int* out) {
  int v = flag ? c + uc : s + us;
  v += (int)(ll >> 3) + (int)(ull & 0xffff) + (int)f + (int)d + names[threadIdx.x & 1][0];
  (void)e;
  pp[threadIdx.x & 3][threadIdx.x] = v;
  out[threadIdx.x] = *pp[0];
}

template <typename... Ts>
__global__ void variadic(int* out, Ts... args) {
  long long sum = (0 + ... + (long long)args);
  out[threadIdx.x] = (int)sum + (int)sizeof...(Ts);
}
template __global__ void variadic<int, char, double, float, unsigned long long>(int*, int, char, double, float, unsigned long long);
template __global__ void variadic<>(int*);
