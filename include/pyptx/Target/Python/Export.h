//===- Export.h - pyptx dialect to a Python program -------------*- C++ -*-===//

#ifndef PYPTX_TARGET_PYTHON_EXPORT_H
#define PYPTX_TARGET_PYTHON_EXPORT_H

#include "mlir/Support/LLVM.h"

#include <string>

namespace mlir {
class Operation;
} // namespace mlir

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace pyptx {

class ModuleOp;

struct PythonExportOptions {
  /// The Python name of the first `.entry`'s body (empty: from its PTX
  /// name). The PTX names stay as they are.
  std::string name;
  /// The program's isa_policy ("strict", "warn-unknown", "off").
  std::string isaPolicy = "strict";
  /// The readable form's parts that belong here: each function's demangled
  /// name as a comment, and its `.param` names as Python variables
  /// (`param_0` for nvcc's `<function>_param_0`).
  bool sugar = false;
};

/// Writes `module` as a Python program of pyptx's public API
/// (pyptx.program.Program, ptx.inst chains) whose trace is `module` again:
/// its canonical PTX is `module`'s canonical PTX. Run as a script, the
/// program prints that PTX. Fails with a diagnostic at the op's location for
/// a construct the DSL cannot express.
llvm::LogicalResult exportPython(ModuleOp module, llvm::raw_ostream &os,
                                 const PythonExportOptions &options = {});

/// Finds the single `pyptx.module` in `op` (or `op` itself) and exports it.
llvm::LogicalResult exportPython(mlir::Operation *op, llvm::raw_ostream &os,
                                 const PythonExportOptions &options = {});

/// Registers `--export-python` (and its `--python-name` option).
void registerExportPythonTranslation();

} // namespace pyptx

#endif
