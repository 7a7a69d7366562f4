//===- CallerLocation.cpp - the kernel author's line on the stack ---------===//
//
// Every op gets the location of the Python line that emitted it: the
// innermost frame whose code is not pyptx's own.
//
//===----------------------------------------------------------------------===//

#include "Binding.h"

#include <frameobject.h>

namespace pyptx::python {

std::vector<std::string> internalDirs;

namespace {

/// What the location of an instruction needs of a code object, worked out
/// once per code object (every instruction walks the Python stack): whether
/// it is pyptx's own, its file, and (line, column) per bytecode unit from
/// co_positions(). The cache holds a reference, so an address is never
/// reused by another code object.
struct CodeInfo {
  bool internal = false;
  py::object file;
  std::vector<std::pair<int, int>> positions;
};

CodeInfo &codeInfo(PyObject *code) {
  static llvm::DenseMap<PyObject *, CodeInfo> known;
  auto [it, inserted] = known.try_emplace(code);
  if (inserted) {
    Py_INCREF(code);
    CodeInfo &info = it->second;
    py::handle h(code);
    info.file = h.attr("co_filename");
    llvm::StringRef path = strRef(info.file);
    for (const std::string &dir : internalDirs)
      if (path.starts_with(dir) && path.size() > dir.size() &&
          path[dir.size()] == '/' &&
          path.find('/', dir.size() + 1) == llvm::StringRef::npos)
        info.internal = true;
    if (!info.internal && py::hasattr(h, "co_positions"))
      for (py::handle position : h.attr("co_positions")()) {
        py::tuple p = py::reinterpret_borrow<py::tuple>(position);
        int line = p[0].is_none() ? 0 : p[0].cast<int>();
        int column = p[2].is_none() ? 0 : p[2].cast<int>() + 1;
        info.positions.emplace_back(line, column);
      }
  }
  return it->second;
}

} // namespace

std::tuple<py::object, int, int> callerPosition() {
  PyFrameObject *frame = PyEval_GetFrame();
  Py_XINCREF(frame);
  while (frame) {
    PyCodeObject *code = PyFrame_GetCode(frame);
    CodeInfo &info = codeInfo((PyObject *)code);
    Py_DECREF(code);
    if (!info.internal) {
      int line = 0, column = 0;
#if PY_VERSION_HEX >= 0x030B0000
      size_t unit = size_t(PyFrame_GetLasti(frame)) / 2;
      if (unit < info.positions.size())
        std::tie(line, column) = info.positions[unit];
#endif
      if (!line)
        line = PyFrame_GetLineNumber(frame);
      Py_DECREF(frame);
      return {info.file, line, column};
    }
    PyFrameObject *back = PyFrame_GetBack(frame);
    Py_DECREF(frame);
    frame = back;
  }
  return {py::str(""), 0, 0};
}

} // namespace pyptx::python
