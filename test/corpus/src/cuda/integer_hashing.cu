// corpus-archs: sm_80 sm_90a sm_100a
// Integer-heavy code: SHA-256 compression, MurmurHash3, xoshiro / Philox-style
// counter RNG, 64- and 128-bit arithmetic (mul.hi, wide multiply, division and
// remainder by runtime values, which call into the slow division paths),
// saturating arithmetic, bit-field extraction / insertion and
// population-count based rank/select.
#include <cstdint>

__constant__ uint32_t K256[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01,
    0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc,
    0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
    0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08,
    0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
    0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

__device__ __forceinline__ uint32_t rotr(uint32_t x, int n) { return __funnelshift_r(x, x, n); }

__device__ void sha256_block(uint32_t state[8], const uint32_t block[16])
{
  uint32_t w[64];
#pragma unroll
  for (int i = 0; i < 16; ++i) w[i] = __byte_perm(block[i], 0, 0x0123);
#pragma unroll
  for (int i = 16; i < 64; ++i) {
    const uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
    const uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
  }
  uint32_t a = state[0], b = state[1], c = state[2], d = state[3], e = state[4], f = state[5], g = state[6], h = state[7];
#pragma unroll
  for (int i = 0; i < 64; ++i) {
    const uint32_t S1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
    const uint32_t ch = (e & f) ^ (~e & g);
    const uint32_t t1 = h + S1 + ch + K256[i] + w[i];
    const uint32_t S0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
    const uint32_t maj = (a & b) ^ (a & c) ^ (b & c);
    const uint32_t t2 = S0 + maj;
    h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
  }
  state[0] += a; state[1] += b; state[2] += c; state[3] += d;
  state[4] += e; state[5] += f; state[6] += g; state[7] += h;
}

// Proof-of-work style search: find nonces whose digest has `zeros` leading zero bits.
__global__ void sha256_search(const uint32_t* __restrict__ header, uint32_t base_nonce, int zeros,
                              uint32_t* __restrict__ found, uint32_t* __restrict__ count)
{
  const uint32_t nonce = base_nonce + blockIdx.x * blockDim.x + threadIdx.x;
  uint32_t block[16];
#pragma unroll
  for (int i = 0; i < 15; ++i) block[i] = header[i];
  block[15] = nonce;
  uint32_t st[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  sha256_block(st, block);
  if (__clz(st[0]) >= zeros) {
    const uint32_t slot = atomicAdd(count, 1u);
    if (slot < 64) found[slot] = nonce;
  }
}

__device__ __forceinline__ uint32_t fmix32(uint32_t h)
{
  h ^= h >> 16; h *= 0x85ebca6b; h ^= h >> 13; h *= 0xc2b2ae35; h ^= h >> 16;
  return h;
}

__global__ void murmur3_hash(const uint8_t* __restrict__ data, const int* __restrict__ offsets, uint32_t seed,
                             uint32_t* __restrict__ out, int nkeys)
{
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= nkeys) return;
  const uint8_t* p = data + offsets[k];
  const int len = offsets[k + 1] - offsets[k];
  uint32_t h = seed;
  int i = 0;
  for (; i + 4 <= len; i += 4) {
    uint32_t kk = p[i] | (p[i + 1] << 8) | (p[i + 2] << 16) | ((uint32_t) p[i + 3] << 24);
    kk *= 0xcc9e2d51; kk = __funnelshift_l(kk, kk, 15); kk *= 0x1b873593;
    h ^= kk; h = __funnelshift_l(h, h, 13); h = h * 5 + 0xe6546b64;
  }
  uint32_t tail = 0;
  switch (len & 3) {
    case 3: tail ^= p[i + 2] << 16; [[fallthrough]];
    case 2: tail ^= p[i + 1] << 8; [[fallthrough]];
    case 1: tail ^= p[i]; tail *= 0xcc9e2d51; tail = __funnelshift_l(tail, tail, 15); tail *= 0x1b873593; h ^= tail;
  }
  out[k] = fmix32(h ^ (uint32_t) len);
}

struct Xoshiro128pp {
  uint32_t s[4];
  __device__ uint32_t next()
  {
    const uint32_t r = __funnelshift_l(s[0] + s[3], s[0] + s[3], 7) + s[0];
    const uint32_t t = s[1] << 9;
    s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3]; s[2] ^= t;
    s[3] = __funnelshift_l(s[3], s[3], 11);
    return r;
  }
};

__device__ uint4 philox_round(uint4 ctr, uint2 key)
{
  const uint32_t M0 = 0xD2511F53, M1 = 0xCD9E8D57;
  const uint32_t hi0 = __umulhi(M0, ctr.x), lo0 = M0 * ctr.x;
  const uint32_t hi1 = __umulhi(M1, ctr.z), lo1 = M1 * ctr.z;
  return make_uint4(hi1 ^ ctr.y ^ key.x, lo1, hi0 ^ ctr.w ^ key.y, lo0);
}

__global__ void monte_carlo_pi(uint64_t seed, unsigned long long* __restrict__ hits, int samples_per_thread)
{
  const uint32_t tid = blockIdx.x * blockDim.x + threadIdx.x;
  Xoshiro128pp rng{{(uint32_t) seed ^ tid, (uint32_t) (seed >> 32) + tid * 0x9E3779B9u, 0x12345678u ^ tid, 0xdeadbeefu}};
  uint4 ctr = make_uint4(tid, 0, 0, 0);
  uint2 key = make_uint2((uint32_t) seed, (uint32_t) (seed >> 32));
  unsigned long long local = 0;
  for (int i = 0; i < samples_per_thread; ++i) {
    ctr.y = i;
    uint4 r = ctr;
#pragma unroll
    for (int round = 0; round < 10; ++round) {
      r = philox_round(r, key);
      key.x += 0x9E3779B9; key.y += 0xBB67AE85;
    }
    const float x = (rng.next() >> 8) * (1.f / 16777216.f), y = (r.x >> 8) * (1.f / 16777216.f);
    local += (x * x + y * y <= 1.f);
  }
  atomicAdd(hits, local);
}

__global__ void wide_arith(const uint64_t* __restrict__ a, const uint64_t* __restrict__ b, uint64_t* __restrict__ out,
                           int n)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const uint64_t x = a[i], y = b[i] | 1;
  const unsigned __int128 p = (unsigned __int128) x * y;
  const __int128 sp = (__int128) (int64_t) x * (int64_t) y;
  out[8 * i + 0] = (uint64_t) (p >> 64) ^ __umul64hi(x, y);
  out[8 * i + 1] = x / y + x % y;                          // 64-bit division by a runtime value
  out[8 * i + 2] = (uint64_t) ((int64_t) x / (int64_t) (y | 3)) ^ (uint64_t) ((int64_t) x % -7);
  out[8 * i + 3] = (uint64_t) (p % 1000000007u);           // 128-bit remainder
  out[8 * i + 4] = (uint64_t) (sp >> 3) + (uint64_t) (p / y);
  out[8 * i + 5] = (uint64_t) __mul64hi((long long) x, (long long) y) + __popcll(x) + __clzll(y) + __ffsll((long long) x);
  out[8 * i + 6] = __brevll(x) ^ (uint64_t) __sad((int) x, (int) y, 3u) ^ (uint64_t) __hadd((int) x, (int) y);
  out[8 * i + 7] = (uint32_t) x / (uint32_t) y + (uint32_t) ((int32_t) x % (int32_t) (y | 1));
}

__global__ void saturating_and_bitfields(const int* __restrict__ a, const int* __restrict__ b, int* __restrict__ out,
                                         int n)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int x = a[i], y = b[i];
  int sat_add, bfe, bfi;
  unsigned bfind;
  asm("add.sat.s32 %0, %1, %2;" : "=r"(sat_add) : "r"(x), "r"(y));
  asm("bfe.s32 %0, %1, %2, %3;" : "=r"(bfe) : "r"(x), "r"(y & 31), "r"(7));
  asm("bfi.b32 %0, %1, %2, %3, %4;" : "=r"(bfi) : "r"(x), "r"(y), "r"(4), "r"(12));
  asm("bfind.u32 %0, %1;" : "=r"(bfind) : "r"((unsigned) x));
  const unsigned u = (unsigned) x;
  const int extracted = (int) ((u >> (y & 15)) & ((1u << 9) - 1));
  const int inserted = (int) ((u & ~(0xffu << 8)) | (((unsigned) y & 0xffu) << 8));
  out[6 * i + 0] = sat_add ^ __vaddss2(x, y) ^ __vsubss4(x, y);
  out[6 * i + 1] = bfe + extracted;
  out[6 * i + 2] = bfi ^ inserted;
  out[6 * i + 3] = (int) bfind + __vmaxs4(x, y) + __vminu2(x, y) + __vsads2(x, y);
  out[6 * i + 4] = __vcmpeq4(x, y) ^ __vseteq2(x, y) ^ __vavgs2(x, y) ^ __vneg4(x);
  out[6 * i + 5] = min(max(x, -100), 100) + abs(y) + __rhadd(x, y);
}

// Rank/select on a bit vector: per-word popcounts + prefix within a warp.
__global__ void bitvector_rank(const uint32_t* __restrict__ bits, uint32_t* __restrict__ ranks, int words)
{
  const int w = blockIdx.x * blockDim.x + threadIdx.x;
  const uint32_t pc = w < words ? __popc(bits[w]) : 0;
  uint32_t incl = pc;
  for (int o = 1; o < 32; o <<= 1) {
    const uint32_t v = __shfl_up_sync(0xffffffffu, incl, o);
    if ((threadIdx.x & 31) >= o) incl += v;
  }
  if (w < words) ranks[w] = incl - pc;
}
