// corpus-archs: sm_80 sm_90a sm_100a
// A small numerical toolbox of the classic CUDA kernels: shared-memory tiled
// SGEMM with register blocking, 2D Jacobi and 3D 7-point stencils, N-body with
// rsqrt, a Blelloch work-efficient scan, bitonic sort in shared memory, CSR SpMV
// (vector kernel), level-synchronous BFS, conflict-free transpose, and a
// Mandelbrot renderer with a data-dependent loop.
#include <cstdint>

template <int TILE, int RB>
__global__ void __launch_bounds__((TILE / RB) * (TILE / RB))
sgemm_tiled(int M, int N, int K, float alpha, const float* __restrict__ A, const float* __restrict__ B, float beta,
            float* __restrict__ C)
{
  constexpr int T = TILE / RB; // threads per dimension
  __shared__ float As[TILE][TILE + 1];
  __shared__ float Bs[TILE][TILE + 1];
  const int tx = threadIdx.x % T, ty = threadIdx.x / T;
  const int row0 = blockIdx.y * TILE, col0 = blockIdx.x * TILE;
  float acc[RB][RB] = {};
  for (int k0 = 0; k0 < K; k0 += TILE) {
    for (int i = threadIdx.x; i < TILE * TILE; i += T * T) {
      const int r = i / TILE, c = i % TILE;
      As[r][c] = (row0 + r < M && k0 + c < K) ? A[(size_t) (row0 + r) * K + k0 + c] : 0.f;
      Bs[r][c] = (k0 + r < K && col0 + c < N) ? B[(size_t) (k0 + r) * N + col0 + c] : 0.f;
    }
    __syncthreads();
#pragma unroll 8
    for (int k = 0; k < TILE; ++k) {
      float a[RB], b[RB];
#pragma unroll
      for (int i = 0; i < RB; ++i) a[i] = As[ty * RB + i][k];
#pragma unroll
      for (int j = 0; j < RB; ++j) b[j] = Bs[k][tx * RB + j];
#pragma unroll
      for (int i = 0; i < RB; ++i)
#pragma unroll
        for (int j = 0; j < RB; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < RB; ++i)
#pragma unroll
    for (int j = 0; j < RB; ++j) {
      const int r = row0 + ty * RB + i, c = col0 + tx * RB + j;
      if (r < M && c < N) C[(size_t) r * N + c] = alpha * acc[i][j] + beta * C[(size_t) r * N + c];
    }
}

template __global__ void sgemm_tiled<32, 2>(int, int, int, float, const float*, const float*, float, float*);
template __global__ void sgemm_tiled<64, 4>(int, int, int, float, const float*, const float*, float, float*);

__global__ void jacobi2d(const float* __restrict__ u, float* __restrict__ unew, const float* __restrict__ f, int nx,
                         int ny, float h2, float* __restrict__ residual)
{
  __shared__ float tile[18][18];
  const int x = blockIdx.x * 16 + threadIdx.x, y = blockIdx.y * 16 + threadIdx.y;
  const int lx = threadIdx.x + 1, ly = threadIdx.y + 1;
  auto at = [&](int i, int j) { return (i >= 0 && i < nx && j >= 0 && j < ny) ? u[j * nx + i] : 0.f; };
  tile[ly][lx] = at(x, y);
  if (threadIdx.x == 0) tile[ly][0] = at(x - 1, y);
  if (threadIdx.x == 15) tile[ly][17] = at(x + 1, y);
  if (threadIdx.y == 0) tile[0][lx] = at(x, y - 1);
  if (threadIdx.y == 15) tile[17][lx] = at(x, y + 1);
  __syncthreads();
  if (x > 0 && y > 0 && x < nx - 1 && y < ny - 1) {
    const float v = 0.25f * (tile[ly][lx - 1] + tile[ly][lx + 1] + tile[ly - 1][lx] + tile[ly + 1][lx] - h2 * f[y * nx + x]);
    unew[y * nx + x] = v;
    const float d = v - tile[ly][lx];
    atomicAdd(residual, d * d);
  }
}

__global__ void stencil7_3d(const double* __restrict__ in, double* __restrict__ out, int nx, int ny, int nz, double c0,
                            double c1)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || y < 1 || x >= nx - 1 || y >= ny - 1) return;
  const size_t sxy = (size_t) nx * ny;
  double below = in[sxy * 0 + y * nx + x], cur = in[sxy * 1 + y * nx + x];
  for (int z = 1; z < nz - 1; ++z) {
    const double above = in[sxy * (z + 1) + y * nx + x];
    const size_t i = sxy * z + y * nx + x;
    out[i] = c0 * cur + c1 * (in[i - 1] + in[i + 1] + in[i - nx] + in[i + nx] + below + above);
    below = cur;
    cur = above;
  }
}

__global__ void nbody_forces(const float4* __restrict__ pos, float3* __restrict__ acc, int n, float soft2)
{
  extern __shared__ float4 sh_pos[];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const float4 pi = i < n ? pos[i] : make_float4(0.f, 0.f, 0.f, 0.f);
  float3 a = make_float3(0.f, 0.f, 0.f);
  for (int tile = 0; tile < (n + blockDim.x - 1) / blockDim.x; ++tile) {
    const int j = tile * blockDim.x + threadIdx.x;
    sh_pos[threadIdx.x] = j < n ? pos[j] : make_float4(0.f, 0.f, 0.f, 0.f);
    __syncthreads();
#pragma unroll 4
    for (int k = 0; k < (int) blockDim.x; ++k) {
      const float4 pj = sh_pos[k];
      const float dx = pj.x - pi.x, dy = pj.y - pi.y, dz = pj.z - pi.z;
      const float r2 = dx * dx + dy * dy + dz * dz + soft2;
      const float inv = rsqrtf(r2);
      const float s = pj.w * inv * inv * inv;
      a.x += dx * s;
      a.y += dy * s;
      a.z += dz * s;
    }
    __syncthreads();
  }
  if (i < n) acc[i] = a;
}

// Blelloch scan of 2*blockDim elements per block (bank-conflict avoidance by padding).
#define CONFLICT_FREE(i) ((i) + ((i) >> 5))
__global__ void blelloch_scan(const int* __restrict__ in, int* __restrict__ out, int* __restrict__ block_sums, int n)
{
  extern __shared__ int temp[];
  const int t = threadIdx.x, base = blockIdx.x * blockDim.x * 2;
  const int ai = t, bi = t + blockDim.x;
  temp[CONFLICT_FREE(ai)] = base + ai < n ? in[base + ai] : 0;
  temp[CONFLICT_FREE(bi)] = base + bi < n ? in[base + bi] : 0;
  int offset = 1;
  for (int d = blockDim.x; d > 0; d >>= 1) {
    __syncthreads();
    if (t < d) {
      const int a = offset * (2 * t + 1) - 1, b = offset * (2 * t + 2) - 1;
      temp[CONFLICT_FREE(b)] += temp[CONFLICT_FREE(a)];
    }
    offset <<= 1;
  }
  if (t == 0) {
    const int last = CONFLICT_FREE(2 * blockDim.x - 1);
    if (block_sums) block_sums[blockIdx.x] = temp[last];
    temp[last] = 0;
  }
  for (int d = 1; d < 2 * (int) blockDim.x; d <<= 1) {
    offset >>= 1;
    __syncthreads();
    if (t < d) {
      const int a = offset * (2 * t + 1) - 1, b = offset * (2 * t + 2) - 1;
      const int x = temp[CONFLICT_FREE(a)];
      temp[CONFLICT_FREE(a)] = temp[CONFLICT_FREE(b)];
      temp[CONFLICT_FREE(b)] += x;
    }
  }
  __syncthreads();
  if (base + ai < n) out[base + ai] = temp[CONFLICT_FREE(ai)];
  if (base + bi < n) out[base + bi] = temp[CONFLICT_FREE(bi)];
}

__global__ void bitonic_sort_shared(unsigned* __restrict__ keys)
{
  __shared__ unsigned s[1024];
  const unsigned t = threadIdx.x;
  s[t] = keys[blockIdx.x * 1024 + t];
  s[t + 512] = keys[blockIdx.x * 1024 + t + 512];
  for (unsigned size = 2; size <= 1024; size <<= 1) {
    for (unsigned stride = size / 2; stride > 0; stride >>= 1) {
      __syncthreads();
      const unsigned pos = 2 * t - (t & (stride - 1));
      const bool up = ((pos & size) == 0);
      const unsigned a = s[pos], b = s[pos + stride];
      if ((a > b) == up) {
        s[pos] = b;
        s[pos + stride] = a;
      }
    }
  }
  __syncthreads();
  keys[blockIdx.x * 1024 + t] = s[t];
  keys[blockIdx.x * 1024 + t + 512] = s[t + 512];
}

__global__ void spmv_csr_vector(int rows, const int* __restrict__ row_ptr, const int* __restrict__ col_idx,
                                const double* __restrict__ vals, const double* __restrict__ x, double* __restrict__ y)
{
  const int lane = threadIdx.x & 31;
  const int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  if (row >= rows) return;
  double sum = 0.0;
  for (int j = row_ptr[row] + lane; j < row_ptr[row + 1]; j += 32) sum += vals[j] * __ldg(&x[col_idx[j]]);
  for (int o = 16; o > 0; o >>= 1) sum += __shfl_down_sync(0xffffffffu, sum, o);
  if (lane == 0) y[row] = sum;
}

__global__ void bfs_level(const int* __restrict__ row_ptr, const int* __restrict__ adj, int* __restrict__ depth,
                          const int* __restrict__ frontier, int frontier_size, int* __restrict__ next,
                          int* __restrict__ next_size, int level)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= frontier_size) return;
  const int v = frontier[i];
  for (int e = row_ptr[v]; e < row_ptr[v + 1]; ++e) {
    const int w = adj[e];
    if (atomicCAS(&depth[w], -1, level + 1) == -1) next[atomicAdd(next_size, 1)] = w;
  }
}

__global__ void mandelbrot(uint8_t* __restrict__ img, int w, int h, float x0, float y0, float scale, int max_iter)
{
  const int px = blockIdx.x * blockDim.x + threadIdx.x, py = blockIdx.y * blockDim.y + threadIdx.y;
  if (px >= w || py >= h) return;
  const float cr = x0 + px * scale, ci = y0 + py * scale;
  float zr = 0.f, zi = 0.f;
  int it = 0;
  while (zr * zr + zi * zi < 4.f && it < max_iter) {
    const float t = zr * zr - zi * zi + cr;
    zi = 2.f * zr * zi + ci;
    zr = t;
    ++it;
  }
  img[py * w + px] = (uint8_t) (it == max_iter ? 0 : 255 * __log2f((float) it + 1.f) / __log2f((float) max_iter));
}
