// corpus-archs: sm_80 sm_90a sm_100a
// Less common module- and instruction-level PTX features that real programs
// still produce: __managed__ and initialised __device__ globals (structs,
// pointer-valued initializers that become generic() references, strings),
// __constant__ structs, named barriers (bar.sync/bar.arrive with thread
// counts) in a producer/consumer block, __syncthreads_count/_and/_or,
// L2 cache policies through cuda::annotated_ptr / access_property
// (createpolicy, .L2::cache_hint), cuda::apply_access_property and
// cuda::discard_memory, shared-memory size special registers, pmevent,
// brkpt-free trap paths and early exit.
#include <cuda/annotated_ptr>
#include <cuda/std/cstdint>
#include <cstdint>

struct Config {
  int width, height;
  float gain[4];
  const char* name;
};

__managed__ int managed_counter = 0;
__managed__ float managed_hist[64];
__device__ float d_weights[8] = {0.125f, 0.25f, 0.5f, 1.f, 2.f, 4.f, 8.f, 16.f};
__device__ const char d_label[] = "corpus";
__device__ Config d_config = {640, 480, {1.f, 0.9f, 0.8f, 0.7f}, d_label};
__device__ float* d_weight_ptr = d_weights + 2;
__device__ unsigned long long d_big[3] = {0xdeadbeefcafef00dull, 1ull << 63, 42ull};
__device__ double d_pi = 3.141592653589793;
__device__ unsigned short d_halfs_raw[2] = {0x3c00, 0xbc00};
__constant__ Config c_config = {1920, 1080, {0.5f, 0.25f, 0.125f, 0.0625f}, nullptr};
__constant__ int2 c_offsets[4] = {{-1, 0}, {1, 0}, {0, -1}, {0, 1}};

__global__ void use_globals(float* out)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = d_config.gain[i & 3] * d_weight_ptr[i & 3] + c_config.gain[i & 3];
  v += (float) (d_config.name[i % 6]) + (float) c_offsets[i & 3].x + (float) (d_big[i % 3] & 0xff) + (float) d_pi;
  atomicAdd(&managed_counter, 1);
  atomicAdd(&managed_hist[i & 63], v);
  out[i] = v + (float) c_config.width / (float) d_config.height;
}

// Producer warps fill a buffer and arrive on named barrier 1; consumer warps sync on it.
__global__ void __launch_bounds__(256) named_barrier_pipeline(const float* in, float* out, int iters)
{
  __shared__ float buf[2][128];
  const int warp = threadIdx.x / 32;
  const bool producer = warp < 4;
  for (int it = 0; it < iters; ++it) {
    const int slot = it & 1;
    if (producer) {
      buf[slot][threadIdx.x] = in[it * 128 + threadIdx.x] * 2.f;
      asm volatile("bar.arrive 1, 256;" ::: "memory");
      asm volatile("bar.sync 2, 256;" ::: "memory");
    } else {
      asm volatile("bar.sync 1, 256;" ::: "memory");
      out[it * 128 + threadIdx.x - 128] = buf[slot][threadIdx.x - 128] + 1.f;
      asm volatile("bar.arrive 2, 256;" ::: "memory");
    }
  }
}

__global__ void block_votes(const int* flags, int* out)
{
  const int f = flags[blockIdx.x * blockDim.x + threadIdx.x];
  const int count = __syncthreads_count(f > 0);
  const int all = __syncthreads_and(f != 0);
  const int any = __syncthreads_or(f < 0);
  if (threadIdx.x == 0) out[blockIdx.x] = count * 4 + all * 2 + any;
}

// L2 persistence hints through libcu++.
__global__ void cache_policies(const float* in, float* out, float* lut, int n, int lut_size)
{
  cuda::annotated_ptr<const float, cuda::access_property::streaming> stream_in(in);
  cuda::annotated_ptr<float, cuda::access_property::persisting> keep_lut(lut);
  cuda::access_property normal_prop(cuda::access_property::normal{});
  cuda::annotated_ptr<float, cuda::access_property> out_ann(out, normal_prop);
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const float x = stream_in[i];
    const int j = (int) (fabsf(x) * 16.f) % lut_size;
    out_ann[i] = x * keep_lut[j];
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    cuda::apply_access_property(lut, (size_t) lut_size * sizeof(float), cuda::access_property::persisting{});
  }
}

__global__ void discard_scratch(float* scratch, size_t bytes)
{
  // Each block tells L2 its 128-byte-aligned slice no longer needs writing back.
  char* base = reinterpret_cast<char*>(scratch) + (size_t) blockIdx.x * 4096;
  if (threadIdx.x == 0 && (size_t) blockIdx.x * 4096 + 4096 <= bytes) cuda::discard_memory(base, 4096);
}

__global__ void smem_sizes_and_events(unsigned* out)
{
  extern __shared__ unsigned dyn[];
  unsigned dsize, tsize, ntid;
  asm volatile("mov.u32 %0, %%dynamic_smem_size;" : "=r"(dsize));
  asm volatile("mov.u32 %0, %%total_smem_size;" : "=r"(tsize));
  asm volatile("mov.u32 %0, %%ntid.x;" : "=r"(ntid));
  dyn[threadIdx.x] = dsize + tsize;
  asm volatile("pmevent 1;");
  asm volatile("pmevent.mask 0x6;");
  __syncthreads();
  if (threadIdx.x >= ntid) asm volatile("trap;");
  if (dyn[threadIdx.x ^ 1] == 0) asm volatile("exit;");
  out[blockIdx.x * blockDim.x + threadIdx.x] = dyn[threadIdx.x ^ 1];
}
