//===- Export.h - pyptx dialect to PTX text ---------------------*- C++ -*-===//

#ifndef PYPTX_TARGET_PTX_EXPORT_H
#define PYPTX_TARGET_PTX_EXPORT_H

#include "mlir/Support/LLVM.h"

namespace mlir {
class Operation;
} // namespace mlir

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace pyptx {

class ModuleOp;

/// Prints `module` as PTX text in the canonical style. Emits a diagnostic
/// and fails on IR the exporter cannot print (it should have failed to
/// verify first).
llvm::LogicalResult exportPTX(ModuleOp module, llvm::raw_ostream &os);

/// Finds the single `pyptx.module` in `op` (or `op` itself) and exports it.
llvm::LogicalResult exportPTX(mlir::Operation *op, llvm::raw_ostream &os);

/// Registers `--export-ptx` with mlir-translate style drivers.
void registerExportPTXTranslation();

} // namespace pyptx

#endif
