//===- Diagnostics.cpp - the builder's errors as Python exceptions --------===//

#include "Binding.h"

namespace pyptx::python {

PyObject *ptxErrorType = nullptr;

void raise(const builder::Error &error) {
  switch (error.kind) {
  case builder::ErrorKind::BadValue:
    throw py::value_error(error.message);
  case builder::ErrorKind::BadId:
    throw py::index_error(error.message);
  case builder::ErrorKind::BadType:
    throw py::type_error(error.message);
  case builder::ErrorKind::Diagnosed:
    break;
  }
  py::list list;
  for (const builder::Diagnostic &d : error.diagnostics)
    list.append(py::make_tuple(builder::severityName(d.severity), d.file,
                               d.line, d.column, d.message));
  py::object exception =
      py::reinterpret_borrow<py::object>(ptxErrorType)(error.message);
  exception.attr("diagnostics") = list;
  PyErr_SetObject(ptxErrorType, exception.ptr());
  throw py::error_already_set();
}

py::list warningTuples(const std::vector<builder::Diagnostic> &warnings) {
  py::list list;
  for (const builder::Diagnostic &d : warnings)
    list.append(py::make_tuple(d.file, d.line, d.column, d.message));
  return list;
}

} // namespace pyptx::python
