//===- PTXOps.h - pyptx operations ------------------------------*- C++ -*-===//

#ifndef PYPTX_DIALECT_PTX_IR_PTXOPS_H
#define PYPTX_DIALECT_PTX_IR_PTXOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/RegionKindInterface.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/SetVector.h"

#include "pyptx/Dialect/PTX/IR/PTXDialect.h"
#include "pyptx/Dialect/PTX/IR/PTXTypes.h"

#define GET_OP_CLASSES
#include "pyptx/Dialect/PTX/IR/PTXOps.h.inc"

namespace pyptx {
/// The PTX name of a register value: `%r3`, `%tid.x`, or the name of the
/// `.reg` parameter a block argument stands for.
std::string getRegisterName(mlir::Value value);

/// Bit width of a PTX special register (`%tid.x`: 32, `%clock64`: 64,
/// `%is_explicit_cluster`: 1), or 0 if `name` is not one.
unsigned getSpecialRegisterWidth(llvm::StringRef name);

/// Whether a data line of `type` can be held as bytes (`.b8`, `.u8`, `.s8`).
inline bool isByteType(ScalarType type) {
  return type == ScalarType::b8 || type == ScalarType::u8 ||
         type == ScalarType::s8;
}

/// If every value of a data line of `type` is a plain decimal up to 255 (and
/// the type is 8-bit), appends them to `bytes` and returns true: the line is
/// held as bytes (see `pyptx.data`).
bool packByteRow(ScalarType type, llvm::ArrayRef<mlir::Attribute> values,
                 llvm::SmallVectorImpl<int8_t> &bytes);

/// Adds to `names` every symbol `module` refers to without declaring it.
void collectUndeclaredSymbols(ModuleOp module,
                              llvm::SetVector<llvm::StringRef> &names);
} // namespace pyptx

#endif
