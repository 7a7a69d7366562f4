//===- PTXAttrs.cpp - pyptx enums and attributes --------------------------===//

#include "pyptx/Dialect/PTX/IR/PTX.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Format.h"

#include <cmath>

using namespace mlir;
using namespace pyptx;

#include "pyptx/Dialect/PTX/IR/PTXEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "pyptx/Dialect/PTX/IR/PTXAttrs.cpp.inc"

/// Digits of `value` in `radix`, padded with zeros to `width`.
static std::string digitsOf(uint64_t value, unsigned radix, bool upper,
                            unsigned width) {
  std::string text;
  do {
    unsigned digit = value % radix;
    text.insert(text.begin(),
                char(digit < 10 ? '0' + digit : (upper ? 'A' : 'a') + digit - 10));
    value /= radix;
  } while (value);
  if (text.size() < width)
    text.insert(0, width - text.size(), '0');
  return text;
}

std::string ImmAttr::spellMagnitude() const {
  uint64_t value = getMagnitude();
  unsigned width = getDigits();
  IntFormat format = getFormat();
  std::string text;
  switch (format) {
  case IntFormat::dec:
    text = digitsOf(value, 10, false, width);
    break;
  case IntFormat::hex:
  case IntFormat::HEX:
  case IntFormat::Xhex:
  case IntFormat::XHEX: {
    bool upperX = format == IntFormat::Xhex || format == IntFormat::XHEX;
    bool upperDigits = format == IntFormat::HEX || format == IntFormat::XHEX;
    text = (upperX ? "0X" : "0x") + digitsOf(value, 16, upperDigits, width);
    break;
  }
  case IntFormat::oct:
    text = "0" + digitsOf(value, 8, false, width ? width - 1 : 0);
    break;
  case IntFormat::bin:
  case IntFormat::Bbin:
    text = (format == IntFormat::Bbin ? "0B" : "0b") + digitsOf(value, 2, false, width);
    break;
  }
  if (getUnsignedSuffix())
    text += "U";
  return text;
}

void PTXDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "pyptx/Dialect/PTX/IR/PTXAttrs.cpp.inc"
      >();
}

unsigned pyptx::getBitWidth(ScalarType type) {
  switch (type) {
  case ScalarType::pred:
    return 1;
  case ScalarType::b8:
  case ScalarType::u8:
  case ScalarType::s8:
  case ScalarType::e4m3:
  case ScalarType::e5m2:
  case ScalarType::e2m3:
  case ScalarType::e3m2:
  case ScalarType::e2m1x2:
  case ScalarType::ue8m0:
    return 8;
  case ScalarType::e2m1:
    return 4;
  case ScalarType::b16:
  case ScalarType::u16:
  case ScalarType::s16:
  case ScalarType::f16:
  case ScalarType::bf16:
  case ScalarType::e4m3x2:
  case ScalarType::e5m2x2:
  case ScalarType::e2m3x2:
  case ScalarType::e3m2x2:
  case ScalarType::e2m1x4:
  case ScalarType::ue8m0x2:
    return 16;
  case ScalarType::b32:
  case ScalarType::u32:
  case ScalarType::s32:
  case ScalarType::f32:
  case ScalarType::tf32:
  case ScalarType::f16x2:
  case ScalarType::bf16x2:
  case ScalarType::e4m3x4:
  case ScalarType::e5m2x4:
  case ScalarType::e2m3x4:
  case ScalarType::e3m2x4:
  case ScalarType::u16x2:
  case ScalarType::s16x2:
    return 32;
  case ScalarType::b64:
  case ScalarType::u64:
  case ScalarType::s64:
  case ScalarType::f64:
    return 64;
  case ScalarType::b128:
    return 128;
  }
  llvm_unreachable("unknown ScalarType");
}

StringRef pyptx::spaceName(StateSpace space) {
  return stringifyStateSpace(space);
}

//===----------------------------------------------------------------------===//
// Shared pieces of syntax
//===----------------------------------------------------------------------===//

template <typename Enum>
static ParseResult parseEnumKeyword(AsmParser &parser, Enum &result,
                                    std::optional<Enum> (*symbolize)(StringRef),
                                    StringRef what) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef keyword;
  if (parser.parseKeyword(&keyword))
    return failure();
  std::optional<Enum> value = symbolize(keyword);
  if (!value)
    return parser.emitError(loc, "unknown ") << what << " '" << keyword << "'";
  result = *value;
  return success();
}

static void printDims(AsmPrinter &printer, ArrayRef<int64_t> dims) {
  for (int64_t dim : dims) {
    printer << "[";
    if (dim >= 0)
      printer << dim;
    printer << "]";
  }
}

static ParseResult parseDims(AsmParser &parser,
                             SmallVectorImpl<int64_t> &dims) {
  while (succeeded(parser.parseOptionalLSquare())) {
    if (succeeded(parser.parseOptionalRSquare())) {
      dims.push_back(-1);
      continue;
    }
    int64_t dim;
    if (parser.parseInteger(dim) || parser.parseRSquare())
      return failure();
    dims.push_back(dim);
  }
  return success();
}

void pyptx::printParamBody(AsmPrinter &printer, ParamAttr param) {
  printer << spaceName(param.getSpace());
  if (param.getAlign())
    printer << " align " << param.getAlign();
  printer << " ";
  if (param.getVecWidth() > 1)
    printer << "v" << param.getVecWidth() << ".";
  printer << stringifyScalarType(param.getType());
  if (param.getIsPtr()) {
    printer << " ptr";
    if (param.getPtrSpace() != StateSpace::reg)
      printer << " " << spaceName(param.getPtrSpace());
    if (param.getPtrAlign())
      printer << " align " << param.getPtrAlign();
  }
  printer << " ";
  printer.printSymbolName(param.getName().getValue());
  printDims(printer, param.getDims());
}

ParamAttr pyptx::parseParamBody(AsmParser &parser) {
  StateSpace space = StateSpace::param;
  if (parseEnumKeyword(parser, space, symbolizeStateSpace, "state space"))
    return {};
  unsigned align = 0, ptrAlign = 0;
  if (succeeded(parser.parseOptionalKeyword("align")) &&
      parser.parseInteger(align))
    return {};
  SMLoc typeLoc = parser.getCurrentLocation();
  StringRef typeName;
  if (parser.parseKeyword(&typeName))
    return {};
  unsigned vecWidth = 1;
  ScalarType scalar = ScalarType::pred;
  if (typeName != "pred") {
    Type type = parseShortTypeName(parser.getContext(), typeName);
    auto reg = dyn_cast_or_null<RegType>(type);
    if (!reg) {
      parser.emitError(typeLoc, "unknown PTX type '") << typeName << "'";
      return {};
    }
    scalar = reg.getType();
    vecWidth = reg.getVecWidth();
  }
  bool isPtr = false;
  StateSpace ptrSpace = StateSpace::reg;
  if (succeeded(parser.parseOptionalKeyword("ptr"))) {
    isPtr = true;
    StringRef spaceWord;
    if (succeeded(parser.parseOptionalKeyword(
            &spaceWord, {"global", "shared", "const", "local"})))
      ptrSpace = *symbolizeStateSpace(spaceWord);
    if (succeeded(parser.parseOptionalKeyword("align")) &&
        parser.parseInteger(ptrAlign))
      return {};
  }
  StringAttr name;
  SmallVector<int64_t> dims;
  if (parser.parseSymbolName(name) || parseDims(parser, dims))
    return {};
  return ParamAttr::get(parser.getContext(), name, space, scalar, vecWidth,
                        align, isPtr, ptrSpace, ptrAlign, dims);
}

Attribute ParamAttr::parse(AsmParser &parser, Type) {
  if (parser.parseLess())
    return {};
  ParamAttr param = parseParamBody(parser);
  if (!param || parser.parseGreater())
    return {};
  return param;
}

void ParamAttr::print(AsmPrinter &printer) const {
  printer << "<";
  printParamBody(printer, *this);
  printer << ">";
}

void pyptx::printDirectiveBody(AsmPrinter &printer, DirectiveAttr directive) {
  printer << directive.getName().getValue();
  if (directive.getValues().empty())
    return;
  printer << "(";
  llvm::interleaveComma(directive.getValues(), printer, [&](Attribute value) {
    if (auto integer = dyn_cast<IntegerAttr>(value))
      printer << integer.getValue();
    else
      printer.printAttributeWithoutType(value);
  });
  printer << ")";
}

DirectiveAttr pyptx::parseDirectiveBody(AsmParser &parser, StringRef name) {
  MLIRContext *ctx = parser.getContext();
  SmallVector<Attribute> values;
  if (succeeded(parser.parseOptionalLParen())) {
    auto parseValue = [&]() -> ParseResult {
      std::string text;
      if (succeeded(parser.parseOptionalString(&text))) {
        values.push_back(StringAttr::get(ctx, text));
        return success();
      }
      int64_t value = 0;
      if (parser.parseInteger(value))
        return failure();
      values.push_back(IntegerAttr::get(IntegerType::get(ctx, 64), value));
      return success();
    };
    if (parser.parseCommaSeparatedList(parseValue) || parser.parseRParen())
      return {};
  }
  return DirectiveAttr::get(ctx, StringAttr::get(ctx, name),
                            ArrayAttr::get(ctx, values));
}

Attribute DirectiveAttr::parse(AsmParser &parser, Type) {
  StringRef name;
  if (parser.parseLess() || parser.parseKeyword(&name))
    return {};
  DirectiveAttr directive = parseDirectiveBody(parser, name);
  if (!directive || parser.parseGreater())
    return {};
  return directive;
}

void DirectiveAttr::print(AsmPrinter &printer) const {
  printer << "<";
  printDirectiveBody(printer, *this);
  printer << ">";
}

//===----------------------------------------------------------------------===//
// Operand forms (generic syntax; the instruction op prints them inline)
//===----------------------------------------------------------------------===//

Attribute RegRefAttr::parse(AsmParser &parser, Type) {
  unsigned index;
  std::string component;
  if (parser.parseLess() || parser.parseInteger(index))
    return {};
  if (succeeded(parser.parseOptionalComma()) && parser.parseString(&component))
    return {};
  if (parser.parseGreater())
    return {};
  return RegRefAttr::get(parser.getContext(), index, component);
}

void RegRefAttr::print(AsmPrinter &printer) const {
  printer << "<" << getIndex();
  if (!getComponent().empty()) {
    printer << ", ";
    printer.printString(getComponent());
  }
  printer << ">";
}

Attribute ImmAttr::parse(AsmParser &parser, Type) {
  IntFormat format = IntFormat::dec;
  uint64_t magnitude = 0;
  if (parser.parseLess())
    return {};
  bool negative = succeeded(parser.parseOptionalMinus());
  if (parser.parseInteger(magnitude))
    return {};
  StringRef word;
  if (succeeded(parser.parseOptionalKeyword(
          &word, {"dec", "hex", "HEX", "oct", "bin", "Xhex", "XHEX", "Bbin"})))
    format = *symbolizeIntFormat(word);
  bool unsignedSuffix = succeeded(parser.parseOptionalKeyword("U"));
  unsigned digits = 0;
  if (succeeded(parser.parseOptionalKeyword("digits")) &&
      parser.parseInteger(digits))
    return {};
  if (parser.parseGreater())
    return {};
  return ImmAttr::get(parser.getContext(), magnitude, negative, format,
                      unsignedSuffix, digits);
}

void ImmAttr::print(AsmPrinter &printer) const {
  printer << "<";
  if (getNegative())
    printer << "-";
  if (isHex())
    printer << llvm::format_hex(getMagnitude(), 3);
  else
    printer << getMagnitude();
  if (getFormat() != IntFormat::dec)
    printer << " " << stringifyIntFormat(getFormat());
  if (getUnsignedSuffix())
    printer << " U";
  if (getDigits())
    printer << " digits " << getDigits();
  printer << ">";
}

Attribute FloatImmAttr::parse(AsmParser &parser, Type) {
  StringRef kind;
  uint64_t bits = 0;
  if (parser.parseLess())
    return {};
  if (parser.parseOptionalKeyword(&kind, {"f32", "f64"})) {
    parser.emitError(parser.getCurrentLocation(), "expected 'f32' or 'f64'");
    return {};
  }
  if (parser.parseInteger(bits))
    return {};
  bool upperPrefix = succeeded(parser.parseOptionalKeyword("upper_prefix"));
  bool lowerDigits = succeeded(parser.parseOptionalKeyword("lower_digits"));
  if (parser.parseGreater())
    return {};
  return FloatImmAttr::get(parser.getContext(), bits, kind == "f64",
                           upperPrefix, lowerDigits);
}

void FloatImmAttr::print(AsmPrinter &printer) const {
  printer << "<" << (getIsDouble() ? "f64 " : "f32 ");
  printer << llvm::format_hex(getBits(), getIsDouble() ? 18 : 10,
                              /*Upper=*/true);
  if (getUpperPrefix())
    printer << " upper_prefix";
  if (getLowerDigits())
    printer << " lower_digits";
  printer << ">";
}

unsigned pyptx::binaryPrecedence(StringRef op) {
  return llvm::StringSwitch<unsigned>(op)
      .Case("||", 1)
      .Case("&&", 2)
      .Case("|", 3)
      .Case("^", 4)
      .Case("&", 5)
      .Cases({"==", "!="}, 6)
      .Cases({"<", ">", "<=", ">="}, 7)
      .Cases({"<<", ">>"}, 8)
      .Cases({"+", "-"}, 9)
      .Cases({"*", "/", "%"}, 10)
      .Default(0);
}

/// Binary operators of PTX constant expressions, and `|` of `%r|%p`.
bool pyptx::isBinaryOperator(StringRef op) { return binaryPrecedence(op) != 0; }

Attribute BinaryAttr::parse(AsmParser &parser, Type) {
  std::string op;
  Attribute lhs, rhs;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseLess() || parser.parseString(&op) || parser.parseComma() ||
      parser.parseAttribute(lhs) || parser.parseComma() ||
      parser.parseAttribute(rhs) || parser.parseGreater())
    return {};
  if (!isBinaryOperator(op)) {
    parser.emitError(loc, "unknown binary operator \"") << op << "\"";
    return {};
  }
  return BinaryAttr::get(parser.getContext(), op, lhs, rhs);
}

void BinaryAttr::print(AsmPrinter &printer) const {
  printer << "<";
  printer.printString(getOp());
  printer << ", ";
  printer.printAttribute(getLhs());
  printer << ", ";
  printer.printAttribute(getRhs());
  printer << ">";
}

Attribute UnaryAttr::parse(AsmParser &parser, Type) {
  std::string op;
  Attribute operand;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseLess() || parser.parseString(&op) || parser.parseComma() ||
      parser.parseAttribute(operand) || parser.parseGreater())
    return {};
  if (op != "~" && op != "-") {
    parser.emitError(loc, "unary operator must be \"~\" or \"-\"");
    return {};
  }
  return UnaryAttr::get(parser.getContext(), op, operand);
}

void UnaryAttr::print(AsmPrinter &printer) const {
  printer << "<";
  printer.printString(getOp());
  printer << ", ";
  printer.printAttribute(getOperand());
  printer << ">";
}

Attribute DecFloatAttr::parse(AsmParser &parser, Type) {
  double value;
  unsigned fracDigits;
  if (parser.parseLess() || parser.parseFloat(value) || parser.parseComma() ||
      parser.parseInteger(fracDigits) || parser.parseGreater())
    return {};
  return DecFloatAttr::get(parser.getContext(), llvm::APFloat(value),
                           fracDigits);
}

void DecFloatAttr::print(AsmPrinter &printer) const {
  printer << "<";
  printer.printFloat(getValue());
  printer << ", " << getFracDigits() << ">";
}

std::string pyptx::formatDecimalFloat(DecFloatAttr attr) {
  // The magnitude: a minus sign is a token of its own.
  std::string text;
  llvm::raw_string_ostream(text) << llvm::format(
      "%.*f", int(attr.getFracDigits()),
      std::fabs(attr.getValue().convertToDouble()));
  if (attr.getFracDigits() == 0)
    text += "."; // `1.`
  return text;
}

static ParseResult parseAttrList(AsmParser &parser,
                                 SmallVectorImpl<Attribute> &elements) {
  if (parser.parseLess())
    return failure();
  if (succeeded(parser.parseOptionalGreater()))
    return success();
  if (parser.parseCommaSeparatedList([&]() -> ParseResult {
        Attribute element;
        if (parser.parseAttribute(element))
          return failure();
        elements.push_back(element);
        return success();
      }))
    return failure();
  return parser.parseGreater();
}

static void printAttrList(AsmPrinter &printer, ArrayRef<Attribute> elements) {
  printer << "<";
  llvm::interleaveComma(elements, printer,
                        [&](Attribute a) { printer.printAttribute(a); });
  printer << ">";
}

#define PYPTX_LIST_ATTR_ASM(Class)                                             \
  Attribute Class::parse(AsmParser &parser, Type) {                            \
    SmallVector<Attribute> elements;                                           \
    if (parseAttrList(parser, elements))                                       \
      return {};                                                               \
    return Class::get(parser.getContext(), elements);                          \
  }                                                                            \
  void Class::print(AsmPrinter &printer) const {                               \
    printAttrList(printer, getElements());                                     \
  }
PYPTX_LIST_ATTR_ASM(AddrAttr)
PYPTX_LIST_ATTR_ASM(VectorAttr)
PYPTX_LIST_ATTR_ASM(ParenAttr)
#undef PYPTX_LIST_ATTR_ASM

Attribute NotAttr::parse(AsmParser &parser, Type) {
  Attribute operand;
  if (parser.parseLess() || parser.parseAttribute(operand) ||
      parser.parseGreater())
    return {};
  return NotAttr::get(parser.getContext(), operand);
}

void NotAttr::print(AsmPrinter &printer) const {
  printer << "<";
  printer.printAttribute(getOperand());
  printer << ">";
}

Attribute FuncExprAttr::parse(AsmParser &parser, Type) {
  std::string name;
  SmallVector<Attribute> args;
  if (parser.parseLess() || parser.parseString(&name))
    return {};
  while (succeeded(parser.parseOptionalComma())) {
    Attribute arg;
    if (parser.parseAttribute(arg))
      return {};
    args.push_back(arg);
  }
  if (parser.parseGreater())
    return {};
  return FuncExprAttr::get(parser.getContext(),
                           StringAttr::get(parser.getContext(), name), args);
}

void FuncExprAttr::print(AsmPrinter &printer) const {
  printer << "<";
  printer.printString(getName().getValue());
  for (Attribute arg : getArgs()) {
    printer << ", ";
    printer.printAttribute(arg);
  }
  printer << ">";
}
