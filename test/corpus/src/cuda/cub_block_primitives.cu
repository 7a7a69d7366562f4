// corpus-archs: sm_80 sm_90a sm_100a
// corpus-variants: plain lineinfo G:sm_90a
// Block-wide CUB primitives (reduce, scan, radix sort, merge sort, histogram,
// load/store/exchange, discontinuity, adjacent difference) used the way a
// small analytics pipeline would, with explicit kernel instantiations.
#include <cub/block/block_adjacent_difference.cuh>
#include <cub/block/block_discontinuity.cuh>
#include <cub/block/block_exchange.cuh>
#include <cub/block/block_histogram.cuh>
#include <cub/block/block_load.cuh>
#include <cub/block/block_merge_sort.cuh>
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/block/block_store.cuh>
#include <cuda/functional>
#include <cuda/std/cstdint>

template <typename T, int BLOCK, int ITEMS, cub::BlockReduceAlgorithm ALGO>
__global__ void __launch_bounds__(BLOCK)
block_reduce_kernel(const T* __restrict__ in, T* __restrict__ sums, T* __restrict__ maxes, int n)
{
  using Load   = cub::BlockLoad<T, BLOCK, ITEMS, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
  using Reduce = cub::BlockReduce<T, BLOCK, ALGO>;
  __shared__ union {
    typename Load::TempStorage load;
    typename Reduce::TempStorage reduce;
  } smem;
  T items[ITEMS];
  const int base = blockIdx.x * BLOCK * ITEMS;
  Load(smem.load).Load(in + base, items, n - base, T(0));
  __syncthreads();
  T sum = Reduce(smem.reduce).Sum(items);
  __syncthreads();
  T mx = Reduce(smem.reduce).Reduce(items, cuda::maximum<T>{});
  if (threadIdx.x == 0) {
    sums[blockIdx.x]  = sum;
    maxes[blockIdx.x] = mx;
  }
}

template <typename T, int BLOCK, int ITEMS, cub::BlockScanAlgorithm ALGO>
__global__ void __launch_bounds__(BLOCK)
block_scan_kernel(const T* __restrict__ in, T* __restrict__ out, T* __restrict__ block_totals, int n)
{
  using Load  = cub::BlockLoad<T, BLOCK, ITEMS, cub::BLOCK_LOAD_TRANSPOSE>;
  using Store = cub::BlockStore<T, BLOCK, ITEMS, cub::BLOCK_STORE_TRANSPOSE>;
  using Scan  = cub::BlockScan<T, BLOCK, ALGO>;
  __shared__ union {
    typename Load::TempStorage load;
    typename Store::TempStorage store;
    typename Scan::TempStorage scan;
  } smem;
  T items[ITEMS];
  const int base  = blockIdx.x * BLOCK * ITEMS;
  const int valid = min(BLOCK * ITEMS, n - base);
  Load(smem.load).Load(in + base, items, valid, T(0));
  __syncthreads();
  T total;
  Scan(smem.scan).ExclusiveSum(items, items, total);
  __syncthreads();
  Store(smem.store).Store(out + base, items, valid);
  if (threadIdx.x == 0) block_totals[blockIdx.x] = total;
}

template <typename T, int BLOCK>
__global__ void block_inclusive_max_scan(const T* in, T* out, int n)
{
  using Scan = cub::BlockScan<T, BLOCK, cub::BLOCK_SCAN_RAKING_MEMOIZE>;
  __shared__ typename Scan::TempStorage temp;
  const int i = blockIdx.x * BLOCK + threadIdx.x;
  T v = i < n ? in[i] : cuda::std::numeric_limits<T>::lowest();
  Scan(temp).InclusiveScan(v, v, cuda::maximum<T>{});
  if (i < n) out[i] = v;
}

template <typename Key, typename Value, int BLOCK, int ITEMS>
__global__ void __launch_bounds__(BLOCK)
block_radix_sort_pairs(Key* keys, Value* values, int descending)
{
  using Sort = cub::BlockRadixSort<Key, BLOCK, ITEMS, Value>;
  __shared__ typename Sort::TempStorage temp;
  Key k[ITEMS];
  Value v[ITEMS];
  const int base = blockIdx.x * BLOCK * ITEMS;
  cub::LoadDirectStriped<BLOCK>(threadIdx.x, keys + base, k);
  cub::LoadDirectStriped<BLOCK>(threadIdx.x, values + base, v);
  if (descending) {
    Sort(temp).SortDescendingBlockedToStriped(k, v);
  } else {
    Sort(temp).SortBlockedToStriped(k, v);
  }
  cub::StoreDirectStriped<BLOCK>(threadIdx.x, keys + base, k);
  cub::StoreDirectStriped<BLOCK>(threadIdx.x, values + base, v);
}

template <typename Key, int BLOCK, int ITEMS>
__global__ void block_radix_sort_keys(Key* keys, int begin_bit, int end_bit)
{
  using Sort = cub::BlockRadixSort<Key, BLOCK, ITEMS>;
  __shared__ typename Sort::TempStorage temp;
  Key k[ITEMS];
  const int base = blockIdx.x * BLOCK * ITEMS;
  cub::LoadDirectBlocked(threadIdx.x, keys + base, k);
  Sort(temp).Sort(k, begin_bit, end_bit);
  cub::StoreDirectBlocked(threadIdx.x, keys + base, k);
}

struct PairLess {
  __device__ bool operator()(const float2& a, const float2& b) const
  {
    return a.x < b.x || (a.x == b.x && a.y < b.y);
  }
};

template <int BLOCK, int ITEMS>
__global__ void block_merge_sort_points(float2* pts, int n)
{
  using Sort = cub::BlockMergeSort<float2, BLOCK, ITEMS>;
  __shared__ typename Sort::TempStorage temp;
  float2 items[ITEMS];
  const int base  = blockIdx.x * BLOCK * ITEMS;
  const int valid = min(BLOCK * ITEMS, n - base);
  const float2 oob = make_float2(3.0e38f, 3.0e38f);
  cub::LoadDirectBlocked(threadIdx.x, pts + base, items, valid, oob);
  Sort(temp).Sort(items, PairLess{}, valid, oob);
  cub::StoreDirectBlocked(threadIdx.x, pts + base, items, valid);
}

template <int BLOCK, int ITEMS, cub::BlockHistogramAlgorithm ALGO>
__global__ void block_histogram_u8(const unsigned char* data, unsigned int* hist, int n)
{
  using Hist = cub::BlockHistogram<unsigned char, BLOCK, ITEMS, 256, ALGO>;
  __shared__ typename Hist::TempStorage temp;
  __shared__ unsigned int smem_hist[256];
  unsigned char samples[ITEMS];
  const int base = blockIdx.x * BLOCK * ITEMS;
  cub::LoadDirectStriped<BLOCK>(threadIdx.x, data + base, samples, n - base, (unsigned char) 0);
  Hist(temp).Histogram(samples, smem_hist);
  __syncthreads();
  for (int b = threadIdx.x; b < 256; b += BLOCK) {
    atomicAdd(hist + b, smem_hist[b]);
  }
}

template <int BLOCK, int ITEMS>
__global__ void segment_heads_and_deltas(const int* keys, int* head_flags, int* deltas)
{
  using Disc = cub::BlockDiscontinuity<int, BLOCK>;
  using Diff = cub::BlockAdjacentDifference<int, BLOCK>;
  using Xchg = cub::BlockExchange<int, BLOCK, ITEMS>;
  __shared__ union {
    typename Disc::TempStorage disc;
    typename Diff::TempStorage diff;
    typename Xchg::TempStorage xchg;
  } smem;
  int k[ITEMS], flags[ITEMS], d[ITEMS];
  const int base = blockIdx.x * BLOCK * ITEMS;
  cub::LoadDirectBlocked(threadIdx.x, keys + base, k);
  Disc(smem.disc).FlagHeads(flags, k, cuda::std::not_equal_to<int>{});
  __syncthreads();
  Diff(smem.diff).SubtractLeft(k, d, cuda::std::minus<int>{});
  __syncthreads();
  Xchg(smem.xchg).BlockedToStriped(flags);
  __syncthreads();
  Xchg(smem.xchg).BlockedToStriped(d);
  cub::StoreDirectStriped<BLOCK>(threadIdx.x, head_flags + base, flags);
  cub::StoreDirectStriped<BLOCK>(threadIdx.x, deltas + base, d);
}

template __global__ void block_reduce_kernel<float, 128, 4, cub::BLOCK_REDUCE_WARP_REDUCTIONS>(const float*, float*, float*, int);
template __global__ void block_reduce_kernel<double, 256, 2, cub::BLOCK_REDUCE_RAKING>(const double*, double*, double*, int);
template __global__ void block_scan_kernel<int, 128, 4, cub::BLOCK_SCAN_WARP_SCANS>(const int*, int*, int*, int);
template __global__ void block_scan_kernel<float, 256, 2, cub::BLOCK_SCAN_RAKING>(const float*, float*, float*, int);
template __global__ void block_inclusive_max_scan<float, 256>(const float*, float*, int);
template __global__ void block_radix_sort_pairs<unsigned int, int, 128, 4>(unsigned int*, int*, int);
template __global__ void block_radix_sort_pairs<float, unsigned short, 256, 2>(float*, unsigned short*, int);
template __global__ void block_radix_sort_keys<unsigned long long, 64, 8>(unsigned long long*, int, int);
template __global__ void block_merge_sort_points<128, 4>(float2*, int);
template __global__ void block_histogram_u8<256, 4, cub::BLOCK_HISTO_ATOMIC>(const unsigned char*, unsigned int*, int);
template __global__ void segment_heads_and_deltas<128, 4>(const int*, int*, int*);

// Host-side launchers, as the application would call them. (A TU whose only
// external functions are templates gets a PID-based module ID from nvcc, which
// would make the _INTERNAL_ symbol names differ from run to run.)
cudaError_t launch_block_sum(const float* in, float* sums, float* maxes, int n, cudaStream_t s)
{
  const int blocks = (n + 128 * 4 - 1) / (128 * 4);
  block_reduce_kernel<float, 128, 4, cub::BLOCK_REDUCE_WARP_REDUCTIONS><<<blocks, 128, 0, s>>>(in, sums, maxes, n);
  return cudaGetLastError();
}

cudaError_t launch_sort_pairs(unsigned int* keys, int* values, int tiles, bool descending, cudaStream_t s)
{
  block_radix_sort_pairs<unsigned int, int, 128, 4><<<tiles, 128, 0, s>>>(keys, values, descending ? 1 : 0);
  return cudaGetLastError();
}
