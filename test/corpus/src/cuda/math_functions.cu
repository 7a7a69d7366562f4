// corpus-archs: sm_80 sm_90a sm_100a
// corpus-variants: plain lineinfo G:sm_100a
// CUDA math library: single/double precision functions (with their slow
// paths: Payne-Hanek reduction, pow/exp/log cores), fast intrinsics, and
// half/bfloat16 scalar and vector arithmetic.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <math_constants.h>

__global__ void float_transcendentals(const float* __restrict__ x, float* __restrict__ out, int n)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float v = x[i];
  float s, c;
  sincosf(v, &s, &c);
  float r = sinf(v) + cosf(v) * tanf(v * 0.5f);
  r += expf(v) - exp2f(v) + exp10f(-v) + expm1f(v * 1e-3f);
  r += logf(fabsf(v) + 1.f) + log2f(fabsf(v) + 2.f) + log10f(fabsf(v) + 3.f) + log1pf(fabsf(v));
  r += powf(fabsf(v), 1.7f) + erff(v) + erfcf(v) + erfinvf(v * 0.001f) + normcdff(v);
  r += rsqrtf(fabsf(v) + 1.f) + sqrtf(fabsf(v)) + cbrtf(v) + rcbrtf(fabsf(v) + 1.f);
  r += atan2f(v, 2.f) + asinf(fminf(fabsf(v), 1.f)) + acosf(fminf(fabsf(v), 1.f)) + atanf(v);
  r += sinhf(v * 0.1f) + coshf(v * 0.1f) + tanhf(v) + asinhf(v) + acoshf(fabsf(v) + 1.f) + atanhf(v * 0.01f);
  r += lgammaf(fabsf(v) + 1.f) + tgammaf(fminf(fabsf(v), 10.f) + 1.f) + hypotf(v, 3.f) + norm3df(v, s, c);
  r += fmodf(v, 3.f) + remainderf(v, 2.5f) + ldexpf(v, 3) + scalbnf(v, -2) + logbf(fabsf(v) + 1.f);
  r += sinpif(v) + cospif(v) + j0f(v) + y1f(fabsf(v) + 1.f) + cyl_bessel_i0f(v * 0.1f);
  int e;
  r += frexpf(v, &e);
  r += (float) e + (float) ilogbf(fabsf(v) + 1.f) + copysignf(1.f, v) + nextafterf(v, 0.f);
  out[i] = r + s * c;
}

__global__ void fast_intrinsics(const float* __restrict__ x, float* __restrict__ out, int n)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float v = x[i];
  float r = __fdividef(v, v + 1.f) + __sinf(v) + __cosf(v) + __tanf(v) + __expf(v) + __exp10f(v) + __logf(fabsf(v) + 1.f);
  r += __log2f(fabsf(v) + 1.f) + __log10f(fabsf(v) + 1.f) + __powf(fabsf(v), 0.5f) + __saturatef(v);
  r += __fadd_rn(v, 1.f) + __fmul_rz(v, 3.f) + __fmaf_rd(v, v, 1.f) + __frcp_ru(v) + __fsqrt_rn(fabsf(v));
  r += __fdiv_rz(v, 7.f) + __frsqrt_rn(fabsf(v) + 1.f) + __fsub_ru(v, 2.f);
  out[i] = r;
}

__global__ void double_precision(const double* __restrict__ x, double* __restrict__ out, int n)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const double v = x[i];
  double r = pow(fabs(v), 2.5) + exp(v) + log(fabs(v) + 1.0) + log2(fabs(v) + 1.0) + log10(fabs(v) + 1.0);
  r += sin(v) + cos(v) + tan(v) + atan2(v, 1.5) + asin(fmin(fabs(v), 1.0)) + erf(v) + erfc(v);
  r += sqrt(fabs(v)) + rsqrt(fabs(v) + 1.0) + cbrt(v) + exp2(v) + expm1(v * 1e-3) + log1p(fabs(v));
  r += sinh(v * 0.1) + cosh(v * 0.1) + tanh(v) + lgamma(fabs(v) + 1.0) + tgamma(fmin(fabs(v), 20.0) + 1.0);
  int quo;
  r += fma(v, v, 1.0) + hypot(v, 4.0) + fmod(v, 3.0) + remquo(v, 1.25, &quo);
  r += (double) quo;
  r += __dadd_rn(v, 1.0) + __dmul_rz(v, 2.0) + __ddiv_ru(v, 3.0) + __drcp_rn(v + 1.0) + __dsqrt_rd(fabs(v));
  r += normcdf(v) + erfinv(v * 1e-3) + j1(v) + yn(2, fabs(v) + 1.0) + CUDART_PI * sinpi(v);
  out[i] = r;
}

__global__ void half_math(const __half* __restrict__ x, const __half2* __restrict__ x2, __half* out, __half2* out2,
                          int n)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const __half v = x[i];
  __half r = __hadd(hexp(v), hlog(__habs(v) + __float2half(1.f)));
  r = __hfma(r, hsin(v), hcos(v));
  r = __hmax(r, hsqrt(__habs(v))) + hrsqrt(__habs(v) + __float2half(1.f)) + hrcp(v + __float2half(2.f));
  r = __hdiv(r, __float2half(3.f)) + htrunc(v) + hfloor(v) + hceil(v) + hrint(v) + hexp2(v) + hlog2(__habs(v));
  if (__hisnan(r) || __hgt(v, __float2half(100.f))) r = __float2half(0.f);
  out[i] = r;
  const __half2 w = x2[i];
  __half2 q = __hfma2(w, w, __floats2half2_rn(1.f, 2.f));
  q = __hmul2(q, h2exp(w)) + h2log(__habs2(w)) + h2sin(w) + h2cos(w);
  q = __hmax2(q, __hneg2(w));
  q = __hmin2_nan(q, h2sqrt(__habs2(w)));
  q = __hfma2_relu(q, w, __float2half2_rn(0.5f));
  out2[i] = __lowhigh2highlow(q) + __halves2half2(__low2half(q), __high2half(w));
  out[n + i] = __float2half_rn(__half2float(v) * 0.5f) + __int2half_rn(i) + __ushort_as_half((unsigned short) i);
}

__global__ void bf16_math(const __nv_bfloat16* __restrict__ x, const __nv_bfloat162* __restrict__ x2,
                          __nv_bfloat16* out, __nv_bfloat162* out2, float* f, int n)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const __nv_bfloat16 v = x[i];
  __nv_bfloat16 r = __hfma(v, hexp(v), hlog(__habs(v) + __float2bfloat16(1.f)));
  r = __hmax(r, hsqrt(__habs(v))) + hrcp(v + __float2bfloat16(2.f)) + hsin(v) + hcos(v) + htanh_approx(v);
  out[i] = r;
  const __nv_bfloat162 w = x2[i];
  __nv_bfloat162 q = __hfma2(w, w, __floats2bfloat162_rn(1.f, -1.f));
  q = __hmul2(q, h2exp(w)) + __habs2(w) + h2rsqrt(__habs2(w) + __float2bfloat162_rn(1.f));
  q = __hmax2(q, __hneg2(w));
  out2[i] = __hfma2_relu(q, w, __float2bfloat162_rn(0.25f));
  f[i] = __bfloat162float(r) + __low2float(q) + __high2float(q) + (float) __bfloat162int_rz(v);
}

// Softmax over rows with a numerically stable max-subtract, using fast exp.
__global__ void row_softmax(const float* __restrict__ logits, float* __restrict__ probs, int cols)
{
  const float* row = logits + (size_t) blockIdx.x * cols;
  float* prow = probs + (size_t) blockIdx.x * cols;
  float mx = -CUDART_INF_F;
  for (int c = threadIdx.x; c < cols; c += 32) mx = fmaxf(mx, row[c]);
  for (int o = 16; o > 0; o >>= 1) mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, o));
  float sum = 0.f;
  for (int c = threadIdx.x; c < cols; c += 32) sum += __expf(row[c] - mx);
  for (int o = 16; o > 0; o >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, o);
  const float inv = __frcp_rn(sum);
  for (int c = threadIdx.x; c < cols; c += 32) prow[c] = __expf(row[c] - mx) * inv;
}

// GELU (tanh and erf forms) and layer-norm style statistics with Welford updates.
__global__ void gelu_layernorm(const float* __restrict__ x, float* __restrict__ y, float* __restrict__ stats, int cols)
{
  const float* row = x + (size_t) blockIdx.x * cols;
  float mean = 0.f, m2 = 0.f;
  int count = 0;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    const float v = row[c];
    ++count;
    const float d = v - mean;
    mean += d / count;
    m2 += d * (v - mean);
    const float g_tanh = 0.5f * v * (1.f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
    const float g_erf  = 0.5f * v * (1.f + erff(v * CUDART_SQRT_HALF_F));
    y[(size_t) blockIdx.x * cols + c] = 0.5f * (g_tanh + g_erf);
  }
  stats[2 * (blockIdx.x * blockDim.x + threadIdx.x)]     = mean;
  stats[2 * (blockIdx.x * blockDim.x + threadIdx.x) + 1] = rsqrtf(m2 / fmaxf(count, 1) + 1e-5f);
}
