//===- FastCalls.cpp - Module's per-instruction entry points --------------===//
//
// inst, emit, binary and new_reg as METH_FASTCALL methods: pybind11's
// dispatcher (overload resolution, argument casters) costs as much as
// building the operation.
//
//===----------------------------------------------------------------------===//

#include "Binding.h"
#include "FastCall.h"

using namespace mlir;

namespace pyptx::python {
namespace {

/// The Module of `self`: the method descriptors below are made for the
/// Module type, so Python only calls them with one as `self`.
PyModule &moduleOf(PyObject *self) {
  return cppObject<PyModule>(self, "Module");
}

unsigned unsignedArg(PyObject *arg, const char *what) {
  long value = longArg(arg);
  if (value < 0 || value > long(UINT_MAX))
    throw py::value_error(std::string(what) + " must be a non-negative id");
  return unsigned(value);
}

/// A register id, or None.
PyObject *idOrNone(std::optional<unsigned> id) {
  if (!id)
    Py_RETURN_NONE;
  return PyLong_FromUnsignedLong(*id);
}

/// Appends an instruction; returns the id of the register its ("n", class)
/// operand created, if it has one.
///
/// With `trace` (Module.emit), operands are the DSL's objects: registers
/// of that trace and addresses of them are read here, the rest become
/// tagged operands through the Python fallback (with float kind `ftype`).
std::optional<unsigned> inst(PyModule &m, unsigned func, PyObject *opcode,
                             PyObject *operandsObj, long guard, bool negated,
                             py::handle loc, PyObject *trace = nullptr,
                             PyObject *ftype = nullptr) {
  builder::ModuleBuilder &b = m.builder;
  unwrap(b.checkFunction(func));
  builder::Operands operands;
  PyObject *sequence =
      PySequence_Fast(operandsObj, "operands must be a sequence");
  if (!sequence)
    throw py::error_already_set();
  py::object owner = py::reinterpret_steal<py::object>(sequence);
  PyObject **items = PySequence_Fast_ITEMS(sequence);
  for (Py_ssize_t i = 0, e = PySequence_Fast_GET_SIZE(sequence); i < e; ++i)
    operands.list.push_back(trace
                                ? convertObject(b, items[i], trace, ftype,
                                                operands)
                                : convert(b, items[i], operands));
  llvm::StringRef opcodeText = strRef(opcode);
  return unwrap(
      b.inst(func, opcodeText, operands, guard, negated, m.location(loc)));
}

/// Reg's operators' fast path (Module.binary): `a op b` for b an int or a
/// register of a's type and trace, when `opcodes` (({type name: opcode}
/// for an int b, the same for a register b)) holds the opcode and
/// `newOperands` (register type -> ("n", class)) the destination's class.
/// Returns the destination (a new Reg, or `a` when in place), or None to
/// leave the case to Python.
PyObject *binary(PyModule &m, unsigned func, PyObject *opcodes,
                 PyObject *newOperands, PyObject *a, PyObject *b,
                 bool inPlace) {
  const OperandClasses &classes = operandClasses;
  if (!classes.reg || (PyObject *)Py_TYPE(a) != classes.reg ||
      !PyTuple_Check(opcodes) || PyTuple_GET_SIZE(opcodes) != 2)
    throw py::type_error("binary(func, opcodes, new_operands, a: Reg, b, "
                         "in_place)");
  PyObject *trace = slot(a, classes.regTrace);
  PyObject *type = slot(a, classes.regType);
  bool isInt = PyLong_CheckExact(b);
  if (!isInt && !((PyObject *)Py_TYPE(b) == classes.reg &&
                  slot(b, classes.regType) == type &&
                  slot(b, classes.regTrace) == trace))
    Py_RETURN_NONE;
  PyObject *opcode = PyDict_GetItemWithError(
      PyTuple_GET_ITEM(opcodes, isInt ? 0 : 1), slot(type, classes.typeName));
  if (!opcode) {
    if (PyErr_Occurred())
      throw py::error_already_set();
    Py_RETURN_NONE;
  }
  builder::ModuleBuilder &mb = m.builder;
  unwrap(mb.checkFunction(func));
  builder::Operands operands;
  if (inPlace) {
    operands.list.push_back(convert(mb, slot(a, classes.regId), operands));
  } else {
    PyObject *newOperand =
        PyDict_GetItemWithError(newOperands, slot(type, classes.typeRegType));
    if (!newOperand) {
      if (PyErr_Occurred())
        throw py::error_already_set();
      Py_RETURN_NONE;
    }
    operands.list.push_back(convert(mb, newOperand, operands));
  }
  operands.list.push_back(convert(mb, slot(a, classes.regId), operands));
  if (isInt) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(b, &overflow);
    if (overflow || (v == -1 && PyErr_Occurred())) {
      PyErr_Clear();
      Py_RETURN_NONE; // Python spells the big ones
    }
    operands.list.push_back(mb.immediate(int64_t(v)));
  } else {
    operands.list.push_back(convert(mb, slot(b, classes.regId), operands));
  }
  std::optional<unsigned> destination = operands.created;
  unwrap(mb.inst(func, strRef(opcode), operands, -1, false,
                 m.location(py::none())));
  if (inPlace)
    return Py_NewRef(a);
  // The new register, as Reg.__init__ would make it.
  auto *regType = reinterpret_cast<PyTypeObject *>(classes.reg);
  PyObject *reg = regType->tp_alloc(regType, 0);
  if (!reg)
    throw py::error_already_set();
  auto set = [&](Py_ssize_t offset, PyObject *value) {
    *reinterpret_cast<PyObject **>(reinterpret_cast<char *>(reg) + offset) =
        value;
  };
  set(classes.regId, PyLong_FromUnsignedLong(*destination));
  set(classes.regType, Py_NewRef(type));
  set(classes.regTrace, Py_NewRef(trace));
  set(classes.regSpecial, Py_NewRef(Py_None));
  return reg;
}

/// Module.inst(func, opcode, operands, guard=-1, negated=False, loc=None).
PyObject *instMethod(PyObject *self, PyObject *const *args, Py_ssize_t n) {
  return fastCall([&]() -> PyObject * {
    if (n < 3 || n > 6)
      throw py::type_error("inst(func, opcode, operands, guard=-1, "
                           "negated=False, loc=None) takes 3 to 6 positional "
                           "arguments, got " + std::to_string(n));
    unsigned func = unsignedArg(args[0], "func");
    long guard = n > 3 ? longArg(args[3]) : -1;
    int negated = n > 4 ? PyObject_IsTrue(args[4]) : 0;
    if (negated < 0)
      throw py::error_already_set();
    py::handle loc = n > 5 ? py::handle(args[5]) : py::none();
    return idOrNone(
        inst(moduleOf(self), func, args[1], args[2], guard, negated, loc));
  });
}

/// Module.emit(func, opcode, operands, trace, ftype).
PyObject *emitMethod(PyObject *self, PyObject *const *args, Py_ssize_t n) {
  return fastCall([&]() -> PyObject * {
    if (n != 5)
      throw py::type_error("emit(func, opcode, operands, trace, ftype) takes 5 "
                           "positional arguments, got " + std::to_string(n));
    return idOrNone(inst(moduleOf(self), unsignedArg(args[0], "func"), args[1],
                         args[2], -1, false, py::none(), args[3], args[4]));
  });
}

/// Module.binary(func, opcodes, new_operands, a, b, in_place).
PyObject *binaryMethod(PyObject *self, PyObject *const *args, Py_ssize_t n) {
  return fastCall([&]() -> PyObject * {
    if (n != 6)
      throw py::type_error("binary(func, opcodes, new_operands, a, b, "
                           "in_place) takes 6 positional arguments, got " +
                           std::to_string(n));
    if (!PyDict_Check(args[2]))
      throw py::type_error("binary: new_operands must be a dict");
    return binary(moduleOf(self), unsignedArg(args[0], "func"), args[1],
                  args[2], args[3], args[4], PyObject_IsTrue(args[5]) == 1);
  });
}

/// Module.new_reg(reg_class).
PyObject *newRegMethod(PyObject *self, PyObject *const *args, Py_ssize_t n) {
  return fastCall([&]() -> PyObject * {
    if (n != 1)
      throw py::type_error("new_reg(reg_class) takes 1 argument");
    return PyLong_FromUnsignedLong(unwrap(
        moduleOf(self).builder.allocate(unsignedArg(args[0], "reg_class"))));
  });
}

PyMethodDef fastMethods[] = {
    {"inst", (PyCFunction)(void (*)(void))instMethod, METH_FASTCALL,
     "inst(func, opcode, operands, guard=-1, negated=False, loc=None, /)\n"
     "Appends one instruction; returns the id of the register an (\"n\", "
     "reg_class) operand created, else None."},
    {"emit", (PyCFunction)(void (*)(void))emitMethod, METH_FASTCALL,
     "emit(func, opcode, operands, trace, ftype, /)\n"
     "inst() with the DSL's operand objects: registers whose trace slot is "
     "`trace`, addresses of them, and anything the fallback given to "
     "set_operand_classes turns into a tagged operand (ftype: \"f32\" or "
     "\"f64\", for float immediates)."},
    {"binary", (PyCFunction)(void (*)(void))binaryMethod, METH_FASTCALL,
     "binary(func, opcodes, new_operands, a, b, in_place, /)\n"
     "Reg's operators' fast path: `a op b` for an int b or a register b of "
     "a's type and trace, with the opcode from opcodes (({type name: "
     "opcode} for an int b, the same for a register b)) and a new "
     "destination of the class new_operands[a.dtype.reg_type] (or a itself "
     "in place); returns the destination, or None for Python to handle."},
    {"new_reg", (PyCFunction)(void (*)(void))newRegMethod, METH_FASTCALL,
     "new_reg(reg_class, /)\nA new register of the class; returns its id."},
};

} // namespace

void addFastCalls(py::handle moduleClass) {
  for (PyMethodDef &def : fastMethods)
    moduleClass.attr(def.ml_name) = py::reinterpret_steal<py::object>(
        PyDescr_NewMethod((PyTypeObject *)moduleClass.ptr(), &def));
}

} // namespace pyptx::python
