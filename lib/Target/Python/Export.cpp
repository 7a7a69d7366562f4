//===- Export.cpp - pyptx dialect to a Python program ---------------------===//
//
// The transpiler's exact form: each op becomes the statement of pyptx's
// public API that builds it again (pyptx.program.Program for the module,
// ptx.inst chains for instructions, Function.reg for `.reg` with the
// declared names, and so on), so tracing the program gives back the module
// and, with it, the same canonical PTX. Formatting (trivia) is not carried:
// the generated program prints the canonical style.
//
//===----------------------------------------------------------------------===//

#include "pyptx/Target/Python/Export.h"

#include "pyptx/Dialect/PTX/IR/PTX.h"

#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace pyptx;

namespace {

/// A Python string literal of `text` (UTF-8 passes through).
std::string pyString(StringRef text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '\\' || c == '"') {
      out += '\\';
      out += char(c);
    } else if (c < 0x20 || c == 0x7f) {
      char buffer[8];
      snprintf(buffer, sizeof(buffer), "\\x%02x", c);
      out += buffer;
    } else {
      out += char(c);
    }
  }
  return out + "\"";
}

bool isPythonKeyword(StringRef word) {
  static const char *const keywords[] = {
      "False",  "None",   "True",    "and",      "as",       "assert",
      "async",  "await",  "break",   "class",    "continue", "def",
      "del",    "elif",   "else",    "except",   "finally",  "for",
      "from",   "global", "if",      "import",   "in",       "is",
      "lambda", "nonlocal", "not",   "or",       "pass",     "raise",
      "return", "try",    "while",   "with",     "yield",    "match",
      "case",   "type",   "print"};
  return llvm::is_contained(keywords, word);
}

/// One modifier as an attribute of a ptx.inst chain (pyptx._inst.mangle
/// reverses it): `::` -> `__`, a leading digit gets `_`, keywords get `_`.
/// Empty when the part has no spelling that mangles back to it.
std::string chainPart(StringRef part) {
  std::string name;
  for (size_t i = 0; i < part.size(); ++i) {
    if (part.substr(i).starts_with("::")) {
      name += "__";
      ++i;
      continue;
    }
    char c = part[i];
    if (!llvm::isAlnum(c) && c != '_')
      return {};
    name += c;
  }
  if (name.empty() || part.contains("__") || part.ends_with("_") ||
      part.starts_with("_"))
    return {};
  if (llvm::isDigit(name[0]))
    name = "_" + name;
  static const char *const taken[] = {"opcode", "mro"};
  if (isPythonKeyword(name) || llvm::is_contained(taken, name))
    name += "_";
  return name;
}

/// An integer's PTX spelling, sign included.
std::string spellInteger(ImmAttr imm) {
  return (imm.getNegative() ? "-" : "") + imm.spellMagnitude();
}

class PythonExporter {
public:
  PythonExporter(raw_ostream &os, const PythonExportOptions &options)
      : os(os), options(options) {}

  LogicalResult exportModule(ModuleOp module) {
    os << "\"\"\"pyptx-translate --export-python: tracing this program gives "
          "back the module\n(its canonical PTX). Run it to print that "
          "PTX.\"\"\"\n";
    os << "from pyptx import ptx\n";
    os << "from pyptx.program import Program, Param, imm, elt, op, un, not_, "
          "paren, mem, fn, sym\n\n";
    os << "prog = Program((" << module.getVersionMajor() << ", "
       << module.getVersionMinor() << "), [";
    for (auto [i, target] :
         llvm::enumerate(module.getTargets().getAsValueRange<StringAttr>()))
      os << (i ? ", " : "") << pyString(target);
    os << "], address_size=";
    if (auto size = module.getAddressSize())
      os << *size;
    else
      os << "None";
    if (auto undeclared = module.getUndeclaredSymbols()) {
      os << ", undeclared=[";
      for (auto [i, name] :
           llvm::enumerate(undeclared->getAsValueRange<StringAttr>()))
        os << (i ? ", " : "") << pyString(name);
      os << "]";
    }
    if (!options.isaPolicy.empty() && options.isaPolicy != "strict")
      os << ", isa_policy=" << pyString(options.isaPolicy);
    os << ")\n";
    unsigned sections = 0;
    for (Operation &op : *module.getBodyBlock()) {
      LogicalResult result =
          llvm::TypeSwitch<Operation *, LogicalResult>(&op)
              .Case([&](FuncOp func) { return exportFunc(func); })
              .Case([&](VarOp var) {
                os << "prog.var(";
                if (failed(varArgs(var)))
                  return failure();
                os << ")\n";
                return success();
              })
              .Case([&](FileOp file) {
                os << "prog.file(" << file.getIndex() << ", "
                   << pyString(file.getPath());
                if (file.getTimestamp())
                  os << ", " << *file.getTimestamp() << ", "
                     << *file.getSize();
                os << ")\n";
                return success();
              })
              .Case([&](PragmaOp pragma) {
                os << "prog.pragma(" << stringList(pragma.getValues()) << ")\n";
                return success();
              })
              .Case([&](AliasOp alias) {
                os << "prog.alias(" << pyString(alias.getAlias()) << ", "
                   << pyString(alias.getAliasee()) << ")\n";
                return success();
              })
              .Case([&](SectionOp section) {
                return exportSection(section, sections++);
              })
              .Default([&](Operation *other) {
                return other->emitError("--export-python cannot express '")
                       << other->getName() << "' at module level";
              });
      if (failed(result))
        return failure();
    }
    os << "\nif __name__ == \"__main__\":\n    print(prog.ptx(), end=\"\")\n";
    os.flush();
    return success();
  }

private:
  //===--- Module level ---------------------------------------------------===//

  std::string stringList(ArrayAttr values) {
    std::string text;
    for (auto [i, value] : llvm::enumerate(values.getAsValueRange<StringAttr>()))
      text += (i ? ", " : "") + pyString(value);
    return text;
  }

  static std::string param(ParamAttr p) {
    std::string text;
    llvm::raw_string_ostream s(text);
    s << "Param(" << pyString(stringifyStateSpace(p.getSpace())) << ", "
      << pyString(stringifyScalarType(p.getType())) << ", "
      << pyString(p.getName().getValue());
    if (p.getVecWidth() > 1)
      s << ", vec=" << p.getVecWidth();
    if (p.getAlign())
      s << ", align=" << p.getAlign();
    if (p.getIsPtr()) {
      s << ", ptr="
        << pyString(p.getPtrSpace() == StateSpace::reg
                        ? StringRef()
                        : stringifyStateSpace(p.getPtrSpace()));
      if (p.getPtrAlign())
        s << ", ptr_align=" << p.getPtrAlign();
    }
    if (!p.getDims().empty()) {
      s << ", dims=[";
      for (auto [i, d] : llvm::enumerate(p.getDims()))
        s << (i ? ", " : "") << d;
      s << "]";
    }
    s << ")";
    return text;
  }
  static std::string params(ArrayAttr list) {
    std::string text = "[";
    for (auto [i, p] : llvm::enumerate(list.getAsRange<ParamAttr>()))
      text += (i ? ", " : "") + param(p);
    return text + "]";
  }

  /// `"global", "b32", "name", linkage=..., ...` of prog.var / func.var.
  LogicalResult varArgs(VarOp var) {
    os << pyString(stringifyStateSpace(var.getSpace())) << ", "
       << pyString(stringifyScalarType(var.getType())) << ", "
       << pyString(var.getSymName());
    if (var.getLinkage() != Linkage::none)
      os << ", linkage=" << pyString(stringifyLinkage(var.getLinkage()));
    if (ArrayAttr attributes = var.getVarAttributesAttr())
      os << ", attributes=[" << stringList(attributes) << "]";
    if (var.getAlign())
      os << ", align=" << var.getAlign();
    if (var.getVecWidth() > 1)
      os << ", vec=" << var.getVecWidth();
    if (!var.getDims().empty()) {
      os << ", dims=[";
      for (auto [i, d] : llvm::enumerate(var.getDims()))
        os << (i ? ", " : "") << d;
      os << "]";
    }
    if (Attribute init = var.getInitAttr()) {
      os << ", init=";
      std::string text;
      if (failed(operand(var, init, {}, text)))
        return failure();
      os << text;
    }
    return success();
  }

  LogicalResult exportSection(SectionOp section, unsigned index) {
    std::string name = "section" + std::to_string(index);
    os << name << " = prog.section(" << pyString(section.getName()) << ")\n";
    for (Operation &op : section.getBody().front()) {
      if (auto label = dyn_cast<LabelOp>(op)) {
        os << name << ".label(" << pyString(label.getSymName()) << ")\n";
        continue;
      }
      auto data = dyn_cast<DataOp>(op);
      if (!data)
        return op.emitError("--export-python cannot express '")
               << op.getName() << "' in a section";
      os << name << ".rows([";
      for (auto [i, t] : llvm::enumerate(data.getRowTypes()))
        os << (i ? ", " : "") << pyString(stringifyScalarType(ScalarType(t)));
      os << "], [";
      for (auto [i, size] : llvm::enumerate(data.getRowSizes()))
        os << (i ? ", " : "") << size;
      os << "], [";
      std::string text;
      for (auto [i, value] : llvm::enumerate(data.getValues())) {
        text.clear();
        if (failed(operand(data, value, {}, text)))
          return failure();
        os << (i ? ", " : "") << text;
      }
      os << "], bytes.fromhex(\"";
      for (int8_t byte : data.getBytes())
        os << llvm::format_hex_no_prefix(uint8_t(byte), 2);
      os << "\"))\n";
    }
    return success();
  }

  //===--- Functions ------------------------------------------------------===//

  std::string directives(FuncOp func) {
    std::string text = "[";
    for (auto [i, d] :
         llvm::enumerate(func.getDirectives().getAsRange<DirectiveAttr>())) {
      text += (i ? ", (" : "(") + pyString(d.getName().getValue()) + ", (";
      for (auto [j, value] : llvm::enumerate(d.getValues())) {
        if (j)
          text += ", ";
        if (auto s = dyn_cast<StringAttr>(value))
          text += pyString(s.getValue());
        else
          text += std::to_string(cast<IntegerAttr>(value).getInt());
      }
      text += d.getValues().size() == 1 ? ",))" : "))";
    }
    return text + "]";
  }

  LogicalResult exportFunc(FuncOp func) {
    bool entry = func.isEntry();
    std::string common;
    if (func.getLinkage() != Linkage::none)
      common += ", linkage=" + pyString(stringifyLinkage(func.getLinkage()));
    if (!func.getParams().empty())
      common += ", params=" + params(func.getParams());
    if (!func.getRetParams().empty() || func.getEmptyRetList())
      common += ", ret=" + params(func.getRetParams());
    if (!func.getDirectives().empty())
      common += ", directives=" + directives(func);
    if (func.getNoParamList())
      common += ", no_param_list=True";
    if (func.isDeclaration()) {
      os << "prog.declare(" << pyString(func.getSymName())
         << ", kind=" << pyString(entry ? "entry" : "func") << common << ")\n";
      return success();
    }
    std::string pyName = functionName(func);
    os << "\n\n";
    if (options.sugar) {
      std::string demangled = llvm::demangle(func.getSymName().str());
      if (demangled != func.getSymName())
        os << "# " << demangled << "\n";
    }
    os << "@prog." << (entry ? "entry" : "func") << "("
       << pyString(func.getSymName()) << common << ")\n";
    os << "def " << pyName << "(func):\n";
    // A function's Python names are its own.
    names.clear();
    used.clear();
    for (const char *taken : {"func", "ptx", "prog", "imm", "elt", "op", "un",
                              "not_", "paren", "mem", "fn", "sym", "Param",
                              "Program", "bytes"})
      used.insert(taken);
    paramVars.clear();
    if (options.sugar) {
      // nvcc names parameters `<function>_param_<n>`: `param_<n>` here.
      std::string prefix = (func.getSymName() + "_").str();
      for (auto p : func.getParams().getAsRange<ParamAttr>()) {
        if (p.getSpace() != StateSpace::param)
          continue;
        StringRef ptxName = p.getName().getValue();
        StringRef shortName = ptxName;
        if (shortName.starts_with(prefix) && shortName.size() > prefix.size())
          shortName = shortName.drop_front(prefix.size());
        std::string name = fresh(shortName);
        paramVars[ptxName] = name;
        os << "    " << name << " = " << pyString(ptxName) << "\n";
      }
    }
    Block &body = func.getBody().front();
    if (body.getNumArguments()) {
      std::string line;
      for (BlockArgument arg : body.getArguments()) {
        std::string name = fresh(getRegisterName(arg));
        names[arg.getAsOpaquePointer()] = name;
        line += name + ", ";
      }
      os << "    " << line << "= func.args\n";
    }
    bool empty = true;
    if (failed(exportBlock(body, 1, empty)))
      return failure();
    if (empty)
      os << "    pass\n";
    // (The variables are the body's: module-level data spells the names.)
    paramVars.clear();
    return success();
  }

  std::string functionName(FuncOp func) {
    if (func.isEntry() && !options.name.empty() && !namedFirst) {
      namedFirst = true;
      functionNames.insert(options.name);
      return options.name;
    }
    // The module's own names (imports, `prog`) stay theirs.
    static const char *const reserved[] = {
        "prog", "ptx", "Program", "Param", "imm", "elt", "op", "un", "not_",
        "paren", "mem", "fn", "sym", "bytes", "print"};
    std::string base = identifier(func.getSymName());
    std::string name = base;
    for (unsigned n = 2; llvm::is_contained(reserved, name) ||
                         name == options.name ||
                         !functionNames.insert(name).second;
         ++n)
      name = base + "_" + std::to_string(n);
    return name;
  }

  /// A Python identifier for a PTX name (`%rd` -> `rd`, `$L_x` -> `S_L_x`).
  static std::string identifier(StringRef ptxName) {
    StringRef name = ptxName;
    name.consume_front("%");
    std::string out;
    for (char c : name) {
      if (llvm::isAlnum(c) || c == '_')
        out += c;
      else if (c == '$')
        out += "S_";
      else
        out += '_';
    }
    if (out.empty() || llvm::isDigit(out[0]))
      out = "r_" + out;
    if (isPythonKeyword(out))
      out += "_";
    return out;
  }

  /// An identifier for `ptxName` not used yet in this function.
  std::string fresh(StringRef ptxName) {
    std::string base = identifier(ptxName), name = base;
    for (unsigned n = 2; !used.insert(name).second; ++n)
      name = base + "_" + std::to_string(n);
    return name;
  }

  void indent(unsigned depth) {
    for (unsigned i = 0; i < depth; ++i)
      os << "    ";
  }

  LogicalResult exportBlock(Block &block, unsigned depth, bool &empty) {
    for (Operation &op : block) {
      if (failed(exportStatement(op, depth, empty)))
        return failure();
    }
    return success();
  }

  LogicalResult exportStatement(Operation &op, unsigned depth, bool &empty) {
    return llvm::TypeSwitch<Operation *, LogicalResult>(&op)
        .Case([&](InstOp inst) {
          empty = false;
          return exportInst(inst, depth);
        })
        .Case([&](RegOp reg) {
          empty = false;
          return exportReg(reg, depth);
        })
        .Case([&](LabelOp label) {
          empty = false;
          indent(depth);
          os << "func.label(" << pyString(label.getSymName()) << ")\n";
          return success();
        })
        .Case([&](SRegOp sreg) {
          empty = false;
          std::string name = fresh(sreg.getName());
          names[sreg.getResult().getAsOpaquePointer()] = name;
          indent(depth);
          if (sreg.getUndeclared())
            os << name << " = func.undeclared(" << pyString(sreg.getName())
               << ", "
               << pyString(isa<PredType>(sreg.getType()) ? "pred" : "b32")
               << ")\n";
          else
            os << name << " = ptx.sreg(" << pyString(sreg.getName()) << ")\n";
          return success();
        })
        .Case([&](ScopeOp scope) {
          empty = false;
          indent(depth);
          os << "with func.scope():\n";
          bool inner = true;
          if (failed(exportBlock(scope.getBody().front(), depth + 1, inner)))
            return failure();
          if (inner) {
            indent(depth + 1);
            os << "pass\n";
          }
          return success();
        })
        .Case([&](LocOp loc) {
          empty = false;
          indent(depth);
          writeLoc(loc.getFile(), loc.getLine(), loc.getColumn());
          if (auto name = loc.getFunctionNameAttr())
            os << ", function_name=" << pyString(name.getValue());
          if (auto inlinedAt = loc.getInlinedAt()) {
            os << ", inlined_at=(";
            for (auto [i, v] : llvm::enumerate(*inlinedAt))
              os << (i ? ", " : "") << v;
            os << ")";
          }
          os << ")\n";
          return success();
        })
        .Case([&](PragmaOp pragma) {
          empty = false;
          indent(depth);
          os << "func.pragma(" << stringList(pragma.getValues()) << ")\n";
          return success();
        })
        .Case([&](VarOp var) {
          empty = false;
          indent(depth);
          os << "func.var(";
          if (failed(varArgs(var)))
            return failure();
          os << ")\n";
          return success();
        })
        .Case([&](BranchTargetsOp targets) {
          empty = false;
          indent(depth);
          os << "func.branchtargets(" << pyString(targets.getSymName());
          for (auto t : targets.getTargets().getAsRange<FlatSymbolRefAttr>())
            os << ", " << pyString(t.getValue());
          os << ")\n";
          return success();
        })
        .Case([&](CallTargetsOp targets) {
          empty = false;
          indent(depth);
          os << "func.calltargets(" << pyString(targets.getSymName());
          for (auto t : targets.getTargets().getAsRange<FlatSymbolRefAttr>())
            os << ", " << pyString(t.getValue());
          os << ")\n";
          return success();
        })
        .Case([&](CallPrototypeOp proto) {
          empty = false;
          indent(depth);
          os << "func.callprototype(" << pyString(proto.getSymName())
             << ", params=" << params(proto.getParams());
          if (!proto.getRetParams().empty() || proto.getEmptyRetList())
            os << ", ret=" << params(proto.getRetParams());
          if (proto.getNoreturn())
            os << ", noreturn=True";
          os << ")\n";
          return success();
        })
        .Default([&](Operation *other) {
          return other->emitError("--export-python cannot express '")
                 << other->getName() << "' in a function body";
        });
  }

  void writeLoc(uint64_t file, uint64_t line, uint64_t column) {
    os << "func.loc(" << file << ", " << line << ", " << column;
  }

  LogicalResult exportReg(RegOp reg, unsigned depth) {
    indent(depth);
    auto type = reg.getType();
    std::string typeName;
    unsigned vec = 1;
    if (isa<PredType>(type)) {
      typeName = "pred";
    } else {
      auto r = cast<RegType>(type);
      typeName = stringifyScalarType(r.getType()).str();
      vec = r.getVecWidth();
    }
    std::string lhs, args;
    unsigned result = 0;
    for (auto [i, name, count] :
         llvm::enumerate(reg.getNames().getAsValueRange<StringAttr>(),
                         reg.getCounts())) {
      std::string pyName = fresh(name);
      lhs += (i ? ", " : "") + pyName;
      if (count < 0) {
        args += ", " + pyString(name);
        names[reg.getResult(result++).getAsOpaquePointer()] = pyName;
      } else {
        args += ", (" + pyString(name) + ", " + std::to_string(count) + ")";
        for (int64_t n = 0; n < count; ++n)
          names[reg.getResult(result++).getAsOpaquePointer()] =
              pyName + "[" + std::to_string(n) + "]";
      }
    }
    os << lhs << " = func.reg(" << pyString(typeName) << args;
    if (vec > 1)
      os << ", vec=" << vec;
    os << ")\n";
    return success();
  }

  LogicalResult exportInst(InstOp inst, unsigned depth) {
    const InstOp::Properties &properties = inst.getProperties();
    if (properties.loc_file && properties.loc_line && properties.loc_column) {
      indent(depth);
      writeLoc(properties.loc_file.getUInt(), properties.loc_line.getUInt(),
               properties.loc_column.getUInt());
      os << ")\n";
    }
    auto [it, inserted] = chains.try_emplace(
        {inst.getMnemonicAttr(), inst.getModifiersAttr()});
    if (inserted) {
      std::string chain = "ptx.inst";
      SmallVector<StringRef> parts{inst.getMnemonic()};
      for (StringRef m : inst.getModifiers().getAsValueRange<StringAttr>())
        parts.push_back(m);
      for (StringRef part : parts) {
        std::string attr = chainPart(part);
        if (attr.empty()) {
          chains.erase(it);
          return inst.emitError("--export-python cannot spell the opcode "
                                "part '")
                 << part << "' as a ptx.inst attribute";
        }
        chain += "." + attr;
      }
      it->second = chain;
    }
    indent(depth);
    os << it->second << "(";
    ArrayRef<OpOperand> operands = inst->getOpOperands();
    bool hasGuard = properties.operandSegmentSizes[0] != 0;
    ArrayRef<OpOperand> args = operands.drop_front(hasGuard);
    std::string text;
    for (auto [i, attr] : llvm::enumerate(inst.getPtxOperands())) {
      text.clear();
      if (failed(operand(inst, attr, args, text)))
        return failure();
      os << (i ? ", " : "") << text;
    }
    if (hasGuard) {
      os << (inst.getPtxOperands().empty() ? "pred=" : ", pred=")
         << (inst.getGuardNegated() ? "~" : "")
         << nameOf(inst, operands.front().get());
    }
    os << ")\n";
    return success();
  }

  std::string nameOf(Operation *op, Value value) {
    auto it = names.find(value.getAsOpaquePointer());
    if (it != names.end())
      return it->second;
    // (Verified IR declares every register it uses.)
    op->emitError("--export-python: a register without a declaration");
    return "None";
  }

  //===--- Operands -------------------------------------------------------===//

  /// A symbol operand: a string, or sym("...") where a string would read
  /// as a number (`.debug_abbrev`).
  std::string symbolName(StringRef name) {
    if (!paramVars.empty())
      if (auto it = paramVars.find(name); it != paramVars.end())
        return it->second;
    if (!name.empty() && StringRef("0123456789+-.").contains(name[0]))
      return "sym(" + pyString(name) + ")";
    return pyString(name);
  }

  LogicalResult list(Operation *op, StringRef open, ArrayRef<Attribute> items,
                     StringRef close, ArrayRef<OpOperand> registers,
                     std::string &out) {
    out += open;
    for (auto [i, item] : llvm::enumerate(items)) {
      if (i)
        out += ", ";
      if (failed(operand(op, item, registers, out)))
        return failure();
    }
    out += close;
    return success();
  }

  /// `attr` as a Python expression that the DSL turns back into it.
  LogicalResult operand(Operation *op, Attribute attr,
                        ArrayRef<OpOperand> registers, std::string &out) {
    auto reg = [&](Attribute a) -> std::optional<std::string> {
      auto ref = dyn_cast<RegRefAttr>(a);
      if (!ref || !ref.getComponent().empty() ||
          ref.getIndex() >= registers.size())
        return std::nullopt;
      return nameOf(op, registers[ref.getIndex()].get());
    };
    return llvm::TypeSwitch<Attribute, LogicalResult>(attr)
        .Case([&](RegRefAttr ref) -> LogicalResult {
          if (ref.getIndex() >= registers.size())
            return op->emitError("operand refers to a missing register");
          std::string name = nameOf(op, registers[ref.getIndex()].get());
          if (ref.getComponent().empty())
            out += name;
          else
            out += "elt(" + name + ", " + pyString(ref.getComponent()) + ")";
          return success();
        })
        .Case([&](ImmAttr imm) {
          if (imm.isPlainDecimal() && (imm.getMagnitude() || !imm.getNegative()))
            out += (imm.getNegative() ? "-" : "") +
                   std::to_string(imm.getMagnitude());
          else
            out += "imm(" + pyString(spellInteger(imm)) + ")";
          return success();
        })
        .Case([&](FloatImmAttr imm) {
          std::string text = "0";
          text += imm.getIsDouble() ? (imm.getUpperPrefix() ? 'D' : 'd')
                                    : (imm.getUpperPrefix() ? 'F' : 'f');
          llvm::raw_string_ostream(text) << llvm::format_hex_no_prefix(
              imm.getBits(), imm.getIsDouble() ? 16 : 8, !imm.getLowerDigits());
          out += "imm(" + pyString(text) + ")";
          return success();
        })
        .Case([&](DecFloatAttr value) {
          std::string text = formatDecimalFloat(value);
          if (value.getValue().isNegative() && !StringRef(text).starts_with("-"))
            text = "-" + text;
          out += "imm(" + pyString(text) + ")";
          return success();
        })
        .Case([&](FlatSymbolRefAttr symbol) {
          out += symbolName(symbol.getValue());
          return success();
        })
        .Case([&](AddrAttr addr) -> LogicalResult {
          ArrayRef<Attribute> elements = addr.getElements();
          if (elements.size() == 1) {
            Attribute e = elements[0];
            if (auto name = reg(e)) {
              out += "ptx.addr(" + *name + ")";
              return success();
            }
            if (auto symbol = dyn_cast<FlatSymbolRefAttr>(e)) {
              out += "ptx.addr(" + symbolName(symbol.getValue()) + ")";
              return success();
            }
            auto sum = dyn_cast<BinaryAttr>(e);
            auto offset = sum ? dyn_cast<ImmAttr>(sum.getRhs()) : ImmAttr();
            if (sum && sum.getOp() == "+" && offset &&
                offset.isPlainDecimal() && offset.getMagnitude() &&
                offset.getMagnitude() < (uint64_t(1) << 62)) {
              std::string base;
              if (auto name = reg(sum.getLhs()))
                base = *name;
              else if (auto symbol = dyn_cast<FlatSymbolRefAttr>(sum.getLhs()))
                base = symbolName(symbol.getValue());
              if (!base.empty()) {
                out += "ptx.addr(" + base + ", " +
                       (offset.getNegative() ? "-" : "") +
                       std::to_string(offset.getMagnitude()) + ")";
                return success();
              }
            }
          }
          return list(op, "mem(", elements, ")", registers, out);
        })
        .Case([&](VectorAttr vec) {
          return list(op, "[", vec.getElements(), "]", registers, out);
        })
        .Case([&](ParenAttr paren) {
          return list(op, "paren(", paren.getElements(), ")", registers, out);
        })
        .Case([&](BinaryAttr binary) -> LogicalResult {
          out += "op(";
          if (failed(operand(op, binary.getLhs(), registers, out)))
            return failure();
          out += ", " + pyString(binary.getOp()) + ", ";
          if (failed(operand(op, binary.getRhs(), registers, out)))
            return failure();
          out += ")";
          return success();
        })
        .Case([&](UnaryAttr unary) -> LogicalResult {
          out += "un(" + pyString(unary.getOp()) + ", ";
          if (failed(operand(op, unary.getOperand(), registers, out)))
            return failure();
          out += ")";
          return success();
        })
        .Case([&](NotAttr negation) -> LogicalResult {
          if (auto name = reg(negation.getOperand())) {
            out += "~" + *name;
            return success();
          }
          out += "not_(";
          if (failed(operand(op, negation.getOperand(), registers, out)))
            return failure();
          out += ")";
          return success();
        })
        .Case([&](SinkAttr) {
          out += "ptx.sink";
          return success();
        })
        .Case([&](FuncExprAttr func) {
          out += "fn(" + pyString(func.getName().getValue());
          return list(op, func.getArgs().empty() ? ")" : ", ", func.getArgs(),
                      ")", registers, out);
        })
        .Default([&](Attribute other) {
          return op->emitError("--export-python cannot express the operand ")
                 << other;
        });
  }

  raw_ostream &os;
  const PythonExportOptions &options;
  bool namedFirst = false;
  llvm::StringSet<> functionNames;
  /// This function's Python names, and each register's expression.
  llvm::StringSet<> used;
  llvm::DenseMap<const void *, std::string> names;
  /// With sugar: this function's `.param` names and their Python variables.
  llvm::StringMap<std::string> paramVars;
  llvm::DenseMap<std::pair<Attribute, Attribute>, std::string> chains;
};

} // namespace

LogicalResult pyptx::exportPython(ModuleOp module, raw_ostream &os,
                                  const PythonExportOptions &options) {
  // Nothing is written unless the whole module can be expressed.
  std::string text;
  llvm::raw_string_ostream buffer(text);
  if (failed(PythonExporter(buffer, options).exportModule(module)))
    return failure();
  os << text;
  return success();
}

LogicalResult pyptx::exportPython(Operation *op, raw_ostream &os,
                                  const PythonExportOptions &options) {
  if (auto module = dyn_cast<ModuleOp>(op))
    return exportPython(module, os, options);
  SmallVector<ModuleOp> modules;
  op->walk([&](ModuleOp module) { modules.push_back(module); });
  if (modules.size() != 1)
    return op->emitError("expected exactly one pyptx.module to export, found ")
           << modules.size();
  return exportPython(modules.front(), os, options);
}

void pyptx::registerExportPythonTranslation() {
  static llvm::cl::opt<std::string> name(
      "python-name",
      llvm::cl::desc("with --export-python: the Python name of the first "
                     ".entry's body (its PTX name is kept)"),
      llvm::cl::init(""));
  static llvm::cl::opt<std::string> isaPolicy(
      "python-isa-policy",
      llvm::cl::desc("with --export-python: the program's isa_policy "
                     "(strict, warn-unknown or off)"),
      llvm::cl::init("strict"));
  static llvm::cl::opt<bool> sugar(
      "python-sugar",
      llvm::cl::desc("with --export-python: demangled names as comments, "
                     "parameters as named variables"),
      llvm::cl::init(false));
  TranslateFromMLIRRegistration registration(
      "export-python",
      "write a pyptx.module as a Python program of pyptx's DSL that builds it",
      [](Operation *op, raw_ostream &os) {
        PythonExportOptions options;
        options.name = name;
        options.isaPolicy = isaPolicy;
        options.sugar = sugar;
        return exportPython(op, os, options);
      },
      [](DialectRegistry &registry) { registry.insert<PTXDialect>(); });
}
