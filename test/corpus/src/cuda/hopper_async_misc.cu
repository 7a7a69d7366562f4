// corpus-archs: sm_90a sm_100a
// sm_90+ asynchronous features through cuda::ptx and cooperative groups:
// st.async / red.async into a peer CTA's shared memory completing on its
// mbarrier, cp.reduce.async.bulk, bulk multicast, device-side tensor-map
// updates (tensormap.replace, tensormap.cp_fenceproxy, fence.proxy.tensormap),
// programmatic dependent launch, cg::invoke_one (elect.sync), and on sm_100
// st.bulk and cluster launch control (work stealing).
#include <cooperative_groups.h>
#include <cuda.h>
#include <cuda/ptx>
#include <cuda_runtime.h>
#include <cstdint>

namespace ptx = cuda::ptx;
namespace cg  = cooperative_groups;

// Ring all-gather within a cluster: each CTA pushes its slice into its right
// neighbour with st.async; the neighbour waits on its own mbarrier.
__global__ void __cluster_dims__(4, 1, 1) __launch_bounds__(128)
cluster_ring_allgather(const uint32_t* __restrict__ in, uint32_t* __restrict__ out)
{
  __shared__ __align__(16) uint32_t slots[4][128];
  __shared__ __align__(8) uint64_t bar;
  __shared__ uint32_t counter;
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned rank = cluster.block_rank();
  if (threadIdx.x == 0) {
    ptx::mbarrier_init(&bar, 1);
    counter = 0;
    ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
  }
  cluster.sync();
  if (threadIdx.x == 0) {
    // Expect 3 slices of 128 words plus 3 red.async increments of 4 bytes.
    ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cluster, ptx::space_shared, &bar,
                                   3u * 128u * 4u + 3u * 4u);
  }
  slots[rank][threadIdx.x] = in[blockIdx.x * 128 + threadIdx.x];
  cluster.sync();
  for (unsigned step = 1; step < 4; ++step) {
    const unsigned dst = (rank + step) % 4;
    uint32_t* remote_slot = cluster.map_shared_rank(&slots[rank][threadIdx.x], dst);
    uint64_t* remote_bar = cluster.map_shared_rank(&bar, dst);
    ptx::st_async(remote_slot, slots[rank][threadIdx.x], remote_bar);
    if (threadIdx.x == 0) {
      ptx::red_async(ptx::op_add, cluster.map_shared_rank(&counter, dst), 1u, remote_bar);
    }
  }
  while (!ptx::mbarrier_try_wait_parity(ptx::sem_acquire, ptx::scope_cluster, &bar, 0u)) {
  }
  for (int s = 0; s < 4; ++s) out[(blockIdx.x * 4 + s) * 128 + threadIdx.x] = slots[s][threadIdx.x] + counter;
  cluster.sync();
}

// Bulk reduction of a shared buffer into global memory, and a multicast bulk copy.
__global__ void __cluster_dims__(2, 1, 1) bulk_reduce_multicast(const float* __restrict__ src, float* __restrict__ acc,
                                                               uint32_t* __restrict__ bits)
{
  __shared__ __align__(128) float buf[1024];
  __shared__ __align__(128) uint32_t ubuf[256];
  __shared__ __align__(8) uint64_t bar;
  cg::cluster_group cluster = cg::this_cluster();
  if (threadIdx.x == 0) {
    ptx::mbarrier_init(&bar, 1);
    ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
  }
  cluster.sync();
  if (threadIdx.x == 0) {
    ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar, sizeof(buf));
    if (cluster.block_rank() == 0) {
      ptx::cp_async_bulk(ptx::space_cluster, ptx::space_global, buf, src + blockIdx.x / 2 * 1024, sizeof(buf), &bar,
                         (uint16_t) 0x3);
    }
  }
  while (!ptx::mbarrier_try_wait_parity(&bar, 0u)) {
  }
  for (int i = threadIdx.x; i < 256; i += blockDim.x) ubuf[i] = __float_as_uint(buf[i]) >> 8;
  ptx::fence_proxy_async(ptx::space_shared);
  __syncthreads();
  if (threadIdx.x == 0) {
    ptx::cp_reduce_async_bulk(ptx::space_global, ptx::space_shared, ptx::op_add, acc, buf, sizeof(buf));
    ptx::cp_reduce_async_bulk(ptx::space_global, ptx::space_shared, ptx::op_or_op, bits, ubuf, sizeof(ubuf));
    ptx::cp_async_bulk_commit_group();
    ptx::cp_async_bulk_wait_group_read(ptx::n32_t<0>());
  }
  cluster.sync();
}

// Patch a tensor map on the device (new base address and box), then publish it.
__global__ void update_tensor_map(CUtensorMap* __restrict__ global_map, const __grid_constant__ CUtensorMap templ,
                                  void* new_base, uint32_t new_dim0)
{
  __shared__ __align__(128) CUtensorMap smap;
  if (threadIdx.x < 32) {
    if (threadIdx.x == 0) smap = templ;
    __syncwarp();
    if (threadIdx.x == 0) {
      ptx::tensormap_replace_global_address(ptx::space_shared, &smap, reinterpret_cast<uint64_t>(new_base));
      ptx::tensormap_replace_global_dim(ptx::space_shared, &smap, ptx::n32_t<0>(), new_dim0);
      ptx::tensormap_replace_box_dim(ptx::space_shared, &smap, ptx::n32_t<1>(), 64u);
    }
    __syncwarp();
    ptx::tensormap_cp_fenceproxy(ptx::sem_release, ptx::scope_gpu, global_map, &smap, ptx::n32_t<128>());
  }
  if (threadIdx.x == 0) {
    ptx::fence_proxy_tensormap_generic(ptx::sem_acquire, ptx::scope_gpu, global_map, ptx::n32_t<128>());
  }
}

// Programmatic dependent launch and cg::invoke_one.
__global__ void pdl_consumer(const float* __restrict__ produced, float* __restrict__ out, unsigned* __restrict__ tickets,
                             int n)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  float pre = 0.f;
  if (i < n) pre = static_cast<float>(i) * 0.5f; // work that does not depend on the producer
  cudaGridDependencySynchronize();
  if (i < n) out[i] = produced[i] + pre;
  auto warp = cg::tiled_partition<32>(cg::this_thread_block());
  unsigned ticket = cg::invoke_one_broadcast(warp, [&] { return atomicAdd(tickets, 1u); });
  cg::invoke_one(warp, [&] { tickets[1 + (ticket & 7)] = ticket; });
  cudaTriggerProgrammaticLaunchCompletion();
}

// sm_100: st.bulk zero-fill and cluster launch control work stealing.
__global__ void persistent_with_clc(float* __restrict__ data, int tiles)
{
  __shared__ __align__(16) float scratch[256];
#if __CUDA_ARCH__ >= 1000
  __shared__ __align__(16) uint4 response;
  __shared__ __align__(8) uint64_t bar;
  ptx::st_bulk(scratch, sizeof(scratch), ptx::n32_t<0>());
  if (threadIdx.x == 0) ptx::mbarrier_init(&bar, 1);
  __syncthreads();
  int tile = blockIdx.x;
  uint32_t phase = 0;
  while (tile < tiles) {
    if (threadIdx.x == 0) {
      ptx::clusterlaunchcontrol_try_cancel(&response, &bar);
      ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar, 16u);
    }
    scratch[threadIdx.x % 256] += data[tile * blockDim.x + threadIdx.x];
    data[tile * blockDim.x + threadIdx.x] = scratch[threadIdx.x % 256] * 2.f;
    while (!ptx::mbarrier_try_wait_parity(&bar, phase)) {
    }
    phase ^= 1;
    const uint4 r = response;
    __syncthreads();
    if (!ptx::clusterlaunchcontrol_query_cancel_is_canceled(r)) break;
    tile = (int) ptx::clusterlaunchcontrol_query_cancel_get_first_ctaid_x<uint32_t>(r);
  }
#else
  for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    scratch[threadIdx.x % 256] = data[tile * blockDim.x + threadIdx.x];
    data[tile * blockDim.x + threadIdx.x] = scratch[threadIdx.x % 256] * 2.f;
  }
#endif
}
