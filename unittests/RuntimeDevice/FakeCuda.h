//===- FakeCuda.h - a libcuda.so.1 of several fake GPUs ---------*- C++ -*-===//
//
// The driver entry points PyPTXRuntime dlopens, with no GPU: four devices
// (0 and 1 compute capability 9.0, 2 and 3 8.0), primary contexts, a current
// context per thread, modules, functions and launches as records. It is as
// strict as the driver where a second GPU shows mistakes: a function
// launches, or takes an attribute, only with its own context current; a
// stream only in its context; over 48 KiB of dynamic shared memory only
// after the function's attribute allows it in that context. A test links
// it (its SONAME is libcuda.so.1, so the runtime's dlopen finds it loaded)
// and reads the records through this header; a Python test preloads it and
// reads them through the extern "C" fakecuda* functions of FakeCuda.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef PYPTX_UNITTESTS_FAKECUDA_H
#define PYPTX_UNITTESTS_FAKECUDA_H

#include <cuda.h>

#include <string>
#include <vector>

namespace fakecuda {

constexpr int kNumDevices = 4;

struct Launch {
  int device;
  unsigned long long contextId;
  CUstream stream;
  unsigned sharedBytes;
  unsigned long long firstParam; // The first 8 bytes of parameter 0.
};

struct ModuleEvent {
  int device;
  unsigned long long contextId;
};

struct AttributeSet {
  int device;
  unsigned long long contextId;
  int bytes;
};

/// Everything recorded since the last reset.
struct Records {
  std::vector<Launch> launches;
  std::vector<ModuleEvent> loads, unloads;
  std::vector<AttributeSet> attributeSets;
  /// Calls that failed, as "<function>: <error name>".
  std::vector<std::string> errors;
};

Records &records();
/// Forgets the records (not the contexts, modules or streams).
void reset();

/// A stream of device `device`'s primary context (retained if need be).
CUstream createStream(int device);
/// The primary context of `device` if it is alive, else null.
CUcontext primaryContextOf(int device);
/// Ends `device`'s primary context as if every user released it; the next
/// retain makes a new one at the same address with a new id.
void destroyPrimaryContext(int device);
/// The device of `context` (-1 for null or unknown).
int deviceOf(CUcontext context);

} // namespace fakecuda

#endif // PYPTX_UNITTESTS_FAKECUDA_H
