//===- Binding.h - what the files of pyptx._native share --------*- C++ -*-===//
//
// pyptx._native is the Python face of the builder library
// (pyptx/Builder/ModuleBuilder.h): it turns Python objects into the
// builder's arguments (Operands.cpp), finds the author's line for each op
// (CallerLocation.cpp), turns the builder's errors into Python exceptions
// (Diagnostics.cpp), and offers the per-instruction calls without
// pybind11's dispatcher (FastCalls.cpp). PyPTXModule.cpp defines the module.
//
//===----------------------------------------------------------------------===//

#ifndef PYPTX_BINDINGS_PYTHON_BINDING_H
#define PYPTX_BINDINGS_PYTHON_BINDING_H

#include "pyptx/Builder/ModuleBuilder.h"

#include "llvm/ADT/DenseMap.h"

#include <pybind11/pybind11.h>

#include <tuple>
#include <vector>

namespace pyptx::python {

namespace py = pybind11;

//===--- Diagnostics.cpp --------------------------------------------------===//

/// PTXError, created at module import.
extern PyObject *ptxErrorType;

/// Raises the Python exception of `error`'s kind: ValueError, IndexError,
/// TypeError, or PTXError with its diagnostics.
[[noreturn]] void raise(const builder::Error &error);

/// A builder result's value; raises its error.
template <typename T> T unwrap(builder::Result<T> result) {
  if (!result)
    raise(result.error());
  return std::move(*result);
}

/// (file, line, column, message) of each warning, as Module.warnings lists
/// them.
py::list warningTuples(const std::vector<builder::Diagnostic> &warnings);

//===--- CallerLocation.cpp -----------------------------------------------===//

/// Directories of the code that is not the kernel author's (pyptx's own
/// package, contextlib); set by pyptx at import.
extern std::vector<std::string> internalDirs;

/// (file, line, column) of the innermost Python frame that is the author's:
/// the line that emitted the instruction.
std::tuple<py::object, int, int> callerPosition();

//===--- Operands.cpp -----------------------------------------------------===//

/// One pyptx._native.Module: the builder, and its locations by Python file
/// object (an unrolled Python loop emits from a few lines).
class PyModule {
public:
  PyModule(unsigned major, unsigned minor, const std::string &target,
           unsigned addressSize, ptxisa::Policy policy)
      : builder(major, minor, target, addressSize, policy) {}

  builder::ModuleBuilder builder;

  /// `loc` (file, line, column) as given, or, when it is None, the author's
  /// line on the Python stack.
  mlir::Location location(py::handle loc);

private:
  /// Holding the file objects keeps their addresses their own.
  llvm::DenseMap<std::tuple<PyObject *, unsigned, unsigned>,
                 mlir::LocationAttr>
      locations;
  llvm::DenseMap<PyObject *, mlir::StringAttr> files;
  std::vector<py::object> keptFiles;
};

/// A Python str as a StringRef, without a copy.
llvm::StringRef strRef(py::handle h);

/// A Python int argument; raises on a non-int or overflow.
long longArg(PyObject *arg);

/// One tagged operand tuple (_native.pyi) as an operand attribute; the
/// registers it names are appended to `into.registers`.
mlir::Attribute convert(builder::ModuleBuilder &b, py::handle operand,
                        builder::Operands &into);

/// A DSL operand object: a register of trace `trace`, an address of one,
/// else what the fallback of set_operand_classes makes of it (float kind
/// `ftype`).
mlir::Attribute convertObject(builder::ModuleBuilder &b, PyObject *object,
                              PyObject *trace, PyObject *ftype,
                              builder::Operands &into);

/// The DSL's operand classes (pyptx.reg.Reg, pyptx._operands.Address) and
/// where their __slots__ lie, so that Module.emit reads a register or an
/// address without running Python; set by pyptx at import
/// (set_operand_classes). Other operands go to the Python fallback.
struct OperandClasses {
  PyObject *reg = nullptr, *address = nullptr, *fallback = nullptr;
  Py_ssize_t regId = 0, regTrace = 0, regType = 0, regSpecial = 0,
             addressBase = 0, addressOffset = 0, addressCoords = 0,
             typeName = 0, typeRegType = 0;
};
extern OperandClasses operandClasses;

/// The byte offset of `cls`'s slot `name` in its instances.
Py_ssize_t slotOffset(py::handle cls, const char *name);

/// An object's slot (borrowed; null while unset).
inline PyObject *slot(PyObject *object, Py_ssize_t offset) {
  return *reinterpret_cast<PyObject **>(reinterpret_cast<char *>(object) +
                                        offset);
}

/// A parameter given as (space, name, type, vec, align, is_ptr, ptr_space,
/// ptr_align, dims).
builder::ParamSpec paramSpec(py::handle spec);
std::vector<builder::ParamSpec> paramSpecs(py::handle list);

//===--- FastCalls.cpp ----------------------------------------------------===//

/// Adds Module's METH_FASTCALL methods (inst, emit, binary, new_reg).
void addFastCalls(py::handle moduleClass);

} // namespace pyptx::python

#endif // PYPTX_BINDINGS_PYTHON_BINDING_H
