//===- Import.h - PTX text to the pyptx dialect -----------------*- C++ -*-===//

#ifndef PYPTX_TARGET_PTX_IMPORT_H
#define PYPTX_TARGET_PTX_IMPORT_H

#include "mlir/IR/OwningOpRef.h"

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace mlir {
class MLIRContext;
class Operation;
} // namespace mlir

namespace pyptx {

/// Name of the discardable attribute that holds an imported op's formatting:
/// an array with one string per token of the op, the whitespace and comments
/// written before that token. The exporter prints it back between the tokens
/// it rebuilds from the op's structure.
inline constexpr const char *kTriviaAttrName = "pyptx.trivia";

/// Parses the PTX in the main buffer of `sourceMgr` into a `pyptx.module`.
/// Errors are reported as diagnostics at the PTX line and column; on error
/// the result is null.
mlir::OwningOpRef<mlir::Operation *> importPTX(llvm::SourceMgr &sourceMgr,
                                               mlir::MLIRContext *context);

/// Registers `--import-ptx` with mlir-translate style drivers.
void registerImportPTXTranslation();

} // namespace pyptx

#endif
