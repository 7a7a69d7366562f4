//===- PTXOps.cpp - pyptx operations --------------------------------------===//

#include "pyptx/Dialect/PTX/IR/PTX.h"
#include "pyptx/Dialect/PTX/ISA/ISA.h"

#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/StringSaver.h"

using namespace mlir;
using namespace pyptx;

//===----------------------------------------------------------------------===//
// Short register types in op syntax: `b32`, `v4.f32`, `pred`
//===----------------------------------------------------------------------===//

static ParseResult parseShortType(OpAsmParser &parser, Type &type) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef keyword;
  if (parser.parseKeyword(&keyword))
    return failure();
  type = parseShortTypeName(parser.getContext(), keyword);
  if (!type)
    return parser.emitError(loc, "expected a register type such as 'b32', "
                                 "'v4.f32' or 'pred', got '")
           << keyword << "'";
  return success();
}

static void printShortType(OpAsmPrinter &printer, Operation *, Type type) {
  printer << shortTypeName(type);
}

//===----------------------------------------------------------------------===//
// Operand expressions in op syntax
//
//   %r1  elt(%v, x)  42  hex(0x1F)  f32(0x3F800000)  @sym  [%rd1 + 16]
//   {%f0, %f1}  (%r0, @param)  not %p  %p | %q  _  generic(@g)
//===----------------------------------------------------------------------===//

namespace {
/// Parses operand expressions; registers, where allowed, are collected in
/// `registers` in the order they appear.
class ExprParser {
public:
  ExprParser(OpAsmParser &parser,
             SmallVectorImpl<OpAsmParser::UnresolvedOperand> *registers)
      : parser(parser), registers(registers), ctx(parser.getContext()) {}

  /// Parses an expression if one starts here.
  OptionalParseResult parseOptionalExpr(Attribute &result) {
    OptionalParseResult primary = parseOptionalPrimary(result);
    if (!primary.has_value() || failed(*primary))
      return primary;
    while (true) {
      StringRef op;
      if (succeeded(parser.parseOptionalPlus()))
        op = "+";
      else if (succeeded(parser.parseOptionalMinus()))
        op = "-";
      else if (succeeded(parser.parseOptionalVerticalBar()))
        op = "|";
      else
        return success();
      Attribute rhs;
      if (parseRequiredPrimary(rhs))
        return failure();
      result = BinaryAttr::get(ctx, op, result, rhs);
    }
  }

  ParseResult parseExpr(Attribute &result) {
    SMLoc loc = parser.getCurrentLocation();
    OptionalParseResult parsed = parseOptionalExpr(result);
    if (!parsed.has_value())
      return parser.emitError(loc, "expected a PTX operand");
    return *parsed;
  }

  /// `a, b, c` up to (not including) a closing delimiter.
  ParseResult parseList(SmallVectorImpl<Attribute> &elements,
                        ParseResult (OpAsmParser::*parseOptionalClose)()) {
    if (succeeded((parser.*parseOptionalClose)()))
      return success();
    do {
      Attribute element;
      if (parseExpr(element))
        return failure();
      elements.push_back(element);
    } while (succeeded(parser.parseOptionalComma()));
    SMLoc loc = parser.getCurrentLocation();
    if (failed((parser.*parseOptionalClose)()))
      return parser.emitError(loc, "expected ',' or a closing bracket");
    return success();
  }

private:
  ParseResult parseRequiredPrimary(Attribute &result) {
    SMLoc loc = parser.getCurrentLocation();
    OptionalParseResult parsed = parseOptionalPrimary(result);
    if (!parsed.has_value())
      return parser.emitError(loc, "expected a PTX operand");
    return *parsed;
  }

  ParseResult addRegister(SMLoc loc, OpAsmParser::UnresolvedOperand operand,
                          StringRef component, Attribute &result) {
    if (!registers)
      return parser.emitError(loc, "registers cannot appear here");
    result = RegRefAttr::get(ctx, registers->size(), component);
    registers->push_back(operand);
    return success();
  }

  OptionalParseResult parseOptionalPrimary(Attribute &result) {
    SMLoc loc = parser.getCurrentLocation();
    OpAsmParser::UnresolvedOperand operand;
    OptionalParseResult reg = parser.parseOptionalOperand(operand);
    if (reg.has_value()) {
      if (failed(*reg))
        return failure();
      return addRegister(loc, operand, "", result);
    }

    int64_t integer;
    OptionalParseResult intResult = parser.parseOptionalInteger(integer);
    if (intResult.has_value()) {
      if (failed(*intResult))
        return failure();
      result = ImmAttr::get(ctx, integer, IntFormat::dec, false);
      return success();
    }

    StringAttr symbol;
    if (succeeded(parser.parseOptionalSymbolName(symbol))) {
      result = FlatSymbolRefAttr::get(symbol);
      return success();
    }

    SmallVector<Attribute> elements;
    if (succeeded(parser.parseOptionalLSquare())) {
      if (parseList(elements, &OpAsmParser::parseOptionalRSquare))
        return failure();
      result = AddrAttr::get(ctx, elements);
      return success();
    }
    if (succeeded(parser.parseOptionalLBrace())) {
      if (parseList(elements, &OpAsmParser::parseOptionalRBrace))
        return failure();
      result = VectorAttr::get(ctx, elements);
      return success();
    }
    if (succeeded(parser.parseOptionalLParen())) {
      if (parseList(elements, &OpAsmParser::parseOptionalRParen))
        return failure();
      result = ParenAttr::get(ctx, elements);
      return success();
    }

    StringRef word;
    if (failed(parser.parseOptionalKeyword(
            &word, {"not", "_", "elt", "dec", "hex", "HEX", "oct", "bin",
                    "Xhex", "XHEX", "Bbin",
                    "f32", "f64", "generic", "mask", "op", "unary",
                    "decf"})))
      return std::nullopt;

    if (word == "_") {
      result = SinkAttr::get(ctx);
      return success();
    }
    if (word == "not") {
      Attribute operand;
      if (parseRequiredPrimary(operand))
        return failure();
      result = NotAttr::get(ctx, operand);
      return success();
    }
    if (parser.parseLParen())
      return failure();
    if (word == "elt") {
      StringRef component;
      SMLoc regLoc = parser.getCurrentLocation();
      if (parser.parseOperand(operand) || parser.parseComma() ||
          parser.parseKeyword(&component) || parser.parseRParen() ||
          addRegister(regLoc, operand, component, result))
        return failure();
      return success();
    }
    if (word == "op" || word == "unary") {
      // op(">>", lhs, rhs), unary("~", x): operators without infix syntax.
      std::string op;
      SMLoc opLoc = parser.getCurrentLocation();
      Attribute lhs, rhs;
      if (parser.parseString(&op) || parser.parseComma() ||
          parseExpr(lhs))
        return failure();
      if (word == "unary") {
        if (op != "~" && op != "-")
          return parser.emitError(opLoc, "unary operator must be \"~\" or "
                                         "\"-\"");
        if (parser.parseRParen())
          return failure();
        result = UnaryAttr::get(ctx, op, lhs);
        return success();
      }
      if (!isBinaryOperator(op))
        return parser.emitError(opLoc, "unknown binary operator \"")
               << op << "\"";
      if (parser.parseComma() || parseExpr(rhs) || parser.parseRParen())
        return failure();
      result = BinaryAttr::get(ctx, op, lhs, rhs);
      return success();
    }
    if (word == "decf") {
      double value;
      unsigned fracDigits;
      if (parser.parseFloat(value) || parser.parseComma() ||
          parser.parseInteger(fracDigits) || parser.parseRParen())
        return failure();
      result = DecFloatAttr::get(ctx, llvm::APFloat(value), fracDigits);
      return success();
    }
    if (word == "generic" || word == "mask") {
      if (parseList(elements, &OpAsmParser::parseOptionalRParen))
        return failure();
      result = FuncExprAttr::get(ctx, StringAttr::get(ctx, word), elements);
      return success();
    }
    if (word == "f32" || word == "f64") {
      uint64_t bits = 0;
      if (parser.parseInteger(bits))
        return failure();
      bool upperPrefix = false, lowerDigits = false;
      while (succeeded(parser.parseOptionalComma())) {
        StringRef flag;
        if (parser.parseOptionalKeyword(&flag,
                                        {"upper_prefix", "lower_digits"}))
          return parser.emitError(parser.getCurrentLocation(),
                                  "expected 'upper_prefix' or 'lower_digits'");
        (flag == "upper_prefix" ? upperPrefix : lowerDigits) = true;
      }
      if (parser.parseRParen())
        return failure();
      result = FloatImmAttr::get(ctx, bits, word == "f64", upperPrefix,
                                 lowerDigits);
      return success();
    }
    // An integer in a given radix: hex(0x1F), oct(8), dec(7, U),
    // hex(0x10001, digits 8), hex(-0x10), dec(-0): a sign and a magnitude.
    bool negative = succeeded(parser.parseOptionalMinus());
    uint64_t magnitude = 0;
    if (parser.parseInteger(magnitude))
      return failure();
    bool unsignedSuffix = false;
    unsigned digits = 0;
    while (succeeded(parser.parseOptionalComma())) {
      if (succeeded(parser.parseOptionalKeyword("U"))) {
        unsignedSuffix = true;
        continue;
      }
      if (parser.parseKeyword("digits") || parser.parseInteger(digits))
        return failure();
    }
    if (parser.parseRParen())
      return failure();
    result = ImmAttr::get(ctx, magnitude, negative, *symbolizeIntFormat(word),
                          unsignedSuffix, digits);
    return success();
  }

  OpAsmParser &parser;
  SmallVectorImpl<OpAsmParser::UnresolvedOperand> *registers;
  MLIRContext *ctx;
};
} // namespace

static void printExpr(OpAsmPrinter &printer, Attribute expr,
                      OperandRange registers);

static void printExprList(OpAsmPrinter &printer, ArrayRef<Attribute> elements,
                          OperandRange registers) {
  llvm::interleaveComma(elements, printer, [&](Attribute element) {
    printExpr(printer, element, registers);
  });
}

static void printExpr(OpAsmPrinter &printer, Attribute expr,
                      OperandRange registers) {
  llvm::TypeSwitch<Attribute>(expr)
      .Case([&](RegRefAttr ref) {
        if (ref.getIndex() >= registers.size()) {
          // Only reachable on IR that fails to verify; keep it printable.
          printer << "<<register #" << ref.getIndex() << " out of range>>";
          return;
        }
        if (ref.getComponent().empty()) {
          printer.printOperand(registers[ref.getIndex()]);
          return;
        }
        printer << "elt(";
        printer.printOperand(registers[ref.getIndex()]);
        printer << ", " << ref.getComponent() << ")";
      })
      .Case([&](ImmAttr imm) {
        // Plain `42`/`-42` where that reads back the same; else `dec(-0)`.
        bool fitsSigned = imm.getNegative()
                              ? imm.getMagnitude() != 0 &&
                                    imm.getMagnitude() <= (uint64_t(1) << 63)
                              : imm.getMagnitude() < (uint64_t(1) << 63);
        if (imm.getFormat() == IntFormat::dec && !imm.getUnsignedSuffix() &&
            !imm.getDigits() && fitsSigned) {
          printer << imm.getValue();
          return;
        }
        printer << stringifyIntFormat(imm.getFormat()) << "(";
        if (imm.getNegative())
          printer << "-";
        if (imm.isHex())
          printer << llvm::format_hex(imm.getMagnitude(), 3);
        else
          printer << imm.getMagnitude();
        if (imm.getUnsignedSuffix())
          printer << ", U";
        if (imm.getDigits())
          printer << ", digits " << imm.getDigits();
        printer << ")";
      })
      .Case([&](FloatImmAttr imm) {
        printer << (imm.getIsDouble() ? "f64(" : "f32(")
                << llvm::format_hex(imm.getBits(),
                                    imm.getIsDouble() ? 18 : 10, true);
        if (imm.getUpperPrefix())
          printer << ", upper_prefix";
        if (imm.getLowerDigits())
          printer << ", lower_digits";
        printer << ")";
      })
      .Case([&](FlatSymbolRefAttr symbol) {
        printer.printSymbolName(symbol.getValue());
      })
      .Case([&](BinaryAttr binary) {
        StringRef op = binary.getOp();
        // Infix only where re-parsing (left to right) gives the same tree.
        if ((op == "+" || op == "-" || op == "|") &&
            !isa<BinaryAttr>(binary.getRhs())) {
          printExpr(printer, binary.getLhs(), registers);
          printer << " " << op << " ";
          printExpr(printer, binary.getRhs(), registers);
          return;
        }
        printer << "op(";
        printer.printString(op);
        printer << ", ";
        printExpr(printer, binary.getLhs(), registers);
        printer << ", ";
        printExpr(printer, binary.getRhs(), registers);
        printer << ")";
      })
      .Case([&](UnaryAttr unary) {
        printer << "unary(";
        printer.printString(unary.getOp());
        printer << ", ";
        printExpr(printer, unary.getOperand(), registers);
        printer << ")";
      })
      .Case([&](DecFloatAttr value) {
        printer << "decf(";
        printer.printFloat(value.getValue());
        printer << ", " << value.getFracDigits() << ")";
      })
      .Case([&](AddrAttr addr) {
        printer << "[";
        printExprList(printer, addr.getElements(), registers);
        printer << "]";
      })
      .Case([&](VectorAttr vec) {
        printer << "{";
        printExprList(printer, vec.getElements(), registers);
        printer << "}";
      })
      .Case([&](ParenAttr paren) {
        printer << "(";
        printExprList(printer, paren.getElements(), registers);
        printer << ")";
      })
      .Case([&](NotAttr negation) {
        printer << "not ";
        printExpr(printer, negation.getOperand(), registers);
      })
      .Case([&](SinkAttr) { printer << "_"; })
      .Case([&](FuncExprAttr func) {
        printer << func.getName().getValue() << "(";
        printExprList(printer, func.getArgs(), registers);
        printer << ")";
      })
      .Default([&](Attribute other) { printer.printAttribute(other); });
}

/// Whether `expr` prints starting with a 0f/0d literal, or a minus and one.
static bool printsFromBitsFloat(Attribute expr) {
  if (isa<FloatImmAttr>(expr))
    return true;
  if (auto unary = dyn_cast<UnaryAttr>(expr))
    return unary.getOp() == "-" && printsFromBitsFloat(unary.getOperand());
  if (auto binary = dyn_cast<BinaryAttr>(expr))
    return printsFromBitsFloat(binary.getLhs());
  return false;
}

/// `-0f3F800000`: PTX has no minus for a float given by its bits (the
/// importer refuses it; the sign bit is part of the literal). Nor one that
/// prints next to it: `--0f3F800000`, `-0f3F800000+x` (a libFuzzer find).
static bool isNegatedBitsFloat(UnaryAttr unary) {
  return unary.getOp() == "-" && printsFromBitsFloat(unary.getOperand());
}
static constexpr StringLiteral kNegatedBitsFloat =
    "negates a 0f/0d literal: flip its sign bit instead (0fBF800000 is -1.0)";

/// A 0f literal is 8 hex digits: its bits fit in 32.
static bool fitsBitsFloat(FloatImmAttr literal) {
  return literal.getIsDouble() || literal.getBits() <= 0xffffffffu;
}
static constexpr StringLiteral kWideBitsFloat =
    "has a 0f (f32) literal of more than 32 bits";

/// Why an integer literal has no PTX spelling, or null: a format the enum
/// lacks, or a decimal padded with zeros (which PTX reads as octal).
static const char *unspellable(ImmAttr imm) {
  if (!symbolizeIntFormat(uint32_t(imm.getFormat())))
    return "has an integer literal of unknown format";
  if (imm.getFormat() != IntFormat::dec || imm.getDigits() <= 1)
    return nullptr;
  unsigned decimalDigits = 1;
  for (uint64_t v = imm.getMagnitude(); v >= 10; v /= 10)
    ++decimalDigits;
  if (imm.getDigits() > decimalDigits)
    return "has a decimal literal padded with zeros, which PTX reads as "
           "octal";
  return nullptr;
}

/// Initializers and section data are constant expressions: integers,
/// floats, symbols, `+`/`-`, braces and `generic(...)`/`mask(...)`.
static LogicalResult verifyConstantExpr(Operation *op, Attribute expr) {
  return llvm::TypeSwitch<Attribute, LogicalResult>(expr)
      .Case<DecFloatAttr, FlatSymbolRefAttr>(
          [](Attribute) { return success(); })
      .Case([&](ImmAttr imm) -> LogicalResult {
        if (const char *why = unspellable(imm))
          return op->emitOpError(why);
        return success();
      })
      .Case([&](FloatImmAttr literal) -> LogicalResult {
        if (!fitsBitsFloat(literal))
          return op->emitOpError(kWideBitsFloat);
        return success();
      })
      .Case([&](BinaryAttr binary) -> LogicalResult {
        if (failed(verifyConstantExpr(op, binary.getLhs())))
          return failure();
        return verifyConstantExpr(op, binary.getRhs());
      })
      .Case([&](UnaryAttr unary) -> LogicalResult {
        if (isNegatedBitsFloat(unary))
          return op->emitOpError(kNegatedBitsFloat);
        return verifyConstantExpr(op, unary.getOperand());
      })
      .Case<VectorAttr, ParenAttr>([&](auto list) -> LogicalResult {
        for (Attribute element : list.getElements())
          if (failed(verifyConstantExpr(op, element)))
            return failure();
        return success();
      })
      .Case([&](FuncExprAttr func) -> LogicalResult {
        if (func.getName() != "generic" && func.getName() != "mask")
          return op->emitOpError("unknown operator '")
                 << func.getName().getValue()
                 << "': expected generic(...) or mask(...)";
        // PTX spells a byte mask `0xff(sym)`: an integer and one operand.
        if (func.getName() == "mask" &&
            (func.getArgs().size() != 2 || !isa<ImmAttr>(func.getArgs()[0])))
          return op->emitOpError("mask(...) takes an integer and an operand "
                                 "(PTX's 0xff(sym))");
        for (Attribute arg : func.getArgs())
          if (failed(verifyConstantExpr(op, arg)))
            return failure();
        return success();
      })
      .Default([&](Attribute other) {
        return op->emitOpError("expected a constant (integer, float, symbol, "
                               "{...}, generic(...) or mask(...)), got ")
               << other;
      });
}

//===----------------------------------------------------------------------===//
// Names of registers
//===----------------------------------------------------------------------===//

std::string pyptx::getRegisterName(Value value) {
  if (auto result = dyn_cast<OpResult>(value)) {
    if (auto reg = dyn_cast<RegOp>(result.getOwner()))
      return reg.getRegName(result.getResultNumber());
    if (auto sreg = dyn_cast<SRegOp>(result.getOwner()))
      return sreg.getName().str();
    return "<unnamed>";
  }
  auto arg = cast<BlockArgument>(value);
  auto func = dyn_cast_or_null<FuncOp>(arg.getOwner()->getParentOp());
  if (!func)
    return "<unnamed>";
  unsigned index = 0;
  for (ArrayAttr list : {func.getRetParams(), func.getParams()})
    for (auto param : list.getAsRange<ParamAttr>())
      if (param.getSpace() == StateSpace::reg &&
          index++ == arg.getArgNumber())
        return param.getName().str();
  return "<unnamed>";
}

static StringRef stripPercent(StringRef name) {
  name.consume_front("%");
  return name;
}

//===----------------------------------------------------------------------===//
// ModuleOp
//===----------------------------------------------------------------------===//

void ModuleOp::build(OpBuilder &builder, OperationState &state, unsigned major,
                     unsigned minor, ArrayRef<StringRef> targets,
                     std::optional<unsigned> addressSize) {
  state.addAttribute(getVersionMajorAttrName(state.name),
                     builder.getUI32IntegerAttr(major));
  state.addAttribute(getVersionMinorAttrName(state.name),
                     builder.getUI32IntegerAttr(minor));
  state.addAttribute(getTargetsAttrName(state.name),
                     builder.getStrArrayAttr(targets));
  if (addressSize)
    state.addAttribute(getAddressSizeAttrName(state.name),
                       builder.getUI32IntegerAttr(*addressSize));
  state.addRegion()->emplaceBlock();
}

StringRef ModuleOp::getArch() {
  return cast<StringAttr>(getTargets()[0]).getValue();
}

ParseResult ModuleOp::parse(OpAsmParser &parser, OperationState &result) {
  Builder &builder = parser.getBuilder();
  double version;
  SMLoc versionLoc;
  if (parser.parseKeyword("version") ||
      parser.getCurrentLocation(&versionLoc) || parser.parseFloat(version))
    return failure();
  unsigned major = unsigned(version);
  unsigned minor = unsigned(std::lround((version - major) * 10));
  if (version < 0 || minor > 9 ||
      std::fabs(major + minor / 10.0 - version) > 1e-9)
    return parser.emitError(versionLoc,
                            "expected a version such as 8.7");
  SmallVector<StringRef> targets;
  if (parser.parseKeyword("target"))
    return failure();
  do {
    StringRef target;
    if (parser.parseKeyword(&target))
      return failure();
    targets.push_back(target);
  } while (succeeded(parser.parseOptionalComma()));
  std::optional<unsigned> addressSize;
  if (succeeded(parser.parseOptionalKeyword("address_size"))) {
    unsigned size;
    if (parser.parseInteger(size))
      return failure();
    addressSize = size;
  }
  if (succeeded(parser.parseOptionalKeyword("undeclared"))) {
    ArrayAttr undeclared;
    if (parser.parseAttribute(undeclared))
      return failure();
    result.addAttribute("undeclared_symbols", undeclared);
  }
  result.addAttribute("version_major", builder.getUI32IntegerAttr(major));
  result.addAttribute("version_minor", builder.getUI32IntegerAttr(minor));
  result.addAttribute("targets", builder.getStrArrayAttr(targets));
  if (addressSize)
    result.addAttribute("address_size",
                        builder.getUI32IntegerAttr(*addressSize));
  if (parser.parseOptionalAttrDictWithKeyword(result.attributes))
    return failure();
  Region *body = result.addRegion();
  if (parser.parseRegion(*body))
    return failure();
  if (body->empty())
    body->emplaceBlock();
  return success();
}

void ModuleOp::print(OpAsmPrinter &printer) {
  printer << " version " << getVersionMajor() << "." << getVersionMinor()
          << " target ";
  llvm::interleaveComma(getTargets().getAsValueRange<StringAttr>(), printer);
  if (getAddressSize())
    printer << " address_size " << *getAddressSize();
  if (ArrayAttr undeclared = getUndeclaredSymbolsAttr()) {
    printer << " undeclared ";
    printer.printAttribute(undeclared);
  }
  printer.printOptionalAttrDictWithKeyword(
      (*this)->getAttrs(),
      {getVersionMajorAttrName(), getVersionMinorAttrName(),
       getTargetsAttrName(), getAddressSizeAttrName(),
       getUndeclaredSymbolsAttrName()});
  printer << " ";
  printer.printRegion(getBody(), /*printEntryBlockArgs=*/false);
}

static bool isTargetOption(StringRef target) {
  return target == "texmode_unified" || target == "texmode_independent" ||
         target == "map_f64_to_f32" || target == "debug";
}

/// `sm_90a`, `sm_100f`, `compute_80`.
static bool isArchName(StringRef target) {
  if (!target.consume_front("sm_") && !target.consume_front("compute_"))
    return false;
  if (target.ends_with("a") || target.ends_with("f"))
    target = target.drop_back();
  unsigned number;
  return !target.getAsInteger(10, number) && number >= 10;
}

LogicalResult ModuleOp::verify() {
  if (getVersionMajor() < 1 || getVersionMajor() > 9 || getVersionMinor() > 9)
    return emitOpError("PTX ISA version ")
           << getVersionMajor() << "." << getVersionMinor()
           << " is out of range: expected 1.0 to 9.9";
  if (getTargets().empty())
    return emitOpError("needs at least one target, such as sm_90a");
  StringRef arch = getArch();
  if (!isArchName(arch))
    return emitOpError("first target must be an architecture such as sm_90a "
                       "or compute_80, got '")
           << arch << "'";
  for (StringRef option :
       llvm::drop_begin(getTargets().getAsValueRange<StringAttr>()))
    if (!isTargetOption(option))
      return emitOpError("unknown target option '")
             << option
             << "': expected texmode_unified, texmode_independent, "
                "map_f64_to_f32 or debug";
  if (getAddressSize() && *getAddressSize() != 32 && *getAddressSize() != 64)
    return emitOpError("address_size must be 32 or 64, got ")
           << *getAddressSize();
  if (cast<PTXDialect>((*this)->getDialect())->isaPolicy !=
      ptxisa::Policy::Off)
    if (std::optional<std::string> problem = ptxisa::checkTarget(
            {arch, getVersionMajor() * 10 + getVersionMinor()}))
      return emitError(*problem);
  return success();
}

//===----------------------------------------------------------------------===//
// Symbol verification (ModuleOp::verifyRegions)
//===----------------------------------------------------------------------===//

/// Whether the importer reads `name` back as one name: a letter, `_`, `$` or
/// `%` (not alone: that is the operator), then letters, digits, `_`, `$` and
/// `.` (PTX's identifiers, and the dotted names of files ptxas rejects,
/// which still round-trip).
static bool isPTXName(StringRef name) {
  if (name.empty() || name == "%" ||
      !(llvm::isAlpha(name[0]) || name[0] == '_' || name[0] == '$' ||
        name[0] == '%'))
    return false;
  return llvm::all_of(name.drop_front(), [](char c) {
    return llvm::isAlnum(c) || c == '_' || c == '$' || c == '.';
  });
}

/// Whether `text` can stand between the quotes of a PTX string as it is (the
/// importer keeps a string's text raw): one line, every `"` escaped, no
/// backslash left to escape the closing quote.
static bool isPTXStringBody(StringRef text) {
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n' || text[i] == '"')
      return false;
    if (text[i] == '\\' && (++i == text.size() || text[i] == '\n'))
      return false;
  }
  return true;
}

static InFlightDiagnostic emitBadString(Operation *op, StringRef text) {
  return op->emitOpError("cannot print \"")
         << text
         << "\" as a PTX string: a string is one line, with '\"' and a final "
            "'\\' escaped";
}

static InFlightDiagnostic emitBadName(Operation *op, StringRef name) {
  return op->emitOpError("'")
         << name
         << "' is not a PTX name: expected a letter, '_', '$' or '%', then "
            "letters, digits, '_', '$' or '.'";
}

namespace {
/// Checks that names are unique where PTX needs them to be and that every
/// symbol an op refers to is declared. In collect mode it records the
/// unresolved names instead of failing (the importer uses this to list the
/// names a file uses without declaring them).
class SymbolVerifier {
public:
  SymbolVerifier(ModuleOp module, llvm::SetVector<StringRef> *unresolved)
      : module(module), unresolved(unresolved) {
    if (ArrayAttr undeclared = module.getUndeclaredSymbolsAttr())
      for (StringRef name : undeclared.getAsValueRange<StringAttr>())
        undeclaredNames.insert(name);
  }

  LogicalResult run() {
    if (failed(collectModuleSymbols()))
      return failure();
    for (Operation &op : *module.getBodyBlock()) {
      LogicalResult result =
          llvm::TypeSwitch<Operation *, LogicalResult>(&op)
              .Case([&](FuncOp func) { return verifyFunction(func); })
              .Case([&](VarOp var) { return verifyInitializer(var); })
              .Case([&](AliasOp alias) { return verifyAlias(alias); })
              .Case([&](SectionOp section) { return verifySection(section); })
              .Default([](Operation *) { return success(); });
      if (failed(result))
        return failure();
    }
    return success();
  }

private:
  /// One PTX block: its labels (visible in the whole block) and the
  /// registers and variables declared so far. (Names point into the IR;
  /// DenseMaps, reused from block to block, allocate nothing per name.)
  using Names = llvm::DenseMap<StringRef, Operation *>;
  struct Scope {
    Names labels;
    Names names;
  };

  LogicalResult collectModuleSymbols() {
    for (Operation &op : *module.getBodyBlock()) {
      if (auto section = dyn_cast<SectionOp>(op)) {
        // Debug data refers to sections and the labels inside them.
        moduleSymbols.try_emplace(section.getName(), &op);
        for (auto label : section.getBody().getOps<LabelOp>())
          if (failed(define(moduleSymbols, label.getSymName(), label)))
            return failure();
        continue;
      }
      StringRef name;
      if (auto func = dyn_cast<FuncOp>(op))
        name = func.getSymName();
      else if (auto var = dyn_cast<VarOp>(op))
        name = var.getSymName();
      else
        continue;
      if (failed(define(moduleSymbols, name, &op)))
        return failure();
    }
    return success();
  }

  /// Adds `name` to `names`. A function may be declared and then defined.
  LogicalResult define(Names &names, StringRef name,
                       Operation *op, StringRef what = "redefines '") {
    if (!unresolved && !isPTXName(name))
      return emitBadName(op, name);
    auto [it, inserted] = names.try_emplace(name, op);
    if (inserted)
      return success();
    auto previous = dyn_cast<FuncOp>(it->second);
    auto current = dyn_cast<FuncOp>(op);
    if (previous && current &&
        (previous.isDeclaration() || current.isDeclaration())) {
      if (previous.isDeclaration())
        it->second = op;
      return success();
    }
    if (unresolved)
      return success();
    InFlightDiagnostic diag = op->emitOpError(what) << name << "'";
    if (what.starts_with("declares"))
      diag << " twice in the same scope";
    diag.attachNote(it->second->getLoc())
        << (what.starts_with("declares") ? "previous declaration is here"
                                         : "previous definition is here");
    return diag;
  }

  LogicalResult verifyFunction(FuncOp func) {
    if (func.isDeclaration())
      return success();
    paramNames.clear();
    for (ArrayAttr list : {func.getRetParams(), func.getParams()})
      for (auto param : list.getAsRange<ParamAttr>())
        paramNames.insert(param.getName().getValue());
    depth = 0;
    LogicalResult result = verifyBlock(func.getBody().front());
    paramNames.clear();
    return result;
  }

  LogicalResult verifyBlock(Block &block) {
    if (depth == scopes.size())
      scopes.emplace_back();
    Scope &scope = scopes[depth++];
    scope.labels.clear();
    scope.names.clear();
    llvm::scope_exit popScope([&] { --depth; });
    // Labels and branch/call target lists are visible in their whole block
    // (and the blocks nested in it), before and after their definition.
    for (Operation &op : block) {
      StringRef name;
      if (auto label = dyn_cast<LabelOp>(op))
        name = label.getSymName();
      else if (auto targets = dyn_cast<BranchTargetsOp>(op))
        name = targets.getSymName();
      else if (auto targets = dyn_cast<CallTargetsOp>(op))
        name = targets.getSymName();
      else if (auto proto = dyn_cast<CallPrototypeOp>(op))
        name = proto.getSymName();
      else
        continue;
      if (failed(define(scope.labels, name, &op)))
        return failure();
    }
    for (Operation &op : block) {
      LogicalResult result =
          llvm::TypeSwitch<Operation *, LogicalResult>(&op)
              .Case([&](RegOp reg) {
                // Symbols never name registers: collect mode skips them.
                if (unresolved)
                  return success();
                for (unsigned i = 0, e = reg.getNumResults(); i < e; ++i)
                  if (failed(declare(registerNames.save(reg.getRegName(i)), reg)))
                    return failure();
                return success();
              })
              .Case([&](VarOp var) {
                if (failed(declare(var.getSymName(), var)))
                  return failure();
                return verifyInitializer(var);
              })
              .Case([&](InstOp inst) {
                return verifyRefs(inst, inst.getPtxOperands().getValue());
              })
              .Case([&](ScopeOp scope) {
                return verifyBlock(scope.getBody().front());
              })
              .Case([&](BranchTargetsOp targets) {
                return verifyTargets(targets, targets.getTargets());
              })
              .Case([&](CallTargetsOp targets) {
                return verifyTargets(targets, targets.getTargets());
              })
              .Case([&](LocOp loc) {
                if (auto name = loc.getFunctionNameAttr())
                  return resolve(loc, name.getValue());
                return success();
              })
              .Default([](Operation *) { return success(); });
      if (failed(result))
        return failure();
    }
    return success();
  }

  LogicalResult declare(StringRef name, Operation *op) {
    return define(scopes[depth - 1].names, name, op, "declares '");
  }

  LogicalResult resolve(Operation *user, StringRef name) {
    for (const Scope &scope : llvm::reverse(ArrayRef(scopes).take_front(depth)))
      if (scope.labels.contains(name) || scope.names.contains(name))
        return success();
    if (paramNames.contains(name) || moduleSymbols.contains(name) ||
        name == "WARP_SZ" || name.starts_with(".debug_") ||
        undeclaredNames.contains(name) ||
        (isa<DataOp>(user) && functionLabels.contains(name)))
      return success();
    if (unresolved) {
      unresolved->insert(name);
      return success();
    }
    return user->emitOpError("refers to '")
           << name
           << "', which is not a label, variable, parameter or function in "
              "scope";
  }

  LogicalResult verifyRefs(Operation *user, ArrayRef<Attribute> exprs) {
    for (Attribute expr : exprs)
      if (failed(verifyRef(user, expr)))
        return failure();
    return success();
  }

  /// Resolves the symbols inside one operand expression. (A hand-written
  /// walk: the generic attribute walker is several times slower here.)
  LogicalResult verifyRef(Operation *user, Attribute expr) {
    // The most common operands, first.
    if (isa<RegRefAttr, ImmAttr>(expr))
      return success();
    return llvm::TypeSwitch<Attribute, LogicalResult>(expr)
        .Case([&](FlatSymbolRefAttr symbol) {
          return resolve(user, symbol.getValue());
        })
        .Case([&](BinaryAttr binary) {
          if (failed(verifyRef(user, binary.getLhs())))
            return failure();
          return verifyRef(user, binary.getRhs());
        })
        .Case([&](UnaryAttr unary) {
          return verifyRef(user, unary.getOperand());
        })
        .Case([&](NotAttr negation) {
          return verifyRef(user, negation.getOperand());
        })
        .Case<AddrAttr, VectorAttr, ParenAttr>(
            [&](auto list) { return verifyRefs(user, list.getElements()); })
        .Case([&](FuncExprAttr func) {
          return verifyRefs(user, func.getArgs());
        })
        .Default([](Attribute) { return success(); });
  }

  LogicalResult verifyTargets(Operation *user, ArrayAttr targets) {
    for (auto target : targets.getAsRange<FlatSymbolRefAttr>())
      if (failed(resolve(user, target.getValue())))
        return failure();
    return success();
  }

  LogicalResult verifyInitializer(VarOp var) {
    if (!var.getInitAttr())
      return success();
    return verifyRefs(var, var.getInitAttr());
  }

  LogicalResult verifyAlias(AliasOp alias) {
    for (FlatSymbolRefAttr name : {alias.getAliasAttr(), alias.getAliaseeAttr()})
      if (!isa_and_nonnull<FuncOp>(moduleSymbols.lookup(name.getValue())) &&
          !undeclaredNames.contains(name.getValue())) {
        if (unresolved) {
          unresolved->insert(name.getValue());
          continue;
        }
        return alias.emitOpError("'")
               << name.getValue() << "' is not a function of this module";
      }
    return success();
  }

  /// Debug data refers to labels (`$L__func_begin0`), parameters and local
  /// variables (`__local_depot0`) inside functions, so in sections every
  /// name declared in any function is visible.
  LogicalResult verifySection(SectionOp section) {
    if (!collectedFunctionLabels) {
      collectedFunctionLabels = true;
      for (auto func : module.getBody().getOps<FuncOp>()) {
        for (ArrayAttr list : {func.getRetParams(), func.getParams()})
          for (auto param : list.getAsRange<ParamAttr>())
            functionLabels.insert(param.getName().getValue());
        func.walk([&](Operation *op) {
          if (auto label = dyn_cast<LabelOp>(op))
            functionLabels.insert(label.getSymName());
          else if (auto var = dyn_cast<VarOp>(op))
            functionLabels.insert(var.getSymName());
        });
      }
    }
    for (auto data : section.getBody().getOps<DataOp>())
      if (failed(verifyRefs(data, data.getValues().getValue())))
        return failure();
    return success();
  }

  ModuleOp module;
  llvm::SetVector<StringRef> *unresolved;
  llvm::DenseSet<StringRef> undeclaredNames;
  Names moduleSymbols;
  llvm::DenseSet<StringRef> paramNames;
  llvm::DenseSet<StringRef> functionLabels;
  bool collectedFunctionLabels = false;
  /// Register names, spelled out for the scopes (which hold StringRefs).
  llvm::BumpPtrAllocator allocator;
  llvm::StringSaver registerNames{allocator};
  /// The blocks being verified, innermost last: the first `depth` entries.
  SmallVector<Scope> scopes;
  unsigned depth = 0;
};
} // namespace

void pyptx::collectUndeclaredSymbols(ModuleOp module,
                                     llvm::SetVector<StringRef> &names) {
  (void)SymbolVerifier(module, &names).run();
}

LogicalResult ModuleOp::verifyRegions() {
  return verifyInstructionsAndSymbols();
}

LogicalResult ModuleOp::verifyInstructionsAndSymbols() {
  bool ok = true;
  getOperation()->walk(
      [&](InstOp inst) { ok &= succeeded(inst.verifyInstruction()); });
  return success(succeeded(verifySymbols()) && ok);
}

LogicalResult ModuleOp::verifySymbols() {
  return SymbolVerifier(*this, nullptr).run();
}

//===----------------------------------------------------------------------===//
// FuncOp
//===----------------------------------------------------------------------===//

static constexpr StringLiteral kEntryDirectives[] = {
    "maxntid",         "reqntid",        "minnctapersm",
    "maxnreg",         "reqnctapercluster", "explicitcluster",
    "maxclusterrank",  "blocksareclusters"};
static constexpr StringLiteral kFuncDirectives[] = {
    "noreturn", "abi_preserve", "abi_preserve_control"};

static bool isDirectiveName(StringRef name) {
  return name == "pragma" || llvm::is_contained(kEntryDirectives, name) ||
         llvm::is_contained(kFuncDirectives, name);
}

static ParseResult parseParamList(OpAsmParser &parser,
                                  SmallVectorImpl<Attribute> &params) {
  if (parser.parseLParen())
    return failure();
  if (succeeded(parser.parseOptionalRParen()))
    return success();
  if (parser.parseCommaSeparatedList([&]() -> ParseResult {
        ParamAttr param = parseParamBody(parser);
        if (!param)
          return failure();
        params.push_back(param);
        return success();
      }))
    return failure();
  return parser.parseRParen();
}

static void printParamList(OpAsmPrinter &printer, ArrayAttr params) {
  printer << "(";
  llvm::interleaveComma(params.getAsRange<ParamAttr>(), printer,
                        [&](ParamAttr p) { printParamBody(printer, p); });
  printer << ")";
}

ParseResult FuncOp::parse(OpAsmParser &parser, OperationState &result) {
  MLIRContext *ctx = parser.getContext();
  Linkage linkage = Linkage::none;
  StringRef word;
  if (succeeded(parser.parseOptionalKeyword(&word,
                                            {"visible", "extern", "weak"})))
    linkage = *symbolizeLinkage(word);
  SMLoc kindLoc = parser.getCurrentLocation();
  if (parser.parseKeyword(&word))
    return failure();
  std::optional<FuncKind> kind = symbolizeFuncKind(word);
  if (!kind)
    return parser.emitError(kindLoc, "expected 'entry' or 'func'");
  StringAttr name;
  SmallVector<Attribute> params, retParams;
  if (parser.parseSymbolName(name))
    return failure();
  // `.entry k` may omit its parameter list altogether.
  bool hasParamList = true;
  if (failed(parser.parseOptionalLParen()))
    hasParamList = false;
  else if (parser.parseOptionalRParen()) {
    if (parser.parseCommaSeparatedList([&]() -> ParseResult {
          ParamAttr param = parseParamBody(parser);
          if (!param)
            return failure();
          params.push_back(param);
          return success();
        }) ||
        parser.parseRParen())
      return failure();
  }
  if (!hasParamList)
    result.addAttribute("no_param_list", UnitAttr::get(ctx));
  if (succeeded(parser.parseOptionalArrow()) &&
      parseParamList(parser, retParams))
    return failure();
  if (succeeded(parser.parseOptionalKeyword("empty_ret_list")))
    result.addAttribute("empty_ret_list", UnitAttr::get(ctx));
  SmallVector<Attribute> directives;
  SmallVector<StringRef> directiveNames = {"pragma"};
  directiveNames.append(std::begin(kEntryDirectives),
                        std::end(kEntryDirectives));
  directiveNames.append(std::begin(kFuncDirectives), std::end(kFuncDirectives));
  while (succeeded(parser.parseOptionalKeyword(&word, directiveNames))) {
    DirectiveAttr directive = parseDirectiveBody(parser, word);
    if (!directive)
      return failure();
    directives.push_back(directive);
  }
  result.addAttribute("sym_name", name);
  result.addAttribute("kind", FuncKindAttr::get(ctx, *kind));
  result.addAttribute("linkage", LinkageAttr::get(ctx, linkage));
  result.addAttribute("params", ArrayAttr::get(ctx, params));
  result.addAttribute("ret_params", ArrayAttr::get(ctx, retParams));
  result.addAttribute("directives", ArrayAttr::get(ctx, directives));
  if (parser.parseOptionalAttrDictWithKeyword(result.attributes))
    return failure();
  Region *body = result.addRegion();
  OptionalParseResult region = parser.parseOptionalRegion(*body);
  if (region.has_value() && failed(*region))
    return failure();
  if (region.has_value() && body->empty())
    body->emplaceBlock();
  return success();
}

void FuncOp::print(OpAsmPrinter &printer) {
  if (getLinkage() != Linkage::none)
    printer << " " << stringifyLinkage(getLinkage());
  printer << " " << stringifyFuncKind(getKind()) << " ";
  printer.printSymbolName(getSymName());
  if (!getNoParamList())
    printParamList(printer, getParams());
  if (!getRetParams().empty()) {
    printer << " -> ";
    printParamList(printer, getRetParams());
  }
  if (getEmptyRetList())
    printer << " empty_ret_list";
  for (auto directive : getDirectives().getAsRange<DirectiveAttr>()) {
    printer << " ";
    printDirectiveBody(printer, directive);
  }
  printer.printOptionalAttrDictWithKeyword(
      (*this)->getAttrs(),
      {getSymNameAttrName(), getKindAttrName(), getLinkageAttrName(),
       getParamsAttrName(), getRetParamsAttrName(), getDirectivesAttrName(),
       getNoParamListAttrName(), getEmptyRetListAttrName()});
  if (!isDeclaration()) {
    printer << " ";
    printer.printRegion(getBody(), /*printEntryBlockArgs=*/true);
  }
}

void FuncOp::getAsmBlockArgumentNames(Region &region,
                                      OpAsmSetValueNameFn setNameFn) {
  if (region.empty())
    return;
  for (BlockArgument arg : region.front().getArguments())
    setNameFn(arg, stripPercent(getRegisterName(arg)));
}

Block *FuncOp::addEntryBlock() {
  Block *block = new Block();
  getBody().push_back(block);
  for (ArrayAttr list : {getRetParams(), getParams()})
    for (auto param : list.getAsRange<ParamAttr>()) {
      if (param.getSpace() != StateSpace::reg)
        continue;
      Type type = param.getType() == ScalarType::pred
                      ? Type(PredType::get(getContext()))
                      : Type(RegType::get(getContext(), param.getType(),
                                          param.getVecWidth()));
      block->addArgument(type, getLoc());
    }
  return block;
}

static bool isPowerOf2OrZero(uint64_t value) {
  return (value & (value - 1)) == 0;
}

static LogicalResult verifyParam(Operation *op, ParamAttr param,
                                 bool isEntry) {
  if (!isPTXName(param.getName().getValue()))
    return emitBadName(op, param.getName().getValue());
  if (param.getSpace() != StateSpace::param &&
      param.getSpace() != StateSpace::reg)
    return op->emitOpError("parameter '")
           << param.getName().getValue()
           << "' must be in the .param or .reg state space, not ."
           << spaceName(param.getSpace());
  if (isEntry && param.getSpace() == StateSpace::reg)
    return op->emitOpError("kernel parameter '")
           << param.getName().getValue()
           << "' must be .param: .entry takes no .reg parameters";
  if (!isPowerOf2OrZero(param.getAlign()) ||
      !isPowerOf2OrZero(param.getPtrAlign()))
    return op->emitOpError("alignment of parameter '")
           << param.getName().getValue() << "' must be a power of two";
  if (param.getIsPtr() && (isEntry ? false : true))
    return op->emitOpError("parameter '")
           << param.getName().getValue()
           << "' uses .ptr, which is allowed only on kernel parameters";
  if (param.getVecWidth() != 1 && param.getVecWidth() != 2 &&
      param.getVecWidth() != 4 && param.getVecWidth() != 8)
    return op->emitOpError("parameter '")
           << param.getName().getValue()
           << "' has vector width " << param.getVecWidth()
           << "; expected 1, 2, 4 or 8";
  for (int64_t dim : param.getDims())
    if (dim <= 0)
      return op->emitOpError("parameter '")
             << param.getName().getValue()
             << "' needs positive array dimensions";
  return success();
}

static LogicalResult verifyDirective(FuncOp func, DirectiveAttr directive) {
  StringRef name = directive.getName().getValue();
  ArrayAttr values = directive.getValues();
  if (!isDirectiveName(name))
    return func.emitOpError("unknown directive '.") << name << "'";
  if (name == "pragma") {
    if (values.empty() ||
        !llvm::all_of(values, [](Attribute a) { return isa<StringAttr>(a); }))
      return func.emitOpError(".pragma needs one or more strings");
    for (auto value : values.getAsValueRange<StringAttr>())
      if (!isPTXStringBody(value))
        return emitBadString(func, value);
    return success();
  }
  bool entryOnly = llvm::is_contained(kEntryDirectives, name);
  if (entryOnly && !func.isEntry())
    return func.emitOpError(".") << name << " applies only to .entry kernels";
  if (!entryOnly && func.isEntry())
    return func.emitOpError(".") << name << " applies only to .func functions";
  SmallVector<int64_t> numbers;
  for (Attribute value : values) {
    auto integer = dyn_cast<IntegerAttr>(value);
    if (!integer)
      return func.emitOpError(".") << name << " takes integers";
    numbers.push_back(integer.getInt());
  }
  size_t minCount = 1, maxCount = 1;
  if (name == "maxntid" || name == "reqntid" || name == "reqnctapercluster")
    maxCount = 3;
  else if (name == "explicitcluster" || name == "noreturn" ||
           name == "blocksareclusters")
    minCount = maxCount = 0;
  if (numbers.size() < minCount || numbers.size() > maxCount) {
    InFlightDiagnostic diag = func.emitOpError(".") << name << " takes ";
    if (minCount == maxCount)
      diag << minCount << (minCount == 1 ? " value" : " values");
    else
      diag << minCount << " to " << maxCount << " values";
    return diag << ", got " << numbers.size();
  }
  int64_t product = 1;
  for (int64_t number : numbers) {
    bool abi = name.starts_with("abi_preserve");
    if (abi ? number < 0 : number <= 0)
      return func.emitOpError(".")
             << name << " values must be " << (abi ? "non-negative" : "positive")
             << ", got " << number;
    // Saturate: the limits checked below are far smaller.
    product = std::min<int64_t>(product * std::min<int64_t>(number, 1 << 20),
                                int64_t(1) << 40);
  }
  if ((name == "maxntid" || name == "reqntid") && product > 1024)
    return func.emitOpError(".")
           << name << " asks for " << product
           << " threads per CTA; the limit is 1024";
  if (name == "maxnreg" && numbers[0] > 255)
    return func.emitOpError(".maxnreg must be at most 255, got ")
           << numbers[0];
  return success();
}

LogicalResult FuncOp::verify() {
  if (getNoParamList() && !getParams().empty())
    return emitOpError("has parameters but no_param_list is set");
  if (getEmptyRetList() && !getRetParams().empty())
    return emitOpError("empty_ret_list is set but there are return "
                       "parameters");
  if (getLinkage() == Linkage::common)
    return emitOpError(".common linkage applies only to variables");
  if (isEntry() && !getRetParams().empty())
    return emitOpError("a kernel (.entry) cannot have return parameters");
  llvm::StringSet<> names;
  SmallVector<Type> regTypes;
  for (ArrayAttr list : {getRetParams(), getParams()})
    for (auto param : list.getAsRange<ParamAttr>()) {
      if (failed(verifyParam(*this, param, isEntry())))
        return failure();
      if (!names.insert(param.getName().getValue()).second)
        return emitOpError("has two parameters named '")
               << param.getName().getValue() << "'";
      if (param.getSpace() == StateSpace::reg)
        regTypes.push_back(
            param.getType() == ScalarType::pred
                ? Type(PredType::get(getContext()))
                : Type(RegType::get(getContext(), param.getType(),
                                    param.getVecWidth())));
    }
  llvm::StringSet<> seenDirectives;
  for (auto directive : getDirectives().getAsRange<DirectiveAttr>()) {
    if (failed(verifyDirective(*this, directive)))
      return failure();
    StringRef name = directive.getName().getValue();
    if (name != "pragma" && !seenDirectives.insert(name).second)
      return emitOpError("repeats .") << name;
  }
  if (isDeclaration())
    return success();
  Block &entry = getBody().front();
  if (entry.getNumArguments() != regTypes.size())
    return emitOpError("body has ")
           << entry.getNumArguments()
           << " block arguments, but the function has " << regTypes.size()
           << " .reg parameters";
  for (auto [arg, type] : llvm::zip(entry.getArguments(), regTypes))
    if (arg.getType() != type)
      return emitOpError("block argument #")
             << arg.getArgNumber() << " has type " << arg.getType()
             << ", but its .reg parameter has type " << type;
  if (!getBody().hasOneBlock())
    return emitOpError("body must be a single block");
  return success();
}

//===----------------------------------------------------------------------===//
// RegOp
//===----------------------------------------------------------------------===//

ParseResult RegOp::parse(OpAsmParser &parser, OperationState &result) {
  MLIRContext *ctx = parser.getContext();
  Type type;
  if (parseShortType(parser, type))
    return failure();
  SmallVector<Attribute> names;
  SmallVector<int64_t> counts;
  do {
    std::string name;
    if (parser.parseString(&name))
      return failure();
    int64_t count = -1;
    if (succeeded(parser.parseOptionalLess())) {
      SMLoc countLoc = parser.getCurrentLocation();
      if (parser.parseInteger(count) || parser.parseGreater())
        return failure();
      if (count < 0)
        return parser.emitError(countLoc, "register range '")
               << name << "<" << count << ">' has a negative count";
    }
    names.push_back(StringAttr::get(ctx, name));
    counts.push_back(count);
  } while (succeeded(parser.parseOptionalComma()));
  result.addAttribute("type", TypeAttr::get(type));
  result.addAttribute("names", ArrayAttr::get(ctx, names));
  result.addAttribute("counts", DenseI64ArrayAttr::get(ctx, counts));
  if (parser.parseOptionalAttrDict(result.attributes))
    return failure();
  int64_t total = 0;
  for (int64_t count : counts)
    total += count < 0 ? 1 : count;
  result.addTypes(SmallVector<Type>(total, type));
  return success();
}

void RegOp::print(OpAsmPrinter &printer) {
  printer << " " << shortTypeName(getType()) << " ";
  llvm::interleaveComma(llvm::zip(getNames().getAsValueRange<StringAttr>(),
                                  getCounts()),
                        printer, [&](auto pair) {
                          printer.printString(std::get<0>(pair));
                          if (std::get<1>(pair) >= 0)
                            printer << "<" << std::get<1>(pair) << ">";
                        });
  printer.printOptionalAttrDict((*this)->getAttrs(),
                                {getTypeAttrName(), getNamesAttrName(),
                                 getCountsAttrName()});
}

std::string RegOp::getRegName(unsigned index) {
  for (auto [name, count] :
       llvm::zip(getNames().getAsValueRange<StringAttr>(), getCounts())) {
    if (count < 0) {
      if (index == 0)
        return name.str();
      --index;
      continue;
    }
    if (index < count) {
      char digits[16];
      char *end = digits + sizeof(digits), *p = end;
      do
        *--p = char('0' + index % 10);
      while (index /= 10);
      std::string result;
      result.reserve(name.size() + (end - p));
      result.append(name.data(), name.size()).append(p, end);
      return result;
    }
    index -= count;
  }
  return "<unnamed>";
}

void RegOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  for (unsigned i = 0, e = getNumResults(); i < e; ++i)
    setNameFn(getResult(i), stripPercent(getRegName(i)));
}

/// PTX identifiers: `[a-zA-Z][a-zA-Z0-9_$]*` or `[_$%][a-zA-Z0-9_$]+`.
static bool isPTXIdentifier(StringRef name) {
  if (name.empty())
    return false;
  auto isBody = [](char c) { return llvm::isAlnum(c) || c == '_' || c == '$'; };
  char first = name.front();
  if (llvm::isAlpha(first))
    return llvm::all_of(name.drop_front(), isBody);
  if (first != '_' && first != '$' && first != '%')
    return false;
  return name.size() > 1 && llvm::all_of(name.drop_front(), isBody);
}

LogicalResult RegOp::verify() {
  Type type = getType();
  if (!isa<RegType, PredType>(type))
    return emitOpError("declares registers of type ")
           << type << "; expected !pyptx.reg<...> or !pyptx.pred";
  if (getNames().size() != getCounts().size())
    return emitOpError("has ") << getNames().size() << " names but "
                               << getCounts().size() << " counts";
  if (getNames().empty())
    return emitOpError("declares no registers");
  int64_t total = 0;
  for (auto [name, count] :
       llvm::zip(getNames().getAsValueRange<StringAttr>(), getCounts())) {
    if (!isPTXIdentifier(name))
      return emitOpError("'") << name << "' is not a valid PTX register name";
    if (count < -1)
      return emitOpError("register range '")
             << name << "<" << count << ">' has a negative count";
    total += count < 0 ? 1 : count;
  }
  if (total != getNumResults())
    return emitOpError("declares ")
           << total << " registers but has " << getNumResults() << " results";
  for (Type resultType : getResultTypes())
    if (resultType != type)
      return emitOpError("result type ")
             << resultType << " differs from the declared type " << type;
  return success();
}

//===----------------------------------------------------------------------===//
// SRegOp
//===----------------------------------------------------------------------===//

/// Bit width of a special register, or 0 if `name` is not one.
unsigned pyptx::getSpecialRegisterWidth(StringRef name) {
  const ptxisa::SpecialRegisterDesc *sreg = ptxisa::lookupSpecialRegister(name);
  return sreg ? sreg->bits : 0;
}

LogicalResult SRegOp::verify() {
  if (getUndeclared())
    return success();
  unsigned width = getSpecialRegisterWidth(getName());
  if (!width)
    return emitOpError("'") << getName() << "' is not a PTX special register";
  if (cast<PTXDialect>((*this)->getDialect())->isaPolicy !=
      ptxisa::Policy::Off)
    if (auto module = (*this)->getParentOfType<ModuleOp>())
      if (std::optional<std::string> problem = ptxisa::checkSpecialRegister(
              getName(), {module.getArch(), module.getVersionMajor() * 10 +
                                                module.getVersionMinor()}))
        return emitError(*problem);
  Type type = getResult().getType();
  unsigned typeWidth = 1;
  if (auto reg = dyn_cast<RegType>(type))
    typeWidth = getBitWidth(reg.getType()) * reg.getVecWidth();
  if (typeWidth != width)
    return emitOpError("'") << getName() << "' is a " << width
                            << "-bit register, but the value has type "
                            << shortTypeName(type);
  return success();
}

void SRegOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setNameFn(getResult(), stripPercent(getName()));
}

//===----------------------------------------------------------------------===//
// VarOp
//===----------------------------------------------------------------------===//

ParseResult VarOp::parse(OpAsmParser &parser, OperationState &result) {
  MLIRContext *ctx = parser.getContext();
  Builder &builder = parser.getBuilder();
  Linkage linkage = Linkage::none;
  StringRef word;
  if (succeeded(parser.parseOptionalKeyword(
          &word, {"visible", "extern", "weak", "common"})))
    linkage = *symbolizeLinkage(word);
  SMLoc spaceLoc = parser.getCurrentLocation();
  if (parser.parseKeyword(&word))
    return failure();
  std::optional<StateSpace> space = symbolizeStateSpace(word);
  if (!space)
    return parser.emitError(spaceLoc, "unknown state space '") << word << "'";
  if (succeeded(parser.parseOptionalKeyword("attribute"))) {
    SmallVector<StringRef> attributes;
    if (parser.parseLParen() ||
        parser.parseCommaSeparatedList([&]() -> ParseResult {
          StringRef name;
          if (parser.parseKeyword(&name))
            return failure();
          attributes.push_back(name);
          return success();
        }) ||
        parser.parseRParen())
      return failure();
    result.addAttribute("var_attributes", builder.getStrArrayAttr(attributes));
  }
  unsigned align = 0;
  if (succeeded(parser.parseOptionalKeyword("align")) &&
      parser.parseInteger(align))
    return failure();
  SMLoc typeLoc = parser.getCurrentLocation();
  if (parser.parseKeyword(&word))
    return failure();
  ScalarType scalar = ScalarType::pred;
  unsigned vecWidth = 1;
  if (word != "pred") {
    auto reg = dyn_cast_or_null<RegType>(parseShortTypeName(ctx, word));
    if (!reg)
      return parser.emitError(typeLoc, "unknown PTX type '") << word << "'";
    scalar = reg.getType();
    vecWidth = reg.getVecWidth();
  }
  StringAttr name;
  if (parser.parseSymbolName(name))
    return failure();
  SmallVector<int64_t> dims;
  while (succeeded(parser.parseOptionalLSquare())) {
    int64_t dim = -1;
    if (failed(parser.parseOptionalRSquare())) {
      if (parser.parseInteger(dim) || parser.parseRSquare())
        return failure();
    }
    dims.push_back(dim);
  }
  result.addAttribute("sym_name", name);
  result.addAttribute("space", StateSpaceAttr::get(ctx, *space));
  result.addAttribute("linkage", LinkageAttr::get(ctx, linkage));
  result.addAttribute("align", builder.getUI32IntegerAttr(align));
  result.addAttribute("type", ScalarTypeAttr::get(ctx, scalar));
  result.addAttribute("vec_width", builder.getUI32IntegerAttr(vecWidth));
  result.addAttribute("dims", DenseI64ArrayAttr::get(ctx, dims));
  if (succeeded(parser.parseOptionalEqual())) {
    Attribute init;
    if (ExprParser(parser, nullptr).parseExpr(init))
      return failure();
    result.addAttribute("init", init);
  }
  return parser.parseOptionalAttrDictWithKeyword(result.attributes);
}

void VarOp::print(OpAsmPrinter &printer) {
  if (getLinkage() != Linkage::none)
    printer << " " << stringifyLinkage(getLinkage());
  printer << " " << spaceName(getSpace());
  if (ArrayAttr attributes = getVarAttributesAttr()) {
    printer << " attribute(";
    llvm::interleaveComma(attributes.getAsValueRange<StringAttr>(), printer);
    printer << ")";
  }
  if (getAlign())
    printer << " align " << getAlign();
  printer << " ";
  if (getVecWidth() > 1)
    printer << "v" << getVecWidth() << ".";
  printer << stringifyScalarType(getType()) << " ";
  printer.printSymbolName(getSymName());
  for (int64_t dim : getDims()) {
    printer << "[";
    if (dim >= 0)
      printer << dim;
    printer << "]";
  }
  if (Attribute init = getInitAttr()) {
    printer << " = ";
    printExpr(printer, init, getOperation()->getOperands());
  }
  printer.printOptionalAttrDictWithKeyword(
      (*this)->getAttrs(),
      {getSymNameAttrName(), getSpaceAttrName(), getLinkageAttrName(),
       getAlignAttrName(), getTypeAttrName(), getVecWidthAttrName(),
       getDimsAttrName(), getInitAttrName(), getVarAttributesAttrName()});
}

LogicalResult VarOp::verify() {
  StateSpace space = getSpace();
  if (space == StateSpace::reg || space == StateSpace::sreg)
    return emitOpError("variables live in .global, .shared, .const, .local, "
                       ".param or .tex; registers are declared with "
                       "pyptx.reg");
  // Types ptxas takes only in instructions (a syntax error in a variable),
  // with the type of their width that a variable holds them in.
  switch (getType()) {
  case ScalarType::pred:
    return emitOpError("a .pred variable is not allowed: predicates live in "
                       "registers (.reg .pred)");
  case ScalarType::bf16:
  case ScalarType::bf16x2:
  case ScalarType::tf32:
  case ScalarType::e2m3:
  case ScalarType::e3m2:
  case ScalarType::e2m1:
  case ScalarType::ue8m0: {
    StringRef storage = getType() == ScalarType::bf16     ? "b16"
                        : getType() == ScalarType::bf16x2 ? "b32"
                        : getType() == ScalarType::tf32   ? "b32"
                                                          : "b8";
    return emitOpError("a variable cannot have type .")
           << stringifyScalarType(getType())
           << " (ptxas takes it only as an instruction type): declare it ."
           << storage;
  }
  default:
    break;
  }
  bool atModule = isa<ModuleOp>((*this)->getParentOp());
  if (space == StateSpace::param && atModule)
    return emitOpError(".param variables are allowed only inside functions");
  if (getLinkage() == Linkage::common && space != StateSpace::global)
    return emitOpError(".common linkage applies only to .global variables");
  if (getLinkage() != Linkage::none && !atModule)
    return emitOpError("linkage .")
           << stringifyLinkage(getLinkage())
           << " is allowed only on module-level variables";
  if (!isPowerOf2OrZero(getAlign()))
    return emitOpError("alignment must be a power of two, got ") << getAlign();
  if (ArrayAttr attributes = getVarAttributesAttr())
    for (StringRef name : attributes.getAsValueRange<StringAttr>())
      if (name != "managed")
        return emitOpError("unknown variable attribute '.")
               << name << "': expected .managed";
  unsigned vec = getVecWidth();
  if (vec != 1 && vec != 2 && vec != 4 && vec != 8)
    return emitOpError("vector width must be 1, 2, 4 or 8, got ") << vec;
  ArrayRef<int64_t> dims = getDims();
  for (auto [i, dim] : llvm::enumerate(dims)) {
    if (dim == -1 && i != 0)
      return emitOpError("only the first array dimension may be unsized");
    if (dim == 0 || dim < -1)
      return emitOpError("array dimension ") << dim << " must be positive";
  }
  if (!dims.empty() && dims.front() == -1 && !getInitAttr() &&
      getLinkage() != Linkage::extern_)
    return emitOpError("an unsized array needs an initializer or .extern");
  if (getInitAttr()) {
    if (failed(verifyConstantExpr(*this, getInitAttr())))
      return failure();
    if (space != StateSpace::global && space != StateSpace::const_)
      return emitOpError("only .global and .const variables can have an "
                         "initializer, not .")
             << spaceName(space);
    if (getLinkage() == Linkage::extern_)
      return emitOpError("an .extern variable cannot have an initializer");
  }
  return success();
}

//===----------------------------------------------------------------------===//
// InstOp
//===----------------------------------------------------------------------===//

std::string InstOp::getOpcode() {
  std::string opcode = getMnemonic().str();
  for (StringRef modifier : getModifiers().getAsValueRange<StringAttr>())
    opcode += ("." + modifier).str();
  return opcode;
}

ParseResult InstOp::parse(OpAsmParser &parser, OperationState &result) {
  MLIRContext *ctx = parser.getContext();
  if (succeeded(parser.parseOptionalKeyword("ptx_loc"))) {
    Builder &builder = parser.getBuilder();
    for (StringRef name : {"loc_file", "loc_line", "loc_column"}) {
      uint32_t value;
      if (parser.parseInteger(value))
        return failure();
      result.addAttribute(name, builder.getUI32IntegerAttr(value));
    }
  }
  OpAsmParser::UnresolvedOperand guard;
  bool hasGuard = false;
  if (succeeded(parser.parseOptionalKeyword("if"))) {
    hasGuard = true;
    if (succeeded(parser.parseOptionalKeyword("not")))
      result.addAttribute("guard_negated", UnitAttr::get(ctx));
    if (parser.parseOperand(guard))
      return failure();
  }
  SMLoc opcodeLoc = parser.getCurrentLocation();
  std::string opcode;
  if (parser.parseKeywordOrString(&opcode))
    return failure();
  SmallVector<StringRef> parts;
  StringRef(opcode).split(parts, '.');
  if (parts.front().empty() || llvm::any_of(parts, [](StringRef part) {
        return part.empty();
      }))
    return parser.emitError(opcodeLoc, "malformed opcode '") << opcode << "'";
  result.addAttribute("mnemonic", StringAttr::get(ctx, parts.front()));
  result.addAttribute("modifiers",
                      parser.getBuilder().getStrArrayAttr(
                          ArrayRef(parts).drop_front()));

  SmallVector<OpAsmParser::UnresolvedOperand> registers;
  SmallVector<Attribute> operands;
  if (succeeded(parser.parseOptionalLParen())) {
    ExprParser exprParser(parser, &registers);
    if (exprParser.parseList(operands, &OpAsmParser::parseOptionalRParen))
      return failure();
  }
  result.addAttribute("ptx_operands", ArrayAttr::get(ctx, operands));
  if (parser.parseOptionalAttrDictWithKeyword(result.attributes))
    return failure();

  SmallVector<Type> types;
  SMLoc typesLoc = parser.getCurrentLocation();
  if (succeeded(parser.parseOptionalColon())) {
    do {
      Type type;
      if (parseShortType(parser, type))
        return failure();
      types.push_back(type);
    } while (succeeded(parser.parseOptionalComma()));
  }
  if (types.size() != registers.size())
    return parser.emitError(typesLoc, "instruction has ")
           << registers.size() << " register operands but " << types.size()
           << " types after ':'";
  if (hasGuard &&
      parser.resolveOperand(guard, PredType::get(ctx), result.operands))
    return failure();
  if (parser.resolveOperands(registers, types, opcodeLoc, result.operands))
    return failure();
  result.addAttribute(
      "operandSegmentSizes",
      parser.getBuilder().getDenseI32ArrayAttr(
          {hasGuard ? 1 : 0, static_cast<int32_t>(registers.size())}));
  return success();
}

void InstOp::print(OpAsmPrinter &printer) {
  if (getLocFile() && getLocLine() && getLocColumn())
    printer << " ptx_loc " << *getLocFile() << " " << *getLocLine() << " "
            << *getLocColumn();
  if (getGuard()) {
    printer << " if ";
    if (getGuardNegated())
      printer << "not ";
    printer.printOperand(getGuard());
  }
  printer << " ";
  std::string opcode = getOpcode();
  // Opcodes with `::` (e.g. `shared::cluster`) are not bare identifiers.
  if (StringRef(opcode).contains(':'))
    printer.printString(opcode);
  else
    printer << opcode;
  if (!getPtxOperands().empty()) {
    printer << " (";
    printExprList(printer, getPtxOperands().getValue(), getArgs());
    printer << ")";
  }
  printer.printOptionalAttrDictWithKeyword(
      (*this)->getAttrs(),
      {getGuardNegatedAttrName(), getMnemonicAttrName(), getModifiersAttrName(),
       getPtxOperandsAttrName(), getOperandSegmentSizesAttrName(),
       getLocFileAttrName(), getLocLineAttrName(), getLocColumnAttrName()});
  if (!getArgs().empty()) {
    printer << " : ";
    llvm::interleaveComma(getArgs().getTypes(), printer,
                          [&](Type type) { printer << shortTypeName(type); });
  }
}

namespace {
/// Checks that an instruction's operand attributes and SSA operands agree.
class OperandFormChecker {
public:
  explicit OperandFormChecker(InstOp inst) : inst(inst) {}

  LogicalResult check() {
    for (Attribute expr : inst.getPtxOperands())
      if (failed(checkExpr(expr)))
        return failure();
    if (nextIndex != inst.getArgs().size())
      return inst.emitOpError("register operand #")
             << nextIndex << " is not referenced by any PTX operand";
    return success();
  }

private:
  LogicalResult checkExpr(Attribute expr) {
    return llvm::TypeSwitch<Attribute, LogicalResult>(expr)
        .Case([&](RegRefAttr ref) { return checkRef(ref); })
        .Case<DecFloatAttr, FlatSymbolRefAttr, SinkAttr>(
            [](Attribute) { return success(); })
        .Case([&](ImmAttr imm) -> LogicalResult {
          if (const char *why = unspellable(imm))
            return inst.emitOpError(why);
          return success();
        })
        .Case([&](FloatImmAttr literal) -> LogicalResult {
          if (!fitsBitsFloat(literal))
            return inst.emitOpError(kWideBitsFloat);
          return success();
        })
        .Case([&](BinaryAttr binary) -> LogicalResult {
          if (failed(checkExpr(binary.getLhs())) ||
              failed(checkExpr(binary.getRhs())))
            return failure();
          bool lhsReg = isa<RegRefAttr, SinkAttr>(binary.getLhs());
          bool rhsReg = isa<RegRefAttr>(binary.getRhs());
          if (binary.getOp() == "|" && (lhsReg || rhsReg) &&
              (!lhsReg || !isPredRef(binary.getRhs())))
            return inst.emitOpError("'|' pairs a register with a predicate "
                                    "register (as in %p|%q or %r|%p)");
          if (binary.getOp() != "|" && binary.getOp() != "+" &&
              binary.getOp() != "-" && (lhsReg || rhsReg))
            return inst.emitOpError("operator '")
                   << binary.getOp() << "' applies to constants only";
          return success();
        })
        .Case([&](UnaryAttr unary) -> LogicalResult {
          if (isNegatedBitsFloat(unary))
            return inst.emitOpError(kNegatedBitsFloat);
          return checkExpr(unary.getOperand());
        })
        .Case([&](NotAttr negation) -> LogicalResult {
          if (failed(checkExpr(negation.getOperand())))
            return failure();
          if (!isPredRef(negation.getOperand()))
            return inst.emitOpError("'!' negates a predicate register only");
          return success();
        })
        .Case<AddrAttr, VectorAttr, ParenAttr>([&](auto list) {
          return checkList(list.getElements());
        })
        .Case([&](FuncExprAttr func) -> LogicalResult {
          // (Byte masks, `0xff(sym)`, are for initializers.)
          if (func.getName() != "generic")
            return inst.emitOpError("operator '")
                   << func.getName().getValue()
                   << "' in an instruction: expected generic(...)";
          return checkList(func.getArgs());
        })
        .Default([&](Attribute other) {
          return inst.emitOpError("operand ")
                 << other << " is not a PTX operand form";
        });
  }

  LogicalResult checkList(ArrayRef<Attribute> elements) {
    for (Attribute element : elements)
      if (failed(checkExpr(element)))
        return failure();
    return success();
  }

  /// A predicate register, or a register the file never declares (whose
  /// type the importer cannot know).
  bool isPredRef(Attribute expr) {
    auto ref = dyn_cast<RegRefAttr>(expr);
    if (!ref || ref.getIndex() >= inst.getArgs().size())
      return false;
    Value value = inst.getArgs()[ref.getIndex()];
    if (auto sreg = value.getDefiningOp<SRegOp>(); sreg && sreg.getUndeclared())
      return true;
    return isa<PredType>(value.getType());
  }

  LogicalResult checkRef(RegRefAttr ref) {
    unsigned count = inst.getArgs().size();
    if (ref.getIndex() >= count)
      return inst.emitOpError("PTX operand refers to register operand #")
             << ref.getIndex() << ", but the instruction has " << count;
    if (ref.getIndex() != nextIndex)
      return inst.emitOpError("register operands must be listed in the order "
                              "they appear: expected #")
             << nextIndex << ", found #" << ref.getIndex();
    ++nextIndex;
    if (ref.getComponent().empty())
      return success();
    Value value = inst.getArgs()[ref.getIndex()];
    auto reg = dyn_cast<RegType>(value.getType());
    static constexpr StringLiteral kComponents[] = {"x", "y", "z", "w",
                                                   "r", "g", "b", "a"};
    const auto *it = llvm::find(kComponents, ref.getComponent());
    unsigned lane = (it - std::begin(kComponents)) % 4;
    if (!reg || reg.getVecWidth() == 1)
      return inst.emitOpError("component .")
             << ref.getComponent() << " of '" << getRegisterName(value)
             << "', which is not a vector register";
    if (it == std::end(kComponents) || lane >= reg.getVecWidth())
      return inst.emitOpError("'")
             << getRegisterName(value) << "' has no component ."
             << ref.getComponent();
    return success();
  }

  InstOp inst;
  unsigned nextIndex = 0;
};
} // namespace

static void collectAddressParts(InstOp op, Attribute part,
                                llvm::StringSaver *names,
                                std::vector<ptxisa::OperandView> &parts);

/// The ISA library's view of one operand; register names only when asked
/// (for a message).
static ptxisa::OperandView viewOperand(InstOp op, Attribute attr,
                                    llvm::StringSaver *names) {
  using V = ptxisa::OperandView;
  V view{V::Immediate, 0, {}, {}, {}};
  if (auto ref = dyn_cast<RegRefAttr>(attr)) {
    view.shape = V::Register;
    Value value = op.getArgs()[ref.getIndex()];
    if (auto sreg = value.getDefiningOp<SRegOp>()) {
      // (A register an imported file never declares is no special register.)
      view.special = !sreg.getUndeclared();
      if (const ptxisa::SpecialRegisterDesc *desc =
              ptxisa::lookupSpecialRegister(sreg.getName())) {
        view.specialBits = desc->bits;
        view.specialMinMovBits = desc->minMovBits;
      }
    } else if (isa<PredType>(value.getType()))
      view.type = "pred";
    else if (auto reg = dyn_cast<RegType>(value.getType());
             reg && (reg.getVecWidth() == 1 || !ref.getComponent().empty()))
      view.type = stringifyScalarType(reg.getType());
    if (names)
      view.name = names->save(getRegisterName(value) +
                              (ref.getComponent().empty()
                                   ? std::string()
                                   : "." + ref.getComponent().str()));
  } else if (auto imm = dyn_cast<ImmAttr>(attr)) {
    view.literal = 'i';
    if (imm.getMagnitude() <= uint64_t(INT64_MAX))
      view.value = imm.getValue();
  } else if (isa<FloatImmAttr, DecFloatAttr>(attr)) {
    view.literal = 'f';
  } else if (isa<NotAttr>(attr)) {
    view.shape = V::NegatedPredicate;
  } else if (auto binary = dyn_cast<BinaryAttr>(attr)) {
    if (binary.getOp() == "|" && isa<RegRefAttr>(binary.getLhs()) &&
        isa<RegRefAttr>(binary.getRhs())) {
      view.shape = V::RegisterPair;
      view.elements.push_back(viewOperand(op, binary.getLhs(), names));
      view.elements.push_back(viewOperand(op, binary.getRhs(), names));
    }
  } else if (isa<SymbolRefAttr>(attr)) {
    view.shape = V::Symbol;
  } else if (auto addr = dyn_cast<AddrAttr>(attr)) {
    view.shape = V::Address;
    for (Attribute part : addr.getElements())
      collectAddressParts(op, part, names, view.elements);
  } else if (auto vector = dyn_cast<VectorAttr>(attr)) {
    view.shape = V::Vector;
    for (Attribute element : vector.getElements())
      view.elements.push_back(viewOperand(op, element, names));
  } else if (auto paren = dyn_cast<ParenAttr>(attr)) {
    // `((128 >> 4) << 16)` is a constant; `(%r1)` a call's argument list.
    bool constant = paren.getElements().size() == 1 &&
                    isa<ImmAttr, BinaryAttr, UnaryAttr, FloatImmAttr,
                        DecFloatAttr>(paren.getElements().front());
    view.shape = constant ? V::Immediate : V::List;
  } else if (isa<SinkAttr>(attr)) {
    view.shape = V::Sink;
  }
  return view;
}

/// The registers that form an address, and the vector of a tensor's
/// coordinates, as the address's elements.
static void collectAddressParts(InstOp op, Attribute part,
                                llvm::StringSaver *names,
                                std::vector<ptxisa::OperandView> &parts) {
  if (isa<RegRefAttr, VectorAttr>(part)) {
    parts.push_back(viewOperand(op, part, names));
  } else if (auto binary = dyn_cast<BinaryAttr>(part)) {
    collectAddressParts(op, binary.getLhs(), names, parts);
    collectAddressParts(op, binary.getRhs(), names, parts);
  }
}

/// Checks the instruction against the PTX ISA description (ISA.td), for the
/// module's .target and .version.
static LogicalResult verifyAgainstISA(InstOp op) {
  auto *dialect = cast<PTXDialect>(op->getDialect());
  ptxisa::Policy policy = dialect->isaPolicy;
  auto module = op->getParentOfType<ModuleOp>();
  if (policy == ptxisa::Policy::Off || !module)
    return success();
  unsigned version = module.getVersionMajor() * 10 + module.getVersionMinor();
  SmallVector<const void *, 16> key{
      op.getMnemonicAttr().getAsOpaquePointer(),
      op.getModifiersAttr().getAsOpaquePointer(),
      op.getPtxOperandsAttr().getAsOpaquePointer(),
      module.getTargets()[0].getAsOpaquePointer(),
      reinterpret_cast<const void *>(uintptr_t(version))};
  for (Value value : op.getArgs()) {
    // Types are aligned pointers: the low bits say "special register" and
    // "undeclared".
    auto sreg = value.getDefiningOp<SRegOp>();
    key.push_back(reinterpret_cast<const void *>(
        reinterpret_cast<uintptr_t>(value.getType().getAsOpaquePointer()) |
        uintptr_t(bool(sreg)) | uintptr_t(sreg && sreg.getUndeclared()) << 1));
  }
  if (dialect->isISAAccepted(key))
    return success();
  ptxisa::ModuleView moduleView{module.getArch(), version};
  const ptxisa::ModifierMatch &match =
      dialect->getModifierMatch(op.getMnemonicAttr(), op.getModifiersAttr());
  SmallVector<StringRef, 8> modifiers(
      op.getModifiers().getAsValueRange<StringAttr>());
  auto check = [&](llvm::StringSaver *names) {
    SmallVector<ptxisa::OperandView, 8> operands;
    for (Attribute attr : op.getPtxOperands())
      operands.push_back(viewOperand(op, attr, names));
    return ptxisa::checkInst({op.getMnemonic(), modifiers, operands},
                             moduleView, match);
  };
  std::optional<ptxisa::Problem> problem = check(nullptr);
  if (!problem) {
    dialect->setISAAccepted(key);
    return success();
  }
  if (problem->operand >= 0) { // again, naming the registers
    llvm::BumpPtrAllocator allocator;
    llvm::StringSaver names(allocator);
    problem = check(&names);
  }
  bool undescribed = problem->kind == ptxisa::Problem::UnknownMnemonic ||
                     problem->kind == ptxisa::Problem::Modifiers;
  if (undescribed && policy == ptxisa::Policy::WarnUnknown) {
    op.emitWarning(problem->message)
        << " (not in pyptx's PTX ISA tables; accepted under "
           "--pyptx-isa=warn-unknown)";
    return success();
  }
  InFlightDiagnostic diag = op.emitError(problem->message);
  if (undescribed)
    diag.attachNote() << "pyptx describes PTX ISA 9.0; for newer PTX, "
                         "--pyptx-isa=warn-unknown lets undescribed "
                         "instructions through";
  return diag;
}

/// The state space of the variable or parameter `name` that `op` sees (the
/// innermost declaration), if `name` is one.
static std::optional<StateSpace> symbolSpace(Operation *op, StringRef name) {
  for (Block *block = op->getBlock(); block;) {
    for (Operation &other : *block)
      if (auto var = dyn_cast<VarOp>(other); var && var.getSymName() == name)
        return var.getSpace();
    Operation *parent = block->getParentOp();
    if (!parent)
      break;
    if (auto func = dyn_cast<FuncOp>(parent))
      for (ArrayAttr list : {func.getRetParams(), func.getParams()})
        for (auto param : list.getAsRange<ParamAttr>())
          if (param.getName().getValue() == name)
            return param.getSpace();
    block = parent->getBlock();
  }
  return std::nullopt;
}

/// The tensor copies (cp.async.bulk.tensor, cp.async.bulk.prefetch.tensor,
/// cp.reduce.async.bulk.tensor) and the generic prefetch.tensormap read a
/// tensor map through a generic address or a .global variable: ptxas
/// rejects a .param or .const symbol there ("State space mismatch"), which
/// the ISA tables, blind to what a symbol is, cannot see.
static LogicalResult verifyTensorMapOperand(InstOp op) {
  ArrayRef<Attribute> operands = op.getPtxOperands().getValue();
  auto modifiers = op.getModifiers().getAsValueRange<StringAttr>();
  bool tensorCopy = op.getMnemonic() == "cp" &&
                    llvm::is_contained(modifiers, "tensor");
  bool genericPrefetch = op.getMnemonic() == "prefetch" &&
                         op.getModifiers().size() == 1 &&
                         *modifiers.begin() == "tensormap";
  if (!tensorCopy && !genericPrefetch)
    return success();
  for (Attribute operand : operands) {
    auto addr = dyn_cast<AddrAttr>(operand);
    if (!addr || addr.getElements().empty())
      continue;
    // The tensor map is the address with the coordinates: [tmap, {x, y}].
    if (tensorCopy && !llvm::any_of(addr.getElements(), [](Attribute a) {
          return isa<VectorAttr>(a);
        }))
      continue;
    auto symbol = dyn_cast<FlatSymbolRefAttr>(addr.getElements().front());
    if (!symbol)
      return success();
    std::optional<StateSpace> space = symbolSpace(op, symbol.getValue());
    if (!space || *space == StateSpace::global ||
        (genericPrefetch && *space != StateSpace::param &&
         *space != StateSpace::const_))
      return success();
    // The instruction's name: the opcode up to `.tensor`/`.tensormap`.
    std::string name = op.getMnemonic().str();
    for (StringRef modifier : modifiers) {
      name += ("." + modifier).str();
      if (modifier.starts_with("tensor"))
        break;
    }
    InFlightDiagnostic diag = op.emitError("the tensor map '")
                              << symbol.getValue() << "' is a ."
                              << spaceName(*space) << " symbol; " << name
                              << " reads a tensor map through a generic "
                                 "address or a .global variable, and ptxas "
                                 "rejects a ."
                              << spaceName(*space)
                              << " one (\"State space mismatch\")";
    if (genericPrefetch)
      diag << ": write prefetch." << spaceName(*space) << ".tensormap ["
           << symbol.getValue() << "], or take its generic address first "
           << "(mov.b64 %rd1, " << symbol.getValue() << "; cvta."
           << spaceName(*space) << ".u64 %rd1, %rd1;) and use [%rd1]";
    else if (*space == StateSpace::param || *space == StateSpace::const_)
      diag << ": take its generic address first (mov.b64 %rd1, "
           << symbol.getValue() << "; cvta." << spaceName(*space)
           << ".u64 %rd1, %rd1;) and use [%rd1, {...}]";
    else
      diag << ": a tensor map lives in .param, .const or .global memory";
    return diag;
  }
  return success();
}

/// ptxas reads `reg-N` and `sym-N` (in an address or not) as a syntax error;
/// it takes `reg+-N`. Finds such a `-` in an operand.
static BinaryAttr minusAfterName(Attribute expr) {
  if (auto binary = dyn_cast<BinaryAttr>(expr)) {
    if (binary.getOp() == "-" &&
        isa<RegRefAttr, FlatSymbolRefAttr>(binary.getLhs()))
      return binary;
    if (BinaryAttr found = minusAfterName(binary.getLhs()))
      return found;
    return minusAfterName(binary.getRhs());
  }
  if (auto addr = dyn_cast<AddrAttr>(expr))
    for (Attribute element : addr.getElements())
      if (BinaryAttr found = minusAfterName(element))
        return found;
  return {};
}

static LogicalResult verifyNoMinusAfterName(InstOp op) {
  for (auto [i, operand] : llvm::enumerate(op.getPtxOperands())) {
    BinaryAttr minus = minusAfterName(operand);
    if (!minus)
      continue;
    std::string name;
    if (auto ref = dyn_cast<RegRefAttr>(minus.getLhs()))
      name = getRegisterName(op.getArgs()[ref.getIndex()]);
    else
      name = cast<FlatSymbolRefAttr>(minus.getLhs()).getValue().str();
    std::string offset = "N";
    if (auto imm = dyn_cast<ImmAttr>(minus.getRhs()); imm && imm.isPlainDecimal())
      offset = std::to_string(imm.getMagnitude());
    return op.emitError("'")
           << op.getOpcode() << "' operand " << i + 1
           << ": ptxas reads '" << name << "-" << offset
           << "' as a syntax error; write the offset as '" << name << "+-"
           << offset << "'";
  }
  return success();
}

/// Whether `part` (a mnemonic or a modifier) reads back as itself within an
/// opcode: letters, digits, `_` and `$`, with `::` between them
/// (`shared::cluster`), as the importer reads an opcode.
static bool isOpcodePart(StringRef part) {
  for (size_t i = 0; i < part.size(); ++i) {
    char c = part[i];
    if (c == ':' && i + 1 < part.size() && part[i + 1] == ':')
      ++i;
    else if (!llvm::isAlnum(c) && c != '_' && c != '$')
      return false;
  }
  return !part.empty();
}

LogicalResult InstOp::verify() {
  if (!isOpcodePart(getMnemonic()) || !llvm::isAlpha(getMnemonic().front()))
    return emitOpError("'") << getMnemonic() << "' is not a PTX mnemonic";
  for (StringRef modifier : getModifiers().getAsValueRange<StringAttr>()) {
    if (modifier.empty())
      return emitOpError("has an empty modifier");
    if (!isOpcodePart(modifier))
      return emitOpError("modifier '")
             << modifier << "' is not letters, digits, '_', '$' and '::'";
  }
  if (getGuardNegated() && !getGuard())
    return emitOpError("is negated but has no guard predicate");
  if (bool(getLocFile()) != bool(getLocLine()) ||
      bool(getLocFile()) != bool(getLocColumn()))
    return emitOpError("takes loc_file, loc_line and loc_column together "
                       "(the `.loc` line before it), or none of them");
  Region *here = (*this)->getParentRegion();
  for (Value value : getOperands())
    if (!value.getParentRegion()->isAncestor(here))
      return emitOpError("uses register '")
             << getRegisterName(value)
             << "' outside the scope that declares it";
  return success();
}

LogicalResult InstOp::verifyInstruction() {
  if (failed(OperandFormChecker(*this).check()) ||
      failed(verifyAgainstISA(*this)))
    return failure();
  if (cast<PTXDialect>((*this)->getDialect())->isaPolicy ==
      ptxisa::Policy::Off)
    return success();
  if (failed(verifyNoMinusAfterName(*this)))
    return failure();
  return verifyTensorMapOperand(*this);
}

//===----------------------------------------------------------------------===//
// Other directives
//===----------------------------------------------------------------------===//

LogicalResult CommentOp::verify() {
  if (getText().contains('\n') || getText().contains('\r'))
    return emitOpError("is one line: its text cannot hold a line break");
  return success();
}

LogicalResult PragmaOp::verify() {
  if (getValues().empty())
    return emitOpError("needs one or more strings");
  for (StringRef value : getValues().getAsValueRange<StringAttr>())
    if (!isPTXStringBody(value))
      return emitBadString(*this, value);
  return success();
}

LogicalResult FileOp::verify() {
  if (getPath().empty())
    return emitOpError("needs a file name");
  if (!isPTXStringBody(getPath()))
    return emitBadString(*this, getPath());
  if (getTimestamp().has_value() != getSize().has_value())
    return emitOpError("takes a timestamp and a size together, or neither");
  return success();
}

LogicalResult LocOp::verify() {
  if (auto inlinedAt = getInlinedAt(); inlinedAt && inlinedAt->size() != 3)
    return emitOpError("inlined_at takes a file, a line and a column, got ")
           << inlinedAt->size() << " values";
  if (getInlinedAt() && !getFunctionName())
    return emitOpError("inlined_at needs a function_name");
  return success();
}

/// Types a data line may have.
static constexpr StringLiteral kDataTypes[] = {
    "b8", "b16", "b32", "b64", "u8",  "u16",
    "u32", "u64", "s8",  "s16", "s32", "s64"};

bool pyptx::packByteRow(ScalarType type, ArrayRef<Attribute> values,
                        SmallVectorImpl<int8_t> &bytes) {
  if (!isByteType(type))
    return false;
  auto plainByte = [](Attribute value) {
    auto imm = dyn_cast<ImmAttr>(value);
    return imm && !imm.getNegative() && imm.isPlainDecimal() &&
           imm.getMagnitude() <= 255;
  };
  if (!llvm::all_of(values, plainByte))
    return false;
  for (Attribute value : values)
    bytes.push_back(int8_t(uint8_t(cast<ImmAttr>(value).getMagnitude())));
  return true;
}

ParseResult DataOp::parse(OpAsmParser &parser, OperationState &result) {
  SmallVector<int32_t> rowTypes, rowSizes;
  SmallVector<Attribute> values;
  SmallVector<int8_t> bytes;
  ExprParser exprParser(parser, nullptr);
  // Each line starts with its type; the next op starts with its own name,
  // which is not a type keyword.
  SmallVector<StringRef> typeWords(std::begin(kDataTypes),
                                   std::end(kDataTypes));
  SMLoc typeLoc = parser.getCurrentLocation();
  StringRef word;
  if (parser.parseKeyword(&word))
    return failure();
  do {
    std::optional<ScalarType> type = symbolizeScalarType(word);
    if (!type)
      return parser.emitError(typeLoc, "unknown PTX type '") << word << "'";
    size_t before = values.size();
    do {
      Attribute value;
      if (exprParser.parseExpr(value))
        return failure();
      values.push_back(value);
    } while (succeeded(parser.parseOptionalComma()));
    rowTypes.push_back(int32_t(*type));
    int32_t size = int32_t(values.size() - before);
    if (packByteRow(*type, ArrayRef(values).drop_front(before), bytes)) {
      values.truncate(before);
      size = -size;
    }
    rowSizes.push_back(size);
    typeLoc = parser.getCurrentLocation();
  } while (succeeded(parser.parseOptionalKeyword(&word, typeWords)));
  Builder &builder = parser.getBuilder();
  result.addAttribute("row_types", builder.getDenseI32ArrayAttr(rowTypes));
  result.addAttribute("row_sizes", builder.getDenseI32ArrayAttr(rowSizes));
  result.addAttribute("values", builder.getArrayAttr(values));
  result.addAttribute("bytes", builder.getDenseI8ArrayAttr(bytes));
  return parser.parseOptionalAttrDictWithKeyword(result.attributes);
}

void DataOp::print(OpAsmPrinter &printer) {
  ArrayRef<Attribute> values = getValues().getValue();
  ArrayRef<int8_t> bytes = getBytes();
  for (auto [row, size] : llvm::enumerate(getRowSizes())) {
    printer << " " << stringifyScalarType(getRowType(row)) << " ";
    if (size < 0) {
      llvm::interleaveComma(bytes.take_front(-size), printer, [&](int8_t byte) {
        printer << unsigned(uint8_t(byte));
      });
      bytes = bytes.drop_front(-size);
      continue;
    }
    printExprList(printer, values.take_front(size),
                  getOperation()->getOperands());
    values = values.drop_front(size);
  }
  printer.printOptionalAttrDictWithKeyword(
      (*this)->getAttrs(), {getRowTypesAttrName(), getRowSizesAttrName(),
                            getValuesAttrName(), getBytesAttrName()});
}

LogicalResult DataOp::verify() {
  ArrayRef<int32_t> sizes = getRowSizes();
  if (sizes.empty())
    return emitOpError("needs at least one line");
  if (sizes.size() != getRowTypes().size())
    return emitOpError("has ")
           << getRowTypes().size() << " line types but " << sizes.size()
           << " line sizes";
  int64_t total = 0, totalBytes = 0;
  for (auto [size, type] : llvm::zip(sizes, getRowTypes())) {
    if (size == 0)
      return emitOpError("each line needs at least one value");
    if (size > 0) {
      total += size;
      continue;
    }
    auto scalar = symbolizeScalarType(uint32_t(type));
    if (!scalar || !isByteType(*scalar))
      return emitOpError("only .b8, .u8 and .s8 lines are held as bytes "
                         "(negative line size)");
    totalBytes -= size;
  }
  if (total != int64_t(getValues().size()))
    return emitOpError("line sizes add up to ")
           << total << " values, but there are " << getValues().size();
  if (totalBytes != int64_t(getBytes().size()))
    return emitOpError("byte line sizes add up to ")
           << totalBytes << " bytes, but there are " << getBytes().size();
  for (Attribute value : getValues())
    if (failed(verifyConstantExpr(*this, value)))
      return failure();
  for (int32_t type : getRowTypes()) {
    std::optional<ScalarType> scalar = symbolizeScalarType(uint32_t(type));
    if (!scalar)
      return emitOpError("line type ") << type << " is not a PTX type";
    if (!llvm::is_contained(kDataTypes, stringifyScalarType(*scalar)))
      return emitOpError("section data must have an integer type (.b8 to "
                         ".b64, .u*, .s*), not .")
             << stringifyScalarType(*scalar);
  }
  return success();
}

ParseResult CallPrototypeOp::parse(OpAsmParser &parser,
                                   OperationState &result) {
  MLIRContext *ctx = parser.getContext();
  StringAttr name;
  SmallVector<Attribute> params, retParams;
  if (parser.parseSymbolName(name) || parseParamList(parser, params))
    return failure();
  if (succeeded(parser.parseOptionalArrow()) &&
      parseParamList(parser, retParams))
    return failure();
  if (succeeded(parser.parseOptionalKeyword("noreturn")))
    result.addAttribute("noreturn", UnitAttr::get(ctx));
  if (succeeded(parser.parseOptionalKeyword("empty_ret_list")))
    result.addAttribute("empty_ret_list", UnitAttr::get(ctx));
  result.addAttribute("sym_name", name);
  result.addAttribute("params", ArrayAttr::get(ctx, params));
  result.addAttribute("ret_params", ArrayAttr::get(ctx, retParams));
  return parser.parseOptionalAttrDictWithKeyword(result.attributes);
}

void CallPrototypeOp::print(OpAsmPrinter &printer) {
  printer << " ";
  printer.printSymbolName(getSymName());
  printParamList(printer, getParams());
  if (!getRetParams().empty()) {
    printer << " -> ";
    printParamList(printer, getRetParams());
  }
  if (getNoreturn())
    printer << " noreturn";
  if (getEmptyRetList())
    printer << " empty_ret_list";
  printer.printOptionalAttrDictWithKeyword(
      (*this)->getAttrs(),
      {getSymNameAttrName(), getParamsAttrName(), getRetParamsAttrName(),
       getNoreturnAttrName(), getEmptyRetListAttrName()});
}

LogicalResult CallPrototypeOp::verify() {
  if (getEmptyRetList() && !getRetParams().empty())
    return emitOpError("empty_ret_list is set but there are return "
                       "parameters");
  return success();
}

#define GET_OP_CLASSES
#include "pyptx/Dialect/PTX/IR/PTXOps.cpp.inc"
