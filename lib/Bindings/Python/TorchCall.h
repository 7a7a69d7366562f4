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
// specialises, or raises the error that names the parameter.
//
//===----------------------------------------------------------------------===//

#ifndef PYPTX_BINDINGS_PYTHON_TORCHCALL_H
#define PYPTX_BINDINGS_PYTHON_TORCHCALL_H

#include "pyptx/Runtime/Runtime.h"

#include "FastCall.h"

#include <pybind11/pybind11.h>

#include <dlfcn.h>

#include <algorithm>
#include <cstring>
#include <string>
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
  long index;
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

//===----------------------------------------------------------------------===//
// Implementation (one translation unit includes this: PyPTXRuntime.cpp)
//===----------------------------------------------------------------------===//

namespace torch_call_detail {
namespace py = pybind11;

/// Interned attribute names and the keyword names of torch.empty.
struct Names {
  PyObject *shape = PyUnicode_InternFromString("shape");
  PyObject *dtype = PyUnicode_InternFromString("dtype");
  PyObject *device = PyUnicode_InternFromString("device");
  PyObject *isContiguous = PyUnicode_InternFromString("is_contiguous");
  PyObject *dataPtr = PyUnicode_InternFromString("data_ptr");
  PyObject *emptyKeywords = Py_BuildValue("(ss)", "dtype", "device");
};

inline const Names &names() {
  static const Names *names = new Names(); // Lives as long as the module.
  return *names;
}

/// `object.name`, or a null object (error cleared).
inline py::object attrOrNull(PyObject *object, PyObject *name) {
  PyObject *value = PyObject_GetAttr(object, name);
  if (!value)
    PyErr_Clear();
  return py::reinterpret_steal<py::object>(value);
}

/// `object.name()`, or a null object (error cleared).
inline py::object callOrNull(PyObject *object, PyObject *name) {
  PyObject *args[2] = {nullptr, object};
  PyObject *value = PyObject_VectorcallMethod(
      name, args + 1, 1 | PY_VECTORCALL_ARGUMENTS_OFFSET, nullptr);
  if (!value)
    PyErr_Clear();
  return py::reinterpret_steal<py::object>(value);
}

/// An int as a uint64_t; false (error cleared) for anything else.
inline bool toAddress(PyObject *value, uint64_t &address) {
  if (!value || !PyLong_Check(value))
    return false;
  address = PyLong_AsUnsignedLongLong(value);
  if (address == uint64_t(-1) && PyErr_Occurred()) {
    PyErr_Clear();
    return false;
  }
  return true;
}

/// torch's is_contiguous() of a DLPack view: no elements, or strides those
/// of row-major order wherever a dimension is not 1.
inline bool rowMajor(const dlpack::Tensor &t) {
  if (!t.strides)
    return true;
  for (int32_t d = 0; d < t.ndim; ++d)
    if (t.shape[d] == 0)
      return true;
  int64_t expected = 1;
  for (int32_t d = t.ndim - 1; d >= 0; --d) {
    if (t.shape[d] == 1)
      continue;
    if (t.strides[d] != expected)
      return false;
    expected *= t.shape[d];
  }
  return true;
}

inline bool sameType(dlpack::DataType a, dlpack::DataType b) {
  return a.code == b.code && a.bits == b.bits && a.lanes == b.lanes;
}

/// The ordinal of the current context's device (CUDA's numbering, which is
/// torch's), or -1 with no context current. Asking torch costs ~0.3 us of
/// Python; the driver is already loaded by the launch that made this
/// TorchCall (the runtime's own table of driver functions is private to
/// Runtime.cpp). Throws where no driver is loaded.
inline int currentDevice() {
  using GetDevice = CUresult (*)(CUdevice *);
  static GetDevice getDevice = [] {
    void *cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    return cuda ? reinterpret_cast<GetDevice>(dlsym(cuda, "cuCtxGetDevice"))
                : nullptr;
  }();
  if (!getDevice)
    throw runtime::Error("launching: the CUDA driver (libcuda.so.1) is not "
                         "loaded");
  CUdevice device;
  return getDevice(&device) == CUDA_SUCCESS ? int(device) : -1;
}
} // namespace torch_call_detail

namespace py = pybind11;

inline bool TorchCall::isTensor(PyObject *object) const {
  for (PyTypeObject *type : tensorTypes)
    if (Py_TYPE(object) == type)
      return true;
  return false;
}

inline bool TorchCall::takeByAttributes(PyObject *t, const Spec &spec,
                                        uint64_t &address) {
  using namespace torch_call_detail;
  const Names &n = names();
  py::object dtype = attrOrNull(t, n.dtype);
  if (dtype.ptr() != spec.dtype.ptr()) // torch.dtype objects are unique.
    return false;
  py::object shape = attrOrNull(t, n.shape);
  if (!shape ||
      PyObject_RichCompareBool(shape.ptr(), spec.shape.ptr(), Py_EQ) != 1) {
    PyErr_Clear();
    return false;
  }
  py::object where = attrOrNull(t, n.device);
  if (!where ||
      PyObject_RichCompareBool(where.ptr(), device.ptr(), Py_EQ) != 1) {
    PyErr_Clear();
    return false;
  }
  if (callOrNull(t, n.isContiguous).ptr() != Py_True)
    return false;
  return toAddress(callOrNull(t, n.dataPtr).ptr(), address);
}

inline bool TorchCall::take(PyObject *t, const Spec &spec, unsigned slot) {
  using namespace torch_call_detail;
  if (!isTensor(t))
    return false;
  uint64_t address;
  if (!api) {
    if (!takeByAttributes(t, spec, address))
      return false;
    storeAddress(slot, address);
    return true;
  }
  dlpack::Tensor view;
  if (api->tensorFromPyObject(t, &view) != 0) {
    PyErr_Clear();
    return false;
  }
  if (view.device.type != dlDevice.type || view.device.id != dlDevice.id ||
      !sameType(view.dtype, spec.dlType) ||
      size_t(view.ndim) != spec.dims.size() ||
      !std::equal(spec.dims.begin(), spec.dims.end(), view.shape) ||
      !rowMajor(view))
    return false;
  storeAddress(slot, reinterpret_cast<uintptr_t>(view.data) + view.byteOffset);
  return true;
}

inline bool
TorchCall::outputsOf(PyObject *inputs, PyObject *out,
                     llvm::SmallVectorImpl<pybind11::object> &results) {
  using namespace torch_call_detail;
  unsigned numIn = unsigned(this->inputs.size());
  if (out != Py_None) {
    llvm::SmallVector<PyObject *, 4> given;
    if (outputs.size() == 1 && isTensor(out))
      given.push_back(out);
    else if ((PyTuple_Check(out) || PyList_Check(out)) &&
             size_t(PySequence_Fast_GET_SIZE(out)) == outputs.size())
      for (size_t j = 0; j < outputs.size(); ++j)
        given.push_back(PySequence_Fast_GET_ITEM(out, j));
    else
      return false;
    for (size_t j = 0; j < outputs.size(); ++j) {
      if (!take(given[j], outputs[j], numIn + unsigned(j)))
        return false;
      results.push_back(py::reinterpret_borrow<py::object>(given[j]));
    }
    return !givenOutputsOverlap(numIn);
  }
  for (size_t j = 0; j < outputs.size(); ++j) {
    PyObject *made;
    if (like[j] >= 0) {
      PyObject *model = PyTuple_GET_ITEM(inputs, like[j]);
      made = PyObject_Vectorcall(emptyLike.ptr(), &model, 1, nullptr);
    } else {
      PyObject *args[] = {outputs[j].shape.ptr(), outputs[j].dtype.ptr(),
                          device.ptr()};
      made = PyObject_Vectorcall(empty.ptr(), args, 1, names().emptyKeywords);
    }
    if (!made) // Out of memory, say: torch's error is the one to see.
      throw py::error_already_set();
    results.push_back(py::reinterpret_steal<py::object>(made));
    uint64_t address;
    if (!toAddress(callOrNull(made, names().dataPtr).ptr(), address))
      throw py::type_error("TorchCall: an output torch made has no data_ptr()");
    storeAddress(numIn + unsigned(j), address);
  }
  return true;
}

inline bool TorchCall::givenOutputsOverlap(unsigned numIn) const {
  auto range = [&](unsigned slot) {
    const Spec &spec = slot < numIn ? inputs[slot] : outputs[slot - numIn];
    uint64_t begin;
    std::memcpy(&begin, plan->slot(slot), sizeof(begin));
    return std::pair<uint64_t, uint64_t>(begin, begin + spec.bytes);
  };
  unsigned all = numIn + unsigned(outputs.size());
  for (unsigned o = numIn; o < all; ++o)
    for (unsigned other = 0; other < o; ++other) {
      auto [a0, a1] = range(o);
      auto [b0, b1] = range(other);
      if (a0 < b1 && b0 < a1)
        return true;
    }
  return false;
}

inline PyObject *TorchCall::call(PyObject *inputs, PyObject *out) {
  size_t numIn = this->inputs.size();
  if (!PyTuple_Check(inputs) || size_t(PyTuple_GET_SIZE(inputs)) != numIn)
    Py_RETURN_NOTIMPLEMENTED;
  for (size_t i = 0; i < numIn; ++i)
    if (!take(PyTuple_GET_ITEM(inputs, i), this->inputs[i], unsigned(i)))
      Py_RETURN_NOTIMPLEMENTED;
  llvm::SmallVector<py::object, 4> results;
  if (!outputsOf(inputs, out, results))
    Py_RETURN_NOTIMPLEMENTED;
  if (!rawBytes.empty())
    std::memcpy(plan->slot(rawsAt), rawBytes.data(), rawBytes.size());
  void *stream = nullptr;
  if (api) {
    if (api->currentWorkStream(dlDevice.type, dlDevice.id, &stream) != 0)
      throw py::error_already_set();
  } else {
    PyObject *indexArg = deviceIndex.ptr();
    py::object handle = py::reinterpret_steal<py::object>(
        PyObject_Vectorcall(currentStream.ptr(), &indexArg, 1, nullptr));
    uint64_t value;
    if (!handle || !torch_call_detail::toAddress(handle.ptr(), value))
      throw py::type_error("TorchCall: current_stream did not give a stream "
                           "handle (an int)");
    stream = reinterpret_cast<void *>(uintptr_t(value));
  }
  // The launch goes to the current context: it must be the inputs' device's
  // (the Python path switches devices; a new thread has no context yet).
  if (torch_call_detail::currentDevice() != index)
    Py_RETURN_NOTIMPLEMENTED;
  plan->launch(static_cast<CUstream>(stream));
  if (results.empty())
    Py_RETURN_NONE;
  if (results.size() == 1)
    return results[0].release().ptr();
  PyObject *tuple = PyTuple_New(Py_ssize_t(results.size()));
  if (!tuple)
    throw py::error_already_set();
  for (size_t j = 0; j < results.size(); ++j)
    PyTuple_SET_ITEM(tuple, Py_ssize_t(j), results[j].release().ptr());
  return tuple;
}

inline TorchCall::TorchCall(std::shared_ptr<runtime::LaunchPlan> plan_,
                            pybind11::tuple tensorTypes_,
                            pybind11::sequence inputSpecs,
                            pybind11::sequence outputSpecs,
                            pybind11::sequence samples,
                            pybind11::object device_, long deviceIndex_,
                            pybind11::sequence raws,
                            pybind11::tuple functions,
                            pybind11::object exchangeAPI,
                            StoreParam storeParam)
    : plan(std::move(plan_)), device(std::move(device_)),
      deviceIndex(py::int_(deviceIndex_)), index(deviceIndex_) {
  namespace py = pybind11;
  using runtime::ParamKind;
  if (!plan)
    throw py::type_error("TorchCall: plan must be a LaunchPlan, not None");
  std::string kernel = "TorchCall: kernel '" +
                       plan->getKernel().getName().str() + "'";
  for (py::handle type : tensorTypes_) {
    if (!PyType_Check(type.ptr()))
      throw py::type_error("TorchCall: tensor_types must be types");
    tensorTypes.push_back(reinterpret_cast<PyTypeObject *>(type.ptr()));
  }
  auto spec = [](py::handle item) {
    py::tuple fields = py::reinterpret_borrow<py::tuple>(item);
    if (!PyTuple_Check(fields[0].ptr()))
      throw py::type_error("TorchCall: a shape must be a tuple of ints");
    Spec result{fields[0], fields[1], {}, {}};
    result.bytes = fields[1].attr("itemsize").cast<uint64_t>();
    for (py::handle size : fields[0]) {
      result.dims.push_back(size.cast<int64_t>());
      result.bytes *= uint64_t(result.dims.back());
    }
    return result;
  };
  for (py::handle item : inputSpecs)
    inputs.push_back(spec(item));
  for (py::handle item : outputSpecs) {
    outputs.push_back(spec(item));
    long model = py::reinterpret_borrow<py::tuple>(item)[2].cast<long>();
    if (model >= long(inputs.size()))
      throw py::value_error(kernel + ": an output is made like input " +
                            std::to_string(model) + " of " +
                            std::to_string(inputs.size()));
    like.push_back(model);
  }
  size_t numPointers = inputs.size() + outputs.size();
  llvm::ArrayRef<ParamKind> kinds = plan->getParams();
  size_t numRaws = py::len(raws);
  if (kinds.size() != numPointers + numRaws)
    throw py::value_error(kernel + " has " + std::to_string(kinds.size()) +
                          " parameters, got " + std::to_string(numPointers) +
                          " tensors and " + std::to_string(numRaws) +
                          " raw values");
  for (size_t i = 0; i < kinds.size(); ++i)
    if ((i < numPointers) != (kinds[i] == ParamKind::Pointer))
      throw py::value_error(kernel + ": parameter " + std::to_string(i) +
                            " is " + runtime::paramKindName(kinds[i]).str() +
                            ": the tensors' pointers come first, the raw "
                            "values after");
  if (numRaws) {
    rawsAt = unsigned(numPointers);
    for (size_t k = 0; k < numRaws; ++k) // Raises on a bad value.
      storeParam(*plan, unsigned(numPointers + k), raws[k].ptr());
    const uint8_t *first = static_cast<uint8_t *>(plan->slot(rawsAt));
    rawBytes.assign(first, first + (plan->getBufferSize() -
                                    plan->getOffsets()[rawsAt]));
  }
  if (functions.size() != 3)
    throw py::value_error("TorchCall: torch_functions are (current_stream, "
                          "empty_like, empty)");
  currentStream = functions[0];
  emptyLike = functions[1];
  empty = functions[2];

  if (exchangeAPI.is_none())
    return;
  auto *table = static_cast<const dlpack::ExchangeAPI *>(
      PyCapsule_GetPointer(exchangeAPI.ptr(), "dlpack_exchange_api"));
  if (!table)
    throw py::error_already_set();
  // Version 1.2 brought the table; a null view function means "not given".
  if (table->version.major != 1 || table->version.minor < 2 ||
      !table->tensorFromPyObject || !table->currentWorkStream)
    return;
  if (py::len(samples) != numPointers)
    throw py::value_error(kernel + ": samples takes one tensor per input "
                          "and output, got " +
                          std::to_string(py::len(samples)));
  // The dtypes and device as DLPack codes them, read off the samples.
  for (size_t i = 0; i < numPointers; ++i) {
    dlpack::Tensor view;
    if (table->tensorFromPyObject(samples[i].ptr(), &view) != 0)
      throw py::error_already_set();
    (i < inputs.size() ? inputs[i] : outputs[i - inputs.size()]).dlType =
        view.dtype;
    if (i == 0)
      dlDevice = view.device;
    else if (view.device.type != dlDevice.type ||
             view.device.id != dlDevice.id)
      throw py::value_error(kernel + ": sample " + std::to_string(i) +
                            " is on another device than the first");
  }
  api = table;
}

inline PyObject *torchCallMethod(PyObject *self, PyObject *const *args,
                                 Py_ssize_t n) {
  return fastCall([&]() -> PyObject * {
    TorchCall &call = cppObject<TorchCall>(self, "TorchCall");
    if (n != 2)
      throw pybind11::type_error("TorchCall.call(inputs, out) takes 2 "
                                 "arguments, got " + std::to_string(n));
    return call.call(args[0], args[1]);
  });
}

inline PyMethodDef torchCallDef = {
    "call", (PyCFunction)(void (*)(void))torchCallMethod, METH_FASTCALL,
    "call(inputs, out): checks the input tensors (a tuple) against this "
    "specialisation, makes the outputs (out None) or checks those given, "
    "and launches on torch's current stream; returns the output(s), or "
    "NotImplemented, launching nothing, where anything differs."};

inline void defineTorchCall(pybind11::module_ &m,
                            TorchCall::StoreParam storeParam) {
  namespace py = pybind11;
  py::class_<TorchCall, std::shared_ptr<TorchCall>> type(m, "TorchCall");
  type.def(py::init([storeParam](std::shared_ptr<runtime::LaunchPlan> plan,
                                 py::tuple tensorTypes, py::sequence inputs,
                                 py::sequence outputs, py::sequence samples,
                                 py::object device, long deviceIndex,
                                 py::sequence raws, py::tuple functions,
                                 py::object exchangeAPI) {
             return std::make_shared<TorchCall>(
                 std::move(plan), tensorTypes, inputs, outputs, samples,
                 device, deviceIndex, raws, functions, exchangeAPI,
                 storeParam);
           }),
           py::arg("plan"), py::arg("tensor_types"), py::arg("inputs"),
           py::arg("outputs"), py::arg("samples"), py::arg("device"),
           py::arg("device_index"), py::arg("raws"),
           py::arg("torch_functions"), py::arg("exchange_api") = py::none());
  type.attr("call") = py::reinterpret_steal<py::object>(
      PyDescr_NewMethod((PyTypeObject *)type.ptr(), &torchCallDef));
}

} // namespace pyptx::python

#endif // PYPTX_BINDINGS_PYTHON_TORCHCALL_H
