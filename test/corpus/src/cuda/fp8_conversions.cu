// corpus-archs: sm_80 sm_90a sm_100a
// Low-precision formats and conversions: fp8 (e4m3/e5m2, scalar/x2/x4),
// fp6/fp4 where the headers provide them, bf16/half packing, integer<->float
// conversions with explicit rounding modes and saturation, and a quantise /
// dequantise pair as used in inference kernels.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp4.h>
#include <cuda_fp6.h>
#include <cuda_fp8.h>
#include <cstdint>

__global__ void quantize_fp8(const float* __restrict__ x, __nv_fp8_e4m3* __restrict__ q, float* __restrict__ scales,
                             int cols)
{
  const float* row = x + (size_t) blockIdx.x * cols;
  float amax = 0.f;
  for (int c = threadIdx.x; c < cols; c += 32) amax = fmaxf(amax, fabsf(row[c]));
  for (int o = 16; o > 0; o >>= 1) amax = fmaxf(amax, __shfl_xor_sync(0xffffffffu, amax, o));
  const float scale = amax > 0.f ? 448.f / amax : 1.f;
  if (threadIdx.x == 0) scales[blockIdx.x] = 1.f / scale;
  for (int c = threadIdx.x; c < cols; c += 32) q[(size_t) blockIdx.x * cols + c] = __nv_fp8_e4m3(row[c] * scale);
}

__global__ void dequantize_fp8x4(const __nv_fp8x4_e4m3* __restrict__ q, const float* __restrict__ scales,
                                 float4* __restrict__ out, int cols4)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= cols4) return;
  const float s = scales[blockIdx.y];
  const float4 v = static_cast<float4>(q[(size_t) blockIdx.y * cols4 + i]);
  out[(size_t) blockIdx.y * cols4 + i] = make_float4(v.x * s, v.y * s, v.z * s, v.w * s);
}

__global__ void fp8_formats(const float2* __restrict__ in, uint32_t* __restrict__ out, int n)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float2 v = in[i];
  const __nv_fp8x2_storage_t a = __nv_cvt_float2_to_fp8x2(v, __NV_SATFINITE, __NV_E4M3);
  const __nv_fp8x2_storage_t b = __nv_cvt_float2_to_fp8x2(v, __NV_NOSAT, __NV_E5M2);
  const __half2_raw h = __nv_cvt_fp8x2_to_halfraw2(a, __NV_E4M3);
  const __nv_fp8_storage_t c = __nv_cvt_bfloat16raw_to_fp8(__nv_bfloat16_raw(__float2bfloat16(v.x)), __NV_SATFINITE, __NV_E5M2);
  const __nv_fp8x2_storage_t d = __nv_cvt_halfraw2_to_fp8x2(h, __NV_SATFINITE, __NV_E5M2);
  const __nv_fp8_e5m2 e(v.y);
  const __nv_fp8x2_e5m2 f(make_float2(v.y, v.x));
  out[i] = (uint32_t) a | ((uint32_t) b << 16);
  out[n + i] = (uint32_t) c | ((uint32_t) d << 8) | ((uint32_t) e.__x << 24) ^ (uint32_t) f.__x;
  out[2 * n + i] = (uint32_t) h.x | ((uint32_t) h.y << 16);
}

__global__ void fp6_fp4_formats(const float2* __restrict__ in, uint32_t* __restrict__ out, int n)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float2 v = in[i];
  const __nv_fp6x2_storage_t a = __nv_cvt_float2_to_fp6x2(v, __NV_E2M3, cudaRoundNearest);
  const __nv_fp6_storage_t b = __nv_cvt_float_to_fp6(v.x, __NV_E3M2, cudaRoundNearest);
  const __nv_fp4x2_storage_t c = __nv_cvt_float2_to_fp4x2(v, __NV_E2M1, cudaRoundNearest);
  const __nv_fp4_e2m1 d(v.y);
  const float back = static_cast<float>(d) + static_cast<float>(__nv_fp6_e2m3(v.x));
  out[i] = (uint32_t) a | ((uint32_t) b << 16) | ((uint32_t) c << 24);
  out[n + i] = __float_as_uint(back);
}

__global__ void rounding_conversions(const float* __restrict__ f, const double* __restrict__ d, int* __restrict__ oi,
                                     long long* __restrict__ ol, float* __restrict__ of, __half* __restrict__ oh, int n)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float x = f[i];
  const double y = d[i];
  oi[4 * i + 0] = __float2int_rn(x);
  oi[4 * i + 1] = __float2int_rz(x);
  oi[4 * i + 2] = __float2int_ru(x) + __float2int_rd(x);
  oi[4 * i + 3] = (int) __float2uint_rn(fabsf(x)) + __double2int_rz(y) + __double2int_rn(y);
  ol[2 * i + 0] = __float2ll_rd(x) + __double2ll_ru(y);
  ol[2 * i + 1] = (long long) __double2ull_rz(fabs(y)) + (long long) __float2ull_rn(fabsf(x));
  of[3 * i + 0] = __int2float_rz(oi[4 * i]) + __uint2float_rd((unsigned) i) + __ll2float_ru((long long) i * 3);
  of[3 * i + 1] = __double2float_rd(y) + __double2float_ru(y) + __double2float_rz(y);
  of[3 * i + 2] = __saturatef(x) + __int_as_float(__double2hiint(y)) + __int_as_float(__double2loint(y));
  oh[2 * i + 0] = __float2half_rz(x) + __double2half(y) + __float2half_rd(x) + __ll2half_rn((long long) i);
  oh[2 * i + 1] = __float2half_ru(x * 65504.f) + __short2half_rn((short) i) + __uint2half_rz((unsigned) i);
  if (i == 0) of[3 * n] = (float) __hiloint2double(oi[0], oi[1]);
}

__global__ void bf16_packing(const float4* __restrict__ in, uint2* __restrict__ out, __nv_bfloat16* __restrict__ single,
                             int n)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float4 v = in[i];
  __nv_bfloat162 lo = __floats2bfloat162_rn(v.x, v.y);
  __nv_bfloat162 hi = __float22bfloat162_rn(make_float2(v.z, v.w));
  __half2 hh = __float22half2_rn(make_float2(v.x, v.w));
  out[i] = make_uint2(*reinterpret_cast<uint32_t*>(&lo) ^ *reinterpret_cast<uint32_t*>(&hh),
                      *reinterpret_cast<uint32_t*>(&hi));
  single[i] = __float2bfloat16_rz(v.x) + __float2bfloat16_rd(v.y) + __float2bfloat16_ru(v.z) +
              __double2bfloat16((double) v.w) + __int2bfloat16_rn(i) + __ushort2bfloat16_rz((unsigned short) i);
}
