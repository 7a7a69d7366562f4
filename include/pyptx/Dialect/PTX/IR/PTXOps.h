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

/// Adds to `names` every symbol `module` refers to without declaring it.
void collectUndeclaredSymbols(ModuleOp module,
                              llvm::SetVector<llvm::StringRef> &names);
} // namespace pyptx

#endif
