//===- Export.cpp - pyptx dialect to PTX text -----------------------------===//
//
// Rebuilds PTX text from the dialect's structure, in a canonical style.
//
//===----------------------------------------------------------------------===//

#include "pyptx/Target/PTX/Export.h"

#include "pyptx/Dialect/PTX/IR/PTX.h"

#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace pyptx;

namespace {
class Exporter {
public:
  explicit Exporter(raw_ostream &os) : os(os) {}

  LogicalResult exportModule(ModuleOp module) {
    os << ".version " << module.getVersionMajor() << "."
       << module.getVersionMinor() << "\n.target ";
    llvm::interleave(module.getTargets().getAsValueRange<StringAttr>(), os,
                     ", ");
    os << "\n";
    if (auto size = module.getAddressSize())
      os << ".address_size " << *size << "\n";
    for (Operation &op : *module.getBodyBlock()) {
      os << "\n";
      if (failed(exportTopLevel(op)))
        return failure();
    }
    return success();
  }

private:
  LogicalResult exportTopLevel(Operation &op) {
    return llvm::TypeSwitch<Operation *, LogicalResult>(&op)
        .Case([&](FuncOp func) { return exportFunc(func); })
        .Case([&](VarOp var) { return exportVar(var, 0); })
        .Case([&](FileOp file) {
          os << ".file " << file.getIndex() << " ";
          printQuoted(file.getPath());
          if (file.getTimestamp())
            os << ", " << *file.getTimestamp() << ", " << *file.getSize();
          os << "\n";
          return success();
        })
        .Case([&](SectionOp section) { return exportSection(section); })
        .Case([&](AliasOp alias) {
          os << ".alias " << alias.getAlias() << ", " << alias.getAliasee()
             << ";\n";
          return success();
        })
        .Case([&](PragmaOp pragma) {
          exportPragma(pragma, 0);
          return success();
        })
        .Default([&](Operation *other) {
          return other->emitError("cannot export '")
                 << other->getName() << "' at module level";
        });
  }

  void indent(unsigned depth) {
    for (unsigned i = 0; i < depth; ++i)
      os << '\t';
  }

  void printQuoted(StringRef text) {
    os << '"';
    os.write_escaped(text);
    os << '"';
  }

  void printLinkage(Linkage linkage) {
    if (linkage != Linkage::none)
      os << "." << stringifyLinkage(linkage) << " ";
  }

  void printParam(ParamAttr param) {
    os << "." << spaceName(param.getSpace()) << " ";
    if (param.getAlign())
      os << ".align " << param.getAlign() << " ";
    if (param.getVecWidth() > 1)
      os << ".v" << param.getVecWidth() << " ";
    os << "." << stringifyScalarType(param.getType()) << " ";
    if (param.getIsPtr()) {
      os << ".ptr ";
      if (param.getPtrSpace() != StateSpace::reg)
        os << "." << spaceName(param.getPtrSpace()) << " ";
      if (param.getPtrAlign())
        os << ".align " << param.getPtrAlign() << " ";
    }
    os << param.getName().getValue();
    printDims(param.getDims());
  }

  void printDims(ArrayRef<int64_t> dims) {
    for (int64_t dim : dims) {
      os << "[";
      if (dim >= 0)
        os << dim;
      os << "]";
    }
  }

  /// `(.param .b32 a, .param .b32 b)` on one line.
  void printInlineParams(ArrayAttr params) {
    os << "(";
    llvm::interleave(
        params.getAsRange<ParamAttr>(), os, [&](ParamAttr p) { printParam(p); },
        ", ");
    os << ")";
  }

  LogicalResult exportFunc(FuncOp func) {
    printLinkage(func.getLinkage());
    os << "." << stringifyFuncKind(func.getKind()) << " ";
    if (!func.getRetParams().empty()) {
      printInlineParams(func.getRetParams());
      os << " ";
    }
    os << func.getSymName() << "(";
    ArrayAttr params = func.getParams();
    if (!params.empty()) {
      os << "\n";
      llvm::interleave(
          params.getAsRange<ParamAttr>(), os,
          [&](ParamAttr p) {
            os << "\t";
            printParam(p);
          },
          ",\n");
      os << "\n";
    }
    os << ")";
    for (auto directive : func.getDirectives().getAsRange<DirectiveAttr>()) {
      os << "\n." << directive.getName().getValue();
      if (!directive.getValues().empty())
        os << " ";
      llvm::interleave(
          directive.getValues(), os,
          [&](Attribute value) {
            if (auto text = dyn_cast<StringAttr>(value))
              printQuoted(text.getValue());
            else
              os << cast<IntegerAttr>(value).getInt();
          },
          ", ");
    }
    if (func.isDeclaration()) {
      os << ";\n";
      return success();
    }
    os << "\n{\n";
    if (failed(exportBlock(func.getBody().front(), 1)))
      return failure();
    os << "}\n";
    return success();
  }

  LogicalResult exportBlock(Block &block, unsigned depth) {
    for (Operation &op : block)
      if (failed(exportBodyOp(op, depth)))
        return failure();
    return success();
  }

  LogicalResult exportBodyOp(Operation &op, unsigned depth) {
    return llvm::TypeSwitch<Operation *, LogicalResult>(&op)
        .Case([&](RegOp reg) {
          indent(depth);
          os << ".reg " << ptxTypeName(reg.getType()) << " ";
          llvm::interleave(
              llvm::zip(reg.getNames().getAsValueRange<StringAttr>(),
                        reg.getCounts()),
              os,
              [&](auto pair) {
                os << std::get<0>(pair);
                if (std::get<1>(pair) >= 0)
                  os << "<" << std::get<1>(pair) << ">";
              },
              ", ");
          os << ";\n";
          return success();
        })
        .Case([&](SRegOp) { return success(); })
        .Case([&](VarOp var) { return exportVar(var, depth); })
        .Case([&](LabelOp label) {
          os << label.getSymName() << ":\n";
          return success();
        })
        .Case([&](InstOp inst) { return exportInst(inst, depth); })
        .Case([&](ScopeOp scope) {
          indent(depth);
          os << "{\n";
          if (failed(exportBlock(scope.getBody().front(), depth + 1)))
            return failure();
          indent(depth);
          os << "}\n";
          return success();
        })
        .Case([&](PragmaOp pragma) {
          exportPragma(pragma, depth);
          return success();
        })
        .Case([&](LocOp loc) {
          indent(depth);
          os << ".loc " << loc.getFile() << " " << loc.getLine() << " "
             << loc.getColumn();
          if (auto name = loc.getFunctionNameAttr())
            os << ", function_name " << name.getValue();
          if (auto inlinedAt = loc.getInlinedAt()) {
            os << ", inlined_at ";
            llvm::interleave(*inlinedAt, os, " ");
          }
          os << "\n";
          return success();
        })
        .Case([&](BranchTargetsOp targets) {
          printTargets(targets.getSymName(), ".branchtargets",
                       targets.getTargets(), depth);
          return success();
        })
        .Case([&](CallTargetsOp targets) {
          printTargets(targets.getSymName(), ".calltargets",
                       targets.getTargets(), depth);
          return success();
        })
        .Case([&](CallPrototypeOp proto) {
          indent(depth);
          os << proto.getSymName() << ": .callprototype ";
          if (!proto.getRetParams().empty()) {
            printInlineParams(proto.getRetParams());
            os << " ";
          }
          os << "_ ";
          printInlineParams(proto.getParams());
          if (proto.getNoreturn())
            os << " .noreturn";
          os << ";\n";
          return success();
        })
        .Default([&](Operation *other) {
          return other->emitError("cannot export '")
                 << other->getName() << "' inside a function";
        });
  }

  void printTargets(StringRef name, StringRef directive, ArrayAttr targets,
                    unsigned depth) {
    indent(depth);
    os << name << ": " << directive << " ";
    llvm::interleave(
        targets.getAsRange<FlatSymbolRefAttr>(), os,
        [&](FlatSymbolRefAttr target) { os << target.getValue(); }, ", ");
    os << ";\n";
  }

  void exportPragma(PragmaOp pragma, unsigned depth) {
    indent(depth);
    os << ".pragma ";
    llvm::interleave(
        pragma.getValues().getAsValueRange<StringAttr>(), os,
        [&](StringRef value) { printQuoted(value); }, ", ");
    os << ";\n";
  }

  LogicalResult exportVar(VarOp var, unsigned depth) {
    indent(depth);
    printLinkage(var.getLinkage());
    os << "." << spaceName(var.getSpace()) << " ";
    if (var.getAlign())
      os << ".align " << var.getAlign() << " ";
    if (var.getVecWidth() > 1)
      os << ".v" << var.getVecWidth() << " ";
    os << "." << stringifyScalarType(var.getType()) << " " << var.getSymName();
    printDims(var.getDims());
    if (Attribute init = var.getInitAttr()) {
      os << " = ";
      if (failed(printExpr(var, init, {})))
        return failure();
    }
    os << ";\n";
    return success();
  }

  LogicalResult exportSection(SectionOp section) {
    os << ".section " << section.getName() << "\n{\n";
    for (Operation &op : section.getBody().front()) {
      if (auto label = dyn_cast<LabelOp>(op)) {
        os << label.getSymName() << ":\n";
        continue;
      }
      auto data = dyn_cast<DataOp>(op);
      if (!data)
        return op.emitError("cannot export '")
               << op.getName() << "' inside a section";
      os << "\t." << stringifyScalarType(data.getType()) << " ";
      if (failed(printExprList(data, data.getValues().getValue(), {}, ", ")))
        return failure();
      os << "\n";
    }
    os << "}\n";
    return success();
  }

  LogicalResult exportInst(InstOp inst, unsigned depth) {
    indent(depth);
    if (Value guard = inst.getGuard())
      os << "@" << (inst.getGuardNegated() ? "!" : "") << nameOf(guard) << " ";
    os << inst.getMnemonic();
    for (StringRef modifier : inst.getModifiers().getAsValueRange<StringAttr>())
      os << "." << modifier;
    if (!inst.getPtxOperands().empty()) {
      os << " ";
      if (failed(printExprList(inst, inst.getPtxOperands().getValue(),
                               inst.getArgs(), ", ")))
        return failure();
    }
    os << ";\n";
    return success();
  }

  StringRef nameOf(Value value) {
    auto [it, inserted] = names.try_emplace(value);
    if (inserted)
      it->second = getRegisterName(value);
    return it->second;
  }

  LogicalResult printExprList(Operation *op, ArrayRef<Attribute> exprs,
                              ValueRange registers, StringRef separator) {
    for (auto [i, expr] : llvm::enumerate(exprs)) {
      if (i)
        os << separator;
      if (failed(printExpr(op, expr, registers)))
        return failure();
    }
    return success();
  }

  LogicalResult printExpr(Operation *op, Attribute expr,
                          ValueRange registers) {
    return llvm::TypeSwitch<Attribute, LogicalResult>(expr)
        .Case([&](RegRefAttr ref) -> LogicalResult {
          if (ref.getIndex() >= registers.size())
            return op->emitError("operand refers to a missing register");
          os << nameOf(registers[ref.getIndex()]);
          if (!ref.getComponent().empty())
            os << "." << ref.getComponent();
          return success();
        })
        .Case([&](ImmAttr imm) {
          printInteger(imm);
          return success();
        })
        .Case([&](FloatImmAttr imm) {
          os << '0'
             << (imm.getIsDouble() ? (imm.getUpperPrefix() ? 'D' : 'd')
                                   : (imm.getUpperPrefix() ? 'F' : 'f'));
          std::string digits;
          llvm::raw_string_ostream(digits)
              << llvm::format_hex_no_prefix(imm.getBits(),
                                            imm.getIsDouble() ? 16 : 8,
                                            !imm.getLowerDigits());
          os << digits;
          return success();
        })
        .Case([&](FlatSymbolRefAttr symbol) {
          os << symbol.getValue();
          return success();
        })
        .Case([&](BinaryAttr binary) -> LogicalResult {
          if (failed(printExpr(op, binary.getLhs(), registers)))
            return failure();
          os << binary.getOp();
          return printExpr(op, binary.getRhs(), registers);
        })
        .Case([&](AddrAttr addr) {
          return printBracketed(op, "[", addr.getElements(), "]", registers);
        })
        .Case([&](VectorAttr vec) {
          return printBracketed(op, "{", vec.getElements(), "}", registers);
        })
        .Case([&](ParenAttr paren) {
          return printBracketed(op, "(", paren.getElements(), ")", registers);
        })
        .Case([&](NotAttr negation) {
          os << "!";
          return printExpr(op, negation.getOperand(), registers);
        })
        .Case([&](SinkAttr) {
          os << "_";
          return success();
        })
        .Case([&](FuncExprAttr func) {
          os << func.getName().getValue();
          return printBracketed(op, "(", func.getArgs(), ")", registers);
        })
        .Default([&](Attribute other) {
          return op->emitError("cannot export operand ") << other;
        });
  }

  LogicalResult printBracketed(Operation *op, StringRef open,
                               ArrayRef<Attribute> elements, StringRef close,
                               ValueRange registers) {
    os << open;
    if (failed(printExprList(op, elements, registers, ", ")))
      return failure();
    os << close;
    return success();
  }

  void printInteger(ImmAttr imm) {
    int64_t value = imm.getValue();
    switch (imm.getFormat()) {
    case IntFormat::dec:
      os << value;
      break;
    case IntFormat::hex:
    case IntFormat::HEX:
      os << llvm::format_hex(uint64_t(value), 0,
                             imm.getFormat() == IntFormat::HEX);
      break;
    case IntFormat::oct:
      os << "0";
      if (value)
        os << llvm::format("%llo", (unsigned long long)value);
      break;
    case IntFormat::bin: {
      os << "0b";
      std::string bits;
      uint64_t v = uint64_t(value);
      do {
        bits.insert(bits.begin(), char('0' + (v & 1)));
        v >>= 1;
      } while (v);
      os << bits;
      break;
    }
    }
    if (imm.getUnsignedSuffix())
      os << "U";
  }

  raw_ostream &os;
  llvm::DenseMap<Value, std::string> names;
};
} // namespace

LogicalResult pyptx::exportPTX(ModuleOp module, raw_ostream &os) {
  return Exporter(os).exportModule(module);
}

LogicalResult pyptx::exportPTX(Operation *op, raw_ostream &os) {
  if (auto module = dyn_cast<ModuleOp>(op))
    return exportPTX(module, os);
  SmallVector<ModuleOp> modules;
  op->walk([&](ModuleOp module) { modules.push_back(module); });
  if (modules.size() != 1)
    return op->emitError("expected exactly one pyptx.module to export, found ")
           << modules.size();
  return exportPTX(modules.front(), os);
}

void pyptx::registerExportPTXTranslation() {
  TranslateFromMLIRRegistration registration(
      "export-ptx", "print a pyptx.module as PTX text",
      [](Operation *op, raw_ostream &os) { return exportPTX(op, os); },
      [](DialectRegistry &registry) { registry.insert<PTXDialect>(); });
}
