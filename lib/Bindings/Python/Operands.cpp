//===- Operands.cpp - Python operands as the builder's ----------------------===//
//
// Tagged operand tuples (_native.pyi), the DSL's register and address
// objects read through their slots, locations and parameters, turned into
// the builder library's arguments.
//
//===----------------------------------------------------------------------===//

#include "Binding.h"

#include <pybind11/stl.h>

#include <structmember.h>

using namespace mlir;

namespace pyptx::python {

OperandClasses operandClasses;

Location PyModule::location(py::handle loc) {
  py::object file;
  unsigned line, column;
  if (loc.is_none()) {
    auto [f, l, c] = callerPosition();
    file = f;
    line = l;
    column = c;
  } else {
    py::tuple t = py::reinterpret_borrow<py::tuple>(loc);
    if (t.size() != 3)
      throw py::value_error("a location is (file, line, column)");
    file = t[0];
    line = t[1].cast<unsigned>();
    column = t[2].cast<unsigned>();
  }
  if (!line)
    return UnknownLoc::get(builder.getContext());
  auto [it, inserted] =
      locations.try_emplace(std::make_tuple(file.ptr(), line, column));
  if (inserted) {
    auto [known, newFile] = files.try_emplace(file.ptr());
    if (newFile) {
      known->second = StringAttr::get(builder.getContext(), strRef(file));
      keptFiles.push_back(file);
    }
    it->second = FileLineColLoc::get(known->second, line, column);
  }
  return it->second;
}

llvm::StringRef strRef(py::handle h) {
  Py_ssize_t size;
  const char *data = PyUnicode_AsUTF8AndSize(h.ptr(), &size);
  if (!data)
    throw py::error_already_set();
  return llvm::StringRef(data, size);
}

long longArg(PyObject *arg) {
  long value = PyLong_AsLong(arg);
  if (value == -1 && PyErr_Occurred())
    throw py::error_already_set();
  return value;
}

Py_ssize_t slotOffset(py::handle cls, const char *name) {
  py::object descriptor = cls.attr(name);
  if (Py_TYPE(descriptor.ptr()) != &PyMemberDescr_Type)
    throw py::type_error(std::string(name) + " is not a __slots__ member of " +
                         py::repr(cls).cast<std::string>());
  return reinterpret_cast<PyMemberDescrObject *>(descriptor.ptr())
      ->d_member->offset;
}

Attribute convert(builder::ModuleBuilder &b, py::handle operand,
                  builder::Operands &into) {
  if (PyLong_CheckExact(operand.ptr())) // a register id: ("r", id)
    return unwrap(b.registerOperand(into, longArg(operand.ptr())));
  if (!PyTuple_Check(operand.ptr()) || PyTuple_GET_SIZE(operand.ptr()) < 1)
    throw py::type_error("an operand is a tagged tuple, got " +
                         py::repr(operand).cast<std::string>());
  auto item = [&](Py_ssize_t i) {
    if (i >= PyTuple_GET_SIZE(operand.ptr()))
      throw py::type_error("operand " + py::repr(operand).cast<std::string>() +
                           " lacks an element");
    return py::handle(PyTuple_GET_ITEM(operand.ptr(), i));
  };
  llvm::StringRef tag = strRef(item(0));
  auto list = [&](Py_ssize_t i) {
    SmallVector<Attribute, 4> elements;
    for (py::handle e : py::reinterpret_borrow<py::sequence>(item(i)))
      elements.push_back(convert(b, e, into));
    return elements;
  };
  if (tag == "r") {
    long id = longArg(item(1).ptr());
    return unwrap(b.registerOperand(
        into, id,
        PyTuple_GET_SIZE(operand.ptr()) > 2 ? strRef(item(2))
                                            : llvm::StringRef()));
  }
  if (tag == "n") {
    long classId = PyLong_AsLong(item(1).ptr());
    if (classId < 0 && PyErr_Occurred())
      throw py::error_already_set();
    return unwrap(b.newRegister(into, unsigned(classId)));
  }
  if (tag == "i") {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(item(1).ptr(), &overflow);
    if (v == -1 && PyErr_Occurred())
      throw py::error_already_set();
    if (!overflow)
      return b.immediate(int64_t(v));
    // 2^63 .. 2^64 - 1: PTX's unsigned 64-bit immediates.
    unsigned long long u = PyLong_AsUnsignedLongLong(item(1).ptr());
    if (PyErr_Occurred())
      throw py::error_already_set();
    return b.unsignedImmediate(uint64_t(u));
  }
  if (tag == "f32")
    return b.f32(item(1).cast<float>());
  if (tag == "f64")
    return b.f64(item(1).cast<double>());
  if (tag == "I") // (I, magnitude, negative, format, unsigned, digits)
    return b.spelledImmediate(item(1).cast<uint64_t>(), item(2).cast<bool>(),
                              item(3).cast<int>(), item(4).cast<bool>(),
                              item(5).cast<unsigned>());
  if (tag == "F") // (F, bits, is_double, upper_prefix, lower_digits)
    return b.floatBits(item(1).cast<uint64_t>(), item(2).cast<bool>(),
                       item(3).cast<bool>(), item(4).cast<bool>());
  if (tag == "D") // (D, value, digits after the point)
    return b.decimalFloat(item(1).cast<double>(), item(2).cast<unsigned>());
  if (tag == "u") // (u, "~" or "-", operand)
    return b.unary(strRef(item(1)), convert(b, item(2), into));
  if (tag == "fn") // (fn, name, [args]): generic(sym), mask(0xff, sym)
    return b.functionExpr(strRef(item(1)), list(2));
  if (tag == "s")
    return b.symbol(strRef(item(1)));
  if (tag == "a")
    return b.address(list(1));
  if (tag == "v")
    return b.vector(list(1));
  if (tag == "p")
    return b.paren(list(1));
  if (tag == "!")
    return b.negation(convert(b, item(1), into));
  if (tag == "_")
    return b.sink();
  if (llvm::is_contained(builder::ModuleBuilder::binaryOperators(), tag)) {
    Attribute lhs = convert(b, item(1), into);
    Attribute rhs = convert(b, item(2), into);
    return b.binary(tag, lhs, rhs);
  }
  throw py::value_error("unknown operand tag '" + tag.str() + "'");
}

Attribute convertObject(builder::ModuleBuilder &b, PyObject *object,
                        PyObject *trace, PyObject *ftype,
                        builder::Operands &into) {
  const OperandClasses &classes = operandClasses;
  auto traceRegister = [&](PyObject *o) {
    return o && (PyObject *)Py_TYPE(o) == classes.reg &&
           slot(o, classes.regTrace) == trace && slot(o, classes.regId);
  };
  if (traceRegister(object))
    return convert(b, slot(object, classes.regId), into);
  if ((PyObject *)Py_TYPE(object) == classes.address &&
      slot(object, classes.addressCoords) == Py_None &&
      traceRegister(slot(object, classes.addressBase))) {
    // [r], [r+offset], [r+-offset]: ptxas reads no `-` after a register.
    Attribute base =
        convert(b, slot(slot(object, classes.addressBase), classes.regId), into);
    PyObject *offsetObj = slot(object, classes.addressOffset);
    long offset = offsetObj ? longArg(offsetObj) : 0;
    if (offset)
      base = b.binary("+", base, b.immediate(offset));
    return b.address({base});
  }
  if (!classes.fallback)
    throw py::type_error("Module.emit needs set_operand_classes first");
  py::object tagged = py::reinterpret_steal<py::object>(
      PyObject_CallFunctionObjArgs(classes.fallback, object, ftype, nullptr));
  if (!tagged)
    throw py::error_already_set();
  return convert(b, tagged, into);
}

builder::ParamSpec paramSpec(py::handle spec) {
  py::tuple t = py::reinterpret_borrow<py::tuple>(spec);
  if (t.size() != 9)
    throw py::value_error("a parameter is (space, name, type, vec, align, "
                          "is_ptr, ptr_space, ptr_align, dims)");
  builder::ParamSpec p;
  p.space = t[0].cast<std::string>();
  p.name = t[1].cast<std::string>();
  p.type = t[2].cast<std::string>();
  p.vec = t[3].cast<unsigned>();
  p.align = t[4].cast<unsigned>();
  p.isPtr = t[5].cast<bool>();
  p.ptrSpace = t[6].cast<std::string>();
  p.ptrAlign = t[7].cast<unsigned>();
  p.dims = t[8].cast<std::vector<int64_t>>();
  return p;
}

std::vector<builder::ParamSpec> paramSpecs(py::handle list) {
  std::vector<builder::ParamSpec> specs;
  for (py::handle spec : py::reinterpret_borrow<py::sequence>(list))
    specs.push_back(paramSpec(spec));
  return specs;
}

} // namespace pyptx::python
