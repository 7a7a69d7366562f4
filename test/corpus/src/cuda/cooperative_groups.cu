// corpus-archs: sm_80 sm_90a sm_100a
// corpus-variants: plain lineinfo G:sm_100a
// Cooperative groups: thread_block_tile partitions, cg::reduce / cg::inclusive_scan,
// coalesced groups, labeled partitions, memcpy_async, and a grid-wide sync in a
// cooperative kernel (power iteration style).
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>

namespace cg = cooperative_groups;

template <int TILE>
__global__ void tile_reduce(const float* __restrict__ in, float* __restrict__ out, int n)
{
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<TILE> tile = cg::tiled_partition<TILE>(block);
  const int i = block.group_index().x * block.size() + block.thread_rank();
  float v = i < n ? in[i] : 0.f;
  float s = cg::reduce(tile, v, cg::plus<float>());
  float m = cg::reduce(tile, v, cg::greater<float>());
  if (tile.thread_rank() == 0) {
    const int t = i / TILE;
    out[2 * t]     = s;
    out[2 * t + 1] = m;
  }
}

__global__ void tile_scan_compact(const int* __restrict__ in, int* __restrict__ out, int* __restrict__ count, int n)
{
  cg::thread_block block = cg::this_thread_block();
  auto warp = cg::tiled_partition<32>(block);
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int v = i < n ? in[i] : 0;
  const int keep = (v % 3) == 0;
  int pos = cg::exclusive_scan(warp, keep);
  int warp_total = warp.shfl(pos + keep, 31);
  int base = 0;
  if (warp.thread_rank() == 0) base = atomicAdd(count, warp_total);
  base = warp.shfl(base, 0);
  if (keep) out[base + pos] = v;
  unsigned ballot = warp.ballot(keep);
  if (warp.any(v < 0) && warp.thread_rank() == 0) out[n + blockIdx.x] = __popc(ballot);
}

__global__ void coalesced_atomics(const int* keys, int* bins, int n)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int key = keys[i];
  if (key & 1) {
    cg::coalesced_group active = cg::coalesced_threads();
    // Threads with the same key form a group; its leader does one atomic.
    cg::coalesced_group same = cg::labeled_partition(active, key);
    int prev = 0;
    if (same.thread_rank() == 0) prev = atomicAdd(&bins[key & 255], (int) same.size());
    prev = same.shfl(prev, 0);
    (void) prev;
    cg::thread_group pair = cg::tiled_partition(active, 2);
    if (pair.thread_rank() == 0) atomicAdd(&bins[256 + (key & 15)], (int) pair.size());
  }
}

__global__ void cg_memcpy_async_stencil(const float* __restrict__ in, float* __restrict__ out, int n)
{
  extern __shared__ float halo[];
  cg::thread_block block = cg::this_thread_block();
  const int base = blockIdx.x * blockDim.x;
  const int count = min((int) blockDim.x + 2, n - base + 1);
  cg::memcpy_async(block, halo, in + max(base - 1, 0), sizeof(float) * count);
  cg::wait(block);
  const int t = threadIdx.x + 1;
  if (base + threadIdx.x < n) out[base + threadIdx.x] = 0.25f * halo[t - 1] + 0.5f * halo[t] + 0.25f * halo[t + 1];
}

// Cooperative launch: normalise a vector over several grid-wide phases.
__global__ void __launch_bounds__(256) grid_power_iteration(const float* __restrict__ A, float* x, float* y,
                                                            float* norm, int n, int iters)
{
  cg::grid_group grid = cg::this_grid();
  cg::thread_block block = cg::this_thread_block();
  auto warp = cg::tiled_partition<32>(block);
  for (int it = 0; it < iters; ++it) {
    for (int row = grid.thread_rank(); row < n; row += grid.size()) {
      float acc = 0.f;
      for (int c = 0; c < n; ++c) acc += A[(size_t) row * n + c] * x[c];
      y[row] = acc;
    }
    if (grid.thread_rank() == 0) *norm = 0.f;
    grid.sync();
    float local = 0.f;
    for (int row = grid.thread_rank(); row < n; row += grid.size()) local += y[row] * y[row];
    local = cg::reduce(warp, local, cg::plus<float>());
    if (warp.thread_rank() == 0) atomicAdd(norm, local);
    grid.sync();
    const float inv = rsqrtf(*norm);
    for (int row = grid.thread_rank(); row < n; row += grid.size()) x[row] = y[row] * inv;
    grid.sync();
  }
}

template __global__ void tile_reduce<32>(const float*, float*, int);
template __global__ void tile_reduce<16>(const float*, float*, int);
template __global__ void tile_reduce<4>(const float*, float*, int);
