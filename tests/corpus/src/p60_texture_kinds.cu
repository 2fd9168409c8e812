// corpus-nvrtc: 124 118
// Texture and surface objects of many kinds: 1D/2D/3D, layered, cubemap, explicit LOD and
// gradients, gathers (tld4), integer fetches, and 1D/3D/layered surface reads and writes.
// Through NVRTC 11.8 (the last toolkit with texture references) the file also declares legacy
// texture/surface references, so that PTX has .texref/.surfref variables.
#if defined(__CUDACC_RTC__) && __CUDACC_VER_MAJOR__ < 12
#define LEGACY_REFS 1
texture<float, 2, cudaReadModeElementType> legacy_tex2d;
texture<uchar4, 1, cudaReadModeNormalizedFloat> legacy_tex1d;
surface<void, 2> legacy_surf2d;
#endif

__global__ void sample_kinds(cudaTextureObject_t t1, cudaTextureObject_t t2, cudaTextureObject_t t3,
                             cudaTextureObject_t layered, cudaTextureObject_t cube, cudaTextureObject_t ints,
                             float* out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float u = (x + 0.5f) / w, v = (y + 0.5f) / h;
  float a = tex1D<float>(t1, u) + tex2D<float>(t2, u, v) + tex3D<float>(t3, u, v, 0.5f);
  float b = tex2DLayered<float>(layered, u, v, y & 3) + texCubemap<float>(cube, u * 2 - 1, v * 2 - 1, 1.f);
  float c = tex2DLod<float>(t2, u, v, 1.5f) + tex2DGrad<float>(t2, u, v, make_float2(0.01f, 0), make_float2(0, 0.01f));
  float4 g = tex2Dgather<float4>(t2, u, v, 1);
  int4 iv = tex1Dfetch<int4>(ints, x);
  float d = g.x + g.y + g.z + g.w + (float)(iv.x ^ iv.w);
#ifdef LEGACY_REFS
  d += tex2D(legacy_tex2d, u, v) + tex1Dfetch(legacy_tex1d, x).x;
  float r;
  surf2Dread(&r, legacy_surf2d, x * 4, y);
  surf2Dwrite(r + d, legacy_surf2d, x * 4, y);
#endif
  out[y * w + x] = a + b + c + d;
}

__global__ void surface_kinds(cudaSurfaceObject_t s1, cudaSurfaceObject_t s3, cudaSurfaceObject_t sl, int w) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x >= w) return;
  float4 p = surf1Dread<float4>(s1, x * 16, cudaBoundaryModeClamp);
  surf1Dwrite(make_float4(p.w, p.z, p.y, p.x), s1, x * 16);
  unsigned short q = surf3Dread<unsigned short>(s3, x * 2, 1, 2, cudaBoundaryModeZero);
  surf3Dwrite<unsigned short>(q + 1, s3, x * 2, 1, 2);
  uchar4 c = surf2DLayeredread<uchar4>(sl, x * 4, 0, 3);
  surf2DLayeredwrite(make_uchar4(c.w, c.z, c.y, c.x), sl, x * 4, 0, 3, cudaBoundaryModeTrap);
}
