//===- PTXTypes.cpp - pyptx register types --------------------------------===//

#include "pyptx/Dialect/PTX/IR/PTX.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace pyptx;

#define GET_TYPEDEF_CLASSES
#include "pyptx/Dialect/PTX/IR/PTXTypes.cpp.inc"

void PTXDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "pyptx/Dialect/PTX/IR/PTXTypes.cpp.inc"
      >();
}

static bool isValidVecWidth(unsigned width) {
  return width == 1 || width == 2 || width == 4 || width == 8;
}

LogicalResult RegType::verify(function_ref<InFlightDiagnostic()> emitError,
                              ScalarType type, unsigned vecWidth) {
  if (!isValidVecWidth(vecWidth))
    return emitError() << "vector register width must be 1, 2, 4 or 8, got "
                       << vecWidth;
  if (type == ScalarType::pred)
    return emitError() << "predicate registers have type !pyptx.pred, not "
                          "!pyptx.reg<pred>";
  return success();
}

Type RegType::parse(AsmParser &parser) {
  StringRef keyword;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseLess() || parser.parseKeyword(&keyword) ||
      parser.parseGreater())
    return {};
  Type type = parseShortTypeName(parser.getContext(), keyword);
  if (!type || !isa<RegType>(type)) {
    parser.emitError(loc, "expected a register type such as 'b32' or "
                          "'v4.f32', got '")
        << keyword << "'";
    return {};
  }
  return type;
}

void RegType::print(AsmPrinter &printer) const {
  printer << "<" << shortTypeName(*this) << ">";
}

std::string pyptx::shortTypeName(Type type) {
  if (isa<PredType>(type))
    return "pred";
  auto reg = cast<RegType>(type);
  std::string name;
  if (reg.getVecWidth() > 1)
    name = "v" + std::to_string(reg.getVecWidth()) + ".";
  return name + stringifyScalarType(reg.getType()).str();
}

std::string pyptx::ptxTypeName(Type type) {
  if (isa<PredType>(type))
    return ".pred";
  auto reg = cast<RegType>(type);
  std::string name;
  if (reg.getVecWidth() > 1)
    name = ".v" + std::to_string(reg.getVecWidth()) + " ";
  return name + "." + stringifyScalarType(reg.getType()).str();
}

Type pyptx::parseShortTypeName(MLIRContext *ctx, StringRef text) {
  if (text == "pred")
    return PredType::get(ctx);
  unsigned width = 1;
  if (text.consume_front("v")) {
    auto [count, rest] = text.split('.');
    if (rest.empty() || count.getAsInteger(10, width) ||
        !isValidVecWidth(width))
      return {};
    text = rest;
  }
  std::optional<ScalarType> scalar = symbolizeScalarType(text);
  if (!scalar || *scalar == ScalarType::pred)
    return {};
  return RegType::get(ctx, *scalar, width);
}
