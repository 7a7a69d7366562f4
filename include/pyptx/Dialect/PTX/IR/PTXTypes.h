//===- PTXTypes.h - pyptx register types ------------------------*- C++ -*-===//

#ifndef PYPTX_DIALECT_PTX_IR_PTXTYPES_H
#define PYPTX_DIALECT_PTX_IR_PTXTYPES_H

#include "mlir/IR/Types.h"
#include "pyptx/Dialect/PTX/IR/PTXAttrs.h"

#define GET_TYPEDEF_CLASSES
#include "pyptx/Dialect/PTX/IR/PTXTypes.h.inc"

namespace pyptx {

/// The short spelling used inside ops: `b32`, `v4.f32`, `pred`.
std::string shortTypeName(mlir::Type type);
/// Parses the short spelling back; returns null on failure.
mlir::Type parseShortTypeName(mlir::MLIRContext *ctx, llvm::StringRef text);
/// The PTX declaration spelling: `.b32`, `.v4 .f32`, `.pred`.
std::string ptxTypeName(mlir::Type type);

} // namespace pyptx

#endif
