//===- FastCall.h - METH_FASTCALL methods on pybind11 classes ---*- C++ -*-===//
//
// The per-instruction and per-launch methods of pyptx's modules bypass
// pybind11's dispatcher (overload resolution and argument casters cost as
// much as the work): they are METH_FASTCALL functions added to the pybind11
// class as method descriptors, and use these two helpers.
//
//===----------------------------------------------------------------------===//

#ifndef PYPTX_BINDINGS_PYTHON_FASTCALL_H
#define PYPTX_BINDINGS_PYTHON_FASTCALL_H

#include <pybind11/pybind11.h>

#include <exception>
#include <string>

namespace pyptx::python {

/// The C++ object of a pybind11 instance of class T: the method descriptors
/// are made for T's Python type, so Python only calls them with one as
/// `self`.
template <typename T>
T &cppObject(PyObject *self, const char *typeName) {
  auto *instance = reinterpret_cast<pybind11::detail::instance *>(self);
  T *object = instance->get_value_and_holder().template value_ptr<T>();
  if (!object)
    throw pybind11::type_error(std::string(typeName) +
                               ".__init__ was not called");
  return *object;
}

/// Runs a METH_FASTCALL body: a C++ exception becomes the Python one.
template <typename Body>
PyObject *fastCall(Body body) {
  try {
    return body();
  } catch (pybind11::error_already_set &e) {
    e.restore();
  } catch (pybind11::builtin_exception &e) {
    e.set_error();
  } catch (std::exception &e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  }
  return nullptr;
}

} // namespace pyptx::python

#endif // PYPTX_BINDINGS_PYTHON_FASTCALL_H
