// corpus-archs: sm_80 sm_90a sm_100a
// nvcuda::wmma GEMM tiles: f16 (f16/f32 accumulate), bf16, tf32, s8, f64, and
// 1-bit AND/popc, with shared-memory staging and fused epilogues.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>

using namespace nvcuda;

// C[M,N] = alpha * A[M,K] * B[K,N] + beta * C, one warp per 16x16 tile (f16 in, f32 accumulate).
template <typename Layout>
__global__ void wmma_hgemm(const half* A, const half* B, float* C, int M, int N, int K, float alpha, float beta)
{
  const int warp_m = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int warp_n = blockIdx.y * blockDim.y + threadIdx.y;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, Layout> b;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc, c;
  wmma::fill_fragment(acc, 0.0f);
  const int row = warp_m * 16, col = warp_n * 16;
  if (row >= M || col >= N) return;
  for (int k = 0; k < K; k += 16) {
    wmma::load_matrix_sync(a, A + row * K + k, K);
    if constexpr (std::is_same<Layout, wmma::col_major>::value) {
      wmma::load_matrix_sync(b, B + col * K + k, K);
    } else {
      wmma::load_matrix_sync(b, B + k * N + col, N);
    }
    wmma::mma_sync(acc, a, b, acc);
  }
  wmma::load_matrix_sync(c, C + row * N + col, N, wmma::mem_row_major);
  for (int i = 0; i < c.num_elements; ++i) c.x[i] = alpha * acc.x[i] + beta * c.x[i];
  wmma::store_matrix_sync(C + row * N + col, c, N, wmma::mem_row_major);
}

// f16 accumulate, 32x8x16 shape, staged through shared memory, ReLU epilogue.
__global__ void wmma_h16_relu(const half* A, const half* B, half* C, int K)
{
  __shared__ half tile[32 * 8];
  wmma::fragment<wmma::matrix_a, 32, 8, 16, half, wmma::row_major> a;
  wmma::fragment<wmma::matrix_b, 32, 8, 16, half, wmma::col_major> b;
  wmma::fragment<wmma::accumulator, 32, 8, 16, half> acc;
  wmma::fill_fragment(acc, __float2half(0.f));
  for (int k = 0; k < K; k += 16) {
    wmma::load_matrix_sync(a, A + blockIdx.x * 32 * K + k, K);
    wmma::load_matrix_sync(b, B + blockIdx.y * 8 * K + k, K);
    wmma::mma_sync(acc, a, b, acc);
  }
  wmma::store_matrix_sync(tile, acc, 8, wmma::mem_row_major);
  __syncwarp();
  for (int i = threadIdx.x; i < 32 * 8; i += 32) {
    half v = tile[i];
    C[(blockIdx.x * 32 + i / 8) * 8 * gridDim.y + blockIdx.y * 8 + i % 8] = __hgt(v, __float2half(0.f)) ? v : __float2half(0.f);
  }
}

__global__ void wmma_bf16(const __nv_bfloat16* A, const __nv_bfloat16* B, float* C, int K)
{
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> a;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> b;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
  wmma::fill_fragment(acc, 0.f);
  for (int k = 0; k < K; k += 16) {
    wmma::load_matrix_sync(a, A + blockIdx.x * 16 * K + k, K);
    wmma::load_matrix_sync(b, B + blockIdx.y * 16 * K + k, K);
    wmma::mma_sync(acc, a, b, acc);
  }
  wmma::store_matrix_sync(C + blockIdx.x * 16 * 16 * gridDim.y + blockIdx.y * 16, acc, 16 * gridDim.y,
                          wmma::mem_row_major);
}

__global__ void wmma_tf32(const float* A, const float* B, float* C, int K)
{
  wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> a;
  wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> b;
  wmma::fragment<wmma::accumulator, 16, 16, 8, float> acc;
  wmma::fill_fragment(acc, 0.f);
  for (int k = 0; k < K; k += 8) {
    wmma::load_matrix_sync(a, A + blockIdx.x * 16 * K + k, K);
    wmma::load_matrix_sync(b, B + k * 16 * gridDim.y + blockIdx.y * 16, 16 * gridDim.y);
    for (int i = 0; i < a.num_elements; ++i) a.x[i] = wmma::__float_to_tf32(a.x[i]);
    for (int i = 0; i < b.num_elements; ++i) b.x[i] = wmma::__float_to_tf32(b.x[i]);
    wmma::mma_sync(acc, a, b, acc);
  }
  wmma::store_matrix_sync(C + blockIdx.x * 16 * 16 * gridDim.y + blockIdx.y * 16, acc, 16 * gridDim.y,
                          wmma::mem_col_major);
}

__global__ void wmma_s8(const signed char* A, const signed char* B, int* C, int K)
{
  wmma::fragment<wmma::matrix_a, 8, 32, 16, signed char, wmma::row_major> a;
  wmma::fragment<wmma::matrix_b, 8, 32, 16, signed char, wmma::col_major> b;
  wmma::fragment<wmma::accumulator, 8, 32, 16, int> acc;
  wmma::fill_fragment(acc, 0);
  for (int k = 0; k < K; k += 16) {
    wmma::load_matrix_sync(a, A + blockIdx.x * 8 * K + k, K);
    wmma::load_matrix_sync(b, B + blockIdx.y * 32 * K + k, K);
    wmma::mma_sync(acc, a, b, acc, /*satf=*/true);
  }
  wmma::store_matrix_sync(C + blockIdx.x * 8 * 32 * gridDim.y + blockIdx.y * 32, acc, 32 * gridDim.y,
                          wmma::mem_row_major);
}

__global__ void wmma_u8(const unsigned char* A, const unsigned char* B, int* C, int K)
{
  wmma::fragment<wmma::matrix_a, 32, 8, 16, unsigned char, wmma::row_major> a;
  wmma::fragment<wmma::matrix_b, 32, 8, 16, unsigned char, wmma::col_major> b;
  wmma::fragment<wmma::accumulator, 32, 8, 16, int> acc;
  wmma::fill_fragment(acc, 0);
  for (int k = 0; k < K; k += 16) {
    wmma::load_matrix_sync(a, A + blockIdx.x * 32 * K + k, K);
    wmma::load_matrix_sync(b, B + blockIdx.y * 8 * K + k, K);
    wmma::mma_sync(acc, a, b, acc);
  }
  wmma::store_matrix_sync(C + blockIdx.x * 32 * 8 * gridDim.y + blockIdx.y * 8, acc, 8 * gridDim.y,
                          wmma::mem_row_major);
}

__global__ void wmma_f64(const double* A, const double* B, double* C, int K)
{
  wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::row_major> a;
  wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::col_major> b;
  wmma::fragment<wmma::accumulator, 8, 8, 4, double> acc;
  wmma::fill_fragment(acc, 0.0);
  for (int k = 0; k < K; k += 4) {
    wmma::load_matrix_sync(a, A + blockIdx.x * 8 * K + k, K);
    wmma::load_matrix_sync(b, B + blockIdx.y * 8 * K + k, K);
    wmma::mma_sync(acc, a, b, acc);
  }
  wmma::store_matrix_sync(C + blockIdx.x * 8 * 8 * gridDim.y + blockIdx.y * 8, acc, 8 * gridDim.y,
                          wmma::mem_row_major);
}

__global__ void wmma_b1_and_popc(const unsigned* A, const unsigned* B, int* C, int K_bits)
{
  using namespace wmma::experimental;
  wmma::fragment<wmma::matrix_a, 8, 8, 128, precision::b1, wmma::row_major> a;
  wmma::fragment<wmma::matrix_b, 8, 8, 128, precision::b1, wmma::col_major> b;
  wmma::fragment<wmma::accumulator, 8, 8, 128, int> acc;
  wmma::fill_fragment(acc, 0);
  for (int k = 0; k < K_bits; k += 128) {
    wmma::load_matrix_sync(a, A + (blockIdx.x * 8 * K_bits + k) / 32, K_bits);
    wmma::load_matrix_sync(b, B + (blockIdx.y * 8 * K_bits + k) / 32, K_bits);
    wmma::bmma_sync(acc, a, b, acc, bmmaBitOpAND, bmmaAccumulateOpPOPC);
  }
  wmma::store_matrix_sync(C + blockIdx.x * 64 * gridDim.y + blockIdx.y * 8, acc, 8 * gridDim.y,
                          wmma::mem_row_major);
}

template __global__ void wmma_hgemm<wmma::row_major>(const half*, const half*, float*, int, int, int, float, float);
template __global__ void wmma_hgemm<wmma::col_major>(const half*, const half*, float*, int, int, int, float, float);
