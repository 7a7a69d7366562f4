// corpus-archs: sm_80 sm_90a sm_100a
// Kernel attributes and parameter passing: __launch_bounds__ (max threads,
// min blocks), __maxnreg__, __grid_constant__ struct params whose address is
// taken, large by-value parameter structs and arrays, #pragma unroll /
// nounroll, cache-hinted loads/stores (__ldg/__ldcs/__ldcg/__ldlu/__ldcv,
// __stwt/__stcs/__stcg/__stwb), special registers and timers.
#include <cstdint>

struct ConvParams {
  int n, c, h, w, k, r, s;
  int stride_h, stride_w, pad_h, pad_w, dil_h, dil_w;
  float alpha, beta;
  const float* bias;
  float weights[64];
};

__global__ void __launch_bounds__(256, 2)
conv2d_direct(const __grid_constant__ ConvParams p, const float* __restrict__ x, const float* __restrict__ wgt,
              float* __restrict__ y)
{
  const int ow = (p.w + 2 * p.pad_w - p.dil_w * (p.s - 1) - 1) / p.stride_w + 1;
  const int oh = (p.h + 2 * p.pad_h - p.dil_h * (p.r - 1) - 1) / p.stride_h + 1;
  const int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= p.n * p.k * oh * ow) return;
  const int ox = idx % ow, oy = (idx / ow) % oh, k = (idx / (ow * oh)) % p.k, n = idx / (ow * oh * p.k);
  float acc = 0.f;
  for (int c = 0; c < p.c; ++c)
#pragma unroll 3
    for (int r = 0; r < p.r; ++r)
#pragma unroll
      for (int s = 0; s < 3; ++s) {
        if (s >= p.s) break;
        const int iy = oy * p.stride_h - p.pad_h + r * p.dil_h, ix = ox * p.stride_w - p.pad_w + s * p.dil_w;
        if (iy >= 0 && iy < p.h && ix >= 0 && ix < p.w) {
          acc += __ldg(&x[((n * p.c + c) * p.h + iy) * p.w + ix]) * __ldg(&wgt[((k * p.c + c) * p.r + r) * p.s + s]);
        }
      }
  // Taking the address of a __grid_constant__ param keeps it in param space.
  const ConvParams* pp = &p;
  acc = p.alpha * acc + (pp->bias ? pp->bias[k] : 0.f) + pp->weights[k & 63];
  y[idx] = p.beta != 0.f ? acc + p.beta * y[idx] : acc;
}

__global__ void __maxnreg__(64) saxpy_maxnreg(int n, float a, const float* __restrict__ x, float* __restrict__ y)
{
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) y[i] = a * x[i] + y[i];
}

__global__ void __launch_bounds__(1024) wide_block(float* data)
{
  __shared__ float s[1024];
  s[threadIdx.x] = data[blockIdx.x * 1024 + threadIdx.x];
  __syncthreads();
#pragma unroll 1
  for (int off = 512; off > 0; off >>= 1) {
    if (threadIdx.x < off) s[threadIdx.x] += s[threadIdx.x + off];
    __syncthreads();
  }
  if (threadIdx.x == 0) data[blockIdx.x * 1024] = s[0];
}

struct Big {
  double m[4][4];
  int idx[8];
  char tag[12];
};

__global__ void by_value_struct(Big b, int4 v, double2 d, short2 sh, unsigned char uc, bool flag, Big* out)
{
  Big r = b;
  for (int i = 0; i < 4; ++i) r.m[i][i] += d.x * v.x + d.y * sh.x + uc;
  r.idx[threadIdx.x & 7] = v.y + v.z + v.w + sh.y;
  r.tag[0] = flag ? 'T' : 'F';
  out[blockIdx.x] = r;
}

__global__ void cache_hints(const float4* __restrict__ in, float4* __restrict__ out, const int* __restrict__ idx,
                            float* __restrict__ tmp, int n)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float4 a = __ldcs(&in[i]);  // streaming
  const float4 b = __ldcg(&in[n + i]);
  const int j = __ldlu(&idx[i]);
  const float c = __ldcv(&tmp[j]);
  const float e = __ldca(&tmp[i]);
  float4 r = make_float4(a.x + b.x + c, a.y + b.y + e, a.z + b.z, a.w + b.w);
  __stcs(&out[i], r);
  __stwt(&tmp[i], r.x);
  __stcg(&out[n + i], b);
  __stwb(&tmp[n + i], r.y);
}

__global__ void special_registers(unsigned long long* out)
{
  const long long t0 = clock64();
  unsigned smid, warpid, laneid, nsmid;
  unsigned long long gt;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
  asm volatile("mov.u32 %0, %%warpid;" : "=r"(warpid));
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(laneid));
  asm volatile("mov.u32 %0, %%nsmid;" : "=r"(nsmid));
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(gt));
  __nanosleep(100);
  unsigned lanemask;
  asm volatile("mov.u32 %0, %%lanemask_lt;" : "=r"(lanemask));
  const long long t1 = clock64();
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[4 * i + 0] = (unsigned long long) (t1 - t0);
  out[4 * i + 1] = ((unsigned long long) smid << 32) | warpid;
  out[4 * i + 2] = ((unsigned long long) laneid << 32) | nsmid | lanemask;
  out[4 * i + 3] = gt + clock();
}

__global__ void __launch_bounds__(128, 4) assume_and_expect(const int* __restrict__ in, int* out, int n)
{
  __builtin_assume(n > 0);
  __builtin_assume(n % 4 == 0);
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (__builtin_expect(i >= n, 0)) return;
  int v = in[i];
  if (__builtin_expect(v < 0, 0)) v = -v;
  out[i] = __builtin_assume_aligned(in, 16) == in ? v : 0;
}

// Warp/bit intrinsics that don't fit elsewhere.
__global__ void warp_bit_intrinsics(const unsigned* in, unsigned* out, int n)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const unsigned v = in[i];
  const unsigned all_mask = __activemask();
  const unsigned eq = __match_any_sync(all_mask, v & 0xff);
  int pred;
  const unsigned same = __match_all_sync(all_mask, v >> 24, &pred);
  unsigned r = __reduce_add_sync(all_mask, v & 0xffff) ^ __reduce_max_sync(all_mask, v) ^ __reduce_or_sync(all_mask, v);
  r ^= __funnelshift_l(v, r, 7) ^ __funnelshift_rc(v, r, 35) ^ (unsigned) __dp4a((int) v, (int) r, 3);
  r ^= __dp2a_lo(v, r, 1u) ^ __usad(v, r, 0u) ^ __vabsdiffu4(v, r) ^ __vadd2(v, r) ^ __vcmpgtu4(v, r);
  r ^= __uhadd(v, r) ^ __urhadd(v, r) ^ __umulhi(v, r) ^ (unsigned) __mul24((int) v, 3) ^ __ffsll((long long) v);
  out[i] = r ^ eq ^ same ^ (unsigned) pred ^ __shfl_up_sync(all_mask, v, 1, 16) ^ __shfl_down_sync(all_mask, v, 2, 8);
  out[n + i] = __all_sync(all_mask, v != 0) | (__any_sync(all_mask, v == 7) << 1) | (__uni_sync(all_mask, v > 2) << 2);
}
