//===- PyPTXRuntime.cpp - pyptx._runtime: compile and launch kernels ------===//
//
// The Python face of PyPTXRuntime (python/pyptx/_runtime.pyi is the
// contract). No MLIR here: a process that only launches kernels loads this
// module, not _native. Runtime errors reach Python as RuntimeError.
//
//===----------------------------------------------------------------------===//

#include "pyptx/Runtime/Runtime.h"

#include "xla/ffi/api/ffi.h"

#include "FastCall.h"
#include "TorchCall.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <limits>
#include <mutex>
#include <optional>

namespace py = pybind11;
namespace ffi = xla::ffi;
using namespace pyptx::runtime;

using namespace pyptx::python;

namespace {

/// An int or a sequence of 1 to 3 ints, padded with 1s.
LaunchPlan::Dim3 dim3(py::handle value, const char *what) {
  std::vector<py::handle> items;
  if (PyLong_Check(value.ptr()))
    items.push_back(value);
  else if (PyTuple_Check(value.ptr()) || PyList_Check(value.ptr()))
    for (py::handle item : value)
      items.push_back(item);
  else
    throw py::type_error(std::string("LaunchPlan: ") + what +
                         " must be an int or a tuple of 1 to 3 ints, got " +
                         Py_TYPE(value.ptr())->tp_name);
  if (items.empty() || items.size() > 3)
    throw py::value_error(std::string("LaunchPlan: ") + what +
                          " takes 1 to 3 dimensions, got " +
                          std::to_string(items.size()));
  LaunchPlan::Dim3 dims = {1, 1, 1};
  for (size_t i = 0; i < items.size(); ++i) {
    if (!PyLong_Check(items[i].ptr()))
      throw py::type_error(std::string("LaunchPlan: ") + what +
                           " dimensions must be ints, got " +
                           Py_TYPE(items[i].ptr())->tp_name);
    long long dim = PyLong_AsLongLong(items[i].ptr());
    if (dim < 1 || dim > std::numeric_limits<unsigned>::max()) {
      PyErr_Clear();
      throw py::value_error(std::string("LaunchPlan: ") + what + " " +
                            py::repr(value).cast<std::string>() +
                            " has a dimension out of range");
    }
    dims[i] = unsigned(dim);
  }
  return dims;
}

py::tuple tuple3(LaunchPlan::Dim3 dims) {
  return py::make_tuple(dims[0], dims[1], dims[2]);
}

std::string kindNames() {
  std::string names;
  for (unsigned k = 0; k <= unsigned(ParamKind::TensorMap); ++k)
    names += (names.empty() ? "" : ", ") +
             paramKindName(ParamKind(k)).str();
  return names;
}

std::shared_ptr<LaunchPlan> makePlan(std::shared_ptr<Kernel> kernel,
                                     py::handle grid, py::handle block,
                                     py::handle cluster, unsigned sharedBytes,
                                     const std::vector<std::string> &names) {
  if (!kernel)
    throw py::type_error("LaunchPlan: kernel must be a Kernel, not None");
  llvm::SmallVector<ParamKind, 8> kinds;
  for (size_t i = 0; i < names.size(); ++i)
    if (!parseParamKind(names[i], kinds.emplace_back()))
      throw py::value_error("LaunchPlan: parameter " + std::to_string(i) +
                            " of kernel '" + kernel->getName().str() +
                            "' has kind '" + names[i] + "'; the kinds are " +
                            kindNames());
  return std::make_shared<LaunchPlan>(
      std::move(kernel), dim3(grid, "grid"), dim3(block, "block"),
      dim3(cluster, "cluster"), sharedBytes, kinds);
}

//===----------------------------------------------------------------------===//
// LaunchPlan.launch: a METH_FASTCALL method, since pybind11's dispatcher
// would cost about as much as the launch itself.
//===----------------------------------------------------------------------===//

/// The plan of a LaunchPlan object: the method descriptor is made for the
/// LaunchPlan type, so Python only calls it with one as `self`.
LaunchPlan &planOf(PyObject *self) {
  return cppObject<LaunchPlan>(self, "LaunchPlan");
}


/// Raises `type` with "launch: parameter <i> (<kind>) of kernel '<name>'
/// <problem>, got <value's type>".
[[noreturn]] void paramError(PyObject *type, LaunchPlan &plan, unsigned i,
                             const std::string &problem, PyObject *value) {
  PyErr_Clear();
  std::string message =
      "launch: parameter " + std::to_string(i) + " (" +
      paramKindName(plan.getParams()[i]).str() + ") of kernel '" +
      plan.getKernel().getName().str() + "' " + problem + ", got " +
      (type == PyExc_OverflowError ? py::repr(value).cast<std::string>()
                                   : std::string(Py_TYPE(value)->tp_name));
  PyErr_SetString(type, message.c_str());
  throw py::error_already_set();
}

/// `value` (an int, or anything with __index__) as a T, range-checked.
template <typename T>
T integerParam(LaunchPlan &plan, unsigned i, PyObject *value) {
  PyObject *index = value;
  if (PyLong_Check(value))
    Py_INCREF(index);
  else if (!(index = PyNumber_Index(value)))
    paramError(PyExc_TypeError, plan, i, "takes an int", value);
  bool inRange;
  T result;
  if constexpr (std::is_signed_v<T>) {
    int overflow;
    long long wide = PyLong_AsLongLongAndOverflow(index, &overflow);
    inRange = !overflow && wide >= std::numeric_limits<T>::min() &&
              wide <= std::numeric_limits<T>::max();
    result = T(wide);
  } else {
    // Fails (OverflowError) on negative values too.
    unsigned long long wide = PyLong_AsUnsignedLongLong(index);
    inRange = !(wide == (unsigned long long)-1 && PyErr_Occurred()) &&
              wide <= std::numeric_limits<T>::max();
    result = T(wide);
  }
  Py_DECREF(index);
  if (!inRange)
    paramError(PyExc_OverflowError, plan, i, "is out of range", value);
  return result;
}

double floatParam(LaunchPlan &plan, unsigned i, PyObject *value) {
  if (PyFloat_Check(value))
    return PyFloat_AS_DOUBLE(value);
  double result = PyFloat_AsDouble(value);
  if (result == -1.0 && PyErr_Occurred())
    paramError(PyExc_TypeError, plan, i, "takes a float", value);
  return result;
}

template <typename T>
void store(LaunchPlan &plan, unsigned i, T value) {
  std::memcpy(plan.slot(i), &value, sizeof(T));
}

void storeParam(LaunchPlan &plan, unsigned i, PyObject *value) {
  switch (plan.getParams()[i]) {
  case ParamKind::U8:
    return store(plan, i, integerParam<uint8_t>(plan, i, value));
  case ParamKind::U16:
    return store(plan, i, integerParam<uint16_t>(plan, i, value));
  case ParamKind::U32:
    return store(plan, i, integerParam<uint32_t>(plan, i, value));
  case ParamKind::U64:
  case ParamKind::Pointer:
    return store(plan, i, integerParam<uint64_t>(plan, i, value));
  case ParamKind::S32:
    return store(plan, i, integerParam<int32_t>(plan, i, value));
  case ParamKind::S64:
    return store(plan, i, integerParam<int64_t>(plan, i, value));
  case ParamKind::F32:
    return store(plan, i, float(floatParam(plan, i, value)));
  case ParamKind::F64:
    return store(plan, i, floatParam(plan, i, value));
  case ParamKind::TensorMap:
    if (!PyBytes_Check(value) || PyBytes_GET_SIZE(value) != 128)
      paramError(PyExc_TypeError, plan, i,
                 "takes the 128 bytes of encode_tensor_map", value);
    std::memcpy(plan.slot(i), PyBytes_AS_STRING(value), 128);
    return;
  }
}

/// A CUstream handle passed as an int; throws TypeError naming `what`.
CUstream streamArg(PyObject *value, const char *what) {
  unsigned long long stream = PyLong_Check(value)
                                  ? PyLong_AsUnsignedLongLong(value)
                                  : (unsigned long long)-1;
  if (stream == (unsigned long long)-1) {
    PyErr_Clear();
    throw py::type_error(std::string(what) +
                         ": the stream must be a CUstream handle as an int "
                         "(0: the default stream), got " +
                         Py_TYPE(value)->tp_name);
  }
  return reinterpret_cast<CUstream>(uintptr_t(stream));
}

/// Throws TypeError unless there are `first` leading arguments (`leading`
/// names them) and then one value per parameter.
void checkCount(LaunchPlan &plan, Py_ssize_t n, Py_ssize_t first,
                const char *signature, const char *leading) {
  size_t numParams = plan.getParams().size();
  if (n != Py_ssize_t(numParams) + first)
    throw py::type_error(
        std::string(signature) + ": kernel '" +
        plan.getKernel().getName().str() + "' takes " +
        std::to_string(numParams) + " parameter values, got " +
        std::to_string(n > first ? n - first : 0) +
        (n < first ? std::string(" and no ") + leading : std::string()));
}

/// Stores args[first:] into the plan's slots (checkCount checked them).
void storeValues(LaunchPlan &plan, PyObject *const *args, Py_ssize_t first) {
  for (unsigned i = 0; i < plan.getParams().size(); ++i)
    storeParam(plan, i, args[i + first]);
}

/// LaunchPlan.launch(stream, *values).
PyObject *launchMethod(PyObject *self, PyObject *const *args, Py_ssize_t n) {
  return fastCall([&]() -> PyObject * {
    LaunchPlan &plan = planOf(self);
    checkCount(plan, n, 1, "launch(stream, *values)", "stream");
    CUstream stream = streamArg(args[0], "launch");
    storeValues(plan, args, 1);
    plan.launch(stream);
    Py_RETURN_NONE;
  });
}

PyMethodDef launchDef = {
    "launch", (PyCFunction)(void (*)(void))launchMethod, METH_FASTCALL,
    "launch(stream, *values): writes the values (int for integer kinds and "
    "ptr, float for f32/f64, 128 bytes for tensormap) and launches on "
    "`stream` (a CUstream as an int; 0 is the default stream) in the current "
    "CUDA context (device 0's primary context where none is current)."};

/// LaunchPlan.launch_on(device, stream, *values).
PyObject *launchOnMethod(PyObject *self, PyObject *const *args, Py_ssize_t n) {
  return fastCall([&]() -> PyObject * {
    LaunchPlan &plan = planOf(self);
    checkCount(plan, n, 2, "launch_on(device, stream, *values)",
               "device and stream");
    int overflow = 0;
    long device = PyLong_Check(args[0])
                      ? PyLong_AsLongAndOverflow(args[0], &overflow)
                      : -1;
    if (device < 0 || overflow || device > std::numeric_limits<int>::max()) {
      PyErr_Clear();
      throw py::type_error(std::string("launch_on: the device must be a CUDA "
                                       "device ordinal (an int >= 0), got ") +
                           py::repr(args[0]).cast<std::string>());
    }
    CUstream stream = streamArg(args[1], "launch_on");
    storeValues(plan, args, 2);
    plan.launchOnDevice(int(device), stream);
    Py_RETURN_NONE;
  });
}

PyMethodDef launchOnDef = {
    "launch_on", (PyCFunction)(void (*)(void))launchOnMethod, METH_FASTCALL,
    "launch_on(device, stream, *values): as launch, in the primary context "
    "of CUDA device `device` (an ordinal), made current for the launch and "
    "then restored, whatever context the thread has; `stream` must belong "
    "to that device."};

//===----------------------------------------------------------------------===//
// JAX: plans registered under an id, launched by an XLA FFI handler
//===----------------------------------------------------------------------===//

/// A plan the handler launches: its first `numBuffers` parameters are
/// pointers, filled per call; the rest were stored once by register_plan
/// (tensor maps are encoded at launch: LaunchPlan::encodeAtLaunch). The
/// call's last `numAliased` outputs are inputs the kernel writes in place,
/// passed again by XLA as outputs aliasing them: they fill no parameter.
struct Registered {
  std::shared_ptr<LaunchPlan> plan;
  size_t numBuffers;
  size_t numAliased;
};

/// Registered plans, by id (their index; never removed, since compiled XLA
/// executables keep the id). The mutex also serialises the handler's use of
/// the plans' slots: XLA may call it from several threads.
std::mutex registryMutex;
std::vector<Registered> registry;

/// register_plan(plan, values, aliased_outputs): stores `values` into the
/// plan's last parameters (for good), and returns the id the handler takes.
int64_t registerPlan(std::shared_ptr<LaunchPlan> plan, py::sequence values,
                     size_t aliasedOutputs) {
  if (!plan)
    throw py::type_error("register_plan: plan must be a LaunchPlan, not None");
  size_t numParams = plan->getParams().size();
  size_t numValues = py::len(values);
  std::string name = plan->getKernel().getName().str();
  if (numValues > numParams)
    throw py::value_error("register_plan: kernel '" + name + "' has " +
                          std::to_string(numParams) + " parameters, got " +
                          std::to_string(numValues) + " values");
  size_t numBuffers = numParams - numValues;
  for (size_t i = 0; i < numBuffers; ++i)
    if (plan->getParams()[i] != ParamKind::Pointer)
      throw py::value_error(
          "register_plan: parameter " + std::to_string(i) + " (" +
          paramKindName(plan->getParams()[i]).str() + ") of kernel '" + name +
          "' is not a pointer, so it needs a value (the handler only fills "
          "pointers with buffers)");
  std::lock_guard<std::mutex> lock(registryMutex);
  for (size_t i = 0; i < numValues; ++i)
    storeParam(*plan, unsigned(numBuffers + i), values[i].ptr());
  registry.push_back({std::move(plan), numBuffers, aliasedOutputs});
  return int64_t(registry.size() - 1);
}

/// The pointer slot `i` of `plan` := the buffer's device address.
void storeAddress(LaunchPlan &plan, size_t i, void *address) {
  uint64_t value = reinterpret_cast<uintptr_t>(address);
  std::memcpy(plan.slot(unsigned(i)), &value, sizeof(value));
}

ffi::Error jaxLaunch(CUstream stream, ffi::RemainingArgs args,
                     ffi::RemainingRets rets, int64_t id) {
  std::lock_guard<std::mutex> lock(registryMutex);
  if (id < 0 || size_t(id) >= registry.size())
    return ffi::Error::InvalidArgument(
        "pyptx_launch: no launch plan " + std::to_string(id) + " (" +
        std::to_string(registry.size()) +
        " registered with pyptx._runtime.register_plan in this process)");
  LaunchPlan &plan = *registry[id].plan;
  // The errors' prefix, made only for an error (not at every launch).
  auto kernel = [&plan] {
    return "pyptx_launch: kernel '" + plan.getKernel().getName().str() + "'";
  };
  size_t numBuffers = registry[id].numBuffers;
  size_t numAliased = registry[id].numAliased;
  if (rets.size() < numAliased ||
      args.size() + rets.size() - numAliased != numBuffers)
    return ffi::Error::InvalidArgument(
        kernel() + " takes " + std::to_string(numBuffers) +
        " buffers (inputs, then outputs)" +
        (numAliased ? " and " + std::to_string(numAliased) +
                          " outputs aliasing inputs"
                    : std::string()) +
        ", got " + std::to_string(args.size()) + " inputs and " +
        std::to_string(rets.size()) + " outputs");
  for (size_t i = 0; i < args.size(); ++i) {
    ffi::ErrorOr<ffi::AnyBuffer> buffer = args.get<ffi::AnyBuffer>(i);
    if (buffer.has_error())
      return ffi::Error::Internal(kernel() + ", input " + std::to_string(i) +
                                  ": " + buffer.error().message());
    storeAddress(plan, i, buffer->untyped_data());
  }
  for (size_t i = 0; i + numAliased < rets.size(); ++i) {
    ffi::ErrorOr<ffi::Result<ffi::AnyBuffer>> buffer =
        rets.get<ffi::AnyBuffer>(i);
    if (buffer.has_error())
      return ffi::Error::Internal(kernel() + ", output " + std::to_string(i) +
                                  ": " + buffer.error().message());
    storeAddress(plan, args.size() + i, (*buffer)->untyped_data());
  }
  try {
    plan.launchInContextOf(stream);
  } catch (std::exception &e) {
    return ffi::Error::Internal(e.what()); // Names the kernel.
  }
  return ffi::Error::Success();
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(pyptxJaxLaunch, jaxLaunch,
                              ffi::Ffi::Bind()
                                  .Ctx<ffi::PlatformStream<CUstream>>()
                                  .RemainingArgs()
                                  .RemainingRets()
                                  .Attr<int64_t>("plan"));

//===----------------------------------------------------------------------===//
// Tensor map options by name
//===----------------------------------------------------------------------===//

template <typename Enum>
Enum byName(std::initializer_list<std::pair<const char *, Enum>> table,
            const std::string &name, const char *what) {
  std::string names;
  for (auto &[candidate, value] : table) {
    if (name == candidate)
      return value;
    names += (names.empty() ? "" : ", ") + std::string(candidate);
  }
  throw py::value_error("encode_tensor_map: " + std::string(what) + " '" +
                        name + "' is not one of " + names);
}

/// encode_tensor_map's arguments (but the address) as a TensorMapSource
/// whose pointer is `pointer`.
TensorMapSource tensorMapByName(
    unsigned pointer, const std::string &dtype,
    const std::vector<uint64_t> &dims, const std::vector<uint64_t> &strides,
    const std::vector<uint32_t> &box,
    const std::optional<std::vector<uint32_t>> &elementStrides,
    const std::string &interleave, const std::string &swizzle,
    const std::string &l2Promotion, const std::string &oobFill) {
  TensorMapSource source;
  source.pointer = pointer;
  source.dims.assign(dims.begin(), dims.end());
  source.stridesBytes.assign(strides.begin(), strides.end());
  source.box.assign(box.begin(), box.end());
  if (elementStrides)
    source.elementStrides.assign(elementStrides->begin(),
                                 elementStrides->end());
  source.dtype = byName<CUtensorMapDataType>(
      {
          {"u8", CU_TENSOR_MAP_DATA_TYPE_UINT8},
          {"u16", CU_TENSOR_MAP_DATA_TYPE_UINT16},
          {"u32", CU_TENSOR_MAP_DATA_TYPE_UINT32},
          {"s32", CU_TENSOR_MAP_DATA_TYPE_INT32},
          {"u64", CU_TENSOR_MAP_DATA_TYPE_UINT64},
          {"s64", CU_TENSOR_MAP_DATA_TYPE_INT64},
          {"f16", CU_TENSOR_MAP_DATA_TYPE_FLOAT16},
          {"f32", CU_TENSOR_MAP_DATA_TYPE_FLOAT32},
          {"f64", CU_TENSOR_MAP_DATA_TYPE_FLOAT64},
          {"bf16", CU_TENSOR_MAP_DATA_TYPE_BFLOAT16},
          {"f32_ftz", CU_TENSOR_MAP_DATA_TYPE_FLOAT32_FTZ},
          {"tf32", CU_TENSOR_MAP_DATA_TYPE_TFLOAT32},
          {"tf32_ftz", CU_TENSOR_MAP_DATA_TYPE_TFLOAT32_FTZ},
#if CUDA_VERSION >= 12080
          // Packed 4- and 6-bit elements (sm_100 and later).
          {"16u4_align8b", CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN8B},
          {"16u4_align16b", CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN16B},
          {"16u6_align16b", CU_TENSOR_MAP_DATA_TYPE_16U6_ALIGN16B},
#endif
      },
      dtype, "dtype");
  source.interleave = byName<CUtensorMapInterleave>(
      {{"none", CU_TENSOR_MAP_INTERLEAVE_NONE},
       {"16B", CU_TENSOR_MAP_INTERLEAVE_16B},
       {"32B", CU_TENSOR_MAP_INTERLEAVE_32B}},
      interleave, "interleave");
  source.swizzle = byName<CUtensorMapSwizzle>(
      {
          {"none", CU_TENSOR_MAP_SWIZZLE_NONE},
          {"32B", CU_TENSOR_MAP_SWIZZLE_32B},
          {"64B", CU_TENSOR_MAP_SWIZZLE_64B},
          {"128B", CU_TENSOR_MAP_SWIZZLE_128B},
#if CUDA_VERSION >= 12080
          {"128B_atom_32B", CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B},
          {"128B_atom_32B_flip_8B",
           CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B_FLIP_8B},
          {"128B_atom_64B", CU_TENSOR_MAP_SWIZZLE_128B_ATOM_64B},
#endif
      },
      swizzle, "swizzle");
  source.l2Promotion = byName<CUtensorMapL2promotion>(
      {{"none", CU_TENSOR_MAP_L2_PROMOTION_NONE},
       {"64B", CU_TENSOR_MAP_L2_PROMOTION_L2_64B},
       {"128B", CU_TENSOR_MAP_L2_PROMOTION_L2_128B},
       {"256B", CU_TENSOR_MAP_L2_PROMOTION_L2_256B}},
      l2Promotion, "l2_promotion");
  source.oobFill = byName<CUtensorMapFloatOOBfill>(
      {{"zero", CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE},
       {"nan", CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA}},
      oobFill, "oob_fill");
  return source;
}

py::bytes encodeTensorMapByName(
    const std::string &dtype, uint64_t globalAddress,
    const std::vector<uint64_t> &dims, const std::vector<uint64_t> &strides,
    const std::vector<uint32_t> &box,
    const std::optional<std::vector<uint32_t>> &elementStrides,
    const std::string &interleave, const std::string &swizzle,
    const std::string &l2Promotion, const std::string &oobFill) {
  TensorMapSource s =
      tensorMapByName(0, dtype, dims, strides, box, elementStrides, interleave,
                      swizzle, l2Promotion, oobFill);
  std::array<uint8_t, 128> map = encodeTensorMap(
      s.dtype, globalAddress, s.dims, s.stridesBytes, s.box, s.elementStrides,
      s.interleave, s.swizzle, s.l2Promotion, s.oobFill);
  return py::bytes(reinterpret_cast<const char *>(map.data()), map.size());
}

/// LaunchPlan.encode_at_launch: see LaunchPlan::encodeAtLaunch.
void encodeAtLaunchByName(
    LaunchPlan &plan, unsigned param, unsigned pointer,
    const std::string &dtype, const std::vector<uint64_t> &dims,
    const std::vector<uint64_t> &strides, const std::vector<uint32_t> &box,
    const std::optional<std::vector<uint32_t>> &elementStrides,
    const std::string &interleave, const std::string &swizzle,
    const std::string &l2Promotion, const std::string &oobFill) {
  plan.encodeAtLaunch(param, tensorMapByName(pointer, dtype, dims, strides,
                                             box, elementStrides, interleave,
                                             swizzle, l2Promotion, oobFill));
}

} // namespace

PYBIND11_MODULE(_runtime, m) {
  m.doc() = "pyptx's launch library: PTX to cubin (ptxas, cached) and "
            "kernel launches through libcuda.so.1, loaded at run time";

  m.def(
      "compile_ptx",
      [](const std::string &ptx, const std::string &arch,
         const std::string &name) {
        std::string cubin;
        {
          // ptxas takes a while; other Python threads may run meanwhile.
          py::gil_scoped_release release;
          cubin = compileToCubin(ptx, arch, name);
        }
        return py::bytes(cubin);
      },
      py::arg("ptx"), py::arg("arch"), py::arg("name") = "kernel");
  m.def("cache_dir", &cacheDir);
  m.def("last_compile_cached", &lastCompileCached);
  m.def("driver_available", &driverAvailable);
  m.def("synchronize", &synchronize);
  m.def("encode_tensor_map", &encodeTensorMapByName, py::arg("dtype"),
        py::arg("global_address"), py::arg("dims"), py::arg("strides_bytes"),
        py::arg("box"), py::arg("element_strides") = py::none(),
        py::arg("interleave") = "none", py::arg("swizzle") = "none",
        py::arg("l2_promotion") = "none", py::arg("oob_fill") = "zero");

  py::class_<Kernel, std::shared_ptr<Kernel>>(m, "Kernel")
      .def(py::init<std::string, std::string, std::string>(), py::arg("ptx"),
           py::arg("name"), py::arg("arch"))
      .def_property_readonly("name",
                             [](const Kernel &k) { return k.getName().str(); })
      .def_property_readonly("arch",
                             [](const Kernel &k) { return k.getArch().str(); })
      .def_property_readonly("ptx",
                             [](const Kernel &k) { return k.getPTX().str(); });

  py::class_<LaunchPlan, std::shared_ptr<LaunchPlan>> plan(m, "LaunchPlan");
  plan.def(py::init(&makePlan), py::arg("kernel"), py::arg("grid"),
           py::arg("block"), py::arg("cluster") = 1,
           py::arg("shared_bytes") = 0,
           py::arg("params") = std::vector<std::string>{})
      .def_property_readonly(
          "grid", [](const LaunchPlan &p) { return tuple3(p.getGrid()); })
      .def_property_readonly(
          "block", [](const LaunchPlan &p) { return tuple3(p.getBlock()); })
      .def_property_readonly(
          "cluster",
          [](const LaunchPlan &p) { return tuple3(p.getCluster()); })
      .def_property_readonly("shared_bytes", &LaunchPlan::getSharedBytes)
      .def_property_readonly("params",
                             [](const LaunchPlan &p) {
                               std::vector<std::string> names;
                               for (ParamKind kind : p.getParams())
                                 names.push_back(paramKindName(kind).str());
                               return names;
                             })
      .def_property_readonly("param_offsets",
                             [](const LaunchPlan &p) {
                               return std::vector<unsigned>(
                                   p.getOffsets().begin(),
                                   p.getOffsets().end());
                             })
      .def_property_readonly("param_buffer_size", &LaunchPlan::getBufferSize)
      .def("encode_at_launch", &encodeAtLaunchByName, py::arg("param"),
           py::arg("pointer"), py::arg("dtype"), py::arg("dims"),
           py::arg("strides_bytes"), py::arg("box"),
           py::arg("element_strides") = py::none(),
           py::arg("interleave") = "none", py::arg("swizzle") = "none",
           py::arg("l2_promotion") = "none", py::arg("oob_fill") = "zero");
  plan.attr("launch") = py::reinterpret_steal<py::object>(
      PyDescr_NewMethod((PyTypeObject *)plan.ptr(), &launchDef));
  plan.attr("launch_on") = py::reinterpret_steal<py::object>(
      PyDescr_NewMethod((PyTypeObject *)plan.ptr(), &launchOnDef));

  defineTorchCall(m, &storeParam);

  m.def("register_plan", &registerPlan, py::arg("plan"),
        py::arg("values") = py::tuple(), py::arg("aliased_outputs") = 0);
  m.def("jax_handler", []() {
    return py::capsule(reinterpret_cast<void *>(&pyptxJaxLaunch));
  });
}
