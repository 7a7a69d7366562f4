//===- TorchCall.h - PyTorch's eager call of one specialisation -*- C++ -*-===//
//
// pyptx.runtime.torch's hot path: a call whose tensors match the last
// plain call's specialisation is checked, given its outputs and launched
// here, in one METH_FASTCALL method. In Python, each of the five
// attributes read per tensor (shape, dtype, device, is_contiguous,
// data_ptr) costs ~100 ns; together they cost as much as the launch.
//
// This module does not link libtorch. Tensors are read through the DLPack
// exchange API that torch.Tensor exports as __dlpack_c_exchange_api__
// (DLPack 1.2: a C function that fills a DLTensor view of a tensor, and
// one that gives torch's current stream), or, with a torch that lacks it,
// through their Python attributes. Outputs are made by torch.empty_like or
// torch.empty, passed in. Anything that differs from the specialisation is
// a miss (NotImplemented, nothing launched): the Python path then
// specialises, or raises the error that names the parameter. The launch goes
// to the tensors' device (its primary context), whatever context the calling
// thread has.
//
//===----------------------------------------------------------------------===//

#ifndef PYPTX_BINDINGS_PYTHON_TORCHCALL_H
#define PYPTX_BINDINGS_PYTHON_TORCHCALL_H

#include "pyptx/Runtime/Runtime.h"

#include "FastCall.h"

#include <pybind11/pybind11.h>

#include <cstring>
#include <vector>

namespace pyptx::python {

namespace dlpack {
// The ABI of DLPack 1.2's dlpack.h, as far as it is used here.
struct Version {
  uint32_t major, minor;
};
struct Device {
  int32_t type, id;
};
struct DataType {
  uint8_t code, bits;
  uint16_t lanes;
};
struct Tensor {
  void *data;
  Device device;
  int32_t ndim;
  DataType dtype;
  int64_t *shape;
  int64_t *strides; // Null: row-major.
  uint64_t byteOffset;
};
/// DLPackExchangeAPI: its header, then five function pointers.
struct ExchangeAPI {
  Version version;
  const void *previous;
  void *managedTensorAllocator, *managedTensorFromPyObject,
      *managedTensorToPyObject;
  /// A view of the tensor `object`, valid while it lives; -1 with a Python
  /// error set on failure. May be null.
  int (*tensorFromPyObject)(void *object, Tensor *out);
  int (*currentWorkStream)(int32_t deviceType, int32_t deviceId,
                           void **stream);
};
} // namespace dlpack

class TorchCall {
public:
  /// What a tensor must be.
  struct Spec {
    pybind11::object shape, dtype; // A tuple of ints; a torch.dtype.
    std::vector<int64_t> dims;     // The shape, for DLPack views.
    dlpack::DataType dlType{};     // The dtype as DLPack codes it.
    uint64_t bytes = 0;            // The tensor's size in bytes.
  };
  using StoreParam = void (*)(runtime::LaunchPlan &, unsigned, PyObject *);

  /// See TorchCall.__init__ in _runtime.pyi.
  TorchCall(std::shared_ptr<runtime::LaunchPlan> plan,
            pybind11::tuple tensorTypes, pybind11::sequence inputs,
            pybind11::sequence outputs, pybind11::sequence samples,
            pybind11::object device, long deviceIndex,
            pybind11::sequence raws, pybind11::tuple functions,
            pybind11::object exchangeAPI, StoreParam storeParam);

  /// call(inputs, out): the outputs, or NotImplemented.
  PyObject *call(PyObject *inputs, PyObject *out);

private:
  bool isTensor(PyObject *object) const;
  /// Whether `t` is a contiguous tensor of `spec` on the call's device; if
  /// so its address goes into pointer slot `slot`. Never raises.
  bool take(PyObject *t, const Spec &spec, unsigned slot);
  bool takeByAttributes(PyObject *t, const Spec &spec, uint64_t &address);
  /// The outputs, made (out is None) or checked (out: a tensor, or a tuple
  /// or list of one per output) and addressed; false on a mismatch.
  bool outputsOf(PyObject *inputs, PyObject *out,
                 llvm::SmallVectorImpl<pybind11::object> &results);
  void storeAddress(unsigned slot, uint64_t address) {
    std::memcpy(plan->slot(slot), &address, sizeof(address));
  }
  /// Whether the given outputs (slots from numIn on) overlap an input or
  /// each other: such a call goes to Python, which names the two.
  bool givenOutputsOverlap(unsigned numIn) const;

  std::shared_ptr<runtime::LaunchPlan> plan;
  std::vector<PyTypeObject *> tensorTypes; // Exact types taken.
  std::vector<Spec> inputs, outputs;
  /// Per output: the input whose torch.empty_like makes it (same shape and
  /// dtype), or -1 for torch.empty(shape, dtype=, device=).
  std::vector<long> like;
  pybind11::object device, deviceIndex; // torch.device, its index (an int).
  int index; // The device's ordinal.
  dlpack::Device dlDevice{};
  pybind11::object currentStream, emptyLike, empty;
  const dlpack::ExchangeAPI *api = nullptr; // Null: Python attributes.
  /// The raw values' bytes, from their first slot to the buffer's end:
  /// rewritten per call, since the Python path may store others.
  unsigned rawsAt = 0;
  std::vector<uint8_t> rawBytes;
};

/// Adds TorchCall to the module.
void defineTorchCall(pybind11::module_ &m, TorchCall::StoreParam storeParam);

} // namespace pyptx::python

#endif // PYPTX_BINDINGS_PYTHON_TORCHCALL_H
