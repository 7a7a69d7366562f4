// corpus-archs: sm_80 sm_90a sm_100a
// corpus-variants: plain lineinfo G:sm_90a
// libcu++: cuda::ptx instruction wrappers (mbarrier, bulk copies, TMA,
// proxy fences, cluster barriers, st.async), cuda::barrier with
// cuda::memcpy_async, cuda::pipeline, and cuda::atomic_ref at several scopes.
#include <cuda/atomic>
#include <cuda/barrier>
#include <cuda/pipeline>
#include <cuda/ptx>
#include <cuda/std/cstdint>
#include <cooperative_groups.h>

namespace ptx = cuda::ptx;
namespace cg  = cooperative_groups;

// Bulk-copy a tile into shared memory, tracked by an mbarrier transaction count.
__global__ void bulk_copy_scale(const float4* __restrict__ src, float4* __restrict__ dst, float scale)
{
  constexpr int TILE = 1024; // float4 elements
  __shared__ alignas(128) float4 tile[TILE];
#if __CUDA_ARCH__ >= 900
  __shared__ cuda::std::uint64_t bar;
  if (threadIdx.x == 0) {
    ptx::mbarrier_init(&bar, 1);
    ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    ptx::cp_async_bulk(ptx::space_cluster, ptx::space_global, tile, src + blockIdx.x * TILE, sizeof(tile), &bar);
    ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar, sizeof(tile));
  }
  while (!ptx::mbarrier_try_wait_parity(&bar, 0)) {
  }
  for (int i = threadIdx.x; i < TILE; i += blockDim.x) {
    float4 v = tile[i];
    tile[i]  = make_float4(v.x * scale, v.y * scale, v.z * scale, v.w * scale);
  }
  ptx::fence_proxy_async(ptx::space_shared);
  __syncthreads();
  if (threadIdx.x == 0) {
    ptx::cp_async_bulk(ptx::space_global, ptx::space_shared, dst + blockIdx.x * TILE, tile, sizeof(tile));
    ptx::cp_async_bulk_commit_group();
    ptx::cp_async_bulk_wait_group_read(ptx::n32_t<0>());
  }
#else
  for (int i = threadIdx.x; i < TILE; i += blockDim.x) {
    float4 v = src[blockIdx.x * TILE + i];
    tile[i]  = make_float4(v.x * scale, v.y * scale, v.z * scale, v.w * scale);
  }
  __syncthreads();
  for (int i = threadIdx.x; i < TILE; i += blockDim.x) dst[blockIdx.x * TILE + i] = tile[i];
#endif
}

// TMA (tensor map) load of a 2D box, through the cuda::ptx wrapper.

__global__ void tma_box_load(const void* tensor_map, float* out, int x0, int y0)
{
  __shared__ alignas(128) float box[64 * 32];
#if __CUDA_ARCH__ >= 900
  __shared__ cuda::std::uint64_t bar;
  if (threadIdx.x == 0) {
    ptx::mbarrier_init(&bar, blockDim.x);
    ptx::fence_proxy_async(ptx::space_shared);
  }
  __syncthreads();
  cuda::std::uint64_t token;
  if (threadIdx.x == 0) {
    const cuda::std::int32_t coords[2] = {x0, y0 + (int) blockIdx.x * 32};
    ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, box, tensor_map, coords, &bar);
    token = ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar, sizeof(box));
  } else {
    token = ptx::mbarrier_arrive(&bar);
  }
  while (!ptx::mbarrier_try_wait(&bar, token)) {
  }
#else
  (void) tensor_map;
  for (int i = threadIdx.x; i < 64 * 32; i += blockDim.x) box[i] = float(x0 + y0 + i);
  __syncthreads();
#endif
  float s = 0.f;
  for (int i = threadIdx.x; i < 64 * 32; i += blockDim.x) s += box[i];
  atomicAdd(out + blockIdx.x, s);
}

// Cluster-level barrier and rank queries via cuda::ptx.
__global__ void cluster_rank_exchange(int* out)
{
  __shared__ int value;
#if __CUDA_ARCH__ >= 900
  if (threadIdx.x == 0) value = (int) ptx::get_sreg_cluster_ctarank();
  ptx::barrier_cluster_arrive(ptx::sem_release);
  ptx::barrier_cluster_wait(ptx::sem_acquire);
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned peer = (cluster.block_rank() + 1) % cluster.num_blocks();
  int* remote = cluster.map_shared_rank(&value, peer);
  if (threadIdx.x == 0) {
    out[blockIdx.x * 2]     = *remote;
    out[blockIdx.x * 2 + 1] = (int) ptx::getctarank(ptx::space_cluster, remote);
  }
  ptx::barrier_cluster_arrive();
  ptx::barrier_cluster_wait();
#else
  if (threadIdx.x == 0) {
    value               = (int) ptx::get_sreg_laneid();
    out[blockIdx.x * 2] = value + (int) ptx::get_sreg_smid();
  }
#endif
}

// cuda::barrier + cuda::memcpy_async double buffering (cp.async on sm_80+).
__global__ void barrier_memcpy_async(const float* __restrict__ in, float* __restrict__ out, int tiles)
{
  constexpr int TILE = 256;
  __shared__ alignas(16) float buf[2][TILE];
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ cuda::barrier<cuda::thread_scope_block> bars[2];
  auto block = cg::this_thread_block();
  if (block.thread_rank() == 0) {
    init(&bars[0], block.size());
    init(&bars[1], block.size());
  }
  block.sync();
  cuda::memcpy_async(block, buf[0], in + blockIdx.x * tiles * TILE, sizeof(float) * TILE, bars[0]);
  float acc = 0.f;
  for (int t = 0; t < tiles; ++t) {
    const int cur = t & 1;
    if (t + 1 < tiles) {
      cuda::memcpy_async(block, buf[cur ^ 1], in + (blockIdx.x * tiles + t + 1) * TILE, sizeof(float) * TILE,
                         bars[cur ^ 1]);
    }
    bars[cur].arrive_and_wait();
    acc += buf[cur][threadIdx.x % TILE];
    block.sync();
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// cuda::pipeline with a multi-stage producer/consumer loop.
__global__ void pipeline_stages(const int4* __restrict__ in, int4* __restrict__ out, int chunks)
{
  constexpr int STAGES = 3;
  constexpr int CHUNK  = 128;
  __shared__ int4 stage[STAGES][CHUNK];
  auto block = cg::this_thread_block();
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, STAGES> state;
  auto pipe = cuda::make_pipeline(block, &state);
  int fetch = 0;
  for (int c = 0; c < chunks; ++c) {
    for (; fetch < chunks && fetch < c + STAGES; ++fetch) {
      pipe.producer_acquire();
      cuda::memcpy_async(block, stage[fetch % STAGES], in + (size_t) fetch * CHUNK, sizeof(int4) * CHUNK, pipe);
      pipe.producer_commit();
    }
    pipe.consumer_wait();
    int4 v = stage[c % STAGES][threadIdx.x % CHUNK];
    v.x += v.y;
    v.z ^= v.w;
    out[(size_t) c * CHUNK + threadIdx.x % CHUNK] = v;
    pipe.consumer_release();
  }
}

// cuda::atomic_ref at block, device and system scope.
__global__ void atomic_ref_scopes(int* block_counter, unsigned long long* device_sum, float* system_max,
                                  const float* values, int n)
{
  __shared__ int local;
  if (threadIdx.x == 0) local = 0;
  __syncthreads();
  cuda::atomic_ref<int, cuda::thread_scope_block> lref(local);
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && values[i] > 0.f) lref.fetch_add(1, cuda::memory_order_relaxed);
  __syncthreads();
  if (threadIdx.x == 0) {
    cuda::atomic_ref<int, cuda::thread_scope_block> bref(block_counter[blockIdx.x]);
    bref.store(lref.load(cuda::memory_order_acquire), cuda::memory_order_release);
    cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> dref(*device_sum);
    dref.fetch_add((unsigned long long) local, cuda::memory_order_acq_rel);
  }
  if (i < n) {
    cuda::atomic_ref<float, cuda::thread_scope_system> sref(*system_max);
    float cur = sref.load(cuda::memory_order_relaxed);
    while (values[i] > cur && !sref.compare_exchange_weak(cur, values[i], cuda::memory_order_seq_cst)) {
    }
  }
  cuda::atomic_thread_fence(cuda::memory_order_seq_cst, cuda::thread_scope_device);
}

// Small bit-manipulation wrappers available everywhere.
__global__ void ptx_bit_ops(const cuda::std::uint32_t* in, cuda::std::uint32_t* out)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  cuda::std::uint32_t a = in[i], b = in[i + 1];
  out[i] = ptx::prmt(a, b, 0x3210u) ^ ptx::shl(a, 3u) ^ ptx::shr(b, 5u);
}
