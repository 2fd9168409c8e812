#include <cstdio>
void launchFill(int* p, int n, int v);
int main() {
  int* p;
  cudaMalloc(&p, 512 * sizeof(int));
  launchFill(p, 512, 7);
  printf("%s\n", cudaGetErrorString(cudaDeviceSynchronize()));
  return 0;
}
