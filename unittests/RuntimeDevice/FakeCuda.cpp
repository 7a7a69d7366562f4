//===- FakeCuda.cpp - a libcuda.so.1 of several fake GPUs -----------------===//
//
// See FakeCuda.h. Handles point into fixed arrays, so that a destroyed
// primary context's successor gets its address (as the driver may give).
//
//===----------------------------------------------------------------------===//

#include "FakeCuda.h"

#include <cstring>
#include <deque>
#include <mutex>

namespace fakecuda {
namespace {

constexpr int kDefaultSharedLimit = 48 * 1024;
constexpr int kOptinSharedLimit = 227 * 1024;

struct Context {
  int device = -1;
  unsigned long long id = 0;
  int references = 0;
  bool alive = false;
};

struct Module {
  Context *context;
  unsigned long long contextId;
  bool loaded;
};

struct Function {
  Module *module;
  int maxDynamicShared;
};

struct Stream {
  Context *context;
  unsigned long long contextId;
};

struct State {
  std::mutex mutex;
  Context primaries[kNumDevices];
  unsigned long long nextContextId = 1;
  // Deques: elements never move, so pointers to them are handles.
  std::deque<Module> modules;
  std::deque<Function> functions;
  std::deque<Stream> streams;
  Records records;
};

State &state() {
  static State *s = new State(); // Outlives every static destructor.
  return *s;
}

thread_local Context *current = nullptr;

CUresult fail(State &s, const char *function, CUresult result) {
  const char *names[] = {"CUDA_ERROR_INVALID_VALUE", "CUDA_ERROR_INVALID_DEVICE",
                         "CUDA_ERROR_INVALID_CONTEXT",
                         "CUDA_ERROR_INVALID_HANDLE",
                         "CUDA_ERROR_CONTEXT_IS_DESTROYED"};
  CUresult codes[] = {CUDA_ERROR_INVALID_VALUE, CUDA_ERROR_INVALID_DEVICE,
                      CUDA_ERROR_INVALID_CONTEXT, CUDA_ERROR_INVALID_HANDLE,
                      CUDA_ERROR_CONTEXT_IS_DESTROYED};
  std::string name = "CUDA error " + std::to_string(result);
  for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); ++i)
    if (codes[i] == result)
      name = names[i];
  s.records.errors.push_back(std::string(function) + ": " + name);
  return result;
}

Context *asContext(CUcontext context) {
  return reinterpret_cast<Context *>(context);
}

/// The current context if it is alive.
Context *liveCurrent() { return current && current->alive ? current : nullptr; }

/// A function whose module is loaded in a live context, or null.
Function *liveFunction(State &s, CUfunction f) {
  for (Function &candidate : s.functions)
    if (reinterpret_cast<CUfunction>(&candidate) == f)
      return candidate.module->loaded && candidate.module->context->alive &&
                     candidate.module->context->id ==
                         candidate.module->contextId
                 ? &candidate
                 : nullptr;
  return nullptr;
}

CUresult loadModule(const char *function, CUmodule *module) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  Context *context = liveCurrent();
  if (!context)
    return fail(s, function, CUDA_ERROR_INVALID_CONTEXT);
  s.modules.push_back({context, context->id, true});
  *module = reinterpret_cast<CUmodule>(&s.modules.back());
  s.records.loads.push_back({context->device, context->id});
  return CUDA_SUCCESS;
}

} // namespace

Records &records() { return state().records; }

void reset() {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.records = Records();
}

CUstream createStream(int device) {
  CUcontext context;
  if (cuDevicePrimaryCtxRetain(&context, device))
    return nullptr;
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.streams.push_back({asContext(context), asContext(context)->id});
  return reinterpret_cast<CUstream>(&s.streams.back());
}

CUcontext primaryContextOf(int device) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  Context &c = s.primaries[device];
  return c.alive ? reinterpret_cast<CUcontext>(&c) : nullptr;
}

void destroyPrimaryContext(int device) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.primaries[device].alive = false;
  s.primaries[device].references = 0;
}

int deviceOf(CUcontext context) {
  State &s = state();
  for (Context &c : s.primaries)
    if (reinterpret_cast<CUcontext>(&c) == context)
      return c.device;
  return -1;
}

} // namespace fakecuda

using namespace fakecuda;

CUresult CUDAAPI cuInit(unsigned int) { return CUDA_SUCCESS; }

CUresult CUDAAPI cuGetErrorName(CUresult error, const char **pStr) {
  switch (error) {
  case CUDA_ERROR_INVALID_VALUE:
    *pStr = "CUDA_ERROR_INVALID_VALUE";
    return CUDA_SUCCESS;
  case CUDA_ERROR_INVALID_DEVICE:
    *pStr = "CUDA_ERROR_INVALID_DEVICE";
    return CUDA_SUCCESS;
  case CUDA_ERROR_INVALID_CONTEXT:
    *pStr = "CUDA_ERROR_INVALID_CONTEXT";
    return CUDA_SUCCESS;
  case CUDA_ERROR_INVALID_HANDLE:
    *pStr = "CUDA_ERROR_INVALID_HANDLE";
    return CUDA_SUCCESS;
  case CUDA_ERROR_CONTEXT_IS_DESTROYED:
    *pStr = "CUDA_ERROR_CONTEXT_IS_DESTROYED";
    return CUDA_SUCCESS;
  default:
    *pStr = nullptr;
    return CUDA_ERROR_INVALID_VALUE;
  }
}

CUresult CUDAAPI cuGetErrorString(CUresult, const char **pStr) {
  *pStr = "fake driver";
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGet(CUdevice *device, int ordinal) {
  if (ordinal < 0 || ordinal >= kNumDevices)
    return fail(state(), "cuDeviceGet", CUDA_ERROR_INVALID_DEVICE);
  *device = ordinal;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib,
                                      CUdevice dev) {
  if (dev < 0 || dev >= kNumDevices)
    return fail(state(), "cuDeviceGetAttribute", CUDA_ERROR_INVALID_DEVICE);
  switch (attrib) {
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
    *pi = dev < 2 ? 9 : 8;
    return CUDA_SUCCESS;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
    *pi = 0;
    return CUDA_SUCCESS;
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN:
    *pi = kOptinSharedLimit;
    return CUDA_SUCCESS;
  default:
    return fail(state(), "cuDeviceGetAttribute", CUDA_ERROR_INVALID_VALUE);
  }
}

CUresult CUDAAPI cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (dev < 0 || dev >= kNumDevices)
    return fail(s, "cuDevicePrimaryCtxRetain", CUDA_ERROR_INVALID_DEVICE);
  Context &c = s.primaries[dev];
  if (!c.alive) {
    c.device = dev;
    c.id = s.nextContextId++;
    c.alive = true;
  }
  ++c.references;
  *pctx = reinterpret_cast<CUcontext>(&c);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxGetCurrent(CUcontext *pctx) {
  *pctx = reinterpret_cast<CUcontext>(current);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxSetCurrent(CUcontext ctx) {
  if (ctx && !asContext(ctx)->alive)
    return fail(state(), "cuCtxSetCurrent", CUDA_ERROR_CONTEXT_IS_DESTROYED);
  current = asContext(ctx);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxGetDevice(CUdevice *device) {
  Context *context = liveCurrent();
  if (!context)
    return fail(state(), "cuCtxGetDevice", CUDA_ERROR_INVALID_CONTEXT);
  *device = context->device;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxGetId(CUcontext ctx, unsigned long long *ctxId) {
  Context *context = ctx ? asContext(ctx) : liveCurrent();
  if (!context || !context->alive)
    return fail(state(), "cuCtxGetId", CUDA_ERROR_CONTEXT_IS_DESTROYED);
  *ctxId = context->id;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxSynchronize(void) {
  return liveCurrent() ? CUDA_SUCCESS
                       : fail(state(), "cuCtxSynchronize",
                              CUDA_ERROR_INVALID_CONTEXT);
}

CUresult CUDAAPI cuStreamGetCtx(CUstream hStream, CUcontext *pctx) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  for (Stream &stream : s.streams)
    if (reinterpret_cast<CUstream>(&stream) == hStream) {
      *pctx = reinterpret_cast<CUcontext>(stream.context);
      return CUDA_SUCCESS;
    }
  return fail(s, "cuStreamGetCtx", CUDA_ERROR_INVALID_HANDLE);
}

CUresult CUDAAPI cuModuleLoadData(CUmodule *module, const void *) {
  return loadModule("cuModuleLoadData", module);
}

CUresult CUDAAPI cuModuleLoadDataEx(CUmodule *module, const void *,
                                    unsigned int, CUjit_option *, void **) {
  return loadModule("cuModuleLoadDataEx", module);
}

CUresult CUDAAPI cuModuleUnload(CUmodule hmod) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  Module *module = reinterpret_cast<Module *>(hmod);
  if (!module->loaded || !module->context->alive ||
      module->context->id != module->contextId)
    return fail(s, "cuModuleUnload", CUDA_ERROR_INVALID_HANDLE);
  if (liveCurrent() != module->context)
    return fail(s, "cuModuleUnload", CUDA_ERROR_INVALID_CONTEXT);
  module->loaded = false;
  s.records.unloads.push_back({module->context->device, module->contextId});
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod,
                                     const char *) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.functions.push_back(
      {reinterpret_cast<Module *>(hmod), kDefaultSharedLimit});
  *hfunc = reinterpret_cast<CUfunction>(&s.functions.back());
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuFuncSetAttribute(CUfunction hfunc,
                                    CUfunction_attribute attrib, int value) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  Function *function = liveFunction(s, hfunc);
  if (!function)
    return fail(s, "cuFuncSetAttribute", CUDA_ERROR_INVALID_HANDLE);
  if (liveCurrent() != function->module->context)
    return fail(s, "cuFuncSetAttribute", CUDA_ERROR_INVALID_CONTEXT);
  if (attrib != CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES ||
      value > kOptinSharedLimit)
    return fail(s, "cuFuncSetAttribute", CUDA_ERROR_INVALID_VALUE);
  function->maxDynamicShared = value;
  Context *context = function->module->context;
  s.records.attributeSets.push_back({context->device, context->id, value});
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction f,
                                  void **kernelParams, void **) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  Function *function = liveFunction(s, f);
  if (!function)
    return fail(s, "cuLaunchKernelEx", CUDA_ERROR_INVALID_HANDLE);
  Context *context = liveCurrent();
  if (context != function->module->context)
    return fail(s, "cuLaunchKernelEx", CUDA_ERROR_INVALID_CONTEXT);
  if (config->hStream && config->hStream != CU_STREAM_LEGACY &&
      config->hStream != CU_STREAM_PER_THREAD) {
    auto *stream = reinterpret_cast<Stream *>(config->hStream);
    if (stream->context != context || stream->contextId != context->id)
      return fail(s, "cuLaunchKernelEx", CUDA_ERROR_INVALID_HANDLE);
  }
  if (int(config->sharedMemBytes) > function->maxDynamicShared)
    return fail(s, "cuLaunchKernelEx", CUDA_ERROR_INVALID_VALUE);
  unsigned long long first = 0;
  if (kernelParams && kernelParams[0])
    std::memcpy(&first, kernelParams[0], sizeof(first));
  s.records.launches.push_back({context->device, context->id, config->hStream,
                                config->sharedMemBytes, first});
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuTensorMapEncodeTiled(
    CUtensorMap *tensorMap, CUtensorMapDataType, cuuint32_t,
    void *globalAddress, const cuuint64_t *, const cuuint64_t *,
    const cuuint32_t *, const cuuint32_t *, CUtensorMapInterleave,
    CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill) {
  // The address, where a test can read it back.
  std::memset(tensorMap, 0, sizeof(*tensorMap));
  std::memcpy(tensorMap, &globalAddress, sizeof(globalAddress));
  return CUDA_SUCCESS;
}

// For tests in other languages (a Python test reaches these via ctypes).
extern "C" {
int fakecudaNumLaunches() { return int(records().launches.size()); }
int fakecudaLaunchDevice(int i) { return records().launches.at(i).device; }
unsigned long long fakecudaLaunchParam(int i) {
  return records().launches.at(i).firstParam;
}
int fakecudaNumLoads() { return int(records().loads.size()); }
int fakecudaNumAttributeSets() { return int(records().attributeSets.size()); }
int fakecudaAttributeSetDevice(int i) {
  return records().attributeSets.at(i).device;
}
int fakecudaNumErrors() { return int(records().errors.size()); }
/// The device of the calling thread's current context, -1 with none.
int fakecudaCurrentDevice() {
  auto *context = reinterpret_cast<CUcontext>(0);
  cuCtxGetCurrent(&context);
  return context ? deviceOf(context) : -1;
}
void fakecudaReset() { reset(); }
}
