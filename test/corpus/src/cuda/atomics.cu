// corpus-archs: sm_80 sm_90a sm_100a
// Atomics: float/double/half2/bf16x2 adds, CAS loops for custom ops, min/max,
// bitwise ops, inc/dec, exchange, and block / system scoped variants; plus a
// spin lock and a histogram with shared-memory privatisation.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

__global__ void float_atomics(const float* v, const double* d, float* fsum, double* dsum, int n)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  atomicAdd(fsum, v[i]);
  atomicAdd(dsum, d[i]);
  atomicAdd_block(fsum + 1, v[i] * 2.f);
  atomicAdd_system(dsum + 1, d[i] * 0.5);
  // Ignore the result: becomes red.* instead of atom.*
  float old = atomicExch(fsum + 2, v[i]);
  if (old < 0.f) fsum[3] = old;
}

__global__ void half_atomics(const __half2* h, const __nv_bfloat162* b, const __half* hs, __half2* hsum,
                             __nv_bfloat162* bsum, __half* hscalar, int n)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  atomicAdd(hsum, h[i]);
  atomicAdd(bsum, b[i]);
  __half prev = atomicAdd(hscalar, hs[i]);
  if (__hlt(prev, __float2half(0.f))) hsum[1] = h[i];
}

// atomicMax for float via CAS on the integer representation.
__device__ float atomic_max_float(float* addr, float value)
{
  int* a = reinterpret_cast<int*>(addr);
  int old = *a, assumed;
  do {
    assumed = old;
    if (__int_as_float(assumed) >= value) break;
    old = atomicCAS(a, assumed, __float_as_int(value));
  } while (assumed != old);
  return __int_as_float(old);
}

// 64-bit CAS loop: packed (value, index) argmin.
__device__ void atomic_argmin(unsigned long long* addr, float value, unsigned idx)
{
  unsigned long long packed = ((unsigned long long) __float_as_uint(value) << 32) | idx;
  unsigned long long old = *addr, assumed;
  do {
    assumed = old;
    if (__uint_as_float((unsigned) (assumed >> 32)) <= value) return;
    old = atomicCAS(addr, assumed, packed);
  } while (old != assumed);
}

__global__ void cas_loops(const float* v, float* maxv, unsigned long long* argmin, int n)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  atomic_max_float(maxv, v[i]);
  atomic_argmin(argmin, fabsf(v[i]), (unsigned) i);
}

__global__ void integer_atomics(const int* v, int* r, unsigned* u, unsigned long long* ull, long long* ll, int n)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int x = v[i];
  atomicMax(r + 0, x);
  atomicMin(r + 1, x);
  atomicAnd(r + 2, x);
  atomicOr(r + 3, x);
  atomicXor(r + 4, x);
  atomicSub(r + 5, x);
  atomicMax_block(r + 6, x);
  atomicMin_system(r + 7, x);
  atomicInc(u + 0, 1000u);
  atomicDec(u + 1, 1000u);
  atomicMax(ull, (unsigned long long) x);
  atomicMin(ll, (long long) x);
  atomicAnd_system(ull + 1, (unsigned long long) x);
  unsigned prev = atomicCAS_block(u + 2, 0u, (unsigned) i);
  if (prev == 0u) r[8] = i;
  u[3 + (atomicAdd(u + 3, 1u) & 7)] = x;
  unsigned long long e = atomicExch(ull + 2, (unsigned long long) i);
  if (e == 7ull) r[9] = -1;
}

// Privatised histogram: shared-memory atomics then global atomics.
__global__ void histogram_privatized(const unsigned char* data, unsigned int* hist, int n)
{
  __shared__ unsigned int local[256];
  for (int b = threadIdx.x; b < 256; b += blockDim.x) local[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    atomicAdd(&local[data[i]], 1u);
  }
  __syncthreads();
  for (int b = threadIdx.x; b < 256; b += blockDim.x) {
    if (local[b]) atomicAdd(&hist[b], local[b]);
  }
}

// A global spin lock protecting a small critical section.
__device__ void lock(int* mutex)
{
  while (atomicCAS(mutex, 0, 1) != 0) {
    __nanosleep(32);
  }
  __threadfence();
}
__device__ void unlock(int* mutex)
{
  __threadfence();
  atomicExch(mutex, 0);
}

__global__ void locked_append(int* mutex, int* list, int* size, const int* values)
{
  if (threadIdx.x == 0) {
    lock(mutex);
    int s = *size;
    list[s] = values[blockIdx.x];
    *size = s + 1;
    unlock(mutex);
  }
}

// Warp-aggregated atomic increment.
__global__ void warp_aggregated_filter(const int* in, int* out, int* count, int n)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const bool keep = i < n && in[i] > 0;
  const unsigned mask = __ballot_sync(0xffffffffu, keep);
  if (!keep) return;
  const int lane = threadIdx.x & 31;
  const int leader = __ffs(mask) - 1;
  int base = 0;
  if (lane == leader) base = atomicAdd(count, __popc(mask));
  base = __shfl_sync(mask, base, leader);
  out[base + __popc(mask & ((1u << lane) - 1))] = in[i];
}

// Vector atomic adds (sm_90+): float2 / float4.
__global__ void vector_atomics(float2* a2, float4* a4, const float* v, int n)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
#if __CUDA_ARCH__ >= 900
  atomicAdd(a2, make_float2(v[i], -v[i]));
  atomicAdd(a4, make_float4(v[i], 1.f, 2.f, 3.f));
#else
  atomicAdd(&a2->x, v[i]);
  atomicAdd(&a4->x, v[i]);
#endif
}
