// corpus-nvrtc: 124 118
__global__ void hopper_only(float* d) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile("wgmma.fence.sync.aligned;");
  asm volatile("setmaxnreg.inc.sync.aligned.u32 240;");
#endif
  d[threadIdx.x] += 1.0f;
}
