// corpus-archs: sm_80 sm_90a sm_100a
// corpus-variants: plain lineinfo G:sm_80
// Warp-level CUB: reductions, segmented reductions, scans, warp exchange,
// warp load/store and warp merge sort, for full and logical (sub-)warps.
#include <cub/warp/warp_exchange.cuh>
#include <cub/warp/warp_load.cuh>
#include <cub/warp/warp_merge_sort.cuh>
#include <cub/warp/warp_reduce.cuh>
#include <cub/warp/warp_scan.cuh>
#include <cub/warp/warp_store.cuh>
#include <cuda/functional>

// Row-wise dot products: one logical warp of LANES threads per row.
template <int LANES, int WARPS>
__global__ void rowwise_dot(const float* a, const float* b, float* out, int rows, int cols)
{
  using WR = cub::WarpReduce<float, LANES>;
  __shared__ typename WR::TempStorage temp[WARPS];
  const int warp = threadIdx.x / LANES;
  const int lane = threadIdx.x % LANES;
  const int row  = blockIdx.x * WARPS + warp;
  if (row >= rows) return;
  float acc = 0.f;
  for (int c = lane; c < cols; c += LANES) acc = fmaf(a[row * cols + c], b[c], acc);
  float total = WR(temp[warp]).Sum(acc);
  if (lane == 0) out[row] = total;
}

template <typename T>
__global__ void warp_minmax(const T* in, T* mins, T* maxs, int n)
{
  using WR = cub::WarpReduce<T>;
  __shared__ typename WR::TempStorage temp[8];
  const int warp = threadIdx.x / 32;
  const int i    = blockIdx.x * blockDim.x + threadIdx.x;
  const int valid = min(32, max(0, n - (i - (int)(threadIdx.x % 32))));
  T v = i < n ? in[i] : T(0);
  T mn = WR(temp[warp]).Reduce(v, cuda::minimum<T>{}, valid);
  __syncwarp();
  T mx = WR(temp[warp]).Reduce(v, cuda::maximum<T>{}, valid);
  if (threadIdx.x % 32 == 0) {
    mins[i / 32] = mn;
    maxs[i / 32] = mx;
  }
}

__global__ void warp_segmented_sum(const int* values, const int* head_flags, int* out)
{
  using WR = cub::WarpReduce<int>;
  __shared__ typename WR::TempStorage temp[4];
  const int warp = threadIdx.x / 32;
  const int i    = blockIdx.x * blockDim.x + threadIdx.x;
  int s = WR(temp[warp]).HeadSegmentedSum(values[i], head_flags[i]);
  if (head_flags[i]) out[i] = s;
}

template <typename T, int LANES>
__global__ void warp_scans(const T* in, T* incl, T* excl, T* warp_totals)
{
  using WS = cub::WarpScan<T, LANES>;
  constexpr int WARPS = 128 / LANES;
  __shared__ typename WS::TempStorage temp[WARPS];
  const int warp = threadIdx.x / LANES;
  const int i    = blockIdx.x * blockDim.x + threadIdx.x;
  T v = in[i], inc, exc, agg;
  WS(temp[warp]).InclusiveSum(v, inc);
  __syncwarp();
  WS(temp[warp]).ExclusiveScan(v, exc, T(0), cuda::std::plus<T>{}, agg);
  incl[i] = inc;
  excl[i] = exc;
  if (threadIdx.x % LANES == 0) warp_totals[i / LANES] = agg;
}

template <int ITEMS>
__global__ void warp_transpose_and_sort(const int* in, int* out)
{
  constexpr int WARPS = 4;
  using Load  = cub::WarpLoad<int, ITEMS, cub::WARP_LOAD_TRANSPOSE>;
  using Xchg  = cub::WarpExchange<int, ITEMS>;
  using Sort  = cub::WarpMergeSort<int, ITEMS>;
  using Store = cub::WarpStore<int, ITEMS, cub::WARP_STORE_VECTORIZE>;
  __shared__ union {
    typename Load::TempStorage load[WARPS];
    typename Xchg::TempStorage xchg[WARPS];
    typename Sort::TempStorage sort[WARPS];
    typename Store::TempStorage store[WARPS];
  } smem;
  const int warp = threadIdx.x / 32;
  const int off  = (blockIdx.x * WARPS + warp) * 32 * ITEMS;
  int items[ITEMS];
  Load(smem.load[warp]).Load(in + off, items);
  __syncwarp();
  Xchg(smem.xchg[warp]).StripedToBlocked(items, items);
  __syncwarp();
  Sort(smem.sort[warp]).Sort(items, cuda::std::less<int>{});
  __syncwarp();
  Store(smem.store[warp]).Store(out + off, items);
}

template __global__ void rowwise_dot<32, 4>(const float*, const float*, float*, int, int);
template __global__ void rowwise_dot<16, 8>(const float*, const float*, float*, int, int);
template __global__ void rowwise_dot<8, 16>(const float*, const float*, float*, int, int);
template __global__ void warp_minmax<float>(const float*, float*, float*, int);
template __global__ void warp_minmax<long long>(const long long*, long long*, long long*, int);
template __global__ void warp_scans<int, 32>(const int*, int*, int*, int*);
template __global__ void warp_scans<double, 16>(const double*, double*, double*, double*);
template __global__ void warp_scans<unsigned, 4>(const unsigned*, unsigned*, unsigned*, unsigned*);
template __global__ void warp_transpose_and_sort<4>(const int*, int*);
template __global__ void warp_transpose_and_sort<8>(const int*, int*);
