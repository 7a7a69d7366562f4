// corpus-archs: sm_80 sm_90a sm_100a
// Device function ABI and control flow: __noinline__ functions with scalar,
// vector, struct and array-reference params and returns; recursion (stack
// frames); indirect calls through function pointer tables and virtual calls;
// dense and sparse switch statements; local-memory arrays indexed dynamically;
// __constant__ tables; goto-based state machines and loops with early exits.
#include <cstdint>

struct Vec3 {
  float x, y, z;
};

struct Ray {
  Vec3 origin, dir;
  float tmin, tmax;
  int depth;
};

struct Hit {
  float t;
  int id;
  Vec3 normal;
};

__constant__ float c_coeffs[16] = {1.f, 0.5f, 0.25f, 0.125f, 2.f, 3.f, 5.f, 7.f, 11.f, 13.f, 17.f, 19.f, 23.f, 29.f, 31.f, 37.f};
__device__ int g_call_count;

__device__ __noinline__ float dot3(Vec3 a, Vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }

__device__ __noinline__ Vec3 normalize3(Vec3 v)
{
  const float inv = rsqrtf(dot3(v, v));
  return {v.x * inv, v.y * inv, v.z * inv};
}

__device__ __noinline__ Hit intersect_sphere(const Ray& r, Vec3 center, float radius, int id)
{
  Vec3 oc = {r.origin.x - center.x, r.origin.y - center.y, r.origin.z - center.z};
  const float b = dot3(oc, r.dir);
  const float c = dot3(oc, oc) - radius * radius;
  const float disc = b * b - c;
  Hit h{r.tmax, -1, {0.f, 0.f, 0.f}};
  if (disc > 0.f) {
    const float t = -b - sqrtf(disc);
    if (t > r.tmin && t < r.tmax) {
      h.t = t;
      h.id = id;
      h.normal = normalize3({oc.x + t * r.dir.x, oc.y + t * r.dir.y, oc.z + t * r.dir.z});
    }
  }
  return h;
}

// Recursive shading with an explicit depth limit.
__device__ __noinline__ float shade(Ray r, const float4* spheres, int nspheres)
{
  atomicAdd(&g_call_count, 1);
  Hit best{r.tmax, -1, {0.f, 0.f, 0.f}};
  for (int i = 0; i < nspheres; ++i) {
    const float4 s = spheres[i];
    Hit h = intersect_sphere(r, {s.x, s.y, s.z}, s.w, i);
    if (h.id >= 0 && h.t < best.t) best = h;
  }
  if (best.id < 0) return 0.1f;
  const float direct = fmaxf(0.f, dot3(best.normal, {0.577f, 0.577f, 0.577f}));
  if (r.depth >= 3) return direct;
  Ray next = r;
  next.origin = {r.origin.x + best.t * r.dir.x, r.origin.y + best.t * r.dir.y, r.origin.z + best.t * r.dir.z};
  const float dn = 2.f * dot3(r.dir, best.normal);
  next.dir = normalize3({r.dir.x - dn * best.normal.x, r.dir.y - dn * best.normal.y, r.dir.z - dn * best.normal.z});
  next.depth = r.depth + 1;
  return direct + 0.5f * shade(next, spheres, nspheres);
}

__global__ void render(const float4* spheres, int nspheres, float* image, int width, int height)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  Ray r;
  r.origin = {0.f, 0.f, -5.f};
  r.dir = normalize3({(x - width * 0.5f) / width, (y - height * 0.5f) / height, 1.f});
  r.tmin = 1e-3f;
  r.tmax = 1e30f;
  r.depth = 0;
  image[y * width + x] = shade(r, spheres, nspheres);
}

// Function-pointer dispatch table (indirect calls with a prototype).
typedef float (*unary_fn)(float, int);
__device__ __noinline__ float op_square(float x, int k) { return x * x + k; }
__device__ __noinline__ float op_cube(float x, int k) { return x * x * x - k; }
__device__ __noinline__ float op_poly(float x, int k)
{
  float r = 0.f;
  for (int i = 15; i >= 0; --i) r = r * x + c_coeffs[(i + k) & 15];
  return r;
}
__device__ __noinline__ float op_clamp(float x, int k) { return fminf(fmaxf(x, -(float) k), (float) k); }
__device__ unary_fn d_ops[4] = {op_square, op_cube, op_poly, op_clamp};

__global__ void apply_ops(const float* in, const int* which, float* out, int n)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unary_fn f = d_ops[which[i] & 3];
  out[i] = f(in[i], i & 7);
}

// Virtual dispatch.
struct Shape {
  __device__ virtual float area() const = 0;
  __device__ virtual float perimeter() const { return 0.f; }
  __device__ virtual ~Shape() {}
};
struct Circle : Shape {
  float r;
  __device__ explicit Circle(float r_) : r(r_) {}
  __device__ float area() const override { return 3.14159265f * r * r; }
  __device__ float perimeter() const override { return 6.2831853f * r; }
};
struct Rect : Shape {
  float w, h;
  __device__ Rect(float w_, float h_) : w(w_), h(h_) {}
  __device__ float area() const override { return w * h; }
  __device__ float perimeter() const override { return 2.f * (w + h); }
};
__device__ __noinline__ float describe(const Shape& s) { return s.area() / fmaxf(s.perimeter(), 1e-6f); }

__global__ void virtual_shapes(const float* params, float* out, int n)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Circle c(params[i]);
  Rect r(params[i], params[i] + 1.f);
  const Shape* s = (i & 1) ? static_cast<const Shape*>(&c) : static_cast<const Shape*>(&r);
  out[i] = describe(*s);
}

// Dense switch (candidate for a jump table / brx.idx) and a sparse one.
__device__ __noinline__ int opcode_eval(int op, int a, int b)
{
  switch (op) {
    case 0: return a + b;
    case 1: return a - b;
    case 2: return a * b;
    case 3: return b ? a / b : 0;
    case 4: return b ? a % b : 0;
    case 5: return a & b;
    case 6: return a | b;
    case 7: return a ^ b;
    case 8: return a << (b & 31);
    case 9: return a >> (b & 31);
    case 10: return min(a, b);
    case 11: return max(a, b);
    case 12: return __popc(a);
    case 13: return __clz(a);
    case 14: return __brev(a);
    case 15: return __byte_perm(a, b, 0x5140);
    default: return -1;
  }
}

__global__ void bytecode_vm(const int* program, int len, const int* inputs, int* outputs)
{
  int stack[32];
  int sp = 0;
  stack[sp++] = inputs[blockIdx.x * blockDim.x + threadIdx.x];
  int pc = 0;
  int steps = 0;
dispatch:
  if (pc >= len || ++steps > 256) goto halt;
  {
    const int insn = program[pc++];
    const int op = insn & 0xff, imm = insn >> 8;
    switch (op >> 4) {
      case 0: // push
        if (sp < 32) stack[sp++] = imm;
        break;
      case 1: // binary op
        if (sp >= 2) {
          const int b = stack[--sp], a = stack[--sp];
          stack[sp++] = opcode_eval(op & 15, a, b);
        }
        break;
      case 2: // jump if zero
        if (sp > 0 && stack[--sp] == 0) pc = imm;
        break;
      case 3: // dup
        if (sp > 0 && sp < 32) {
          stack[sp] = stack[sp - 1];
          ++sp;
        }
        break;
      case 15:
        goto halt;
      default:
        break;
    }
  }
  goto dispatch;
halt:
  outputs[blockIdx.x * blockDim.x + threadIdx.x] = sp > 0 ? stack[sp - 1] : 0;
}

__device__ __noinline__ const char* sparse_name(int code)
{
  switch (code) {
    case 1: return "one";
    case 10: return "ten";
    case 100: return "hundred";
    case 1000: return "thousand";
    case 65536: return "64k";
    default: return "other";
  }
}

__global__ void sparse_switch(const int* codes, char* first_chars, int n)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) first_chars[i] = sparse_name(codes[i])[0];
}

// Local memory: per-thread insertion sort and a sliding-window median.
__device__ __noinline__ void insertion_sort(float* a, int n)
{
  for (int i = 1; i < n; ++i) {
    const float v = a[i];
    int j = i - 1;
    while (j >= 0 && a[j] > v) {
      a[j + 1] = a[j];
      --j;
    }
    a[j + 1] = v;
  }
}

__global__ void median_filter(const float* in, float* out, int n, int window)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float buf[63];
  const int w = min(window, 63) | 1;
  int cnt = 0;
  for (int k = -w / 2; k <= w / 2; ++k) {
    const int j = min(max(i + k, 0), n - 1);
    buf[cnt++] = in[j];
  }
  insertion_sort(buf, cnt);
  out[i] = buf[cnt / 2];
}

// Returning a struct by value through several levels, with many parameters.
struct Stats {
  double sum, sumsq;
  float minv, maxv;
  int64_t count;
};

__device__ __noinline__ Stats merge_stats(Stats a, Stats b)
{
  return {a.sum + b.sum, a.sumsq + b.sumsq, fminf(a.minv, b.minv), fmaxf(a.maxv, b.maxv), a.count + b.count};
}

__device__ __noinline__ Stats stats_of(const float* p, int n, int stride, float scale, float bias, bool absval,
                                       double weight, short tag, char flag)
{
  Stats s{0.0, 0.0, 3.4e38f, -3.4e38f, 0};
  for (int i = 0; i < n; i += stride) {
    float v = p[i] * scale + bias;
    if (absval) v = fabsf(v);
    s.sum += v * weight;
    s.sumsq += (double) v * v;
    s.minv = fminf(s.minv, v);
    s.maxv = fmaxf(s.maxv, v);
    s.count += 1 + (tag & flag & 0);
  }
  return s;
}

__global__ void column_stats(const float* m, int rows, int cols, Stats* out)
{
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= cols) return;
  Stats a = stats_of(m + c, rows / 2 * cols, cols, 1.f, 0.f, false, 1.0, (short) c, (char) 1);
  Stats b = stats_of(m + rows / 2 * cols + c, (rows - rows / 2) * cols, cols, 1.f, 0.f, false, 1.0, (short) c, 1);
  out[c] = merge_stats(a, b);
}
