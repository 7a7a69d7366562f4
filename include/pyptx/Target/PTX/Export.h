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

/// Prints `module` as PTX text. Ops imported from PTX carry their formatting
/// (see kTriviaAttrName in Import.h) and print it back, unless `canonical`
/// asks for the canonical style throughout. Emits a diagnostic and fails on
/// IR the exporter cannot print (it should have failed to verify first).
llvm::LogicalResult exportPTX(ModuleOp module, llvm::raw_ostream &os,
                              bool canonical = false);

/// Finds the single `pyptx.module` in `op` (or `op` itself) and exports it.
llvm::LogicalResult exportPTX(mlir::Operation *op, llvm::raw_ostream &os,
                              bool canonical = false);

/// Registers `--export-ptx` (and its `--ptx-canonical` option) with
/// mlir-translate style drivers.
void registerExportPTXTranslation();

} // namespace pyptx

#endif
