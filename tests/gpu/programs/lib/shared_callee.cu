// The other compilation unit of bug_shared_callee_rdc: a device function other units call.
__device__ void fill_row(float* row, int n, float v) {
  for (int i = 0; i <= n; ++i) row[i] = v + i;  // cucatch-bug-line
}
