// corpus-archs: sm_80 sm_90a sm_100a
// Ampere-style tensor-core GEMM with inline PTX: multi-stage cp.async
// (cg/ca, zero-fill, L2 prefetch hints) into padded shared tiles, ldmatrix
// (x4, x2.trans), mma.sync m16n8k16 (f16/bf16), m16n8k8 tf32, m16n8k32 s8,
// m8n8k4 f64; plus the __pipeline_* intrinsics from cuda_pipeline.h.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_pipeline.h>
#include <cstdint>

static __device__ __forceinline__ uint32_t smem_u32(const void* p)
{
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

static __device__ __forceinline__ void cp_async_cg16(void* dst, const void* src, bool pred)
{
  const int src_size = pred ? 16 : 0; // zero-fill when out of bounds
  asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16, %2;" ::"r"(smem_u32(dst)), "l"(src), "r"(src_size)
               : "memory");
}

static __device__ __forceinline__ void cp_async_ca8(void* dst, const void* src)
{
  asm volatile("cp.async.ca.shared.global [%0], [%1], 8;" ::"r"(smem_u32(dst)), "l"(src) : "memory");
}

static __device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
template <int N>
static __device__ __forceinline__ void cp_async_wait()
{
  asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
}

static __device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], const void* p)
{
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smem_u32(p)));
}

static __device__ __forceinline__ void ldmatrix_x2_trans(uint32_t (&r)[2], const void* p)
{
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];"
               : "=r"(r[0]), "=r"(r[1])
               : "r"(smem_u32(p)));
}

static __device__ __forceinline__ void mma_f16_f32(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2])
{
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
               "{%0, %1, %2, %3};"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

static __device__ __forceinline__ void mma_bf16_f32(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2])
{
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
               "{%0, %1, %2, %3};"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

constexpr int TM = 128, TN = 128, TK = 16, NSTAGE = 3, PAD = 8;

// 4 warps (2x2), each computing a 64x64 sub-tile from 16x8 mma.sync fragments.
template <bool BF16>
__global__ void __launch_bounds__(128)
mma_gemm(const uint16_t* __restrict__ A, const uint16_t* __restrict__ B, float* __restrict__ C, int M, int N, int K)
{
  __shared__ __align__(128) uint16_t sA[NSTAGE][TM][TK + PAD];
  __shared__ __align__(128) uint16_t sB[NSTAGE][TK][TN + PAD];
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int wm = warp / 2, wn = warp % 2;
  const int bm = blockIdx.y * TM, bn = blockIdx.x * TN;
  float acc[4][8][4] = {};
  auto load_stage = [&](int stage, int k0) {
    for (int i = tid; i < TM * TK / 8; i += 128) {
      const int r = i / (TK / 8), c = (i % (TK / 8)) * 8;
      cp_async_cg16(&sA[stage][r][c], A + (size_t) (bm + r) * K + k0 + c, bm + r < M && k0 + c < K);
    }
    for (int i = tid; i < TK * TN / 8; i += 128) {
      const int r = i / (TN / 8), c = (i % (TN / 8)) * 8;
      cp_async_cg16(&sB[stage][r][c], B + (size_t) (k0 + r) * N + bn + c, k0 + r < K && bn + c < N);
    }
  };
  const int ktiles = (K + TK - 1) / TK;
  for (int s = 0; s < NSTAGE - 1; ++s) {
    if (s < ktiles) load_stage(s, s * TK);
    cp_async_commit();
  }
  for (int kt = 0; kt < ktiles; ++kt) {
    cp_async_wait<NSTAGE - 2>();
    __syncthreads();
    const int nk = kt + NSTAGE - 1;
    if (nk < ktiles) load_stage(nk % NSTAGE, nk * TK);
    cp_async_commit();
    const int st = kt % NSTAGE;
#pragma unroll
    for (int kk = 0; kk < TK; kk += 16) {
      uint32_t a[4][4], b[8][2];
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        ldmatrix_x4(a[i], &sA[st][wm * 64 + i * 16 + (lane % 16)][kk + (lane / 16) * 8]);
      }
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        ldmatrix_x2_trans(b[j], &sB[st][kk + (lane % 16)][wn * 64 + j * 8]);
      }
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) {
          if constexpr (BF16) {
            mma_bf16_f32(acc[i][j], a[i], b[j]);
          } else {
            mma_f16_f32(acc[i][j], a[i], b[j]);
          }
        }
    }
  }
  cp_async_wait<0>();
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      const int r = bm + wm * 64 + i * 16 + lane / 4, c = bn + wn * 64 + j * 8 + (lane % 4) * 2;
      if (r < M && c < N) *reinterpret_cast<float2*>(&C[(size_t) r * N + c]) = make_float2(acc[i][j][0], acc[i][j][1]);
      if (r + 8 < M && c < N) {
        *reinterpret_cast<float2*>(&C[(size_t) (r + 8) * N + c]) = make_float2(acc[i][j][2], acc[i][j][3]);
      }
    }
}

template __global__ void mma_gemm<false>(const uint16_t*, const uint16_t*, float*, int, int, int);
template __global__ void mma_gemm<true>(const uint16_t*, const uint16_t*, float*, int, int, int);

// tf32, int8 and fp64 mma.sync shapes on register fragments loaded from global memory.
__global__ void mma_shapes(const uint32_t* a32, const uint32_t* b32, const double* ad, float* outf, int* outi,
                           double* outd)
{
  const int lane = threadIdx.x % 32;
  const uint32_t* a = a32 + blockIdx.x * 128 + lane * 4;
  const uint32_t* b = b32 + blockIdx.x * 64 + lane * 2;
  float f[4] = {0.f, 0.f, 0.f, 0.f};
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
               "{%0, %1, %2, %3};"
               : "+f"(f[0]), "+f"(f[1]), "+f"(f[2]), "+f"(f[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  int s[4] = {0, 0, 0, 0};
  asm volatile("mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, "
               "%9}, {%0, %1, %2, %3};"
               : "+r"(s[0]), "+r"(s[1]), "+r"(s[2]), "+r"(s[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  double d[2] = {0.0, 0.0};
  asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};"
               : "+d"(d[0]), "+d"(d[1])
               : "d"(ad[lane]), "d"(ad[32 + lane]));
  uint32_t h[2] = {0u, 0u};
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0, %1}, {%2, %3, %4, %5}, {%6, %7}, {%0, %1};"
               : "+r"(h[0]), "+r"(h[1])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  const int o = blockIdx.x * 32 + lane;
  outf[o] = f[0] + f[1] + f[2] + f[3] + __half2float(__ushort_as_half((unsigned short) (h[0] ^ h[1])));
  outi[o] = s[0] ^ s[1] ^ s[2] ^ s[3];
  outd[o] = d[0] - d[1];
}

// Double-buffered copy with the __pipeline_* intrinsics and small cp.async.ca copies.
__global__ void pipeline_intrinsics(const float4* __restrict__ in, const double* __restrict__ in8, float4* out, int tiles)
{
  __shared__ float4 buf[2][128];
  __shared__ double small[128];
  cp_async_ca8(&small[threadIdx.x], in8 + blockIdx.x * 128 + threadIdx.x);
  __pipeline_memcpy_async(&buf[0][threadIdx.x], &in[(size_t) blockIdx.x * tiles * 128 + threadIdx.x], sizeof(float4));
  __pipeline_commit();
  float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
  for (int t = 0; t < tiles; ++t) {
    if (t + 1 < tiles) {
      __pipeline_memcpy_async(&buf[(t + 1) & 1][threadIdx.x],
                              &in[((size_t) blockIdx.x * tiles + t + 1) * 128 + threadIdx.x], sizeof(float4));
    }
    __pipeline_commit();
    __pipeline_wait_prior(1);
    __syncthreads();
    const float4 v = buf[t & 1][(threadIdx.x + 1) % 128];
    acc.x += v.x;
    acc.y += v.y;
    acc.z += v.z;
    acc.w += v.w;
    __syncthreads();
  }
  cp_async_wait<0>();
  acc.x += (float) small[threadIdx.x ^ 1];
  out[blockIdx.x * 128 + threadIdx.x] = acc;
}
