// corpus-archs: sm_80 sm_90a sm_100a
// Device printf (vprintf calls with packed argument buffers) and dynamic
// shared memory (extern __shared__ arrays, aliasing several typed views of one
// buffer), plus assert() (__assertfail) and __trap.
#include <cassert>
#include <cstdio>
#include <cuda_fp16.h>

__global__ void debug_dump(const float* data, int n, int verbose)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == 0) printf("debug_dump: n=%d grid=(%u,%u,%u) block=(%u,%u,%u)\n", n, gridDim.x, gridDim.y, gridDim.z,
                     blockDim.x, blockDim.y, blockDim.z);
  if (i < n && verbose) {
    const float v = data[i];
    if (!isfinite(v)) printf("  [%5d] non-finite value %f (bits 0x%08x)\n", i, v, __float_as_uint(v));
    else if (verbose > 1) printf("  [%5d] %+.6e %g %s\n", i, (double) v, (double) v * 2.0, v < 0.f ? "neg" : "pos");
  }
  if (i == 0) printf("%lld %llu %c %p %hd\n", (long long) -n, (unsigned long long) n, 'x', (void*) data, (short) 7);
}

__global__ void check_invariants(const int* idx, int n, int bound)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  assert(idx[i] >= 0);
  if (idx[i] >= bound) {
    printf("index out of range at %d: %d >= %d\n", i, idx[i], bound);
    __trap();
  }
}

// Tiled transpose with padding in dynamic shared memory.
template <typename T>
__global__ void transpose_dynamic(const T* __restrict__ in, T* __restrict__ out, int rows, int cols, int tile)
{
  extern __shared__ __align__(16) unsigned char smem_raw[];
  T* tilebuf = reinterpret_cast<T*>(smem_raw);
  const int pitch = tile + 1;
  const int bx = blockIdx.x * tile, by = blockIdx.y * tile;
  for (int y = threadIdx.y; y < tile; y += blockDim.y)
    for (int x = threadIdx.x; x < tile; x += blockDim.x)
      if (by + y < rows && bx + x < cols) tilebuf[y * pitch + x] = in[(size_t) (by + y) * cols + bx + x];
  __syncthreads();
  for (int y = threadIdx.y; y < tile; y += blockDim.y)
    for (int x = threadIdx.x; x < tile; x += blockDim.x)
      if (bx + y < cols && by + x < rows) out[(size_t) (bx + y) * rows + by + x] = tilebuf[x * pitch + y];
}

template __global__ void transpose_dynamic<float>(const float*, float*, int, int, int);
template __global__ void transpose_dynamic<double>(const double*, double*, int, int, int);
template __global__ void transpose_dynamic<__half>(const __half*, __half*, int, int, int);

// Several typed regions carved out of one dynamic allocation.
__global__ void carve_dynamic_smem(const float* values, const int* keys, float* out, int n_per_block)
{
  extern __shared__ float4 dyn[];
  float* fvals = reinterpret_cast<float*>(dyn);
  int* ikeys = reinterpret_cast<int*>(fvals + n_per_block);
  unsigned char* flags = reinterpret_cast<unsigned char*>(ikeys + n_per_block);
  const int base = blockIdx.x * n_per_block;
  for (int i = threadIdx.x; i < n_per_block; i += blockDim.x) {
    fvals[i] = values[base + i];
    ikeys[i] = keys[base + i];
    flags[i] = (unsigned char) (keys[base + i] & 1);
  }
  __syncthreads();
  float acc = 0.f;
  for (int i = threadIdx.x; i < n_per_block; i += blockDim.x) {
    const int partner = ikeys[i] % n_per_block;
    acc += flags[partner] ? fvals[partner] : -fvals[i];
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// Static + dynamic shared memory together, with a bank-conflict-free reduction.
__global__ void static_and_dynamic(const float* in, float* out)
{
  __shared__ float warp_partials[32];
  extern __shared__ float scratch[];
  const int t = threadIdx.x;
  scratch[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (int s = blockDim.x / 2; s >= 32; s >>= 1) {
    if (t < s) scratch[t] += scratch[t + s];
    __syncthreads();
  }
  if (t < 32) {
    float v = scratch[t];
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    warp_partials[0] = v;
  }
  __syncthreads();
  if (t == 0) out[blockIdx.x] = warp_partials[0];
}
