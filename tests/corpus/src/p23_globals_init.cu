// corpus-nvrtc: 124 118
__device__ int table_a[4] = {10, 20, 30, 40};
__device__ int table_b[3] = {-1, -2, -3};
__device__ int* tables[2] = {table_a, table_b};
__device__ int* interior = &table_a[2];
__device__ const char* names[2] = {"alpha", "beta"};
__device__ double weights[3] = {0.25, 0.5, 1e-300};
__device__ unsigned long long big = 0xfedcba9876543210ull;
__global__ void read_tables(int* out, int which) {
  out[threadIdx.x] = tables[which & 1][threadIdx.x & 1] + *interior + names[which & 1][0] + (int)(weights[1] * 4) + (int)(big & 7);
}
