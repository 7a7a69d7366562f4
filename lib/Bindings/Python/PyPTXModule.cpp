//===- PyPTXModule.cpp - pyptx._native: the builder for Python ------------===//
//
// The Python DSL's only way into the dialect (python/pyptx/_native.pyi is the
// contract): Module is the builder library's ModuleBuilder, its arguments
// converted from Python (Operands.cpp), its errors raised as Python
// exceptions (Diagnostics.cpp); the per-instruction methods are in
// FastCalls.cpp.
//
//===----------------------------------------------------------------------===//

#include "Binding.h"

#include "pyptx/Builder/Text.h"

#include <pybind11/stl.h>

using namespace mlir;
using namespace pyptx;
using namespace pyptx::python;

using builder::ModuleBuilder;

namespace {

/// Hazard findings for Python: (kind, message, file, line, column,
/// cause_file, cause_line, cause_column) each.
py::list hazardTuples(const std::vector<HazardRecord> &records) {
  py::list out;
  for (const HazardRecord &h : records)
    out.append(py::make_tuple(h.kind, h.message, h.file, h.line, h.column,
                              h.causeFile, h.causeLine, h.causeColumn));
  return out;
}

/// ("", 0, 0): no location.
py::tuple noLocation() { return py::make_tuple("", 0, 0); }

std::vector<builder::Directive> directivesOf(py::handle directives) {
  std::vector<builder::Directive> out;
  for (py::handle d : py::reinterpret_borrow<py::sequence>(directives)) {
    py::tuple t = py::reinterpret_borrow<py::tuple>(d);
    builder::Directive &directive = out.emplace_back();
    directive.name = t[0].cast<std::string>();
    for (py::handle v : py::reinterpret_borrow<py::sequence>(t[1])) {
      if (py::isinstance<py::str>(v))
        directive.values.emplace_back(v.cast<std::string>());
      else
        directive.values.emplace_back(v.cast<int64_t>());
    }
  }
  return out;
}

/// Tagged operands without registers' lists (data values, initializers).
builder::Operands operandsOf(ModuleBuilder &b, py::handle values,
                             bool intsAreImmediates) {
  builder::Operands operands;
  for (py::handle v : py::reinterpret_borrow<py::sequence>(values))
    operands.list.push_back(intsAreImmediates && PyLong_CheckExact(v.ptr())
                                ? convert(b, py::make_tuple("i", v), operands)
                                : convert(b, v, operands));
  return operands;
}

} // namespace

PYBIND11_MODULE(_native, m) {
  m.doc() = "pyptx's native builder over the pyptx MLIR dialect";
  // Under pyptx.errors.PyptxError, the base of every pyptx error, and
  // RuntimeError, its base before there was one.
  py::object pyptxError = py::module_::import("pyptx.errors").attr("PyptxError");
  py::tuple bases = py::make_tuple(pyptxError, py::handle(PyExc_RuntimeError));
  ptxErrorType = PyErr_NewExceptionWithDoc(
      "pyptx._native.PTXError",
      "Diagnostics of a failed verification, import or build step; "
      "`diagnostics` lists (severity, file, line, column, message).",
      bases.ptr(), nullptr);
  m.attr("PTXError") = py::handle(ptxErrorType);

  py::class_<PyModule> module(m, "Module");
  module
      .def(py::init([](std::pair<unsigned, unsigned> version,
                       const std::string &target, unsigned addressSize,
                       const std::string &policy) {
             return std::make_unique<PyModule>(
                 version.first, version.second, target, addressSize,
                 unwrap(builder::parsePolicy(policy)));
           }),
           py::arg("version"), py::arg("target"), py::arg("address_size") = 64,
           py::arg("isa_policy") = "strict")
      .def(
          "add_function",
          [](PyModule &self, const std::string &name, bool entry,
             const std::vector<std::pair<std::string, std::string>> &params,
             const std::vector<std::pair<std::string, std::vector<int64_t>>>
                 &directives,
             const std::string &linkage, py::handle loc) {
            return unwrap(self.builder.addFunction(
                name, entry, params, directives, linkage, self.location(loc)));
          },
          py::arg("name"), py::arg("entry") = true,
          py::arg("params") =
              std::vector<std::pair<std::string, std::string>>{},
          py::arg("directives") =
              std::vector<std::pair<std::string, std::vector<int64_t>>>{},
          py::arg("linkage") = "visible", py::arg("loc") = noLocation())
      .def(
          "add_param",
          [](PyModule &self, unsigned func, const std::string &name,
             const std::string &type, unsigned align, int64_t count) {
            unwrap(self.builder.addParam(func, name, type, align, count));
          },
          py::arg("func"), py::arg("name"), py::arg("type"),
          py::arg("align") = 0, py::arg("count") = 0)
      .def(
          "add_shared",
          [](PyModule &self, unsigned func, const std::string &name,
             const std::string &type, int64_t count, unsigned align,
             bool external, py::handle loc) {
            unwrap(self.builder.addShared(func, name, type, count, align,
                                          external, self.location(loc)));
          },
          py::arg("func"), py::arg("name"), py::arg("type"), py::arg("count"),
          py::arg("align") = 16, py::arg("extern") = false,
          py::arg("loc") = noLocation())
      .def(
          "reg",
          [](PyModule &self, unsigned func, const std::string &type,
             const std::string &prefix, unsigned vec) {
            return unwrap(self.builder.reg(func, type, prefix, vec));
          },
          py::arg("func"), py::arg("type"), py::arg("prefix"),
          py::arg("vec") = 1)
      .def(
          "reg_class",
          [](PyModule &self, unsigned func, const std::string &type,
             const std::string &prefix, unsigned vec) {
            return unwrap(self.builder.regClass(func, type, prefix, vec));
          },
          py::arg("func"), py::arg("type"), py::arg("prefix"),
          py::arg("vec") = 1)
      .def(
          "sreg",
          [](PyModule &self, unsigned func, const std::string &name) {
            return unwrap(self.builder.sreg(func, name));
          },
          py::arg("func"), py::arg("name"))
      .def(
          "reg_name",
          [](PyModule &self, unsigned id) {
            return unwrap(self.builder.regName(id));
          },
          py::arg("reg"))
      .def(
          "label",
          [](PyModule &self, unsigned func, const std::string &name,
             py::handle loc) {
            unwrap(self.builder.label(func, name, self.location(loc)));
          },
          py::arg("func"), py::arg("name"), py::arg("loc") = noLocation())
      .def(
          "open_scope",
          [](PyModule &self, unsigned func, py::handle loc) {
            unwrap(self.builder.openScope(func, self.location(loc)));
          },
          py::arg("func"), py::arg("loc") = noLocation())
      .def(
          "close_scope",
          [](PyModule &self, unsigned func) {
            unwrap(self.builder.closeScope(func));
          },
          py::arg("func"))
      .def(
          "loc_directive",
          [](PyModule &self, unsigned func, unsigned file, unsigned line,
             unsigned column) {
            unwrap(self.builder.locDirective(func, file, line, column));
          },
          py::arg("func"), py::arg("file_index"), py::arg("line"),
          py::arg("column"))
      .def(
          "add_file",
          [](PyModule &self, unsigned index, const std::string &path) {
            self.builder.addFile(index, path);
          },
          py::arg("index"), py::arg("path"))
      .def(
          "raw",
          [](PyModule &self, unsigned func, const std::string &text,
             py::handle loc) {
            unwrap(self.builder.checkFunction(func));
            unwrap(self.builder.raw(func, text, self.location(loc)));
          },
          py::arg("func"), py::arg("text"), py::arg("loc") = py::none())
      .def(
          "add_var",
          [](PyModule &self, unsigned func, const std::string &space,
             const std::string &type, const std::string &name,
             std::optional<int64_t> size, unsigned align,
             const std::string &linkage, py::handle loc) {
            unwrap(self.builder.addVar(func, space, type, name, size, align,
                                       linkage, self.location(loc)));
          },
          py::arg("func"), py::arg("space"), py::arg("type"), py::arg("name"),
          py::arg("size") = py::none(), py::arg("align") = 0,
          py::arg("linkage") = "", py::arg("loc") = noLocation())
      .def(
          "pragma",
          [](PyModule &self, unsigned func,
             const std::vector<std::string> &values, py::handle loc) {
            unwrap(self.builder.pragma(func, values, self.location(loc)));
          },
          py::arg("func"), py::arg("values"), py::arg("loc") = noLocation())
      .def(
          "comment",
          [](PyModule &self, unsigned func, const std::string &text,
             py::handle loc) {
            unwrap(self.builder.comment(func, text, self.location(loc)));
          },
          py::arg("func"), py::arg("text"), py::arg("loc") = noLocation())
      .def(
          "set_header",
          [](PyModule &self, const std::vector<std::string> &targets,
             unsigned addressSize) {
            self.builder.setHeader(targets, addressSize);
          },
          py::arg("targets"), py::arg("address_size"))
      .def(
          "set_undeclared",
          [](PyModule &self, const std::vector<std::string> &names) {
            self.builder.setUndeclared(names);
          },
          py::arg("names"))
      .def(
          "add_function_full",
          [](PyModule &self, const std::string &name, const std::string &kind,
             const std::string &linkage, py::handle params,
             py::handle retParams, py::handle directives, bool hasBody,
             bool noParamList, bool emptyRetList, py::handle loc) {
            std::vector<builder::Directive> directiveList =
                directivesOf(directives);
            return unwrap(self.builder.addFunctionFull(
                name, kind, linkage, paramSpecs(params),
                paramSpecs(retParams), directiveList, hasBody, noParamList,
                emptyRetList, self.location(loc)));
          },
          py::arg("name"), py::arg("kind"), py::arg("linkage"),
          py::arg("params"), py::arg("ret_params"), py::arg("directives"),
          py::arg("has_body"), py::arg("no_param_list"),
          py::arg("empty_ret_list"), py::arg("loc") = noLocation())
      .def(
          "declare",
          [](PyModule &self, unsigned func, const std::string &type,
             unsigned vec,
             const std::vector<std::pair<std::string, int64_t>> &names,
             py::handle loc) {
            return unwrap(self.builder.declare(func, type, vec, names,
                                               self.location(loc)));
          },
          py::arg("func"), py::arg("type"), py::arg("vec"), py::arg("names"),
          py::arg("loc") = noLocation())
      .def(
          "undeclared_register",
          [](PyModule &self, unsigned func, const std::string &name,
             const std::string &type) {
            return unwrap(self.builder.undeclaredRegister(func, name, type));
          },
          py::arg("func"), py::arg("name"), py::arg("type"))
      .def(
          "add_var_full",
          [](PyModule &self, int func, const std::string &linkage,
             const std::string &space, py::handle attributes, unsigned align,
             unsigned vec, const std::string &type, const std::string &name,
             const std::vector<int64_t> &dims, py::handle init,
             py::handle loc) {
            std::optional<std::vector<std::string>> words;
            if (!attributes.is_none())
              words = attributes.cast<std::vector<std::string>>();
            std::optional<builder::Operands> initOperands;
            if (!init.is_none())
              initOperands =
                  operandsOf(self.builder, py::make_tuple(init), false);
            unwrap(self.builder.addVarFull(
                func, linkage, space, words, align, vec, type, name, dims,
                initOperands ? &*initOperands : nullptr, self.location(loc)));
          },
          py::arg("func"), py::arg("linkage"), py::arg("space"),
          py::arg("attributes"), py::arg("align"), py::arg("vec"),
          py::arg("type"), py::arg("name"), py::arg("dims"), py::arg("init"),
          py::arg("loc") = noLocation())
      .def(
          "pragma_at",
          [](PyModule &self, int func, const std::vector<std::string> &values,
             py::handle loc) {
            unwrap(self.builder.pragmaAt(func, values, self.location(loc)));
          },
          py::arg("func"), py::arg("values"), py::arg("loc") = noLocation())
      .def(
          "loc_full",
          [](PyModule &self, unsigned func, unsigned file, unsigned line,
             unsigned column, const std::string &functionName,
             const std::vector<int64_t> &inlinedAt) {
            unwrap(self.builder.locFull(func, file, line, column, functionName,
                                        inlinedAt));
          },
          py::arg("func"), py::arg("file"), py::arg("line"), py::arg("column"),
          py::arg("function_name"), py::arg("inlined_at"))
      .def(
          "file_full",
          [](PyModule &self, unsigned index, const std::string &path,
             std::optional<int64_t> timestamp, std::optional<int64_t> size) {
            self.builder.fileFull(index, path, timestamp, size);
          },
          py::arg("index"), py::arg("path"), py::arg("timestamp"),
          py::arg("size"))
      .def(
          "section",
          [](PyModule &self, const std::string &name, py::handle loc) {
            return self.builder.section(name, self.location(loc));
          },
          py::arg("name"), py::arg("loc") = noLocation())
      .def(
          "section_label",
          [](PyModule &self, unsigned section, const std::string &name) {
            unwrap(self.builder.sectionLabel(section, name));
          },
          py::arg("section"), py::arg("name"))
      .def(
          "data",
          [](PyModule &self, unsigned section,
             const std::vector<std::string> &types,
             const std::vector<int32_t> &sizes, py::handle values,
             const py::bytes &bytes) {
            std::string_view raw = bytes;
            std::vector<int8_t> byteValues(raw.begin(), raw.end());
            unwrap(self.builder.data(section, types, sizes,
                                     operandsOf(self.builder, values, true),
                                     byteValues));
          },
          py::arg("section"), py::arg("types"), py::arg("sizes"),
          py::arg("values"), py::arg("bytes"))
      .def(
          "alias",
          [](PyModule &self, const std::string &name,
             const std::string &aliasee) { self.builder.alias(name, aliasee); },
          py::arg("name"), py::arg("aliasee"))
      .def(
          "target_list",
          [](PyModule &self, unsigned func, bool branch,
             const std::string &name, const std::vector<std::string> &targets) {
            unwrap(self.builder.targetList(func, branch, name, targets));
          },
          py::arg("func"), py::arg("branch"), py::arg("name"),
          py::arg("targets"))
      .def(
          "call_prototype",
          [](PyModule &self, unsigned func, const std::string &name,
             py::handle retParams, py::handle params, bool noreturn,
             bool emptyRetList) {
            unwrap(self.builder.callPrototype(func, name,
                                              paramSpecs(retParams),
                                              paramSpecs(params), noreturn,
                                              emptyRetList));
          },
          py::arg("func"), py::arg("name"), py::arg("ret_params"),
          py::arg("params"), py::arg("noreturn"), py::arg("empty_ret_list"))
      .def("canonical_ptx",
           [](PyModule &self) { return unwrap(self.builder.ptx(true)); })
      .def("verify", [](PyModule &self) { unwrap(self.builder.verify()); })
      .def("ptx", [](PyModule &self) { return unwrap(self.builder.ptx()); })
      .def("mlir", [](PyModule &self) { return self.builder.mlirText(); })
      .def(
          "param_effects",
          [](PyModule &self, const std::string &name) {
            return unwrap(self.builder.paramEffects(name));
          },
          py::arg("name"))
      .def("check_hazards",
           [](PyModule &self) {
             return hazardTuples(self.builder.checkHazards());
           })
      .def_property_readonly("num_instructions",
                             [](PyModule &self) {
                               return self.builder.getNumInstructions();
                             })
      .def_property_readonly(
          "warnings",
          [](PyModule &self) { return warningTuples(self.builder.warnings()); },
          "(file, line, column, message) of each warning of the last "
          "verify()/ptx()");
  addFastCalls(module);

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
      [](const std::string &opcode) { return builder::opcodeProblem(opcode); },
      py::arg("opcode"),
        "Why the ISA description takes no form of this opcode (mnemonic and "
        "modifiers), or None.");
  m.def(
      "import_ptx",
      [](const std::string &text, const std::string &filename) {
        return unwrap(builder::importText(text, filename));
      },
      py::arg("text"), py::arg("filename") = "<ptx>");
  m.def(
      "check_ptx_hazards",
      [](const std::string &text, const std::string &filename) {
        return hazardTuples(unwrap(builder::ptxHazards(text, filename)));
      },
      py::arg("text"), py::arg("filename") = "<ptx>");
  m.def(
      "export_ptx",
      [](const std::string &mlirText) {
        return unwrap(builder::exportText(mlirText));
      },
      py::arg("mlir"));
  m.def(
      "ptx_to_python",
      [](const std::string &text, const std::string &filename,
         const std::string &name, const std::string &isaPolicy, bool sugar) {
        return unwrap(
            builder::ptxToPython(text, filename, name, isaPolicy, sugar));
      },
      py::arg("text"), py::arg("filename") = "<ptx>", py::arg("name") = "",
      py::arg("isa_policy") = "strict", py::arg("sugar") = false);
}
