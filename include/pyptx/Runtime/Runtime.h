//===- Runtime.h - compiling and launching PTX kernels ----------*- C++ -*-===//
//
// The launch side of pyptx, with no MLIR: PTX text in, a kernel launch out.
// libcuda.so.1 is opened at run time (dlopen), so everything here builds and
// links without a driver; only what needs the GPU fails, with an Error that
// says so. cuda.h is included for its types and enums only.
//
// Not thread-safe: a Kernel or LaunchPlan is used by one thread at a time
// (the Python module calls it under the GIL, JAX's handler under a mutex).
//
// Several GPUs: a launch goes to one CUDA context -- the current one, the
// primary context of a named device, or a stream's -- and a Kernel keeps a
// module, function and shared-memory opt-in per context it ran in
// (docs/design.md, "Several GPUs").
//
//===----------------------------------------------------------------------===//

#ifndef PYPTX_RUNTIME_RUNTIME_H
#define PYPTX_RUNTIME_RUNTIME_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cuda.h>

#include <array>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <map>
#include <string>
#include <vector>

namespace pyptx::runtime {

/// Every failure: a missing driver, a CUDA error, a ptxas error, a bad
/// argument. The message names the kernel where there is one.
class Error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
  ~Error() override;
};

/// Whether libcuda.so.1 loads, has the entry points used here and cuInit
/// succeeds. Never throws.
bool driverAvailable();

/// Waits for the current context's work (nothing if no context is current).
void synchronize();

/// The primary context of device `ordinal` (the context the CUDA runtime,
/// and so PyTorch and XLA, use for it), retained once per process and
/// device. Throws Error for a device that does not exist.
CUcontext primaryContext(int ordinal);

//===----------------------------------------------------------------------===//
// PTX to cubin
//===----------------------------------------------------------------------===//

/// ptxas: $PYPTX_PTXAS, else ptxas on PATH, else /usr/local/cuda/bin/ptxas;
/// empty if none or if $PYPTX_PTXAS is "none" (then kernels go to the
/// driver's JIT).
std::string findPtxas();

/// Where compiled cubins are kept: $PYPTX_CACHE_DIR, else
/// $XDG_CACHE_HOME/pyptx, else ~/.cache/pyptx.
std::string cacheDir();

/// `ptx` assembled by ptxas for `arch` (e.g. "sm_90a"): the cubin's bytes.
/// Looked up first in cacheDir() under the SHA-256 of the PTX, the arch and
/// ptxas's --version. Throws Error with ptxas's messages and `kernelName`
/// when ptxas fails, or when there is no ptxas.
std::string compileToCubin(llvm::StringRef ptx, llvm::StringRef arch,
                           llvm::StringRef kernelName);

/// Whether the last compileToCubin on this thread came from the cache.
bool lastCompileCached();

//===----------------------------------------------------------------------===//
// Kernel and LaunchPlan
//===----------------------------------------------------------------------===//

/// One `.entry` of a PTX module, loaded into each CUDA context it is
/// launched in (on first launch there). The PTX goes through ptxas when there
/// is one, else through the driver's JIT.
class Kernel {
public:
  Kernel(std::string ptx, std::string name, std::string arch);
  ~Kernel();
  Kernel(const Kernel &) = delete;
  Kernel &operator=(const Kernel &) = delete;

  llvm::StringRef getName() const { return name; }
  llvm::StringRef getArch() const { return arch; }
  llvm::StringRef getPTX() const { return ptx; }

  /// The function in `context`, which must be the current context. Loads
  /// the module on first use in that context, and allows `sharedBytes` of
  /// dynamic shared memory when that is over the default 48 KiB: both are
  /// per context (a function of device 0's context is not device 1's).
  CUfunction function(CUcontext context, unsigned sharedBytes);

  /// The contexts it is loaded in, in the order of their first launch.
  llvm::SmallVector<CUcontext, 2> getContexts() const;

private:
  struct Loaded {
    CUcontext context;
    /// cuCtxGetId: unlike the handle, never reused by a later context (a
    /// primary context released by all and made again may get the address
    /// of the old one, whose module is gone).
    unsigned long long contextId;
    CUmodule module;
    CUfunction function;
    unsigned maxSharedBytes; // What the attribute was last set to.
  };
  Loaded &load(CUcontext context, unsigned long long contextId);

  std::string ptx, name, arch;
  /// Cubins by the arch ptxas assembled them for (see archFor); none
  /// without ptxas.
  std::map<std::string, std::string> cubins;
  llvm::SmallVector<Loaded, 1> loaded;
};

/// How a kernel parameter is passed.
enum class ParamKind : uint8_t {
  U8,
  U16,
  U32,
  U64,
  S32,
  S64,
  F32,
  F64,
  Pointer,   // A device address, as u64.
  TensorMap, // A CUtensorMap by value: 128 bytes, 64-byte aligned.
};

/// Bytes of a parameter of this kind.
unsigned paramSize(ParamKind kind);
/// Its alignment in the parameter buffer (its size; 64 for a tensor map).
unsigned paramAlign(ParamKind kind);
/// "u8", ..., "f64", "ptr", "tensormap".
llvm::StringRef paramKindName(ParamKind kind);
/// The kind named so, or false.
bool parseParamKind(llvm::StringRef name, ParamKind &kind);

/// A tensor map a LaunchPlan encodes itself at launch, from the tensor
/// address in one of its pointer parameters: for callers that fill only the
/// pointers (JAX's FFI handler gets XLA's buffers there). The other fields
/// are encodeTensorMap's arguments.
struct TensorMapSource {
  unsigned pointer; // The pointer parameter that holds the tensor's address.
  CUtensorMapDataType dtype;
  llvm::SmallVector<uint64_t, 5> dims, stridesBytes;
  llvm::SmallVector<uint32_t, 5> box, elementStrides;
  CUtensorMapInterleave interleave;
  CUtensorMapSwizzle swizzle;
  CUtensorMapL2promotion l2Promotion;
  CUtensorMapFloatOOBfill oobFill;
};

/// A kernel with its launch shape and parameter kinds fixed, and the
/// parameter buffer laid out once: a launch writes the values in place and
/// calls cuLaunchKernelEx, with no allocation.
class LaunchPlan {
public:
  using Dim3 = std::array<unsigned, 3>;

  LaunchPlan(std::shared_ptr<Kernel> kernel, Dim3 grid, Dim3 block,
             Dim3 cluster, unsigned sharedBytes,
             llvm::ArrayRef<ParamKind> params);
  LaunchPlan(const LaunchPlan &) = delete;
  LaunchPlan &operator=(const LaunchPlan &) = delete;

  Kernel &getKernel() const { return *kernel; }
  Dim3 getGrid() const { return grid; }
  Dim3 getBlock() const { return block; }
  Dim3 getCluster() const { return cluster; }
  unsigned getSharedBytes() const { return sharedBytes; }
  llvm::ArrayRef<ParamKind> getParams() const { return params; }
  /// Byte offset of each parameter in the buffer.
  llvm::ArrayRef<unsigned> getOffsets() const { return offsets; }
  /// The buffer's size: the end of the last parameter.
  unsigned getBufferSize() const { return bufferSize; }

  /// Where parameter `i`'s value goes (paramSize bytes, aligned).
  void *slot(unsigned i) { return args[i]; }

  /// From now on each launch first encodes tensor-map parameter `param`
  /// from the address in pointer parameter `source.pointer` (again only
  /// when that address changed). Throws Error on parameters of other kinds
  /// and on arguments encodeTensorMap would refuse.
  void encodeAtLaunch(unsigned param, TensorMapSource source);

  /// Launches with the values now in the slots (and the tensor maps of
  /// encodeAtLaunch encoded), in the current context; with none current,
  /// device 0's primary context is made current (what the CUDA runtime does).
  void launch(CUstream stream);

  /// The same, in the primary context of device `ordinal`, made current for
  /// the launch and then restored: for callers that know the device (a
  /// PyTorch tensor's) whatever context the thread has -- another device's,
  /// or none -- and whose stream may be the default stream (0), which names
  /// no device.
  void launchOnDevice(int ordinal, CUstream stream);

  /// The same, in `stream`'s own context (cuStreamGetCtx), made current for
  /// the launch and then restored: for streams made elsewhere (XLA's), on
  /// threads whose current context may be another device's or none. With
  /// the default stream (0), as launch(stream).
  void launchInContextOf(CUstream stream);

  /// Writes `values` into the slots (each exactly paramSize bytes: uint32_t
  /// for U32, uint64_t or a pointer for Pointer, std::array<uint8_t, 128>
  /// for TensorMap...) and launches.
  template <typename... Values>
  void launch(CUstream stream, const Values &...values) {
    if (sizeof...(Values) != params.size())
      throwArgumentError(~0u, sizeof...(Values));
    unsigned i = 0;
    (store(i++, &values, sizeof(Values)), ...);
    launch(stream);
  }

private:
  void store(unsigned i, const void *value, size_t size);
  [[noreturn]] void throwArgumentError(unsigned index, size_t got) const;
  void encodeTensorMaps();
  /// Launches in `context`, which is current.
  void launchInCurrent(CUcontext context, CUstream stream);
  /// Launches in `context`, made current for the launch if it is not.
  void launchIn(CUcontext context, CUstream stream);

  std::shared_ptr<Kernel> kernel;
  Dim3 grid, block, cluster;
  unsigned sharedBytes;
  llvm::SmallVector<ParamKind, 8> params;
  llvm::SmallVector<unsigned, 8> offsets;
  unsigned bufferSize = 0;
  /// The buffer, in 64-byte blocks so that tensor maps are aligned.
  struct alignas(64) Block {
    uint8_t bytes[64];
  };
  std::vector<Block> buffer;
  llvm::SmallVector<void *, 8> args; // &buffer[offsets[i]]
  /// The tensor maps of encodeAtLaunch, and the address each was last
  /// encoded for.
  struct EncodedMap {
    unsigned param;
    TensorMapSource source;
    uint64_t address;
    bool encoded;
  };
  llvm::SmallVector<EncodedMap, 0> encodedMaps;
};

//===----------------------------------------------------------------------===//
// Tensor maps
//===----------------------------------------------------------------------===//

/// cuTensorMapEncodeTiled: a TMA descriptor for the tensor at
/// `globalAddress` with `dims` (innermost first, rank 1 to 5),
/// `stridesBytes` (rank - 1 of them: the byte stride of each dimension but
/// the innermost), copied in boxes of `box` elements, `elementStrides`
/// apart (empty: all 1). Throws Error on arguments the driver would reject
/// with a plain CUDA_ERROR_INVALID_VALUE, and on a driver error.
std::array<uint8_t, 128>
encodeTensorMap(CUtensorMapDataType dtype, uint64_t globalAddress,
                llvm::ArrayRef<uint64_t> dims,
                llvm::ArrayRef<uint64_t> stridesBytes,
                llvm::ArrayRef<uint32_t> box,
                llvm::ArrayRef<uint32_t> elementStrides,
                CUtensorMapInterleave interleave, CUtensorMapSwizzle swizzle,
                CUtensorMapL2promotion l2Promotion,
                CUtensorMapFloatOOBfill oobFill);

} // namespace pyptx::runtime

#endif // PYPTX_RUNTIME_RUNTIME_H
