// corpus-archs: sm_80 sm_90a sm_100a
// Bindless textures and surfaces: tex1Dfetch, tex2D / tex3D / layered / cubemap
// fetches with normalised coordinates, tex2DLod / tex2DGrad, tex2Dgather,
// surf2Dread / surf2Dwrite / surf3D, and texture-object queries.
#include <cuda_fp16.h>

__global__ void bilinear_resize(cudaTextureObject_t src, float* dst, int out_w, int out_h)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= out_w || y >= out_h) return;
  const float u = (x + 0.5f) / out_w, v = (y + 0.5f) / out_h;
  dst[y * out_w + x] = tex2D<float>(src, u, v);
}

__global__ void rgba_filters(cudaTextureObject_t rgba, cudaTextureObject_t lut1d, float4* out, int w, int h, float lod)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  const float u = (x + 0.5f) / w, v = (y + 0.5f) / h;
  float4 c = tex2DLod<float4>(rgba, u, v, lod);
  const float4 g = tex2DGrad<float4>(rgba, u, v, make_float2(1.f / w, 0.f), make_float2(0.f, 1.f / h));
  const float4 r4 = tex2Dgather<float4>(rgba, u, v, 0);
  const float lum = 0.299f * c.x + 0.587f * c.y + 0.114f * c.z;
  const float mapped = tex1D<float>(lut1d, lum);
  c.x = mapped * c.x + 0.1f * (g.x + r4.x + r4.y + r4.z + r4.w);
  out[y * w + x] = c;
}

__global__ void linear_fetch(cudaTextureObject_t lin, cudaTextureObject_t lin_u8, float* out, int n)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float4 a = tex1Dfetch<float4>(lin, i);
  const uchar4 b = tex1Dfetch<uchar4>(lin_u8, i);
  const int2 c = tex1Dfetch<int2>(lin, i + n);
  out[i] = a.x + a.y + a.z + a.w + b.x + b.w + (float) (c.x ^ c.y);
}

__global__ void volume_ops(cudaTextureObject_t vol, cudaTextureObject_t layered, cudaTextureObject_t cube, float* out,
                           int w, int h, int d)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y, z = blockIdx.z;
  if (x >= w || y >= h || z >= d) return;
  const float u = (x + 0.5f) / w, v = (y + 0.5f) / h, s = (z + 0.5f) / d;
  float r = tex3D<float>(vol, u, v, s);
  r += tex2DLayered<float>(layered, u, v, z);
  r += texCubemap<float>(cube, u * 2.f - 1.f, v * 2.f - 1.f, 1.f);
  r += tex1DLayered<float>(layered, u, z);
  out[(z * h + y) * w + x] = r;
}

__global__ void half_texture(cudaTextureObject_t t, __half* out, int w, int h)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  const float v = tex2D<float>(t, (float) x, (float) y); // unnormalised, half storage
  out[y * w + x] = __float2half(v);
}

// Surface read-modify-write: exponential decay applied in place.
__global__ void surface_decay(cudaSurfaceObject_t surf, int w, int h, float k)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float v;
  surf2Dread(&v, surf, x * (int) sizeof(float), y);
  surf2Dwrite(v * k, surf, x * (int) sizeof(float), y);
}

__global__ void surface_formats(cudaSurfaceObject_t s_u8x4, cudaSurfaceObject_t s_vol, cudaSurfaceObject_t s_layered,
                                int w, int h)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  uchar4 p = surf2Dread<uchar4>(s_u8x4, x * 4, y, cudaBoundaryModeClamp);
  p = make_uchar4(255 - p.x, 255 - p.y, 255 - p.z, p.w);
  surf2Dwrite(p, s_u8x4, x * 4, y, cudaBoundaryModeZero);
  const float2 f = surf3Dread<float2>(s_vol, x * 8, y, 0);
  surf3Dwrite(make_float2(f.y, f.x), s_vol, x * 8, y, 1);
  const int layer = (x + y) & 3;
  const short s = surf2DLayeredread<short>(s_layered, x * 2, y, layer, cudaBoundaryModeTrap);
  surf2DLayeredwrite((short) (s + 1), s_layered, x * 2, y, layer);
  surf1Dwrite(p.x, s_u8x4, x);
}
