//===- Runtime.cpp - compiling and launching PTX kernels ------------------===//
//
// The driver API is reached through dlopen/dlsym, so nothing links against
// libcuda and a machine without a driver fails only when it launches.
//
//===----------------------------------------------------------------------===//

#include "pyptx/Runtime/Runtime.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

#include <dlfcn.h>

#include <atomic>
#include <cstdlib>
#include <mutex>

using namespace llvm;

// Inside the namespace, Error is ours, not llvm::Error.
namespace pyptx::runtime {

Error::~Error() = default;

//===----------------------------------------------------------------------===//
// The driver
//===----------------------------------------------------------------------===//

namespace {

#define PYPTX_DRIVER_FUNCTIONS(X)                                              \
  X(cuInit)                                                                    \
  X(cuGetErrorName)                                                            \
  X(cuGetErrorString)                                                          \
  X(cuDeviceGet)                                                               \
  X(cuDeviceGetAttribute)                                                      \
  X(cuDevicePrimaryCtxRetain)                                                  \
  X(cuCtxGetCurrent)                                                           \
  X(cuCtxSetCurrent)                                                           \
  X(cuCtxGetDevice)                                                            \
  X(cuCtxGetId)                                                                \
  X(cuCtxSynchronize)                                                          \
  X(cuStreamGetCtx)                                                            \
  X(cuModuleLoadData)                                                          \
  X(cuModuleLoadDataEx)                                                        \
  X(cuModuleUnload)                                                            \
  X(cuModuleGetFunction)                                                       \
  X(cuFuncSetAttribute)                                                        \
  X(cuLaunchKernelEx)                                                          \
  X(cuTensorMapEncodeTiled)

struct Driver {
#define PYPTX_DECLARE(fn) decltype(&::fn) fn = nullptr;
  PYPTX_DRIVER_FUNCTIONS(PYPTX_DECLARE)
#undef PYPTX_DECLARE
};

#define PYPTX_STRINGIZE(x) #x
#define PYPTX_SYMBOL(fn) PYPTX_STRINGIZE(fn)

/// Loads libcuda.so.1 and calls cuInit; null with `error` set if it fails.
Driver *loadDriver(std::string &error) {
  void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    error = std::string("pyptx runtime: cannot load libcuda.so.1 (") +
            dlerror() + "): launching needs an NVIDIA driver";
    return nullptr;
  }
  // Each function under the name cuda.h's #defines give it (cuFoo_v2 where
  // there is one), which is the ABI of its prototype there. Not
  // cuGetProcAddress(..., CUDA_VERSION): that returns the newest version,
  // e.g. CUDA 13's cuCtxSynchronize(CUcontext), not cuda.h's
  // cuCtxSynchronize(void).
  auto *driver = new Driver;
#define PYPTX_RESOLVE(fn)                                                      \
  driver->fn = reinterpret_cast<decltype(driver->fn)>(                         \
      dlsym(library, PYPTX_SYMBOL(fn)));                                       \
  if (!driver->fn) {                                                           \
    error = "pyptx runtime: libcuda.so.1 has no " PYPTX_SYMBOL(                \
        fn) ": launching needs a CUDA 12.0 or newer driver";                   \
    delete driver;                                                             \
    return nullptr;                                                            \
  }
  PYPTX_DRIVER_FUNCTIONS(PYPTX_RESOLVE)
#undef PYPTX_RESOLVE
  if (CUresult result = driver->cuInit(0)) {
    const char *errorName = nullptr;
    driver->cuGetErrorName(result, &errorName);
    error = std::string("pyptx runtime: cuInit failed with ") +
            (errorName ? errorName : std::to_string(result)) +
            ": launching needs an NVIDIA GPU";
    delete driver;
    return nullptr;
  }
  return driver;
}

/// The driver, loaded on first use; throws Error (each time) if it is not
/// there.
const Driver &driver() {
  static std::string error;
  static const Driver *loaded = loadDriver(error);
  if (!loaded)
    throw Error(error);
  return *loaded;
}

/// "CUDA_ERROR_INVALID_VALUE (invalid argument)".
std::string describe(CUresult result) {
  const char *errorName = nullptr, *text = nullptr;
  driver().cuGetErrorName(result, &errorName);
  driver().cuGetErrorString(result, &text);
  return std::string(errorName ? errorName
                               : "CUDA error " + std::to_string(result)) +
         " (" + (text ? text : "no description") + ")";
}

/// Throws "<what>: <describe(result)>" unless `result` is CUDA_SUCCESS.
void check(CUresult result, const Twine &what) {
  if (result != CUDA_SUCCESS)
    throw Error((what + ": " + describe(result)).str());
}

std::string launching(StringRef kernelName) {
  return ("launching kernel '" + kernelName + "'").str();
}

} // namespace

bool driverAvailable() {
  try {
    driver();
    return true;
  } catch (const Error &) {
    return false;
  }
}

//===----------------------------------------------------------------------===//
// PTX to cubin
//===----------------------------------------------------------------------===//

namespace {

thread_local bool lastCached = false;

/// Runs `args` with stdout and stderr into `output`; the exit code, or -1
/// with the reason in `output` when it could not run.
int runProgram(ArrayRef<StringRef> args, std::string &output) {
  SmallString<128> logPath;
  if (std::error_code ec =
          sys::fs::createTemporaryFile("pyptx-ptxas", "log", logPath)) {
    output = "cannot create a temporary file: " + ec.message();
    return -1;
  }
  FileRemover removeLog(logPath);
  std::optional<StringRef> redirects[] = {StringRef(""), StringRef(logPath),
                                          StringRef(logPath)};
  std::string why;
  int rc = sys::ExecuteAndWait(args[0], args, std::nullopt, redirects, 0, 0,
                               &why);
  if (auto log = MemoryBuffer::getFile(logPath))
    output = (*log)->getBuffer().rtrim().str();
  if (rc < 0)
    output = why;
  return rc;
}

/// `ptxas --version`, run once per ptxas per process (it keys the cache);
/// null with the reason in `why` if it does not run.
const std::string *ptxasVersion(StringRef ptxas, std::string &why) {
  static std::mutex mutex;
  static StringMap<std::string> versions;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = versions.find(ptxas);
  if (it != versions.end())
    return &it->second;
  std::string output;
  if (runProgram({ptxas, "--version"}, output) != 0) {
    why = output;
    return nullptr;
  }
  return &(versions[ptxas] = output);
}

} // namespace

std::string findPtxas() {
  if (const char *path = std::getenv("PYPTX_PTXAS"); path && *path)
    return StringRef(path) == "none" ? "" : path;
  if (ErrorOr<std::string> path = sys::findProgramByName("ptxas"))
    return *path;
  if (sys::fs::can_execute("/usr/local/cuda/bin/ptxas"))
    return "/usr/local/cuda/bin/ptxas";
  return "";
}

std::string cacheDir() {
  if (const char *dir = std::getenv("PYPTX_CACHE_DIR"); dir && *dir)
    return dir;
  SmallString<128> dir;
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) {
    dir = xdg;
  } else {
    sys::path::home_directory(dir);
    sys::path::append(dir, ".cache");
  }
  sys::path::append(dir, "pyptx");
  return std::string(dir);
}

bool lastCompileCached() { return lastCached; }

std::string compileToCubin(StringRef ptx, StringRef arch,
                                           StringRef kernelName) {
  lastCached = false;
  std::string what = ("compiling kernel '" + kernelName + "'").str();
  std::string ptxas = findPtxas();
  if (ptxas.empty())
    throw Error(what + ": no ptxas (set $PYPTX_PTXAS or put the CUDA "
                       "toolkit's bin/ on PATH)");

  std::string why;
  const std::string *version = ptxasVersion(ptxas, why);
  if (!version)
    throw Error(what + ": cannot run ptxas '" + ptxas + "': " + why);

  // The NULs keep ("ab", "c") and ("a", "bc") apart.
  SHA256 hasher;
  hasher.update(ptx);
  hasher.update(StringRef("\0", 1));
  hasher.update(arch);
  hasher.update(StringRef("\0", 1));
  hasher.update(*version);
  SmallString<256> cached(cacheDir());
  sys::path::append(cached, toHex(hasher.final(), /*LowerCase=*/true) +
                                ".cubin");
  if (auto cubin = MemoryBuffer::getFile(cached)) {
    lastCached = true;
    return (*cubin)->getBuffer().str();
  }

  SmallString<128> ptxPath, cubinPath;
  if (std::error_code ec =
          sys::fs::createTemporaryFile("pyptx", "ptx", ptxPath))
    throw Error(what + ": cannot create a temporary file: " + ec.message());
  FileRemover removePtx(ptxPath);
  if (std::error_code ec =
          sys::fs::createTemporaryFile("pyptx", "cubin", cubinPath))
    throw Error(what + ": cannot create a temporary file: " + ec.message());
  FileRemover removeCubin(cubinPath);
  {
    std::error_code ec;
    raw_fd_ostream os(ptxPath, ec);
    os << ptx;
    os.close();
    if (ec || os.has_error())
      throw Error(what + ": cannot write " + ptxPath.str().str());
  }
  std::string archFlag = ("-arch=" + arch).str();
  std::string output;
  int rc = runProgram({ptxas, archFlag, "-o", cubinPath, ptxPath}, output);
  if (rc < 0)
    throw Error(what + ": cannot run ptxas '" + ptxas + "': " + output);
  if (rc != 0) {
    // ptxas names the temporary file; the kernel's name says more.
    std::string shownPath = (kernelName + ".ptx").str();
    for (size_t at = 0;
         (at = output.find(ptxPath.str(), at)) != std::string::npos;
         at += shownPath.size())
      output.replace(at, ptxPath.size(), shownPath);
    throw Error(what + " with ptxas for " + arch.str() + ":\n" + output);
  }
  auto cubin = MemoryBuffer::getFile(cubinPath);
  if (!cubin)
    throw Error(what + ": ptxas wrote no cubin: " + cubin.getError().message());

  // The cache is only a speed-up: a directory we cannot write to is skipped.
  // writeToOutput writes a temporary file and renames it, so a reader never
  // sees half a cubin.
  if (!sys::fs::create_directories(sys::path::parent_path(cached)))
    consumeError(writeToOutput(cached, [&](raw_ostream &os) {
      os << (*cubin)->getBuffer();
      return llvm::Error::success();
    }));
  return (*cubin)->getBuffer().str();
}

//===----------------------------------------------------------------------===//
// Kernel
//===----------------------------------------------------------------------===//

Kernel::Kernel(std::string ptx, std::string name, std::string arch)
    : ptx(std::move(ptx)), name(std::move(name)), arch(std::move(arch)) {}

Kernel::~Kernel() {
  if (loaded.empty())
    return;
  // Each module is unloaded in its own context, if that context is still
  // the one it was loaded in. Errors are ignored: at exit the driver or the
  // context may be gone.
  const Driver &d = driver();
  CUcontext previous = nullptr;
  d.cuCtxGetCurrent(&previous);
  for (Loaded &entry : loaded) {
    unsigned long long id = 0;
    if (!d.cuCtxGetId(entry.context, &id) && id == entry.contextId &&
        !d.cuCtxSetCurrent(entry.context))
      d.cuModuleUnload(entry.module);
  }
  d.cuCtxSetCurrent(previous);
}

SmallVector<CUcontext, 2> Kernel::getContexts() const {
  SmallVector<CUcontext, 2> contexts;
  for (const Loaded &entry : loaded)
    contexts.push_back(entry.context);
  return contexts;
}

/// The arch to assemble `target` PTX for on the current context's device:
/// an arch-specific target (sm_90a, sm_100f) as it is -- its cubin runs only
/// on that chip -- else the device's own sm_XY when it is newer, since a
/// cubin does not run on a later major version and PTX for sm_80 assembles
/// for sm_90.
static std::string archFor(StringRef target) {
  if (target.ends_with("a") || target.ends_with("f"))
    return target.str();
  const Driver &d = driver();
  CUdevice device;
  int major = 0, minor = 0;
  if (d.cuCtxGetDevice(&device) ||
      d.cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                             device) ||
      d.cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                             device))
    return target.str();
  unsigned wanted = 0;
  if (!target.starts_with("sm_") || target.drop_front(3).getAsInteger(10, wanted) ||
      wanted >= unsigned(major * 10 + minor))
    return target.str();
  return "sm_" + std::to_string(major * 10 + minor);
}

Kernel::Loaded &Kernel::load(CUcontext context, unsigned long long contextId) {
  const Driver &d = driver();
  std::string what = "loading kernel '" + name + "'";
  std::string *cubin = nullptr;
  if (!findPtxas().empty()) {
    std::string device = archFor(arch);
    auto it = cubins.find(device);
    if (it == cubins.end())
      it = cubins.emplace(device, compileToCubin(ptx, device, name)).first;
    cubin = &it->second;
  }
  CUmodule module = nullptr;
  if (cubin) {
    check(d.cuModuleLoadData(&module, cubin->data()), what);
  } else {
    // No ptxas: the driver compiles the PTX for the current device.
    char log[8192] = {};
    CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER,
                              CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {log, reinterpret_cast<void *>(sizeof(log))};
    if (CUresult result =
            d.cuModuleLoadDataEx(&module, ptx.c_str(), 2, options, values))
      throw Error(what + " (driver JIT): " + describe(result) +
                  (log[0] ? std::string(":\n") + log : std::string()));
  }
  CUfunction function = nullptr;
  if (CUresult result =
          d.cuModuleGetFunction(&function, module, name.c_str())) {
    d.cuModuleUnload(module);
    check(result, what + ": no .entry '" + name + "' in its PTX");
  }
  loaded.push_back({context, contextId, module, function, 0});
  return loaded.back();
}

CUfunction Kernel::function(CUcontext context, unsigned sharedBytes) {
  const Driver &d = driver();
  unsigned long long contextId = 0;
  check(d.cuCtxGetId(context, &contextId), launching(name));
  Loaded *entry = nullptr;
  for (Loaded &candidate : loaded)
    if (candidate.contextId == contextId)
      entry = &candidate;
  if (!entry)
    entry = &load(context, contextId);

  // Over 48 KiB of dynamic shared memory must be asked for per function.
  if (sharedBytes > 48 * 1024 && sharedBytes > entry->maxSharedBytes) {
    if (CUresult result = d.cuFuncSetAttribute(
            entry->function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            sharedBytes)) {
      std::string limit;
      CUdevice device;
      int optin = 0;
      if (!d.cuCtxGetDevice(&device) &&
          !d.cuDeviceGetAttribute(
              &optin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
              device))
        limit = " (the device allows " + std::to_string(optin) +
                " per block, static shared memory included)";
      check(result, launching(name) + " with " + Twine(sharedBytes) +
                        " bytes of dynamic shared memory" + limit);
    }
    entry->maxSharedBytes = sharedBytes;
  }
  return entry->function;
}

//===----------------------------------------------------------------------===//
// LaunchPlan
//===----------------------------------------------------------------------===//

unsigned paramSize(ParamKind kind) {
  switch (kind) {
  case ParamKind::U8:
    return 1;
  case ParamKind::U16:
    return 2;
  case ParamKind::U32:
  case ParamKind::S32:
  case ParamKind::F32:
    return 4;
  case ParamKind::U64:
  case ParamKind::S64:
  case ParamKind::F64:
  case ParamKind::Pointer:
    return 8;
  case ParamKind::TensorMap:
    return 128;
  }
  llvm_unreachable("unknown ParamKind");
}

unsigned paramAlign(ParamKind kind) {
  return kind == ParamKind::TensorMap ? 64 : paramSize(kind);
}

static constexpr std::pair<ParamKind, StringLiteral> kParamKindNames[] = {
    {ParamKind::U8, "u8"},   {ParamKind::U16, "u16"},
    {ParamKind::U32, "u32"}, {ParamKind::U64, "u64"},
    {ParamKind::S32, "s32"}, {ParamKind::S64, "s64"},
    {ParamKind::F32, "f32"}, {ParamKind::F64, "f64"},
    {ParamKind::Pointer, "ptr"}, {ParamKind::TensorMap, "tensormap"},
};

StringRef paramKindName(ParamKind kind) {
  for (auto &[candidate, name] : kParamKindNames)
    if (candidate == kind)
      return name;
  llvm_unreachable("unknown ParamKind");
}

bool parseParamKind(StringRef name, ParamKind &kind) {
  for (auto &[candidate, candidateName] : kParamKindNames)
    if (candidateName == name) {
      kind = candidate;
      return true;
    }
  return false;
}

LaunchPlan::LaunchPlan(std::shared_ptr<Kernel> kernel, Dim3 grid, Dim3 block,
                       Dim3 cluster, unsigned sharedBytes,
                       ArrayRef<ParamKind> params)
    : kernel(std::move(kernel)), grid(grid), block(block), cluster(cluster),
      sharedBytes(sharedBytes), params(params) {
  for (auto [what, dims] : {std::pair<const char *, Dim3>{"grid", grid},
                            {"block", block},
                            {"cluster", cluster}})
    for (unsigned dim : dims)
      if (dim == 0)
        throw Error("kernel '" + this->kernel->getName().str() + "': " +
                    what + " (" + std::to_string(dims[0]) + ", " +
                    std::to_string(dims[1]) + ", " + std::to_string(dims[2]) +
                    ") has a zero dimension");
  for (ParamKind kind : params) {
    bufferSize = alignTo(bufferSize, paramAlign(kind));
    offsets.push_back(bufferSize);
    bufferSize += paramSize(kind);
  }
  buffer.resize(divideCeil(bufferSize, sizeof(Block)));
  for (unsigned offset : offsets)
    args.push_back(buffer.data()->bytes + offset);
}

void LaunchPlan::store(unsigned i, const void *value, size_t size) {
  if (size != paramSize(params[i]))
    throwArgumentError(i, size);
  std::memcpy(args[i], value, size);
}

void LaunchPlan::throwArgumentError(unsigned index, size_t got) const {
  std::string prefix = launching(kernel->getName()) + ": ";
  if (index == ~0u)
    throw Error(prefix + "it takes " + std::to_string(params.size()) +
                " parameters, got " + std::to_string(got));
  throw Error(prefix + "parameter " + std::to_string(index) + " (" +
              paramKindName(params[index]).str() + ") takes " +
              std::to_string(paramSize(params[index])) + " bytes, got " +
              std::to_string(got));
}

namespace {
/// The current context; with none, device 0's primary context, made
/// current (what the CUDA runtime does on a thread's first call).
CUcontext currentOrDevice0(StringRef kernelName) {
  const Driver &d = driver();
  CUcontext context = nullptr;
  check(d.cuCtxGetCurrent(&context), launching(kernelName));
  if (context)
    return context;
  try {
    context = primaryContext(0);
  } catch (const Error &e) {
    throw Error(launching(kernelName) + ": " + e.what());
  }
  check(d.cuCtxSetCurrent(context), launching(kernelName));
  return context;
}
} // namespace

CUcontext primaryContext(int ordinal) {
  // Read on every PyTorch launch: a lock-free table for the first 64
  // devices, written once per device under the mutex.
  static std::atomic<CUcontext> known[64];
  bool cacheable = ordinal >= 0 && ordinal < 64;
  if (cacheable)
    if (CUcontext context = known[ordinal].load(std::memory_order_acquire))
      return context;
  const Driver &d = driver();
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  if (cacheable)
    if (CUcontext context = known[ordinal].load(std::memory_order_acquire))
      return context;
  std::string what = "device " + std::to_string(ordinal);
  CUdevice device;
  check(d.cuDeviceGet(&device, ordinal), what);
  CUcontext context = nullptr;
  check(d.cuDevicePrimaryCtxRetain(&context, device),
        "retaining " + what + "'s primary context");
  // Beyond 64 devices each call retains again: harmless, the primary
  // context is one per device and never released here.
  if (cacheable)
    known[ordinal].store(context, std::memory_order_release);
  return context;
}

void LaunchPlan::launchInCurrent(CUcontext context, CUstream stream) {
  if (!encodedMaps.empty())
    encodeTensorMaps();
  const Driver &d = driver();
  CUfunction function = kernel->function(context, sharedBytes);
  CUlaunchConfig config = {};
  config.gridDimX = grid[0];
  config.gridDimY = grid[1];
  config.gridDimZ = grid[2];
  config.blockDimX = block[0];
  config.blockDimY = block[1];
  config.blockDimZ = block[2];
  config.sharedMemBytes = sharedBytes;
  config.hStream = stream;
  CUlaunchAttribute clusterDim = {};
  if (cluster != Dim3{1, 1, 1}) {
    clusterDim.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    clusterDim.value.clusterDim.x = cluster[0];
    clusterDim.value.clusterDim.y = cluster[1];
    clusterDim.value.clusterDim.z = cluster[2];
    config.attrs = &clusterDim;
    config.numAttrs = 1;
  }
  check(d.cuLaunchKernelEx(&config, function, args.data(), nullptr),
        launching(kernel->getName()));
}

void LaunchPlan::launchIn(CUcontext context, CUstream stream) {
  const Driver &d = driver();
  CUcontext previous = nullptr;
  check(d.cuCtxGetCurrent(&previous), launching(kernel->getName()));
  if (context == previous)
    return launchInCurrent(context, stream);
  check(d.cuCtxSetCurrent(context), launching(kernel->getName()));
  try {
    launchInCurrent(context, stream);
  } catch (...) {
    d.cuCtxSetCurrent(previous);
    throw;
  }
  check(d.cuCtxSetCurrent(previous), launching(kernel->getName()));
}

void LaunchPlan::launch(CUstream stream) {
  launchInCurrent(currentOrDevice0(kernel->getName()), stream);
}

void LaunchPlan::launchOnDevice(int ordinal, CUstream stream) {
  CUcontext context;
  try {
    context = primaryContext(ordinal);
  } catch (const Error &e) {
    throw Error(launching(kernel->getName()) + ": " + e.what());
  }
  launchIn(context, stream);
}

void LaunchPlan::launchInContextOf(CUstream stream) {
  if (!stream)
    return launch(stream);
  CUcontext context = nullptr;
  check(driver().cuStreamGetCtx(stream, &context),
        launching(kernel->getName()) + ": the stream's context");
  launchIn(context, stream);
}

void synchronize() {
  const Driver &d = driver();
  CUcontext context = nullptr;
  check(d.cuCtxGetCurrent(&context), "synchronizing");
  if (context)
    check(d.cuCtxSynchronize(), "synchronizing");
}

//===----------------------------------------------------------------------===//
// Tensor maps
//===----------------------------------------------------------------------===//

/// The constraints cuTensorMapEncodeTiled documents, checked here so that a
/// mistake gets a message rather than CUDA_ERROR_INVALID_VALUE.
static void checkTensorMap(ArrayRef<uint64_t> dims,
                           ArrayRef<uint64_t> stridesBytes,
                           ArrayRef<uint32_t> box,
                           ArrayRef<uint32_t> elementStrides,
                           CUtensorMapInterleave interleave,
                           uint64_t globalAddress) {
  auto fail = [](const Twine &why) -> void {
    throw Error(("encoding a tensor map: " + why).str());
  };
  size_t rank = dims.size();
  if (rank < 1 || rank > 5)
    fail("rank must be 1 to 5, got " + Twine(rank) + " dims");
  if (interleave != CU_TENSOR_MAP_INTERLEAVE_NONE && rank < 3)
    fail("an interleaved layout needs rank 3 or more, got " + Twine(rank));
  if (stridesBytes.size() != rank - 1)
    fail("rank " + Twine(rank) + " takes " + Twine(rank - 1) +
         " global strides (all dims but the innermost), got " +
         Twine(stridesBytes.size()));
  if (box.size() != rank)
    fail("rank " + Twine(rank) + " takes " + Twine(rank) + " box dims, got " +
         Twine(box.size()));
  if (!elementStrides.empty() && elementStrides.size() != rank)
    fail("rank " + Twine(rank) + " takes " + Twine(rank) +
         " element strides, got " + Twine(elementStrides.size()));
  unsigned addressAlign =
      interleave == CU_TENSOR_MAP_INTERLEAVE_32B ? 32 : 16;
  if (globalAddress % addressAlign)
    fail("the global address 0x" + Twine::utohexstr(globalAddress) +
         " is not " + Twine(addressAlign) + "-byte aligned");
  for (size_t i = 0; i < rank; ++i) {
    if (dims[i] == 0 || dims[i] > (uint64_t(1) << 32))
      fail("dim " + Twine(i) + " is " + Twine(dims[i]) +
           ", must be 1 to 2^32");
    if (box[i] == 0 || box[i] > 256)
      fail("box dim " + Twine(i) + " is " + Twine(box[i]) +
           ", must be 1 to 256");
    if (!elementStrides.empty() &&
        (elementStrides[i] == 0 || elementStrides[i] > 8))
      fail("element stride " + Twine(i) + " is " + Twine(elementStrides[i]) +
           ", must be 1 to 8");
  }
  for (size_t i = 0; i + 1 < rank; ++i)
    if (stridesBytes[i] % 16 || stridesBytes[i] >= (uint64_t(1) << 40))
      fail("global stride " + Twine(i) + " is " + Twine(stridesBytes[i]) +
           " bytes, must be a multiple of 16 below 2^40");
}

std::array<uint8_t, 128> encodeTensorMap(
    CUtensorMapDataType dtype, uint64_t globalAddress, ArrayRef<uint64_t> dims,
    ArrayRef<uint64_t> stridesBytes, ArrayRef<uint32_t> box,
    ArrayRef<uint32_t> elementStrides, CUtensorMapInterleave interleave,
    CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2Promotion,
    CUtensorMapFloatOOBfill oobFill) {
  checkTensorMap(dims, stridesBytes, box, elementStrides, interleave,
                 globalAddress);
  size_t rank = dims.size();
  const Driver &d = driver();
  SmallVector<uint32_t, 5> ones(rank, 1);
  CUtensorMap map;
  check(d.cuTensorMapEncodeTiled(
            &map, dtype, rank, reinterpret_cast<void *>(globalAddress),
            dims.data(), stridesBytes.data(), box.data(),
            elementStrides.empty() ? ones.data() : elementStrides.data(),
            interleave, swizzle, l2Promotion, oobFill),
        "encoding a tensor map");
  std::array<uint8_t, 128> bytes;
  static_assert(sizeof(map) == bytes.size(), "CUtensorMap is 128 bytes");
  std::memcpy(bytes.data(), &map, bytes.size());
  return bytes;
}

void LaunchPlan::encodeAtLaunch(unsigned param, TensorMapSource source) {
  std::string prefix = "kernel '" + kernel->getName().str() + "': ";
  if (param >= params.size() || params[param] != ParamKind::TensorMap)
    throw Error(prefix + "parameter " + std::to_string(param) +
                " is not a tensor map");
  if (source.pointer >= params.size() ||
      params[source.pointer] != ParamKind::Pointer)
    throw Error(prefix + "parameter " + std::to_string(source.pointer) +
                " (the tensor map's source) is not a pointer");
  checkTensorMap(source.dims, source.stridesBytes, source.box,
                 source.elementStrides, source.interleave, /*address=*/0);
  encodedMaps.push_back({param, std::move(source), 0, false});
}

void LaunchPlan::encodeTensorMaps() {
  for (EncodedMap &map : encodedMaps) {
    uint64_t address;
    std::memcpy(&address, args[map.source.pointer], sizeof(address));
    if (map.encoded && map.address == address)
      continue;
    const TensorMapSource &s = map.source;
    std::array<uint8_t, 128> bytes = encodeTensorMap(
        s.dtype, address, s.dims, s.stridesBytes, s.box, s.elementStrides,
        s.interleave, s.swizzle, s.l2Promotion, s.oobFill);
    std::memcpy(args[map.param], bytes.data(), bytes.size());
    map.address = address;
    map.encoded = true;
  }
}

} // namespace pyptx::runtime
