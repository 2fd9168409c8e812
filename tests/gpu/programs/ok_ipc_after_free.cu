// cucatch-expect: clean
// Memory of another process, opened where this process freed allocations of its own: a child
// allocates, uses and frees buffers the size of its parent's, then opens the parent's buffer by
// a legacy IPC handle (cudaIpcOpenMemHandle) and a buffer of the parent's exportable pool
// (cudaMemPoolImportPointer), and reads and writes both in kernels. The driver may map the
// imports at the addresses the child freed (stderr says whether it did): nothing about the
// child's freed allocations may be said of them. torch.multiprocessing hands CUDA tensors to
// other processes this way.
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "common.h"

__global__ void fill(int* p, int n, int v) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) p[i] = v + i % 11;
}

__global__ void sumAndBump(int* p, int n, unsigned long long* total) {
  unsigned long long s = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    s += p[i];
    p[i] += 1;
  }
  atomicAdd(total, s);
}

constexpr int kInts = 1 << 20;  // 4 MiB
constexpr size_t kBytes = kInts * sizeof(int);

// What the parent hands the child: a legacy handle, and a pool's pointer export (the pool's
// file descriptor goes beside it as ancillary data).
struct Handoff {
  cudaIpcMemHandle_t legacy;
  cudaMemPoolPtrExportData pooled;
};

// One message of a Handoff with room for one file descriptor beside it.
struct HandoffMessage {
  iovec io;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  msghdr msg{};
  explicit HandoffMessage(Handoff& h) : io{&h, sizeof h} {
    msg.msg_iov = &io;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
  }
};

static void sendHandoff(int sock, Handoff h, int fd) {
  HandoffMessage m(h);
  cmsghdr* c = CMSG_FIRSTHDR(&m.msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  std::memcpy(CMSG_DATA(c), &fd, sizeof fd);
  if (sendmsg(sock, &m.msg, 0) != static_cast<ssize_t>(sizeof h)) std::exit(3);
}

static int receiveHandoff(int sock, Handoff& h) {
  HandoffMessage m(h);
  if (recvmsg(sock, &m.msg, MSG_WAITALL) != static_cast<ssize_t>(sizeof h)) std::exit(3);
  cmsghdr* c = CMSG_FIRSTHDR(&m.msg);
  if (!c || c->cmsg_type != SCM_RIGHTS) std::exit(3);
  int fd;
  std::memcpy(&fd, CMSG_DATA(c), sizeof fd);
  return fd;
}

static unsigned long long sumAndBumpOnce(int* p, unsigned long long* total) {
  CHECK(cudaMemset(total, 0, sizeof *total));
  sumAndBump<<<128, 256>>>(p, kInts, total);
  unsigned long long host = 0;
  CHECK(cudaMemcpy(&host, total, sizeof host, cudaMemcpyDeviceToHost));
  return host;
}

static int child(int sock) {
  unsigned long long* total = nullptr;
  CHECK(cudaMalloc(&total, sizeof *total));
  // Buffers of the imports' size, used and freed: their addresses are free for the driver again.
  std::vector<uintptr_t> freed;
  for (int round = 0; round < 4; ++round) {
    int* p = nullptr;
    if (round % 2 == 0) {
      CHECK(cudaMalloc(&p, kBytes));
    } else {
      CHECK(cudaMallocAsync(&p, kBytes, 0));
    }
    fill<<<128, 256>>>(p, kInts, round);
    std::printf("child: own buffer %d sums to %llu\n", round, sumAndBumpOnce(p, total));
    freed.push_back(reinterpret_cast<uintptr_t>(p) & 0xffffffffffffull);  // (cucatch's tag off)
    if (round % 2 == 0) {
      CHECK(cudaFree(p));
    } else {
      CHECK(cudaFreeAsync(p, 0));
    }
  }
  CHECK(cudaDeviceSynchronize());
  cudaMemPool_t ownPool;
  CHECK(cudaDeviceGetDefaultMemPool(&ownPool, 0));
  CHECK(cudaMemPoolTrimTo(ownPool, 0));

  Handoff h;
  int fd = receiveHandoff(sock, h);
  auto where = [&](const void* q) {
    uintptr_t a = reinterpret_cast<uintptr_t>(q);
    for (uintptr_t f : freed)
      if (a < f + kBytes && f < a + kBytes) return "on memory this process freed";
    return "elsewhere";
  };

  int* legacy = nullptr;
  CHECK(cudaIpcOpenMemHandle(reinterpret_cast<void**>(&legacy), h.legacy, cudaIpcMemLazyEnablePeerAccess));
  std::fprintf(stderr, "child: the legacy import lies %s\n", where(legacy));
  std::printf("child: legacy import sums to %llu\n", sumAndBumpOnce(legacy, total));
  CHECK(cudaIpcCloseMemHandle(legacy));

  cudaMemPool_t imported;
  CHECK(cudaMemPoolImportFromShareableHandle(&imported, reinterpret_cast<void*>(static_cast<intptr_t>(fd)),
                                             cudaMemHandleTypePosixFileDescriptor, 0));
  int* pooled = nullptr;
  CHECK(cudaMemPoolImportPointer(reinterpret_cast<void**>(&pooled), imported, &h.pooled));
  std::fprintf(stderr, "child: the pool import lies %s\n", where(pooled));
  std::printf("child: pool import sums to %llu\n", sumAndBumpOnce(pooled, total));
  CHECK(cudaFree(pooled));  // (an imported pointer is freed before its exporter frees it)
  CHECK(cudaMemPoolDestroy(imported));
  CHECK(cudaFree(total));
  std::fflush(stdout);
  char done = 1;
  if (write(sock, &done, 1) != 1) return 3;
  return 0;
}

// Where the machine cannot share memory between processes (no file descriptor handles for
// pools, legacy IPC refused), the program says so and is skipped (exit 77).
static int skip(int sock, pid_t pid, const char* why) {
  std::printf("skipped: %s\n", why);
  close(sock);  // (the child, waiting for the handoff, ends)
  waitpid(pid, nullptr, 0);
  return 77;
}

static int parent(int sock, pid_t pid) {
  int handleTypes = 0;
  CHECK(cudaDeviceGetAttribute(&handleTypes, cudaDevAttrMemoryPoolSupportedHandleTypes, 0));
  if (!(handleTypes & cudaMemHandleTypePosixFileDescriptor)) return skip(sock, pid, "no file descriptor handles for pools");
  int* legacy = nullptr;
  CHECK(cudaMalloc(&legacy, kBytes));
  fill<<<128, 256>>>(legacy, kInts, 100);

  cudaMemPool_t pool = exportablePool();
  int* pooled = nullptr;
  CHECK(cudaMallocFromPoolAsync(reinterpret_cast<void**>(&pooled), kBytes, pool, 0));
  fill<<<128, 256>>>(pooled, kInts, 200);
  CHECK(cudaDeviceSynchronize());

  Handoff h;
  if (cudaError_t e = cudaIpcGetMemHandle(&h.legacy, legacy); e == cudaErrorNotSupported) {
    return skip(sock, pid, "no legacy IPC");
  } else {
    CHECK(e);
  }
  int fd = -1;  // (the pool's handle first, then the pointer: the other order is refused)
  CHECK(cudaMemPoolExportToShareableHandle(&fd, pool, cudaMemHandleTypePosixFileDescriptor, 0));
  CHECK(cudaMemPoolExportPointer(&h.pooled, pooled));
  sendHandoff(sock, h, fd);
  char done = 0;
  if (read(sock, &done, 1) != 1) return 3;  // (the child has let go of both)
  int status = 0;
  waitpid(pid, &status, 0);
  std::printf("child ended %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);

  unsigned long long* total = nullptr;
  CHECK(cudaMalloc(&total, sizeof *total));
  std::printf("parent: legacy buffer now sums to %llu\n", sumAndBumpOnce(legacy, total));
  std::printf("parent: pool buffer now sums to %llu\n", sumAndBumpOnce(pooled, total));
  CHECK(cudaFreeAsync(pooled, 0));
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemPoolDestroy(pool));
  CHECK(cudaFree(legacy));
  CHECK(cudaFree(total));
  close(fd);
  return 0;
}

int main() {
  // Both processes come to CUDA after the fork: a child may not use a parent's CUDA state.
  int socks[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, socks) != 0) return 3;
  std::fflush(stdout);
  pid_t pid = fork();
  if (pid < 0) return 3;
  if (pid == 0) {
    close(socks[0]);
    int rc = child(socks[1]);
    std::fflush(stdout);
    std::exit(rc);  // (its exit handlers run, cucatch's among them)
  }
  close(socks[1]);
  return parent(socks[0], pid);
}
