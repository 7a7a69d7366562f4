// corpus-archs: sm_90a sm_100a
// Thread-block clusters: __cluster_dims__ (.reqnctapercluster), the
// max-cluster-rank launch bound, distributed shared memory through
// cluster.map_shared_rank (ld/st/atom on shared::cluster), cluster.sync,
// barrier.cluster arrive/wait split phases, mapa/getctarank, and a TMA
// multicast load into every CTA of the cluster.
#include <cooperative_groups.h>
#include <cuda.h>
#include <cstdint>

namespace cg = cooperative_groups;

// Cluster-distributed histogram: each CTA owns a slice of the bins.
template <int CLUSTER, int BINS>
__global__ void __cluster_dims__(CLUSTER, 1, 1) cluster_histogram(const int* __restrict__ data, int* __restrict__ hist,
                                                                 int n)
{
  extern __shared__ int smem_bins[];
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned rank = cluster.block_rank();
  constexpr int SLICE = BINS / CLUSTER;
  for (int b = threadIdx.x; b < SLICE; b += blockDim.x) smem_bins[b] = 0;
  cluster.sync();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const int bin = min(max(data[i], 0), BINS - 1);
    int* dst = cluster.map_shared_rank(smem_bins, bin / SLICE);
    atomicAdd(dst + bin % SLICE, 1);
  }
  cluster.sync();
  for (int b = threadIdx.x; b < SLICE; b += blockDim.x) atomicAdd(&hist[rank * SLICE + b], smem_bins[b]);
}

template __global__ void cluster_histogram<2, 1024>(const int*, int*, int);
template __global__ void cluster_histogram<4, 4096>(const int*, int*, int);

// Halo exchange between neighbouring CTAs of a 1D cluster with split arrive/wait.
__global__ void __cluster_dims__(4, 1, 1) __launch_bounds__(256)
cluster_stencil(const float* __restrict__ in, float* __restrict__ out, int n)
{
  __shared__ float tile[256 + 2];
  cg::cluster_group cluster = cg::this_cluster();
  const int gi = blockIdx.x * 256 + threadIdx.x;
  tile[threadIdx.x + 1] = gi < n ? in[gi] : 0.f;
  cluster.barrier_arrive();
  cluster.barrier_wait();
  const unsigned rank = cluster.block_rank(), size = cluster.num_blocks();
  if (threadIdx.x == 0) {
    tile[0] = rank > 0 ? *cluster.map_shared_rank(&tile[256], rank - 1) : 0.f;
  }
  if (threadIdx.x == 255) {
    tile[257] = rank + 1 < size ? *cluster.map_shared_rank(&tile[1], rank + 1) : 0.f;
  }
  cluster.sync();
  if (gi < n) out[gi] = 0.25f * tile[threadIdx.x] + 0.5f * tile[threadIdx.x + 1] + 0.25f * tile[threadIdx.x + 2];
}

// Cluster shape chosen at launch (up to 4 CTAs: max cluster rank bound); reduction of per-CTA
// partial sums into rank 0 via DSMEM.
__global__ void __launch_bounds__(128, 1, 4)
cluster_reduce_2d(const float* __restrict__ in, float* __restrict__ out)
{
  __shared__ float partial[4];
  __shared__ float warp_sums[4];
  cg::cluster_group cluster = cg::this_cluster();
  const dim3 cidx = cluster.block_index();
  const int gid = ((blockIdx.y * gridDim.x + blockIdx.x) * 128) + threadIdx.x;
  float v = in[gid];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    const float s = warp_sums[0] + warp_sums[1] + warp_sums[2] + warp_sums[3];
    float* dst = cluster.map_shared_rank(partial, 0);
    dst[cluster.block_rank()] = s + (float) cidx.x * 0.f;
  }
  cluster.sync();
  if (cluster.block_rank() == 0 && threadIdx.x == 0) {
    const dim3 cdim = cluster.dim_blocks();
    out[blockIdx.y / cdim.y * (gridDim.x / cdim.x) + blockIdx.x / cdim.x] = partial[0] + partial[1] + partial[2] + partial[3];
  }
}

static __device__ __forceinline__ uint32_t smem_u32(const void* p)
{
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// TMA multicast: CTA rank 0 loads a tile and multicasts it into all CTAs of the cluster.
__global__ void __cluster_dims__(2, 1, 1) tma_multicast(const __grid_constant__ CUtensorMap tmap, float* out)
{
  __shared__ __align__(128) float tile[32 * 32];
  __shared__ __align__(8) uint64_t bar;
  cg::cluster_group cluster = cg::this_cluster();
  const uint32_t rank = cluster.block_rank();
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_u32(&bar)));
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_u32(&bar)), "r"(
                     (uint32_t) sizeof(tile)));
  }
  cluster.sync();
  if (rank == 0 && threadIdx.x == 0) {
    const uint16_t mask = 0x3;
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster "
                 "[%0], [%1, {%3, %4}], [%2], %5;" ::"r"(smem_u32(tile)),
                 "l"(reinterpret_cast<uint64_t>(&tmap)), "r"(smem_u32(&bar)), "r"(0), "r"((int) blockIdx.x * 16),
                 "h"(mask)
                 : "memory");
  }
  asm volatile(
      "{\n"
      ".reg .pred done;\n"
      "SPIN:\n"
      "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 done, [%0], 0;\n"
      "@!done bra.uni SPIN;\n"
      "}\n" ::"r"(smem_u32(&bar))
      : "memory");
  // Read the peer's copy through mapa + ld.shared::cluster.
  uint32_t remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(smem_u32(&tile[threadIdx.x])), "r"(rank ^ 1));
  float peer;
  asm volatile("ld.shared::cluster.f32 %0, [%1];" : "=f"(peer) : "r"(remote) : "memory");
  out[blockIdx.x * blockDim.x + threadIdx.x] = tile[threadIdx.x] + peer;
  cluster.sync();
}
