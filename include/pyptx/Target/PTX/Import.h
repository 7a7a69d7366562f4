//===- Import.h - PTX text to the pyptx dialect -----------------*- C++ -*-===//

#ifndef PYPTX_TARGET_PTX_IMPORT_H
#define PYPTX_TARGET_PTX_IMPORT_H

#include "pyptx/Dialect/PTX/IR/PTXTrivia.h"

#include "mlir/IR/OwningOpRef.h"

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace mlir {
class MLIRContext;
class Operation;
} // namespace mlir

namespace pyptx {

/// Parses the main buffer of `sourceMgr` into a `pyptx.module`; null after
/// reporting an error (file:line:col, the source line and a caret). Each
/// op's formatting goes to the module's style or to the op's trivia (see
/// PTXTrivia.h), from which the exporter gives the text back.
///
/// Every op gets a FileLineColLoc and most get attributes, all uniqued in
/// `context`: import is up to twice as fast in a context whose uniquers run
/// single-threaded. In MLIR 22 only `MLIRContext::disableMultithreading()`
/// puts them in that mode; constructing the context with
/// `Threading::DISABLED` (or `--mlir-disable-threading`) leaves them locking.
mlir::OwningOpRef<mlir::Operation *> importPTX(llvm::SourceMgr &sourceMgr,
                                               mlir::MLIRContext *context);

/// Registers `--import-ptx` with mlir-translate style drivers.
void registerImportPTXTranslation();

} // namespace pyptx

#endif
