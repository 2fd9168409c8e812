// cucatch-expect: clean
// A process that forks after it has used the GPU: the child does host work only and ends with
// exit() (its exit handlers run, cucatch's among them, in a process whose CUDA state is a copy
// it must not use), one child ends with _exit(), and the parent goes on with the GPU. Python's
// multiprocessing (fork) after `import torch` does this. The output is the plain build's.
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"

__global__ void scale(int* p, int n, int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = p[i] * k + i;
}

static long long total(const int* d, int n) {
  int* h = static_cast<int*>(std::malloc(n * sizeof(int)));
  CHECK(cudaMemcpy(h, d, n * sizeof(int), cudaMemcpyDeviceToHost));
  long long s = 0;
  for (int i = 0; i < n; ++i) s += h[i];
  std::free(h);
  return s;
}

int main() {
  constexpr int n = 1 << 16;
  int* p = nullptr;
  CHECK(cudaMalloc(&p, n * sizeof(int)));
  CHECK(cudaMemset(p, 0, n * sizeof(int)));
  scale<<<n / 256, 256>>>(p, n, 3);
  CHECK(cudaDeviceSynchronize());
  std::printf("before fork %lld\n", total(p, n));
  for (int child = 0; child < 2; ++child) {
    std::fflush(stdout);  // (else a child flushes the parent's buffered lines again)
    pid_t pid = fork();
    if (pid < 0) return 2;
    if (pid == 0) {
      long long s = 0;
      for (int i = 0; i < 1000000; ++i) s += i % 7;
      std::printf("child %d %lld\n", child, s);
      std::fflush(stdout);
      if (child == 0) std::exit(0);
      _exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    std::printf("child %d ended %d\n", child, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  }
  scale<<<n / 256, 256>>>(p, n, 5);
  CHECK(cudaDeviceSynchronize());
  std::printf("after fork %lld\n", total(p, n));
  CHECK(cudaFree(p));
  return 0;
}
