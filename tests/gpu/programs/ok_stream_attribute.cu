// cucatch-expect: clean
// cucatch-expect-tagged
// An L2 access policy window names a device address: the driver must get it raw (it refused
// the tagged one with cudaErrorInvalidValue), and reading the attribute back gives the
// program's own pointer. Also as a launch attribute (cudaLaunchKernelEx).
#include "common.h"
__global__ void touch(float* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] += 1.0f;
}
int main() {
  const int n = 1 << 20;
  float* p;
  CHECK(cudaMalloc(&p, n * 4));
  CHECK(cudaMemset(p, 0, n * 4));
  sayWhetherTagged(p);
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  cudaStreamAttrValue window{};
  window.accessPolicyWindow.base_ptr = p;
  window.accessPolicyWindow.num_bytes = 1 << 20;
  window.accessPolicyWindow.hitRatio = 0.6f;
  window.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
  window.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
  CHECK(cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &window));
  cudaStreamAttrValue back{};
  CHECK(cudaStreamGetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &back));
  std::printf("window reads back as the program's pointer: %s\n", back.accessPolicyWindow.base_ptr == p ? "yes" : "no");
  touch<<<n / 256, 256, 0, s>>>(p, n);
  CHECK(cudaGetLastError());
  cudaLaunchConfig_t config{};
  config.gridDim = n / 256;
  config.blockDim = 256;
  config.stream = s;
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeAccessPolicyWindow;
  attribute.val.accessPolicyWindow = window.accessPolicyWindow;
  config.attrs = &attribute;
  config.numAttrs = 1;
  CHECK(cudaLaunchKernelEx(&config, touch, p, n));
  CHECK(cudaStreamSynchronize(s));
  float h[4];
  CHECK(cudaMemcpy(h, p + n - 4, sizeof h, cudaMemcpyDeviceToHost));
  std::printf("%.0f %.0f %.0f %.0f\n", h[0], h[1], h[2], h[3]);
}
