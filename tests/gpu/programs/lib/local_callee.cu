// The other compilation unit of bug_local_callee_rdc: a device function other units call with a
// pointer into their local arrays.
__device__ void prefix_sums(int* v, int n) {
  for (int i = 1; i <= n; ++i) v[i] += v[i - 1];  // cucatch-bug-line
}
