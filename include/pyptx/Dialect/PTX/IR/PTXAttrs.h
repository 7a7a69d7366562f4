//===- PTXAttrs.h - pyptx enums and attributes ------------------*- C++ -*-===//

#ifndef PYPTX_DIALECT_PTX_IR_PTXATTRS_H
#define PYPTX_DIALECT_PTX_IR_PTXATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"

#include "pyptx/Dialect/PTX/IR/PTXEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "pyptx/Dialect/PTX/IR/PTXAttrs.h.inc"

namespace pyptx {

/// Size in bits of a value of `type` (`pred` counts as 1).
unsigned getBitWidth(ScalarType type);

/// Spelling of a state space as PTX writes it after the dot (`shared`).
llvm::StringRef spaceName(StateSpace space);

/// True for the binary operators PTX constant expressions allow.
bool isBinaryOperator(llvm::StringRef op);

/// C precedence of a binary operator: `||` 1 ... `* / %` 10; 0 if unknown.
unsigned binaryPrecedence(llvm::StringRef op);

/// `0.0`, `1.25`, `1.`: the digits of a DecFloatAttr, without its sign.
std::string formatDecimalFloat(DecFloatAttr attr);

/// The body of a parameter in op syntax:
/// `param align 8 b8 @name[16]`, `param u64 ptr global align 16 @p`,
/// `reg b32 @"%r"`. Shared by `#pyptx.param<...>` and the function ops.
void printParamBody(mlir::AsmPrinter &printer, ParamAttr param);
ParamAttr parseParamBody(mlir::AsmParser &parser);

/// `maxntid(128, 1, 1)`, `explicitcluster`, `pragma("nounroll")`.
void printDirectiveBody(mlir::AsmPrinter &printer, DirectiveAttr directive);
DirectiveAttr parseDirectiveBody(mlir::AsmParser &parser,
                                 llvm::StringRef name);

} // namespace pyptx

#endif
