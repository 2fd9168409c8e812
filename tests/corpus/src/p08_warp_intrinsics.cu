// corpus-nvrtc: 124 118
__global__ void warp_ops(const int* in, int* out) {
  int v = in[threadIdx.x];
  unsigned ballot = __ballot_sync(0xffffffffu, v > 0);
  int up = __shfl_up_sync(0xffffffffu, v, 1);
  int x = __shfl_xor_sync(0xffffffffu, v, 16);
  unsigned match = __match_any_sync(0xffffffffu, v);
  int any = __any_sync(0xffffffffu, v == 7);
  int r = 0;
#if __CUDA_ARCH__ >= 800
  r = __reduce_add_sync(0xffffffffu, v);
#endif
  out[threadIdx.x] = (int)ballot + up + x + (int)match + any + r + __popc(ballot) + __clz(v) + __brev(v);
}
