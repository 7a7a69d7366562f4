//===- TorchCall.cpp - PyTorch's eager call of one specialisation ---------===//
//
// See TorchCall.h.
//
//===----------------------------------------------------------------------===//

#include "TorchCall.h"

#include <algorithm>
#include <limits>
#include <string>

namespace pyptx::python {

namespace py = pybind11;

namespace {

/// Interned attribute names and the keyword names of torch.empty.
struct Names {
  PyObject *shape = PyUnicode_InternFromString("shape");
  PyObject *dtype = PyUnicode_InternFromString("dtype");
  PyObject *device = PyUnicode_InternFromString("device");
  PyObject *isContiguous = PyUnicode_InternFromString("is_contiguous");
  PyObject *dataPtr = PyUnicode_InternFromString("data_ptr");
  PyObject *emptyKeywords = Py_BuildValue("(ss)", "dtype", "device");
};

const Names &names() {
  static const Names *names = new Names(); // Lives as long as the module.
  return *names;
}

/// `object.name`, or a null object (error cleared).
py::object attrOrNull(PyObject *object, PyObject *name) {
  PyObject *value = PyObject_GetAttr(object, name);
  if (!value)
    PyErr_Clear();
  return py::reinterpret_steal<py::object>(value);
}

/// `object.name()`, or a null object (error cleared).
py::object callOrNull(PyObject *object, PyObject *name) {
  PyObject *args[2] = {nullptr, object};
  PyObject *value = PyObject_VectorcallMethod(
      name, args + 1, 1 | PY_VECTORCALL_ARGUMENTS_OFFSET, nullptr);
  if (!value)
    PyErr_Clear();
  return py::reinterpret_steal<py::object>(value);
}

/// An int as a uint64_t; false (error cleared) for anything else.
bool toAddress(PyObject *value, uint64_t &address) {
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
bool rowMajor(const dlpack::Tensor &t) {
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

bool sameType(dlpack::DataType a, dlpack::DataType b) {
  return a.code == b.code && a.bits == b.bits && a.lanes == b.lanes;
}

} // namespace

bool TorchCall::isTensor(PyObject *object) const {
  for (PyTypeObject *type : tensorTypes)
    if (Py_TYPE(object) == type)
      return true;
  return false;
}

bool TorchCall::takeByAttributes(PyObject *t, const Spec &spec,
                                 uint64_t &address) {
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

bool TorchCall::take(PyObject *t, const Spec &spec, unsigned slot) {
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

bool
TorchCall::outputsOf(PyObject *inputs, PyObject *out,
                     llvm::SmallVectorImpl<pybind11::object> &results) {
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

bool TorchCall::givenOutputsOverlap(unsigned numIn) const {
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

PyObject *TorchCall::call(PyObject *inputs, PyObject *out) {
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
    if (!handle || !toAddress(handle.ptr(), value))
      throw py::type_error("TorchCall: current_stream did not give a stream "
                           "handle (an int)");
    stream = reinterpret_cast<void *>(uintptr_t(value));
  }
  // The stream may be the default stream (0), which names no device: the
  // device does, whatever context this thread has (another device's, say
  // one JAX left current, or none on a new thread).
  plan->launchOnDevice(index, static_cast<CUstream>(stream));
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

TorchCall::TorchCall(std::shared_ptr<runtime::LaunchPlan> plan_,
                     pybind11::tuple tensorTypes_,
                     pybind11::sequence inputSpecs,
                     pybind11::sequence outputSpecs, pybind11::sequence samples,
                     pybind11::object device_, long deviceIndex_,
                     pybind11::sequence raws, pybind11::tuple functions,
                     pybind11::object exchangeAPI, StoreParam storeParam)
    : plan(std::move(plan_)), device(std::move(device_)),
      deviceIndex(py::int_(deviceIndex_)), index(int(deviceIndex_)) {
  using runtime::ParamKind;
  if (!plan)
    throw py::type_error("TorchCall: plan must be a LaunchPlan, not None");
  if (deviceIndex_ < 0 || deviceIndex_ > std::numeric_limits<int>::max())
    throw py::value_error("TorchCall: device_index must be a CUDA device "
                          "ordinal, got " + std::to_string(deviceIndex_));
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

static PyObject *torchCallMethod(PyObject *self, PyObject *const *args,
                                  Py_ssize_t n) {
  return fastCall([&]() -> PyObject * {
    TorchCall &call = cppObject<TorchCall>(self, "TorchCall");
    if (n != 2)
      throw pybind11::type_error("TorchCall.call(inputs, out) takes 2 "
                                 "arguments, got " + std::to_string(n));
    return call.call(args[0], args[1]);
  });
}

static PyMethodDef torchCallDef = {
    "call", (PyCFunction)(void (*)(void))torchCallMethod, METH_FASTCALL,
    "call(inputs, out): checks the input tensors (a tuple) against this "
    "specialisation, makes the outputs (out None) or checks those given, "
    "and launches on torch's current stream; returns the output(s), or "
    "NotImplemented, launching nothing, where anything differs."};

void defineTorchCall(pybind11::module_ &m, TorchCall::StoreParam storeParam) {
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
