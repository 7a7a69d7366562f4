// corpus-archs: sm_100a
// Blackwell (sm_100a) tensor-memory GEMM with inline PTX: tcgen05.alloc /
// relinquish_alloc_permit / dealloc, tcgen05.mma (kind::f16, tf32, f8f6f4, i8) with
// shared-memory descriptors and an instruction descriptor, tcgen05.commit to an
// mbarrier, tcgen05.ld/st/wait, tcgen05.cp, tcgen05.shift and the
// before/after_thread_sync fences; TMA loads feed the operands. The same flow is
// repeated through the cuda::ptx tcgen05 wrappers.
#include <cuda.h>
#include <cuda/ptx>
#include <cuda_bf16.h>
#include <cstdint>

namespace ptx = cuda::ptx;

static __device__ __forceinline__ uint32_t smem_u32(const void* p)
{
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

static __device__ __forceinline__ void mbar_init(uint64_t* bar, uint32_t count)
{
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_u32(bar)), "r"(count) : "memory");
}

static __device__ __forceinline__ void mbar_wait(uint64_t* bar, uint32_t phase)
{
  asm volatile(
      "{\n"
      ".reg .pred P1;\n"
      "WAIT_LOOP:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 P1, [%0], %1;\n"
      "@!P1 bra WAIT_LOOP;\n"
      "}\n" ::"r"(smem_u32(bar)),
      "r"(phase)
      : "memory");
}

static __device__ __forceinline__ void tma_load_2d(void* dst, const CUtensorMap* map, uint64_t* bar, int x, int y)
{
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cta.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], [%2];" ::"r"(
          smem_u32(dst)),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(smem_u32(bar)), "r"(x), "r"(y)
      : "memory");
}

static __device__ __forceinline__ void expect_tx(uint64_t* bar, uint32_t bytes)
{
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_u32(bar)), "r"(bytes) : "memory");
}

// UMMA shared-memory descriptor (SWIZZLE_128B, K-major), sm_100 layout.
static __device__ __forceinline__ uint64_t umma_desc(const void* p)
{
  uint64_t d = 0;
  d |= (uint64_t) ((smem_u32(p) & 0x3FFFF) >> 4);
  d |= (uint64_t) (16 >> 4) << 16;   // leading byte offset
  d |= (uint64_t) (1024 >> 4) << 32; // stride byte offset
  d |= 1ull << 46;                   // descriptor version
  d |= 2ull << 61;                   // 128B swizzle
  return d;
}

// Instruction descriptor for kind::f16 with bf16 A/B and f32 D.
static __host__ __device__ constexpr uint32_t idesc_bf16_f32(int M, int N)
{
  return (1u << 4)                     // D format f32
         | (1u << 7) | (1u << 10)      // A, B = bf16
         | ((uint32_t) (N >> 3) << 17) // N / 8
         | ((uint32_t) (M >> 4) << 24);// M / 16
}

static __device__ __forceinline__ void tmem_alloc(uint32_t* dst_smem, uint32_t ncols)
{
  asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], %1;" ::"r"(smem_u32(dst_smem)),
               "r"(ncols)
               : "memory");
  asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;" ::: "memory");
}

static __device__ __forceinline__ void tmem_dealloc(uint32_t taddr, uint32_t ncols)
{
  asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, %1;" ::"r"(taddr), "r"(ncols) : "memory");
}

static __device__ __forceinline__ void umma_f16(uint32_t d_tmem, uint64_t a, uint64_t b, uint32_t idesc, int accumulate)
{
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.b32 p, %4, 0;\n"
      "tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, p;\n"
      "}\n" ::"r"(d_tmem),
      "l"(a), "l"(b), "r"(idesc), "r"(accumulate)
      : "memory");
}

static __device__ __forceinline__ void umma_commit(uint64_t* bar)
{
  asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];" ::"r"(smem_u32(bar))
               : "memory");
}

static __device__ __forceinline__ void tmem_ld_32x32b_x16(uint32_t taddr, uint32_t (&r)[16])
{
  asm volatile("tcgen05.ld.sync.aligned.32x32b.x16.b32 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, "
               "%14, %15}, [%16];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]), "=r"(r[4]), "=r"(r[5]), "=r"(r[6]), "=r"(r[7]),
                 "=r"(r[8]), "=r"(r[9]), "=r"(r[10]), "=r"(r[11]), "=r"(r[12]), "=r"(r[13]), "=r"(r[14]), "=r"(r[15])
               : "r"(taddr));
  asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");
}

constexpr int UM = 128, UN = 128, UK = 64;

// D[128x128] (TMEM, fp32) += A[128xK] * B[128xK]^T, bf16 operands via TMA.
__global__ void __launch_bounds__(128)
umma_gemm_bf16(const __grid_constant__ CUtensorMap tmap_a, const __grid_constant__ CUtensorMap tmap_b, float* C,
               int N, int K)
{
  __shared__ __align__(1024) __nv_bfloat16 sA[UM * UK];
  __shared__ __align__(1024) __nv_bfloat16 sB[UN * UK];
  __shared__ uint64_t tma_bar, mma_bar;
  __shared__ uint32_t tmem_base;
  const int warp = threadIdx.x / 32;
  if (warp == 0) tmem_alloc(&tmem_base, UN);
  if (threadIdx.x == 32) {
    mbar_init(&tma_bar, 1);
    mbar_init(&mma_bar, 1);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  const uint32_t tmem = tmem_base;
  uint32_t phase = 0;
  for (int k = 0; k < K; k += UK) {
    if (threadIdx.x == 0) {
      expect_tx(&tma_bar, sizeof(sA) + sizeof(sB));
      tma_load_2d(sA, &tmap_a, &tma_bar, k, blockIdx.y * UM);
      tma_load_2d(sB, &tmap_b, &tma_bar, k, blockIdx.x * UN);
      mbar_wait(&tma_bar, phase);
      asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
#pragma unroll
      for (int kk = 0; kk < UK / 16; ++kk) {
        umma_f16(tmem, umma_desc(sA + kk * 16), umma_desc(sB + kk * 16), idesc_bf16_f32(UM, UN), (k | kk) != 0);
      }
      umma_commit(&mma_bar);
    }
    mbar_wait(&mma_bar, phase);
    phase ^= 1;
    __syncthreads();
  }
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  // Each warp reads its 32 TMEM lanes; 16 columns at a time.
  const int row = blockIdx.y * UM + warp * 32 + threadIdx.x % 32;
  for (int c = 0; c < UN; c += 16) {
    uint32_t r[16];
    tmem_ld_32x32b_x16(tmem + ((warp * 32) << 16) + c, r);
#pragma unroll
    for (int j = 0; j < 16; j += 4) {
      *reinterpret_cast<float4*>(&C[(size_t) row * N + blockIdx.x * UN + c + j]) =
          make_float4(__uint_as_float(r[j]), __uint_as_float(r[j + 1]), __uint_as_float(r[j + 2]),
                      __uint_as_float(r[j + 3]));
    }
  }
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  __syncthreads();
  if (warp == 0) tmem_dealloc(tmem, UN);
}

// Other MMA kinds, tcgen05.st / tcgen05.cp / tcgen05.shift, with operands already in shared memory.
__global__ void __launch_bounds__(128) umma_kinds(const uint4* src, float* out)
{
  __shared__ __align__(1024) unsigned char sA[128 * 128];
  __shared__ __align__(1024) unsigned char sB[128 * 128];
  __shared__ uint64_t bar;
  __shared__ uint32_t tmem_base;
  for (int i = threadIdx.x; i < (int) (sizeof(sA) / 16); i += 128) {
    reinterpret_cast<uint4*>(sA)[i] = src[i];
    reinterpret_cast<uint4*>(sB)[i] = src[i + sizeof(sA) / 16];
  }
  if (threadIdx.x / 32 == 0) tmem_alloc(&tmem_base, 256);
  if (threadIdx.x == 0) mbar_init(&bar, 1);
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  const uint32_t tmem = tmem_base;
  const int warp = threadIdx.x / 32;
  // Seed the accumulator with tcgen05.st.
  {
    const uint32_t v = __float_as_uint(1.0f);
    asm volatile("tcgen05.st.sync.aligned.32x32b.x4.b32 [%0], {%1, %2, %3, %4};" ::"r"(tmem + ((warp * 32) << 16)),
                 "r"(v), "r"(v), "r"(v), "r"(v)
                 : "memory");
    asm volatile("tcgen05.wait::st.sync.aligned;" ::: "memory");
  }
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  if (threadIdx.x == 0) {
    const uint64_t da = umma_desc(sA), db = umma_desc(sB);
    const uint32_t id_tf32 = (1u << 4) | (2u << 7) | (2u << 10) | ((64u >> 3) << 17) | ((128u >> 4) << 24);
    const uint32_t id_f8 = (1u << 4) | (0u << 7) | (1u << 10) | ((64u >> 3) << 17) | ((128u >> 4) << 24);
    const uint32_t id_i8 = (2u << 4) | (1u << 7) | (1u << 10) | ((64u >> 3) << 17) | ((128u >> 4) << 24);
    asm volatile(
        "{\n"
        ".reg .pred p;\n"
        "setp.ne.b32 p, %4, 0;\n"
        "tcgen05.mma.cta_group::1.kind::tf32 [%0], %1, %2, %3, p;\n"
        "tcgen05.mma.cta_group::1.kind::f8f6f4 [%0], %1, %2, %5, p;\n"
        "}\n" ::"r"(tmem),
        "l"(da), "l"(db), "r"(id_tf32), "r"(1), "r"(id_f8)
        : "memory");
    asm volatile("tcgen05.mma.cta_group::1.kind::i8 [%0], %1, %2, %3, 0;" ::"r"(tmem + 128), "l"(da), "l"(db),
                 "r"(id_i8)
                 : "memory");
    asm volatile("tcgen05.cp.cta_group::1.128x256b [%0], %1;" ::"r"(tmem + 192), "l"(umma_desc(sB)) : "memory");
    asm volatile("tcgen05.shift.cta_group::1.down [%0];" ::"r"(tmem + 192) : "memory");
    umma_commit(&bar);
  }
  mbar_wait(&bar, 0);
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  uint32_t r[16];
  tmem_ld_32x32b_x16(tmem + ((warp * 32) << 16), r);
  uint32_t q[4];
  asm volatile("tcgen05.ld.sync.aligned.16x256b.x1.b32 {%0, %1, %2, %3}, [%4];"
               : "=r"(q[0]), "=r"(q[1]), "=r"(q[2]), "=r"(q[3])
               : "r"(tmem + 128 + ((warp * 32) << 16)));
  asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");
  float s = 0.f;
#pragma unroll
  for (int j = 0; j < 16; ++j) s += __uint_as_float(r[j]);
  s += __int_as_float(q[0] ^ q[1] ^ q[2] ^ q[3]);
  out[blockIdx.x * 128 + threadIdx.x] = s;
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  __syncthreads();
  if (warp == 0) tmem_dealloc(tmem, 256);
}

// Same building blocks through cuda::ptx.
__global__ void __launch_bounds__(128) umma_via_cuda_ptx(const uint4* src, float* out)
{
  __shared__ __align__(1024) unsigned char sA[128 * 64 * 2];
  __shared__ __align__(1024) unsigned char sB[64 * 64 * 2];
  __shared__ uint64_t bar;
  __shared__ uint32_t tmem_base;
  for (int i = threadIdx.x; i < (int) (sizeof(sA) / 16); i += 128) reinterpret_cast<uint4*>(sA)[i] = src[i];
  for (int i = threadIdx.x; i < (int) (sizeof(sB) / 16); i += 128) reinterpret_cast<uint4*>(sB)[i] = src[i + 1024];
  if (threadIdx.x < 32) {
    ptx::tcgen05_alloc(ptx::cta_group_1, &tmem_base, 64u);
    ptx::tcgen05_relinquish_alloc_permit(ptx::cta_group_1);
  }
  if (threadIdx.x == 0) ptx::mbarrier_init(&bar, 1);
  ptx::fence_proxy_async(ptx::space_shared);
  ptx::tcgen05_fence_before_thread_sync();
  __syncthreads();
  ptx::tcgen05_fence_after_thread_sync();
  const uint32_t tmem = tmem_base;
  if (threadIdx.x == 0) {
    ptx::tcgen05_mma(ptx::kind_f16, ptx::cta_group_1, tmem, umma_desc(sA), umma_desc(sB), idesc_bf16_f32(128, 64),
                     false);
    ptx::tcgen05_commit(ptx::cta_group_1, &bar);
  }
  while (!ptx::mbarrier_try_wait_parity(&bar, 0u)) {
  }
  ptx::tcgen05_fence_after_thread_sync();
  uint32_t r[8];
  ptx::tcgen05_ld_32x32b(r, tmem + (((threadIdx.x / 32) * 32) << 16));
  ptx::tcgen05_wait_ld();
  float s = 0.f;
  for (int j = 0; j < 8; ++j) s += __uint_as_float(r[j]);
  out[blockIdx.x * 128 + threadIdx.x] = s;
  ptx::tcgen05_fence_before_thread_sync();
  __syncthreads();
  if (threadIdx.x < 32) ptx::tcgen05_dealloc(ptx::cta_group_1, tmem, 64u);
}
