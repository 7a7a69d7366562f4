//===- PyPTXModule.cpp - pyptx._native: a builder over the dialect --------===//
//
// The Python DSL's only way into the dialect (python/pyptx/_native.pyi is the
// contract). MLIR never sees a C++ exception: its diagnostics are collected
// while it runs, and the binding raises PTXError once MLIR has returned.
//
//===----------------------------------------------------------------------===//

#include "pyptx/Dialect/PTX/Analysis/HazardAnalysis.h"
#include "pyptx/Dialect/PTX/Analysis/ParamEffects.h"
#include "pyptx/Dialect/PTX/IR/PTX.h"
#include "pyptx/Target/PTX/Export.h"
#include "pyptx/Target/PTX/Import.h"
#include "pyptx/Target/Python/Export.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/bit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include "FastCall.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <frameobject.h>
#include <structmember.h>

#include <cstring>

namespace py = pybind11;
using namespace mlir;
using namespace pyptx;

using namespace pyptx::python;

namespace {

/// PTXError, created at module import.
PyObject *ptxErrorType = nullptr;

/// Collects a context's diagnostics while MLIR runs.
class DiagnosticCollector {
public:
  explicit DiagnosticCollector(MLIRContext *ctx)
      : handler(ctx, [this](Diagnostic &diag) {
          record(diag);
          for (Diagnostic &note : diag.getNotes())
            record(note);
          return success();
        }) {}

  /// The warnings collected, as (file, line, column, message).
  std::vector<std::tuple<std::string, unsigned, unsigned, std::string>>
  warnings() const {
    std::vector<std::tuple<std::string, unsigned, unsigned, std::string>> out;
    for (auto &[severity, file, line, column, message] : entries)
      if (severity == "warning")
        out.emplace_back(file, line, column, message);
    return out;
  }

  /// Raises PTXError with what was collected (or `fallback` if nothing).
  [[noreturn]] void raise(const std::string &fallback) {
    py::list list;
    std::string text;
    for (auto &[severity, file, line, column, message] : entries) {
      list.append(py::make_tuple(severity, file, line, column, message));
      if (!text.empty())
        text += "\n";
      if (!file.empty())
        text += file + ":" + std::to_string(line) + ":" +
                std::to_string(column) + ": ";
      text += severity + ": " + message;
    }
    if (text.empty())
      text = fallback;
    py::object error = py::reinterpret_borrow<py::object>(ptxErrorType)(text);
    error.attr("diagnostics") = list;
    PyErr_SetObject(ptxErrorType, error.ptr());
    throw py::error_already_set();
  }

private:
  void record(Diagnostic &diag) {
    std::string severity = diag.getSeverity() == DiagnosticSeverity::Error
                               ? "error"
                           : diag.getSeverity() == DiagnosticSeverity::Warning
                               ? "warning"
                           : diag.getSeverity() == DiagnosticSeverity::Note
                               ? "note"
                               : "remark";
    std::string file;
    unsigned line = 0, column = 0;
    if (auto loc = dyn_cast<FileLineColLoc>(diag.getLocation())) {
      file = loc.getFilename().str();
      line = loc.getLine();
      column = loc.getColumn();
    }
    entries.emplace_back(severity, file, line, column, diag.str());
  }

  ScopedDiagnosticHandler handler;
  std::vector<std::tuple<std::string, std::string, unsigned, unsigned,
                         std::string>>
      entries;
};

/// A hazard finding for Python: (kind, message, file, line, column,
/// cause_file, cause_line, cause_column).
using HazardTuple = std::tuple<std::string, std::string, std::string, unsigned,
                               unsigned, std::string, unsigned, unsigned>;

std::vector<HazardTuple> hazardTuples(Operation *op) {
  std::vector<HazardTuple> out;
  for (HazardRecord &h : findHazardRecords(op))
    out.emplace_back(h.kind, h.message, h.file, h.line, h.column, h.causeFile,
                     h.causeLine, h.causeColumn);
  return out;
}

std::unique_ptr<MLIRContext> makeContext(ptxisa::Policy policy) {
  DialectRegistry registry;
  registry.insert<PTXDialect>();
  auto ctx = std::make_unique<MLIRContext>(registry,
                                           MLIRContext::Threading::DISABLED);
  ctx->getOrLoadDialect<PTXDialect>()->isaPolicy = policy;
  ctx->printOpOnDiagnostic(false);
  return ctx;
}

ptxisa::Policy parsePolicy(const std::string &name) {
  if (name == "strict")
    return ptxisa::Policy::Strict;
  if (name == "warn-unknown")
    return ptxisa::Policy::WarnUnknown;
  if (name == "off")
    return ptxisa::Policy::Off;
  throw py::value_error("isa_policy must be 'strict', 'warn-unknown' or "
                        "'off', got '" + name + "'");
}

Type registerType(MLIRContext *ctx, const std::string &name, unsigned vec) {
  if (name == "pred")
    return PredType::get(ctx);
  std::optional<ScalarType> scalar = symbolizeScalarType(name);
  if (!scalar || *scalar == ScalarType::pred)
    throw py::value_error("'" + name + "' is not a PTX register type");
  return RegType::get(ctx, *scalar, vec);
}

/// A Python str as a StringRef, without a copy.
StringRef strRef(py::handle h) {
  Py_ssize_t size;
  const char *data = PyUnicode_AsUTF8AndSize(h.ptr(), &size);
  if (!data)
    throw py::error_already_set();
  return StringRef(data, size);
}

/// Directories of the code that is not the kernel author's (pyptx's own
/// package, contextlib); set by pyptx at import.
std::vector<std::string> internalDirs;

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
    StringRef path = strRef(info.file);
    for (const std::string &dir : internalDirs)
      if (path.starts_with(dir) && path.size() > dir.size() &&
          path[dir.size()] == '/' &&
          path.find('/', dir.size() + 1) == StringRef::npos)
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

/// (file, line, column) of the innermost Python frame that is the author's:
/// the line that emitted the instruction.
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

/// The DSL's operand classes (pyptx.reg.Reg, pyptx._operands.Address) and
/// where their __slots__ lie, so that Module.emit reads a register or an
/// address without running Python; set by pyptx at import
/// (set_operand_classes). Other operands go to the Python fallback.
struct OperandClasses {
  PyObject *reg = nullptr, *address = nullptr, *fallback = nullptr;
  Py_ssize_t regId = 0, regTrace = 0, regType = 0, regSpecial = 0,
             addressBase = 0, addressOffset = 0, addressCoords = 0,
             typeName = 0, typeRegType = 0;
} operandClasses;

/// The byte offset of `cls`'s slot `name` in its instances.
Py_ssize_t slotOffset(py::handle cls, const char *name) {
  py::object descriptor = cls.attr(name);
  if (Py_TYPE(descriptor.ptr()) != &PyMemberDescr_Type)
    throw py::type_error(std::string(name) + " is not a __slots__ member of " +
                         py::repr(cls).cast<std::string>());
  return reinterpret_cast<PyMemberDescrObject *>(descriptor.ptr())
      ->d_member->offset;
}

/// An object's slot (borrowed; null while unset).
PyObject *slot(PyObject *object, Py_ssize_t offset) {
  return *reinterpret_cast<PyObject **>(reinterpret_cast<char *>(object) +
                                        offset);
}

/// A Python int argument; raises on a non-int or overflow.
long longArg(PyObject *arg) {
  long value = PyLong_AsLong(arg);
  if (value == -1 && PyErr_Occurred())
    throw py::error_already_set();
  return value;
}

/// One module under construction.
class ModuleBuilder {
public:
  ModuleBuilder(std::pair<unsigned, unsigned> version,
                const std::string &target, unsigned addressSize,
                const std::string &policy)
      : ctx(makeContext(parsePolicy(policy))), builder(ctx.get()) {
    module = ModuleOp::create(builder, UnknownLoc::get(ctx.get()),
                              version.first, version.second,
                              ArrayRef<StringRef>{target}, addressSize);
    instName = OperationName(InstOp::getOperationName(), ctx.get());
    noAttributes = DictionaryAttr::get(ctx.get());
    for (unsigned i = 0; i < 8; ++i)
      plainRefs.push_back(RegRefAttr::get(ctx.get(), i, ""));
    for (int64_t v = 0; v < 256; ++v)
      smallImms.push_back(ImmAttr::get(ctx.get(), v, IntFormat::dec, false));
  }

  unsigned addFunction(const std::string &name, bool entry,
                       const std::vector<std::pair<std::string, std::string>>
                           &params,
                       const std::vector<std::pair<std::string,
                                                   std::vector<int64_t>>>
                           &directives,
                       const std::string &linkage, py::handle loc) {
    MLIRContext *c = ctx.get();
    SmallVector<Attribute> paramAttrs;
    for (auto &[pname, ptype] : params) {
      std::optional<ScalarType> scalar = symbolizeScalarType(ptype);
      if (!scalar)
        throw py::value_error("'" + ptype + "' is not a PTX type");
      paramAttrs.push_back(ParamAttr::get(c, StringAttr::get(c, pname),
                                          StateSpace::param, *scalar, 1, 0,
                                          false, StateSpace::reg, 0, {}));
    }
    SmallVector<Attribute> directiveAttrs;
    for (auto &[dname, values] : directives) {
      SmallVector<Attribute> valueAttrs;
      for (int64_t v : values)
        valueAttrs.push_back(IntegerAttr::get(IntegerType::get(c, 64), v));
      directiveAttrs.push_back(DirectiveAttr::get(
          c, StringAttr::get(c, dname), ArrayAttr::get(c, valueAttrs)));
    }
    std::optional<Linkage> link = symbolizeLinkage(linkage);
    if (!link)
      throw py::value_error("unknown linkage '" + linkage + "'");
    builder.setInsertionPointToEnd(module->getBodyBlock());
    auto func = FuncOp::create(
        builder, location(loc), name,
        entry ? FuncKind::entry : FuncKind::func, *link,
        ArrayAttr::get(c, paramAttrs), ArrayAttr::get(c, {}),
        ArrayAttr::get(c, directiveAttrs));
    Function &f = functions.emplace_back();
    f.op = func;
    f.scopes.push_back(func.addEntryBlock());
    return functions.size() - 1;
  }

  /// Appends `.param .align A .TYPE name[count]` (count 0: a scalar) to the
  /// function's parameters, e.g. a TMA descriptor found during the trace.
  void addParam(unsigned funcId, const std::string &name,
                const std::string &type, unsigned align, int64_t count) {
    Function &f = function(funcId);
    std::optional<ScalarType> scalar = symbolizeScalarType(type);
    if (!scalar)
      throw py::value_error("'" + type + "' is not a PTX type");
    MLIRContext *c = ctx.get();
    SmallVector<Attribute> params(f.op.getParams().getValue());
    SmallVector<int64_t> dims;
    if (count)
      dims.push_back(count);
    params.push_back(ParamAttr::get(c, StringAttr::get(c, name),
                                    StateSpace::param, *scalar, 1, align,
                                    false, StateSpace::reg, 0, dims));
    f.op.setParamsAttr(ArrayAttr::get(c, params));
  }

  void addShared(unsigned funcId, const std::string &name,
                 const std::string &type, int64_t count, unsigned align,
                 bool external, py::handle loc) {
    Function &f = function(funcId);
    std::optional<ScalarType> scalar = symbolizeScalarType(type);
    if (!scalar)
      throw py::value_error("'" + type + "' is not a PTX type");
    MLIRContext *c = ctx.get();
    if (external)
      builder.setInsertionPoint(f.op);
    else
      builder.setInsertionPointToStart(&f.op.getBody().front());
    VarOp::create(builder, location(loc), StringAttr::get(c, name),
                  StateSpaceAttr::get(c, StateSpace::shared),
                  LinkageAttr::get(c, external ? Linkage::extern_
                                               : Linkage::none),
                  builder.getUI32IntegerAttr(align),
                  ScalarTypeAttr::get(c, *scalar),
                  builder.getUI32IntegerAttr(1),
                  DenseI64ArrayAttr::get(c, {external ? -1 : count}),
                  Attribute(), ArrayAttr());
  }

  unsigned reg(unsigned funcId, const std::string &type,
               const std::string &prefix, unsigned vec) {
    return allocate(regClass(funcId, type, prefix, vec));
  }

  /// The id of function `funcId`'s registers of `prefix` (and `type`), for
  /// newReg and ("n", class) operands: the strings are looked at once.
  unsigned regClass(unsigned funcId, const std::string &type,
                    const std::string &prefix, unsigned vec) {
    Function &f = function(funcId);
    Type t = registerType(ctx.get(), type, vec);
    auto [index, added] = f.prefixIndex.try_emplace(prefix, f.prefixes.size());
    if (added) {
      f.prefixes.emplace_back(prefix, Prefix());
      f.prefixes.back().second.type = t;
      f.prefixes.back().second.classId = classes.size();
      classes.push_back({funcId, index->second});
    } else if (f.prefixes[index->second].second.type != t) {
      throw py::value_error("register prefix '" + prefix +
                            "' already holds another type");
    }
    return f.prefixes[index->second].second.classId;
  }

  /// A new register of class `classId`; returns its id.
  unsigned allocate(unsigned classId) {
    if (classId >= classes.size())
      throw py::index_error("no register class " + std::to_string(classId));
    auto [funcId, prefixId] = classes[classId];
    Function &f = functions[funcId];
    auto &[prefix, p] = f.prefixes[prefixId];
    // Registers come from placeholder declarations of 64 at a time, until
    // finish() declares each prefix once, with its exact count.
    if (p.unused.empty()) {
      builder.setInsertionPointToStart(&f.op.getBody().front());
      MLIRContext *c = ctx.get();
      constexpr unsigned kChunk = 64;
      auto op = RegOp::create(
          builder, UnknownLoc::get(c), SmallVector<Type>(kChunk, p.type),
          TypeAttr::get(p.type), ArrayAttr::get(c, {StringAttr::get(c, prefix)}),
          DenseI64ArrayAttr::get(c, {int64_t(kChunk)}));
      p.holders.push_back(op);
      for (Value v : llvm::reverse(op.getResults()))
        p.unused.push_back(v);
    }
    registers.push_back(p.unused.pop_back_val());
    p.ids.push_back(registers.size() - 1);
    dirty = true;
    return registers.size() - 1;
  }

  unsigned sreg(unsigned funcId, const std::string &name) {
    Function &f = function(funcId);
    auto [it, inserted] = f.specialRegisters.try_emplace(name, 0);
    if (!inserted)
      return it->second;
    unsigned width = getSpecialRegisterWidth(name);
    if (!width)
      throw py::value_error("'" + name + "' is not a PTX special register");
    MLIRContext *c = ctx.get();
    Type type = width == 1    ? Type(PredType::get(c))
                : width == 64 ? Type(RegType::get(c, ScalarType::u64))
                              : Type(RegType::get(c, ScalarType::u32));
    builder.setInsertionPointToStart(&f.op.getBody().front());
    auto op = SRegOp::create(builder, UnknownLoc::get(c), type, name);
    registers.push_back(op.getResult());
    it->second = registers.size() - 1;
    return it->second;
  }

  /// The PTX name of register `id`: "%r3" (prefix and number), "%tid.x".
  std::string regName(unsigned id) {
    for (Function &f : functions) {
      // A prefix's ids grow with its registers: a binary search each.
      for (auto &[prefix, p] : f.prefixes) {
        auto it = llvm::lower_bound(p.ids, id);
        if (it != p.ids.end() && *it == id)
          return prefix + std::to_string(it - p.ids.begin());
      }
      for (auto &entry : f.specialRegisters)
        if (entry.getValue() == id)
          return entry.getKey().str();
    }
    throw py::index_error("no register " + std::to_string(id));
  }

  /// Appends an instruction; returns the id of the register its ("n", class)
  /// operand created, if it has one.
  ///
  /// With `trace` (Module.emit), operands are the DSL's objects: registers
  /// of that trace and addresses of them are read here, the rest become
  /// tagged operands through the Python fallback (with float kind `ftype`).
  std::optional<unsigned> inst(unsigned funcId, py::handle opcodeObj,
                               py::handle operandsObj, int guard, bool negated,
                               py::handle loc, PyObject *trace = nullptr,
                               PyObject *ftype = nullptr) {
    Function &f = function(funcId);
    SmallVector<Value, 8> args;
    SmallVector<Attribute, 8> operands;
    created.reset();
    PyObject *sequence =
        PySequence_Fast(operandsObj.ptr(), "operands must be a sequence");
    if (!sequence)
      throw py::error_already_set();
    py::object owner = py::reinterpret_steal<py::object>(sequence);
    PyObject **items = PySequence_Fast_ITEMS(sequence);
    for (Py_ssize_t i = 0, e = PySequence_Fast_GET_SIZE(sequence); i < e; ++i)
      operands.push_back(trace ? convertObject(items[i], trace, ftype, args)
                               : convert(items[i], args));
    if (guard >= 0) {
      // InstOp's own verifier trusts its guard to be a predicate (the ODS
      // check is skipped here, see verifyBuilt).
      Value g = value(guard);
      if (!isa<PredType>(g.getType())) {
        std::string type;
        llvm::raw_string_ostream(type) << g.getType();
        throw py::type_error("the guard must be a predicate register; "
                             "register " + std::to_string(guard) + " is " +
                             type);
      }
      args.insert(args.begin(), g);
    }
    append(f, opcodeObj, operands, args, guard >= 0, negated, loc);
    return created;
  }

  /// Reg's operators' fast path (Module.binary): `a op b` for b an int or a
  /// register of a's type and trace, when `opcodes` (({type name: opcode}
  /// for an int b, the same for a register b)) holds the opcode and
  /// `newOperands` (register type -> ("n", class)) the destination's class.
  /// Returns the destination (a new Reg, or `a` when in place), or None to
  /// leave the case to Python.
  PyObject *binary(unsigned funcId, PyObject *opcodes, PyObject *newOperands,
                   PyObject *a, PyObject *b, bool inPlace) {
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
    Function &f = function(funcId);
    MLIRContext *c = ctx.get();
    SmallVector<Value, 3> args;
    SmallVector<Attribute, 3> operands;
    std::optional<unsigned> destination;
    if (inPlace) {
      operands.push_back(convert(slot(a, classes.regId), args));
    } else {
      PyObject *newOperand = PyDict_GetItemWithError(
          newOperands, slot(type, classes.typeRegType));
      if (!newOperand) {
        if (PyErr_Occurred())
          throw py::error_already_set();
        Py_RETURN_NONE;
      }
      created.reset();
      operands.push_back(convert(newOperand, args));
      destination = created;
    }
    operands.push_back(convert(slot(a, classes.regId), args));
    if (isInt) {
      int overflow = 0;
      long long v = PyLong_AsLongLongAndOverflow(b, &overflow);
      if (overflow || (v == -1 && PyErr_Occurred())) {
        PyErr_Clear();
        Py_RETURN_NONE; // Python spells the big ones
      }
      operands.push_back(v >= 0 && size_t(v) < smallImms.size()
                             ? smallImms[v]
                             : ImmAttr::get(c, int64_t(v), IntFormat::dec,
                                            false));
    } else {
      operands.push_back(convert(slot(b, classes.regId), args));
    }
    append(f, opcode, operands, args, false, false, py::none());
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

  void label(unsigned funcId, const std::string &name, py::handle loc) {
    Function &f = function(funcId);
    builder.setInsertionPointToEnd(f.scopes.back());
    LabelOp::create(builder, location(loc), StringAttr::get(ctx.get(), name));
  }

  void openScope(unsigned funcId, py::handle loc) {
    Function &f = function(funcId);
    builder.setInsertionPointToEnd(f.scopes.back());
    auto scope = ScopeOp::create(builder, location(loc));
    scope.getBody().push_back(new Block());
    f.scopes.push_back(scope.getBodyBlock());
  }

  void closeScope(unsigned funcId) {
    Function &f = function(funcId);
    if (f.scopes.size() == 1)
      throw py::value_error("close_scope without an open scope");
    f.scopes.pop_back();
  }

  void locDirective(unsigned funcId, unsigned file, unsigned line,
                    unsigned column) {
    Function &f = function(funcId);
    builder.setInsertionPointToEnd(f.scopes.back());
    LocOp::create(builder, UnknownLoc::get(ctx.get()),
                  builder.getUI32IntegerAttr(file),
                  builder.getUI32IntegerAttr(line),
                  builder.getUI32IntegerAttr(column), FlatSymbolRefAttr(),
                  DenseI64ArrayAttr());
  }

  /// Parses `text` (PTX statements) into the function's innermost scope,
  /// as the importer would, and verifies what it made (ISA included).
  /// Registers the text names resolve to the function's registers by their
  /// PTX names (`%r3`: the fourth register of prefix `%r`), to special
  /// registers, or to those the text (or earlier raw text) declares. On an
  /// error nothing is added, and PTXError's diagnostics are located in the
  /// text (file "<ptx.raw>", its line and column); on success the ops are
  /// located at `loc`.
  void raw(unsigned funcId, const std::string &text, py::handle loc) {
    Function &f = function(funcId);
    Location where = location(loc);
    Block *block = f.scopes.back();
    Operation *before = block->empty() ? nullptr : &block->back();
    llvm::SourceMgr sourceMgr;
    sourceMgr.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBufferCopy(text, "<ptx.raw>"),
        llvm::SMLoc());
    DiagnosticCollector diagnostics(ctx.get());
    SmallVector<std::pair<std::string, Value>> declared;
    StatementContext context;
    context.block = block;
    context.functionBlock = &f.op.getBody().front();
    auto lookup = [&](StringRef name) { return traceRegister(funcId, name); };
    auto hint = [&] { return describeRegisters(f); };
    auto declare = [&](StringRef name, Value value) {
      declared.emplace_back(name.str(), value);
    };
    context.lookupRegister = lookup;
    context.registerHint = hint;
    context.declared = declare;
    bool ok = succeeded(importPTXStatements(sourceMgr, ctx.get(), context));
    // The special registers the lookups made (at the top of the function,
    // which is `block` when the text goes to the function's body) belong to
    // the function's table, not to the text: they stay, even when the text
    // is refused (erasing them left the table to a freed op).
    SmallVector<Operation *> added;
    for (Operation &op : llvm::make_range(
             before ? std::next(before->getIterator()) : block->begin(),
             block->end()))
      if (!isa<SRegOp>(op))
        added.push_back(&op);
    // Checked now, while the ops are located in the text.
    if (ok)
      for (Operation *op : added)
        ok &= succeeded(verifyBuilt(op));
    if (!ok) {
      for (Operation *op : added)
        op->dropAllReferences();
      for (Operation *op : llvm::reverse(added))
        op->erase();
      diagnostics.raise("ptx.raw: the text does not parse");
    }
    for (Operation *op : added)
      op->walk([&](Operation *nested) {
        nested->setLoc(where);
        numInstructions += isa<InstOp>(nested);
      });
    for (auto &[name, value] : declared)
      f.rawRegisters[name] = value;
  }

  /// `.SPACE .align A .TYPE name[size];`: in the function's innermost scope,
  /// or, for .global and .const variables and any with a linkage, at module
  /// level before the function. size: None for a scalar, 0 for `[]`.
  void addVar(unsigned funcId, const std::string &space,
              const std::string &type, const std::string &name,
              std::optional<int64_t> size, unsigned align,
              const std::string &linkage, py::handle loc) {
    Function &f = function(funcId);
    MLIRContext *c = ctx.get();
    std::optional<StateSpace> stateSpace = symbolizeStateSpace(space);
    if (!stateSpace || *stateSpace == StateSpace::reg ||
        *stateSpace == StateSpace::sreg)
      throw py::value_error("'" + space + "' is not a state space for "
                            "variables: expected global, shared, const, "
                            "local, param or tex");
    std::optional<ScalarType> scalar = symbolizeScalarType(type);
    if (!scalar)
      throw py::value_error("'" + type + "' is not a PTX type");
    std::optional<Linkage> link =
        linkage.empty() ? Linkage::none : symbolizeLinkage(linkage);
    if (!link)
      throw py::value_error("unknown linkage '" + linkage +
                            "': expected visible, extern, weak or common");
    SmallVector<int64_t> dims;
    if (size)
      dims.push_back(*size == 0 ? -1 : *size);
    bool moduleLevel = *stateSpace == StateSpace::global ||
                       *stateSpace == StateSpace::const_ ||
                       *link != Linkage::none;
    if (moduleLevel)
      builder.setInsertionPoint(f.op);
    else
      builder.setInsertionPointToEnd(f.scopes.back());
    DiagnosticCollector diagnostics(c);
    auto var = VarOp::create(
        builder, location(loc), StringAttr::get(c, name),
        StateSpaceAttr::get(c, *stateSpace), LinkageAttr::get(c, *link),
        builder.getUI32IntegerAttr(align), ScalarTypeAttr::get(c, *scalar),
        builder.getUI32IntegerAttr(1), DenseI64ArrayAttr::get(c, dims),
        Attribute(), ArrayAttr());
    if (failed(verifyBuilt(var))) {
      var->erase();
      diagnostics.raise("the variable does not verify");
    }
  }

  /// `// text` in the function's innermost scope.
  void comment(unsigned funcId, const std::string &text, py::handle loc) {
    Function &f = function(funcId);
    builder.setInsertionPointToEnd(f.scopes.back());
    DiagnosticCollector diagnostics(ctx.get());
    auto op = CommentOp::create(builder, location(loc), text);
    if (failed(verifyBuilt(op))) {
      op->erase();
      diagnostics.raise("the comment does not verify");
    }
  }

  /// `.pragma "a", "b";` in the function's innermost scope.
  void pragma(unsigned funcId, const std::vector<std::string> &values,
              py::handle loc) {
    Function &f = function(funcId);
    builder.setInsertionPointToEnd(f.scopes.back());
    SmallVector<StringRef> refs(values.begin(), values.end());
    DiagnosticCollector diagnostics(ctx.get());
    auto op = PragmaOp::create(builder, location(loc),
                               builder.getStrArrayAttr(refs));
    if (failed(verifyBuilt(op))) {
      op->erase();
      diagnostics.raise("the pragma does not verify");
    }
  }

  void addFile(unsigned index, const std::string &path) {
    // .file lines come first in the module, in index order.
    Block *body = module->getBodyBlock();
    auto it = body->begin();
    while (it != body->end() && isa<FileOp>(*it))
      ++it;
    builder.setInsertionPoint(body, it);
    FileOp::create(builder, UnknownLoc::get(ctx.get()), index, path,
                   IntegerAttr(), IntegerAttr());
  }

  //===--- Whole modules (pyptx.program: the transpiler's exact form) ---===//

  /// `.target` as a list (`sm_80, texmode_independent`) and `.address_size`
  /// (0: none).
  void setHeader(const std::vector<std::string> &targets, unsigned addressSize) {
    SmallVector<StringRef> refs(targets.begin(), targets.end());
    module->setTargetsAttr(builder.getStrArrayAttr(refs));
    if (addressSize)
      module->setAddressSizeAttr(builder.getUI32IntegerAttr(addressSize));
    else
      module->removeAddressSizeAttr();
  }

  /// Names the file uses without declaring them (the importer's list).
  void setUndeclared(const std::vector<std::string> &names) {
    SmallVector<StringRef> refs(names.begin(), names.end());
    if (refs.empty())
      module->removeUndeclaredSymbolsAttr();
    else
      module->setUndeclaredSymbolsAttr(builder.getStrArrayAttr(refs));
  }

  /// A parameter: (space, name, type, vec, align, is_ptr, ptr_space,
  /// ptr_align, dims).
  ParamAttr paramOf(py::handle spec) {
    MLIRContext *c = ctx.get();
    py::tuple t = py::reinterpret_borrow<py::tuple>(spec);
    if (t.size() != 9)
      throw py::value_error("a parameter is (space, name, type, vec, align, "
                            "is_ptr, ptr_space, ptr_align, dims)");
    auto space = symbolizeStateSpace(t[0].cast<std::string>());
    auto type = symbolizeScalarType(t[2].cast<std::string>());
    std::string ptrSpaceName = t[6].cast<std::string>();
    auto ptrSpace = ptrSpaceName.empty() ? std::optional(StateSpace::reg)
                                         : symbolizeStateSpace(ptrSpaceName);
    if (!space || !type || !ptrSpace)
      throw py::value_error("bad parameter " +
                            py::repr(spec).cast<std::string>());
    std::vector<int64_t> dims = t[8].cast<std::vector<int64_t>>();
    return ParamAttr::get(c, StringAttr::get(c, t[1].cast<std::string>()),
                          *space, *type, t[3].cast<unsigned>(),
                          t[4].cast<unsigned>(), t[5].cast<bool>(), *ptrSpace,
                          t[7].cast<unsigned>(), dims);
  }
  ArrayAttr paramsOf(py::handle list) {
    SmallVector<Attribute> params;
    for (py::handle spec : py::reinterpret_borrow<py::sequence>(list))
      params.push_back(paramOf(spec));
    return ArrayAttr::get(ctx.get(), params);
  }

  /// A `.entry`/`.func` with every detail PTX allows, at the end of the
  /// module. Returns (function id, the register ids of its `.reg`
  /// parameters, return parameters first); -1 for a declaration (no body).
  std::pair<int, std::vector<unsigned>>
  addFunctionFull(const std::string &name, const std::string &kind,
                  const std::string &linkage, py::handle params,
                  py::handle retParams, py::handle directives, bool hasBody,
                  bool noParamList, bool emptyRetList, py::handle loc) {
    MLIRContext *c = ctx.get();
    SmallVector<Attribute> directiveAttrs;
    for (py::handle d : py::reinterpret_borrow<py::sequence>(directives)) {
      py::tuple t = py::reinterpret_borrow<py::tuple>(d);
      SmallVector<Attribute> values;
      for (py::handle v : py::reinterpret_borrow<py::sequence>(t[1])) {
        if (py::isinstance<py::str>(v))
          values.push_back(StringAttr::get(c, v.cast<std::string>()));
        else
          values.push_back(IntegerAttr::get(IntegerType::get(c, 64),
                                            v.cast<int64_t>()));
      }
      directiveAttrs.push_back(DirectiveAttr::get(
          c, StringAttr::get(c, t[0].cast<std::string>()),
          ArrayAttr::get(c, values)));
    }
    std::optional<Linkage> link =
        linkage.empty() ? Linkage::none : symbolizeLinkage(linkage);
    if (!link || (kind != "entry" && kind != "func"))
      throw py::value_error("bad linkage or function kind");
    builder.setInsertionPointToEnd(module->getBodyBlock());
    auto func = FuncOp::create(
        builder, location(loc), name,
        kind == "entry" ? FuncKind::entry : FuncKind::func, *link,
        paramsOf(params), paramsOf(retParams),
        ArrayAttr::get(c, directiveAttrs));
    if (noParamList)
      func.setNoParamList(true);
    if (emptyRetList)
      func.setEmptyRetList(true);
    std::vector<unsigned> argIds;
    if (!hasBody)
      return {-1, argIds};
    Function &f = functions.emplace_back();
    f.op = func;
    Block *body = func.addEntryBlock();
    f.scopes.push_back(body);
    for (BlockArgument arg : body->getArguments()) {
      registers.push_back(arg);
      argIds.push_back(registers.size() - 1);
    }
    return {int(functions.size() - 1), argIds};
  }

  /// `.reg .TYPE name, name<count>, ...;` where it stands (the innermost
  /// open scope); returns the ids of the registers, in order.
  std::vector<unsigned>
  declare(unsigned funcId, const std::string &type, unsigned vec,
          const std::vector<std::pair<std::string, int64_t>> &names,
          py::handle loc) {
    Function &f = function(funcId);
    MLIRContext *c = ctx.get();
    Type t = registerType(c, type, vec);
    SmallVector<Attribute> nameAttrs;
    SmallVector<int64_t> counts;
    size_t total = 0;
    for (auto &[name, count] : names) {
      nameAttrs.push_back(StringAttr::get(c, name));
      counts.push_back(count);
      total += count < 0 ? 1 : count;
    }
    builder.setInsertionPointToEnd(f.scopes.back());
    auto op = RegOp::create(builder, location(loc),
                            SmallVector<Type>(total, t), TypeAttr::get(t),
                            ArrayAttr::get(c, nameAttrs),
                            DenseI64ArrayAttr::get(c, counts));
    std::vector<unsigned> ids;
    ids.reserve(total);
    for (Value v : op.getResults()) {
      registers.push_back(v);
      ids.push_back(registers.size() - 1);
    }
    return ids;
  }

  /// A register the file uses without declaring it (`pyptx.sreg
  /// undeclared`), of type "b32" or "pred".
  unsigned undeclaredRegister(unsigned funcId, const std::string &name,
                              const std::string &type) {
    Function &f = function(funcId);
    builder.setInsertionPointToStart(&f.op.getBody().front());
    auto op = SRegOp::create(builder, UnknownLoc::get(ctx.get()),
                             registerType(ctx.get(), type, 1), name);
    op.setUndeclared(true);
    registers.push_back(op.getResult());
    return registers.size() - 1;
  }

  /// Where a statement goes: the function's innermost scope, or the end of
  /// the module (func -1).
  void insertAt(int funcId) {
    if (funcId < 0)
      builder.setInsertionPointToEnd(module->getBodyBlock());
    else
      builder.setInsertionPointToEnd(function(funcId).scopes.back());
  }

  /// A variable with every detail PTX allows, where it stands (func -1:
  /// module level). init: a tagged operand or None.
  void addVarFull(int funcId, const std::string &linkage,
                  const std::string &space, py::handle attributes,
                  unsigned align, unsigned vec, const std::string &type,
                  const std::string &name, const std::vector<int64_t> &dims,
                  py::handle init, py::handle loc) {
    MLIRContext *c = ctx.get();
    std::optional<StateSpace> stateSpace = symbolizeStateSpace(space);
    std::optional<ScalarType> scalar = symbolizeScalarType(type);
    std::optional<Linkage> link =
        linkage.empty() ? Linkage::none : symbolizeLinkage(linkage);
    if (!stateSpace || !scalar || !link)
      throw py::value_error("bad variable " + name);
    ArrayAttr attrs;
    if (!attributes.is_none()) {
      SmallVector<StringRef> refs;
      std::vector<std::string> values =
          attributes.cast<std::vector<std::string>>();
      refs.assign(values.begin(), values.end());
      attrs = builder.getStrArrayAttr(refs);
    }
    SmallVector<Value> none;
    Attribute initAttr = init.is_none() ? Attribute() : convert(init, none);
    if (!none.empty())
      throw py::value_error("an initializer holds no registers");
    insertAt(funcId);
    VarOp::create(builder, location(loc), StringAttr::get(c, name),
                  StateSpaceAttr::get(c, *stateSpace),
                  LinkageAttr::get(c, *link), builder.getUI32IntegerAttr(align),
                  ScalarTypeAttr::get(c, *scalar),
                  builder.getUI32IntegerAttr(vec),
                  DenseI64ArrayAttr::get(c, dims), initAttr, attrs);
  }

  /// `.pragma "a", ...;` where it stands (func -1: module level).
  void pragmaAt(int funcId, const std::vector<std::string> &values,
                py::handle loc) {
    SmallVector<StringRef> refs(values.begin(), values.end());
    insertAt(funcId);
    PragmaOp::create(builder, location(loc), builder.getStrArrayAttr(refs));
  }

  /// `.loc file line column [, function_name sym [, inlined_at f l c]]`.
  void locFull(unsigned funcId, unsigned file, unsigned line, unsigned column,
               const std::string &functionName,
               const std::vector<int64_t> &inlinedAt) {
    insertAt(funcId);
    LocOp::create(builder, UnknownLoc::get(ctx.get()),
                  builder.getUI32IntegerAttr(file),
                  builder.getUI32IntegerAttr(line),
                  builder.getUI32IntegerAttr(column),
                  functionName.empty()
                      ? FlatSymbolRefAttr()
                      : FlatSymbolRefAttr::get(ctx.get(), functionName),
                  inlinedAt.empty()
                      ? DenseI64ArrayAttr()
                      : DenseI64ArrayAttr::get(ctx.get(), inlinedAt));
  }

  /// `.file index "path" [, timestamp, size]` at the end of the module.
  void fileFull(unsigned index, const std::string &path,
                std::optional<int64_t> timestamp, std::optional<int64_t> size) {
    insertAt(-1);
    FileOp::create(builder, UnknownLoc::get(ctx.get()), index, path,
                   timestamp ? builder.getI64IntegerAttr(*timestamp)
                             : IntegerAttr(),
                   size ? builder.getI64IntegerAttr(*size) : IntegerAttr());
  }

  /// `.section name { }` at the end of the module; returns its id for
  /// sectionLabel and data.
  unsigned section(const std::string &name, py::handle loc) {
    insertAt(-1);
    auto op = SectionOp::create(builder, location(loc), name);
    op.getBody().emplaceBlock();
    sections.push_back(op);
    return sections.size() - 1;
  }
  SectionOp sectionOf(unsigned id) {
    if (id >= sections.size())
      throw py::index_error("no section " + std::to_string(id));
    return sections[id];
  }
  void sectionLabel(unsigned id, const std::string &name) {
    builder.setInsertionPointToEnd(&sectionOf(id).getBody().front());
    LabelOp::create(builder, UnknownLoc::get(ctx.get()),
                    StringAttr::get(ctx.get(), name));
  }
  /// Data rows: row i has type types[i] and sizes[i] values taken in order
  /// from `values` (tagged operands), or, when sizes[i] < 0, -sizes[i]
  /// bytes taken from `bytes`.
  void data(unsigned id, const std::vector<std::string> &types,
            const std::vector<int32_t> &sizes, py::handle values,
            const py::bytes &bytes) {
    SectionOp op = sectionOf(id);
    SmallVector<int32_t> rowTypes;
    for (const std::string &name : types) {
      std::optional<ScalarType> t = symbolizeScalarType(name);
      if (!t)
        throw py::value_error("'" + name + "' is not a PTX type");
      rowTypes.push_back(int32_t(*t));
    }
    SmallVector<Value> none;
    SmallVector<Attribute> valueAttrs;
    for (py::handle v : py::reinterpret_borrow<py::sequence>(values))
      valueAttrs.push_back(PyLong_CheckExact(v.ptr())
                               ? convert(py::make_tuple("i", v), none)
                               : convert(v, none));
    if (!none.empty())
      throw py::value_error("data holds no registers");
    std::string_view raw = bytes;
    SmallVector<int8_t> byteValues(raw.begin(), raw.end());
    builder.setInsertionPointToEnd(&op.getBody().front());
    DataOp::create(builder, UnknownLoc::get(ctx.get()), rowTypes, sizes,
                   ArrayAttr::get(ctx.get(), valueAttrs), byteValues);
  }

  void alias(const std::string &name, const std::string &aliasee) {
    insertAt(-1);
    AliasOp::create(builder, UnknownLoc::get(ctx.get()),
                    FlatSymbolRefAttr::get(ctx.get(), name),
                    FlatSymbolRefAttr::get(ctx.get(), aliasee));
  }

  /// `name: .branchtargets a, b;` or `.calltargets`.
  void targetList(unsigned funcId, bool branch, const std::string &name,
                  const std::vector<std::string> &targets) {
    SmallVector<Attribute> refs;
    for (const std::string &t : targets)
      refs.push_back(FlatSymbolRefAttr::get(ctx.get(), t));
    insertAt(funcId);
    ArrayAttr list = ArrayAttr::get(ctx.get(), refs);
    if (branch)
      BranchTargetsOp::create(builder, UnknownLoc::get(ctx.get()), name, list);
    else
      CallTargetsOp::create(builder, UnknownLoc::get(ctx.get()), name, list);
  }

  void callPrototype(unsigned funcId, const std::string &name,
                     py::handle retParams, py::handle params, bool noreturn,
                     bool emptyRetList) {
    ArrayAttr rets = paramsOf(retParams), args = paramsOf(params);
    insertAt(funcId);
    CallPrototypeOp::create(builder, UnknownLoc::get(ctx.get()), name, rets,
                            args, noreturn, emptyRetList);
  }

  /// The canonical PTX of the module, or its MLIR when verification fails
  /// is not wanted (verify first).
  std::string canonicalPTX() {
    verify();
    std::string text;
    llvm::raw_string_ostream os(text);
    DiagnosticCollector diagnostics(ctx.get());
    if (failed(exportPTX(*module, os, /*canonical=*/true)))
      diagnostics.raise("PTX export failed");
    return text;
  }

  void verify() {
    finish();
    DiagnosticCollector diagnostics(ctx.get());
    if (failed(verifyBuilt(*module)))
      diagnostics.raise("the module does not verify");
    lastWarnings = diagnostics.warnings();
  }

  /// ParamEffects of the function named `name`: the parameters it may
  /// write through, and why that is every pointer parameter ("" when each
  /// write was attributed).
  std::pair<std::vector<std::string>, std::string>
  paramEffects(const std::string &name) {
    finish();
    for (auto func : module->getBodyBlock()->getOps<FuncOp>()) {
      if (func.getSymName() != name)
        continue;
      ParamEffects effects(func);
      std::vector<std::string> written;
      for (StringAttr param : effects.getWritten())
        written.push_back(param.str());
      return {written, effects.getReason()};
    }
    throw py::value_error("param_effects: no function '" + name +
                          "' in the module");
  }

  /// The hazard analysis's findings (HazardAnalysis.h) as tuples.
  std::vector<HazardTuple> checkHazards() {
    finish();
    return hazardTuples(module.get());
  }

  /// The warnings of the last verification (`--pyptx-isa=warn-unknown`'s
  /// undescribed instructions).
  std::vector<std::tuple<std::string, unsigned, unsigned, std::string>>
      lastWarnings;

  std::string ptx() {
    verify();
    std::string text;
    llvm::raw_string_ostream os(text);
    DiagnosticCollector diagnostics(ctx.get());
    if (failed(exportPTX(*module, os)))
      diagnostics.raise("PTX export failed");
    return text;
  }

  std::string mlirText() {
    finish();
    std::string text;
    llvm::raw_string_ostream os(text);
    module->print(os, OpPrintingFlags().enableDebugInfo(true, false)
                          .assumeVerified());
    return text;
  }

  unsigned getNumInstructions() const { return numInstructions; }

private:
  struct Prefix {
    Type type;
    unsigned classId = 0;
    /// The prefix's registers, in order: `%f0` is registers[ids[0]].
    SmallVector<unsigned> ids;
    /// The declarations that hold them until finish(), and the values of
    /// the last one not handed out yet.
    SmallVector<Operation *> holders;
    SmallVector<Value> unused;
  };
  struct Function {
    FuncOp op;
    SmallVector<Block *> scopes;
    /// Register prefixes in the order of their first register.
    std::vector<std::pair<std::string, Prefix>> prefixes;
    llvm::StringMap<unsigned> prefixIndex;
    llvm::StringMap<unsigned> specialRegisters;
    /// Registers raw PTX text declared outside any block, by name.
    llvm::StringMap<Value> rawRegisters;
  };

  /// The register function `funcId` knows as `name`: `%rd3` is register 3
  /// of prefix `%rd`; a name raw text declared; a special register.
  Value traceRegister(unsigned funcId, StringRef name) {
    Function &f = functions[funcId];
    if (auto it = f.rawRegisters.find(name); it != f.rawRegisters.end())
      return it->second;
    size_t digits = 0;
    while (digits < name.size() &&
           llvm::isDigit(name[name.size() - 1 - digits]))
      ++digits;
    // The builder numbers registers without leading zeros, up to 10^9.
    for (size_t n = std::min<size_t>(digits, 9); n > 0; --n) {
      StringRef index = name.take_back(n);
      if (index.size() > 1 && index[0] == '0')
        continue;
      auto it = f.prefixIndex.find(name.drop_back(n));
      if (it == f.prefixIndex.end())
        continue;
      const Prefix &p = f.prefixes[it->second].second;
      unsigned i = 0;
      index.getAsInteger(10, i);
      if (i < p.ids.size())
        return registers[p.ids[i]];
    }
    if (getSpecialRegisterWidth(name))
      return registers[sreg(funcId, name.str())];
    return {};
  }

  /// "the trace declares %r0..%r3, %p0" for an unknown register's error.
  std::string describeRegisters(const Function &f) {
    std::string text;
    for (auto &[prefix, p] : f.prefixes) {
      if (p.ids.empty())
        continue;
      text += text.empty() ? "the trace declares " : ", ";
      text += prefix + "0";
      if (p.ids.size() > 1)
        text += ".." + prefix + std::to_string(p.ids.size() - 1);
    }
    for (auto &entry : f.rawRegisters)
      text += (text.empty() ? "the trace declares " : ", ") +
              entry.getKey().str();
    if (text.empty())
      return "the trace declares no registers yet";
    return text + "; declare others with .reg inside a { } block of the text";
  }

  Function &function(unsigned id) {
    if (id >= functions.size())
      throw py::index_error("no function " + std::to_string(id));
    return functions[id];
  }

  Value value(int id) {
    if (id < 0 || size_t(id) >= registers.size())
      throw py::index_error("no register " + std::to_string(id));
    return registers[id];
  }

  /// `loc` as given, or, when it is None, the author's line on the Python
  /// stack.
  Location location(py::handle loc) {
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
      return UnknownLoc::get(ctx.get());
    auto [it, inserted] =
        locations.try_emplace(std::make_tuple(file.ptr(), line, column));
    if (inserted) {
      auto [known, newFile] = files.try_emplace(file.ptr());
      if (newFile) {
        known->second = StringAttr::get(ctx.get(), strRef(file));
        keptFiles.push_back(file);
      }
      it->second = FileLineColLoc::get(known->second, line, column);
    }
    return it->second;
  }

  /// `#pyptx.ref<index>`; the first operand positions without asking the
  /// uniquer each time.
  Attribute ref(unsigned index) {
    if (index < plainRefs.size())
      return plainRefs[index];
    return RegRefAttr::get(ctx.get(), index, "");
  }

  /// Appends pyptx.inst `opcode` with these operands to f's innermost scope
  /// (args: its registers, the guard first when `guarded`).
  void append(Function &f, py::handle opcodeObj, ArrayRef<Attribute> operands,
              ArrayRef<Value> args, bool guarded, bool negated,
              py::handle loc) {
    MLIRContext *c = ctx.get();
    StringRef opcode = strRef(opcodeObj);
    auto [cached, inserted] = opcodes.try_emplace(opcode);
    if (inserted) {
      SmallVector<StringRef, 8> parts;
      opcode.split(parts, '.');
      if (llvm::any_of(parts, [](StringRef p) { return p.empty(); })) {
        opcodes.erase(cached);
        throw py::value_error("malformed opcode '" + opcode.str() + "'");
      }
      SmallVector<Attribute, 8> modifiers;
      for (StringRef part : ArrayRef(parts).drop_front())
        modifiers.push_back(StringAttr::get(c, part));
      cached->second = {StringAttr::get(c, parts.front()),
                        ArrayAttr::get(c, modifiers)};
    }
    // Straight from the properties, as the importer does: the most frequent
    // op skips filling and tearing down an OperationState.
    InstOp::Properties properties;
    properties.setGuardNegated(negated ? builder.getUnitAttr() : UnitAttr());
    properties.setMnemonic(cached->second.first);
    properties.setModifiers(cached->second.second);
    properties.setPtxOperands(ArrayAttr::get(c, operands));
    properties.operandSegmentSizes = {guarded ? 1 : 0,
                                      int32_t(args.size()) - (guarded ? 1 : 0)};
    Operation *op = Operation::create(location(loc), *instName, {}, args,
                                      noAttributes,
                                      OpaqueProperties(&properties), {}, 0);
    f.scopes.back()->push_back(op);
    ++numInstructions;
  }

  /// A DSL operand object (see inst's `trace`) as an operand attribute.
  Attribute convertObject(PyObject *object, PyObject *trace, PyObject *ftype,
                          SmallVectorImpl<Value> &args) {
    const OperandClasses &classes = operandClasses;
    auto traceRegister = [&](PyObject *o) {
      return o && (PyObject *)Py_TYPE(o) == classes.reg &&
             slot(o, classes.regTrace) == trace && slot(o, classes.regId);
    };
    if (traceRegister(object))
      return convert(slot(object, classes.regId), args);
    if ((PyObject *)Py_TYPE(object) == classes.address &&
        slot(object, classes.addressCoords) == Py_None &&
        traceRegister(slot(object, classes.addressBase))) {
      // [r], [r+offset], [r+-offset]: ptxas reads no `-` after a register.
      Attribute base =
          convert(slot(slot(object, classes.addressBase), classes.regId), args);
      PyObject *offsetObj = slot(object, classes.addressOffset);
      long offset = offsetObj ? longArg(offsetObj) : 0;
      MLIRContext *c = ctx.get();
      if (offset)
        base = BinaryAttr::get(
            c, "+", base,
            offset >= 0 && size_t(offset) < smallImms.size()
                ? smallImms[offset]
                : ImmAttr::get(c, int64_t(offset), IntFormat::dec, false));
      return AddrAttr::get(c, {base});
    }
    if (!classes.fallback)
      throw py::type_error("Module.emit needs set_operand_classes first");
    py::object tagged = py::reinterpret_steal<py::object>(
        PyObject_CallFunctionObjArgs(classes.fallback, object, ftype, nullptr));
    if (!tagged)
      throw py::error_already_set();
    return convert(tagged, args);
  }

  /// One tagged operand tuple as an operand attribute; registers it names
  /// are appended to `args`.
  Attribute convert(py::handle operand, SmallVectorImpl<Value> &args) {
    MLIRContext *c = ctx.get();
    if (PyLong_CheckExact(operand.ptr())) { // a register id: ("r", id)
      args.push_back(value(int(longArg(operand.ptr()))));
      return ref(args.size() - 1);
    }
    if (!PyTuple_Check(operand.ptr()) || PyTuple_GET_SIZE(operand.ptr()) < 1)
      throw py::type_error("an operand is a tagged tuple, got " +
                           py::repr(operand).cast<std::string>());
    auto item = [&](Py_ssize_t i) {
      if (i >= PyTuple_GET_SIZE(operand.ptr()))
        throw py::type_error("operand " +
                             py::repr(operand).cast<std::string>() +
                             " lacks an element");
      return py::handle(PyTuple_GET_ITEM(operand.ptr(), i));
    };
    StringRef tag = strRef(item(0));
    auto list = [&](Py_ssize_t i) {
      SmallVector<Attribute, 4> elements;
      for (py::handle e : py::reinterpret_borrow<py::sequence>(item(i)))
        elements.push_back(convert(e, args));
      return elements;
    };
    if (tag == "r") {
      long id = PyLong_AsLong(item(1).ptr());
      if (id == -1 && PyErr_Occurred())
        throw py::error_already_set();
      args.push_back(value(int(id)));
      unsigned index = args.size() - 1;
      if (PyTuple_GET_SIZE(operand.ptr()) > 2)
        return RegRefAttr::get(c, index, strRef(item(2)));
      return ref(index);
    }
    if (tag == "n") {
      long classId = PyLong_AsLong(item(1).ptr());
      if (classId < 0 && PyErr_Occurred())
        throw py::error_already_set();
      if (created)
        throw py::value_error("an instruction creates one register at most");
      created = allocate(unsigned(classId));
      args.push_back(registers[*created]);
      return ref(args.size() - 1);
    }
    if (tag == "i") {
      int overflow = 0;
      long long v = PyLong_AsLongLongAndOverflow(item(1).ptr(), &overflow);
      if (v == -1 && PyErr_Occurred())
        throw py::error_already_set();
      if (!overflow && v >= 0 && size_t(v) < smallImms.size())
        return smallImms[v];
      if (!overflow)
        return ImmAttr::get(c, int64_t(v), IntFormat::dec, false);
      // 2^63 .. 2^64 - 1: PTX's unsigned 64-bit immediates.
      unsigned long long u = PyLong_AsUnsignedLongLong(item(1).ptr());
      if (PyErr_Occurred())
        throw py::error_already_set();
      return ImmAttr::get(c, uint64_t(u), false, IntFormat::dec, false, 0);
    }
    if (tag == "f32") {
      float f = item(1).cast<float>();
      return FloatImmAttr::get(c, llvm::bit_cast<uint32_t>(f), false, false,
                               false);
    }
    if (tag == "f64") {
      double d = item(1).cast<double>();
      return FloatImmAttr::get(c, llvm::bit_cast<uint64_t>(d), true, false,
                               false);
    }
    if (tag == "I") // (I, magnitude, negative, format, unsigned, digits)
      return ImmAttr::get(c, item(1).cast<uint64_t>(), item(2).cast<bool>(),
                          IntFormat(item(3).cast<int>()), item(4).cast<bool>(),
                          item(5).cast<unsigned>());
    if (tag == "F") // (F, bits, is_double, upper_prefix, lower_digits)
      return FloatImmAttr::get(c, item(1).cast<uint64_t>(),
                               item(2).cast<bool>(), item(3).cast<bool>(),
                               item(4).cast<bool>());
    if (tag == "D") // (D, value, digits after the point)
      return DecFloatAttr::get(c, llvm::APFloat(item(1).cast<double>()),
                               item(2).cast<unsigned>());
    if (tag == "u") // (u, "~" or "-", operand)
      return UnaryAttr::get(c, strRef(item(1)), convert(item(2), args));
    if (tag == "fn") // (fn, name, [args]): generic(sym), mask(0xff, sym)
      return FuncExprAttr::get(c, StringAttr::get(c, strRef(item(1))),
                               list(2));
    if (tag == "s")
      return FlatSymbolRefAttr::get(c, strRef(item(1)));
    if (tag == "a")
      return AddrAttr::get(c, list(1));
    if (tag == "v")
      return VectorAttr::get(c, list(1));
    if (tag == "p")
      return ParenAttr::get(c, list(1));
    if (tag == "!")
      return NotAttr::get(c, convert(item(1), args));
    if (tag == "_")
      return SinkAttr::get(c);
    static const char *const binaryOps[] = {
        "+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^",
        "&&", "||", "==", "!=", "<", ">", "<=", ">="};
    if (llvm::is_contained(binaryOps, tag)) {
      Attribute lhs = convert(item(1), args);
      Attribute rhs = convert(item(2), args);
      return BinaryAttr::get(c, tag, lhs, rhs);
    }
    throw py::value_error("unknown operand tag '" + tag.str() + "'");
  }

  /// mlir::verify less what this builder guarantees by construction (2k of
  /// 17k machine instructions per PTX instruction): an instruction's ODS
  /// invariants (inst() sets its properties and operands itself) and
  /// dominance (every register is declared at the top of its function,
  /// finish()). Each
  /// instruction still meets InstOp::verify (operand forms, the ISA), and
  /// every instruction is checked, so all bad ones are reported at once.
  LogicalResult verifyBuilt(Operation *op) {
    if (auto inst = dyn_cast<InstOp>(op))
      return inst.verify();
    if (failed(op->getName().verifyInvariants(op)))
      return failure();
    bool ok = true;
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (Operation &nested : block)
          ok &= succeeded(verifyBuilt(&nested));
    return success(ok && succeeded(op->getName().verifyRegionInvariants(op)));
  }

  /// Declares each register prefix once, at the top of its function:
  /// `.reg .f32 %f<12>;`.
  void finish() {
    if (!dirty)
      return;
    MLIRContext *c = ctx.get();
    for (Function &f : functions) {
      Block &body = f.op.getBody().front();
      Operation *previous = nullptr;
      for (auto &[prefix, p] : f.prefixes) {
        // In order of first use. Each time anew: the op the builder stood
        // before may be a placeholder erased below.
        if (previous)
          builder.setInsertionPointAfter(previous);
        else
          builder.setInsertionPointToStart(&body);
        SmallVector<Type> types(p.ids.size(), p.type);
        auto declared = RegOp::create(
            builder, UnknownLoc::get(c), types, TypeAttr::get(p.type),
            ArrayAttr::get(c, {StringAttr::get(c, prefix)}),
            DenseI64ArrayAttr::get(c, {int64_t(p.ids.size())}));
        previous = declared;
        for (auto [i, id] : llvm::enumerate(p.ids)) {
          registers[id].replaceAllUsesWith(declared.getResult(i));
          registers[id] = declared.getResult(i);
        }
        for (Operation *holder : p.holders)
          holder->erase();
        p.holders = {declared};
        p.unused.clear();
      }
    }
    dirty = false;
  }

  std::unique_ptr<MLIRContext> ctx;
  /// Attributes most instructions use, made once: `#pyptx.ref<i>` for the
  /// first operand positions, immediates 0..255.
  SmallVector<Attribute, 8> plainRefs;
  SmallVector<Attribute, 256> smallImms;
  /// pyptx.inst's name and an empty attribute dictionary, looked up once.
  std::optional<OperationName> instName;
  DictionaryAttr noAttributes;
  /// Locations by (file object, line, column): an unrolled Python loop
  /// emits from a few lines. Holding the file objects keeps their
  /// addresses their own.
  llvm::DenseMap<std::tuple<PyObject *, unsigned, unsigned>, LocationAttr>
      locations;
  llvm::DenseMap<PyObject *, StringAttr> files;
  std::vector<py::object> keptFiles;
  OpBuilder builder;
  OwningOpRef<ModuleOp> module;
  std::vector<Function> functions;
  /// Sections made by section(), by id.
  std::vector<SectionOp> sections;
  std::vector<Value> registers;
  /// Register classes: (function, index of the prefix in it).
  std::vector<std::pair<unsigned, unsigned>> classes;
  /// The register the instruction being built creates.
  std::optional<unsigned> created;
  llvm::StringMap<std::pair<StringAttr, ArrayAttr>> opcodes;
  unsigned numInstructions = 0;
  bool dirty = false;
};

//===----------------------------------------------------------------------===//
// The per-instruction entry points, as METH_FASTCALL methods: pybind11's
// dispatcher (overload resolution, argument casters) costs as much as
// building the operation.
//===----------------------------------------------------------------------===//

/// The builder of a Module object: the method descriptors below are made
/// for the Module type, so Python only calls them with one as `self`.
ModuleBuilder &builderOf(PyObject *self) {
  return cppObject<ModuleBuilder>(self, "Module");
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

/// Module.inst(func, opcode, operands, guard=-1, negated=False, loc=None).
PyObject *instMethod(PyObject *self, PyObject *const *args, Py_ssize_t n) {
  return fastCall([&]() -> PyObject * {
    if (n < 3 || n > 6)
      throw py::type_error("inst(func, opcode, operands, guard=-1, "
                           "negated=False, loc=None) takes 3 to 6 positional "
                           "arguments, got " + std::to_string(n));
    unsigned func = unsignedArg(args[0], "func");
    int guard = n > 3 ? int(longArg(args[3])) : -1;
    int negated = n > 4 ? PyObject_IsTrue(args[4]) : 0;
    if (negated < 0)
      throw py::error_already_set();
    py::handle loc = n > 5 ? py::handle(args[5]) : py::none();
    return idOrNone(
        builderOf(self).inst(func, args[1], args[2], guard, negated, loc));
  });
}

/// Module.emit(func, opcode, operands, trace, ftype).
PyObject *emitMethod(PyObject *self, PyObject *const *args, Py_ssize_t n) {
  return fastCall([&]() -> PyObject * {
    if (n != 5)
      throw py::type_error("emit(func, opcode, operands, trace, ftype) takes 5 "
                           "positional arguments, got " + std::to_string(n));
    return idOrNone(builderOf(self).inst(unsignedArg(args[0], "func"),
                                         args[1], args[2], -1, false,
                                         py::none(), args[3], args[4]));
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
    return builderOf(self).binary(unsignedArg(args[0], "func"), args[1],
                                  args[2], args[3], args[4],
                                  PyObject_IsTrue(args[5]) == 1);
  });
}

/// Module.new_reg(reg_class).
PyObject *newRegMethod(PyObject *self, PyObject *const *args, Py_ssize_t n) {
  return fastCall([&]() -> PyObject * {
    if (n != 1)
      throw py::type_error("new_reg(reg_class) takes 1 argument");
    return PyLong_FromUnsignedLong(
        builderOf(self).allocate(unsignedArg(args[0], "reg_class")));
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

/// PTX text -> its hazard findings (pyptx.check); raises on unreadable PTX.
std::vector<HazardTuple> checkPTXHazards(const std::string &text,
                                         const std::string &filename) {
  auto ctx = makeContext(ptxisa::Policy::Off);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(text, filename), llvm::SMLoc());
  DiagnosticCollector diagnostics(ctx.get());
  OwningOpRef<Operation *> op = importPTX(sourceMgr, ctx.get());
  if (!op || failed(mlir::verify(*op)))
    diagnostics.raise("import failed");
  return hazardTuples(op.get());
}

std::string importText(const std::string &text, const std::string &filename) {
  auto ctx = makeContext(ptxisa::Policy::Strict);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(text, filename), llvm::SMLoc());
  DiagnosticCollector diagnostics(ctx.get());
  OwningOpRef<Operation *> op = importPTX(sourceMgr, ctx.get());
  if (!op || failed(mlir::verify(*op)))
    diagnostics.raise("import failed");
  std::string out;
  llvm::raw_string_ostream os(out);
  op->print(os);
  return out;
}

std::string exportText(const std::string &mlirText) {
  auto ctx = makeContext(ptxisa::Policy::Strict);
  DiagnosticCollector diagnostics(ctx.get());
  OwningOpRef<Operation *> op =
      parseSourceString(mlirText, ParserConfig(ctx.get()));
  if (!op)
    diagnostics.raise("the MLIR text does not parse");
  std::string out;
  llvm::raw_string_ostream os(out);
  if (failed(exportPTX(op.get(), os)))
    diagnostics.raise("PTX export failed");
  return out;
}

/// PTX text -> the transpiler's Python program (--export-python), in one
/// step: the diagnostics (import errors, constructs the DSL cannot express)
/// are located in the PTX text.
std::string ptxToPython(const std::string &text, const std::string &filename,
                        const std::string &name, const std::string &isaPolicy,
                        bool sugar) {
  auto ctx = makeContext(parsePolicy(isaPolicy));
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(text, filename), llvm::SMLoc());
  DiagnosticCollector diagnostics(ctx.get());
  OwningOpRef<Operation *> op = importPTX(sourceMgr, ctx.get());
  if (!op || failed(mlir::verify(*op)))
    diagnostics.raise("import failed");
  PythonExportOptions options;
  options.name = name;
  options.isaPolicy = isaPolicy;
  options.sugar = sugar;
  std::string out;
  llvm::raw_string_ostream os(out);
  if (failed(exportPython(op.get(), os, options)))
    diagnostics.raise("Python export failed");
  return out;
}

} // namespace

PYBIND11_MODULE(_native, m) {
  m.doc() = "pyptx's native builder over the pyptx MLIR dialect";
  ptxErrorType = PyErr_NewExceptionWithDoc(
      "pyptx._native.PTXError",
      "Diagnostics of a failed verification, import or build step; "
      "`diagnostics` lists (severity, file, line, column, message).",
      PyExc_RuntimeError, nullptr);
  m.attr("PTXError") = py::handle(ptxErrorType);

  py::class_<ModuleBuilder> module(m, "Module");
  module
      .def(py::init<std::pair<unsigned, unsigned>, const std::string &,
                    unsigned, const std::string &>(),
           py::arg("version"), py::arg("target"), py::arg("address_size") = 64,
           py::arg("isa_policy") = "strict")
      .def("add_function", &ModuleBuilder::addFunction, py::arg("name"),
           py::arg("entry") = true,
           py::arg("params") =
               std::vector<std::pair<std::string, std::string>>{},
           py::arg("directives") =
               std::vector<std::pair<std::string, std::vector<int64_t>>>{},
           py::arg("linkage") = "visible",
           py::arg("loc") = py::make_tuple("", 0, 0))
      .def("add_param", &ModuleBuilder::addParam, py::arg("func"),
           py::arg("name"), py::arg("type"), py::arg("align") = 0,
           py::arg("count") = 0)
      .def("add_shared", &ModuleBuilder::addShared, py::arg("func"),
           py::arg("name"), py::arg("type"), py::arg("count"),
           py::arg("align") = 16, py::arg("extern") = false,
           py::arg("loc") = py::make_tuple("", 0, 0))
      .def("reg", &ModuleBuilder::reg, py::arg("func"), py::arg("type"),
           py::arg("prefix"), py::arg("vec") = 1)
      .def("reg_class", &ModuleBuilder::regClass, py::arg("func"),
           py::arg("type"), py::arg("prefix"), py::arg("vec") = 1)
      .def("sreg", &ModuleBuilder::sreg, py::arg("func"), py::arg("name"))
      .def("reg_name", &ModuleBuilder::regName, py::arg("reg"))
      .def("label", &ModuleBuilder::label, py::arg("func"), py::arg("name"),
           py::arg("loc") = py::make_tuple("", 0, 0))
      .def("open_scope", &ModuleBuilder::openScope, py::arg("func"),
           py::arg("loc") = py::make_tuple("", 0, 0))
      .def("close_scope", &ModuleBuilder::closeScope, py::arg("func"))
      .def("loc_directive", &ModuleBuilder::locDirective, py::arg("func"),
           py::arg("file_index"), py::arg("line"), py::arg("column"))
      .def("add_file", &ModuleBuilder::addFile, py::arg("index"),
           py::arg("path"))
      .def("raw", &ModuleBuilder::raw, py::arg("func"), py::arg("text"),
           py::arg("loc") = py::none())
      .def("add_var", &ModuleBuilder::addVar, py::arg("func"),
           py::arg("space"), py::arg("type"), py::arg("name"),
           py::arg("size") = py::none(), py::arg("align") = 0,
           py::arg("linkage") = "", py::arg("loc") = py::make_tuple("", 0, 0))
      .def("pragma", &ModuleBuilder::pragma, py::arg("func"),
           py::arg("values"), py::arg("loc") = py::make_tuple("", 0, 0))
      .def("comment", &ModuleBuilder::comment, py::arg("func"),
           py::arg("text"), py::arg("loc") = py::make_tuple("", 0, 0))
      .def("set_header", &ModuleBuilder::setHeader, py::arg("targets"),
           py::arg("address_size"))
      .def("set_undeclared", &ModuleBuilder::setUndeclared, py::arg("names"))
      .def("add_function_full", &ModuleBuilder::addFunctionFull,
           py::arg("name"), py::arg("kind"), py::arg("linkage"),
           py::arg("params"), py::arg("ret_params"), py::arg("directives"),
           py::arg("has_body"), py::arg("no_param_list"),
           py::arg("empty_ret_list"), py::arg("loc") = py::make_tuple("", 0, 0))
      .def("declare", &ModuleBuilder::declare, py::arg("func"),
           py::arg("type"), py::arg("vec"), py::arg("names"),
           py::arg("loc") = py::make_tuple("", 0, 0))
      .def("undeclared_register", &ModuleBuilder::undeclaredRegister,
           py::arg("func"), py::arg("name"), py::arg("type"))
      .def("add_var_full", &ModuleBuilder::addVarFull, py::arg("func"),
           py::arg("linkage"), py::arg("space"), py::arg("attributes"),
           py::arg("align"), py::arg("vec"), py::arg("type"), py::arg("name"),
           py::arg("dims"), py::arg("init"),
           py::arg("loc") = py::make_tuple("", 0, 0))
      .def("pragma_at", &ModuleBuilder::pragmaAt, py::arg("func"),
           py::arg("values"), py::arg("loc") = py::make_tuple("", 0, 0))
      .def("loc_full", &ModuleBuilder::locFull, py::arg("func"),
           py::arg("file"), py::arg("line"), py::arg("column"),
           py::arg("function_name"), py::arg("inlined_at"))
      .def("file_full", &ModuleBuilder::fileFull, py::arg("index"),
           py::arg("path"), py::arg("timestamp"), py::arg("size"))
      .def("section", &ModuleBuilder::section, py::arg("name"),
           py::arg("loc") = py::make_tuple("", 0, 0))
      .def("section_label", &ModuleBuilder::sectionLabel, py::arg("section"),
           py::arg("name"))
      .def("data", &ModuleBuilder::data, py::arg("section"), py::arg("types"),
           py::arg("sizes"), py::arg("values"), py::arg("bytes"))
      .def("alias", &ModuleBuilder::alias, py::arg("name"),
           py::arg("aliasee"))
      .def("target_list", &ModuleBuilder::targetList, py::arg("func"),
           py::arg("branch"), py::arg("name"), py::arg("targets"))
      .def("call_prototype", &ModuleBuilder::callPrototype, py::arg("func"),
           py::arg("name"), py::arg("ret_params"), py::arg("params"),
           py::arg("noreturn"), py::arg("empty_ret_list"))
      .def("canonical_ptx", &ModuleBuilder::canonicalPTX)
      .def("verify", &ModuleBuilder::verify)
      .def("ptx", &ModuleBuilder::ptx)
      .def("mlir", &ModuleBuilder::mlirText)
      .def("param_effects", &ModuleBuilder::paramEffects, py::arg("name"))
      .def("check_hazards", &ModuleBuilder::checkHazards)
      .def_property_readonly("num_instructions",
                             &ModuleBuilder::getNumInstructions)
      .def_readonly("warnings", &ModuleBuilder::lastWarnings,
                    "(file, line, column, message) of each warning of the "
                    "last verify()/ptx()");
  for (PyMethodDef &def : fastMethods)
    module.attr(def.ml_name) = py::reinterpret_steal<py::object>(
        PyDescr_NewMethod((PyTypeObject *)module.ptr(), &def));

  m.def(
      "set_internal_dirs",
      [](std::vector<std::string> dirs) { internalDirs = std::move(dirs); },
      py::arg("dirs"),
      "Directories whose code is not the kernel author's: inst(loc=None) "
      "takes the location of the innermost frame outside them.");
  m.def(
      "set_operand_classes",
      [](py::handle reg, py::handle address, py::handle fallback,
         py::handle ptxType) {
        OperandClasses classes;
        classes.regId = slotOffset(reg, "id");
        classes.regTrace = slotOffset(reg, "ctx");
        classes.regType = slotOffset(reg, "dtype");
        classes.regSpecial = slotOffset(reg, "special");
        classes.typeName = slotOffset(ptxType, "name");
        classes.typeRegType = slotOffset(ptxType, "reg_type");
        classes.addressBase = slotOffset(address, "base");
        classes.addressOffset = slotOffset(address, "offset");
        classes.addressCoords = slotOffset(address, "coords");
        classes.reg = reg.inc_ref().ptr();
        classes.address = address.inc_ref().ptr();
        classes.fallback = fallback.inc_ref().ptr();
        operandClasses = classes;
      },
      py::arg("reg"), py::arg("address"), py::arg("fallback"),
      py::arg("ptx_type"),
      "The DSL's register class (slots id, ctx, dtype, special), address "
      "class (slots base, offset, coords), fallback(value, ftype) -> tagged "
      "operand and type class (slots name, reg_type), for Module.emit and "
      "Module.binary.");
  m.def(
      "caller_location",
      [] {
        auto [file, line, column] = callerPosition();
        return py::make_tuple(file, line, column);
      },
      "The (file, line, column) inst(loc=None) would use.");
  m.def(
      "opcode_problem",
      [](const std::string &opcode) -> std::optional<std::string> {
        SmallVector<StringRef, 8> parts;
        StringRef(opcode).split(parts, '.');
        std::optional<ptxisa::Problem> problem =
            ptxisa::matchModifiers(parts.front(),
                                   ArrayRef(parts).drop_front())
                .problem;
        if (!problem)
          return std::nullopt;
        return problem->message;
      },
      py::arg("opcode"),
      "Why the ISA description takes no form of this opcode (mnemonic and "
      "modifiers), or None.");
  m.def("import_ptx", &importText, py::arg("text"),
        py::arg("filename") = "<ptx>");
  m.def("export_ptx", &exportText, py::arg("mlir"));
  m.def("check_ptx_hazards", &checkPTXHazards, py::arg("text"),
        py::arg("filename") = "<ptx>");
  m.def("ptx_to_python", &ptxToPython, py::arg("text"),
        py::arg("filename") = "<ptx>", py::arg("name") = "",
        py::arg("isa_policy") = "strict", py::arg("sugar") = false);
}
