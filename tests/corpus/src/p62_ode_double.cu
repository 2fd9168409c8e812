// corpus-nvrtc: 124 118
// Double precision: an RK4 integrator for the Lorenz system per thread, Newton iterations,
// Kahan summation, double shuffles and atomics, and double2 vector memory traffic.
struct State { double x, y, z; };

__device__ State lorenz(const State& s, double sigma, double rho, double beta) {
  return {sigma * (s.y - s.x), s.x * (rho - s.z) - s.y, s.x * s.y - beta * s.z};
}
__device__ State axpy(const State& a, double h, const State& d) { return {a.x + h * d.x, a.y + h * d.y, a.z + h * d.z}; }

__global__ void rk4_lorenz(const double2* init, double2* result, double* energy, int steps, double dt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  double2 p = init[i];
  State s{p.x, p.y, 25.0};
  for (int k = 0; k < steps; ++k) {
    State k1 = lorenz(s, 10.0, 28.0, 8.0 / 3.0);
    State k2 = lorenz(axpy(s, dt * 0.5, k1), 10.0, 28.0, 8.0 / 3.0);
    State k3 = lorenz(axpy(s, dt * 0.5, k2), 10.0, 28.0, 8.0 / 3.0);
    State k4 = lorenz(axpy(s, dt, k3), 10.0, 28.0, 8.0 / 3.0);
    s.x += dt / 6.0 * (k1.x + 2.0 * k2.x + 2.0 * k3.x + k4.x);
    s.y += dt / 6.0 * (k1.y + 2.0 * k2.y + 2.0 * k3.y + k4.y);
    s.z += dt / 6.0 * (k1.z + 2.0 * k2.z + 2.0 * k3.z + k4.z);
  }
  result[i] = make_double2(s.x, s.y);
  double e = s.x * s.x + s.y * s.y + s.z * s.z;
  for (int off = 16; off > 0; off >>= 1) e += __shfl_down_sync(0xffffffffu, e, off);
  if ((threadIdx.x & 31) == 0) atomicAdd(energy, e);
}

__global__ void newton_roots(const double* a, double* root, int* iters, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double c = a[i], x = c > 1.0 ? c : 1.0;
  int it = 0;
  for (; it < 64; ++it) {   // cube root of c
    double fx = fma(x, x * x, -c), dfx = 3.0 * x * x;
    double nx = x - fx / dfx;
    if (fabs(nx - x) <= 1e-15 * fabs(nx)) { x = nx; break; }
    x = nx;
  }
  root[i] = x + cbrt(c) * 0.0 + ldexp(1.0, -60) + frexp(c, &iters[n + i]);
  iters[i] = it;
}

__global__ void kahan_sum(const double* v, double* out, long long n) {
  double sum = 0.0, comp = 0.0;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    double y = v[i] - comp;
    double t = sum + y;
    comp = (t - sum) - y;
    sum = t;
  }
  __shared__ double partial[256];
  partial[threadIdx.x] = sum - comp;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = partial[0] + 1e-300 * 0x1p-20 + 6.02214076e23;
}
