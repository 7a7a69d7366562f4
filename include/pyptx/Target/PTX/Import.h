//===- Import.h - PTX text to the pyptx dialect -----------------*- C++ -*-===//

#ifndef PYPTX_TARGET_PTX_IMPORT_H
#define PYPTX_TARGET_PTX_IMPORT_H

#include "pyptx/Dialect/PTX/IR/PTXTrivia.h"

#include "mlir/IR/OwningOpRef.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <string>

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace mlir {
class Block;
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

/// Where importPTXStatements puts the statements it parses, and how it
/// finds what the text names but does not declare.
struct StatementContext {
  /// The block the statements are appended to: a function's body or a
  /// `{ }` scope inside it.
  mlir::Block *block = nullptr;
  /// The body of the function `block` belongs to.
  mlir::Block *functionBlock = nullptr;
  /// The register (or special register, `%tid.x`) that the function
  /// declares outside the text under `name`, or null. Registers the text
  /// declares itself come first, as PTX's scoping has it.
  llvm::function_ref<mlir::Value(llvm::StringRef name)> lookupRegister;
  /// What an error about an unknown register adds (which names there are).
  llvm::function_ref<std::string()> registerHint;
  /// Called for each register the text declares outside any `{ }` block:
  /// such registers live on in `block`, and later text may name them.
  llvm::function_ref<void(llvm::StringRef name, mlir::Value value)> declared;
};

/// Parses the main buffer of `sourceMgr` as statements of a function body
/// (instructions with guards, labels, `{ }` blocks with their `.reg`
/// declarations, variables, `.loc`, `.pragma`) and appends the ops
/// importPTX would make for them to `where.block`. The ops carry no trivia
/// (the exporter prints them in the module's style) and are located in the
/// buffer. A register the text uses must be declared by it or found by
/// `where.lookupRegister`; otherwise, and on a syntax error, an error is
/// reported (file:line:col of the buffer) and failure returned, leaving the
/// ops made so far in the block for the caller to remove. Symbols (labels,
/// variables, parameters) are not resolved here: the module's symbol
/// verifier does that.
mlir::LogicalResult importPTXStatements(llvm::SourceMgr &sourceMgr,
                                        mlir::MLIRContext *context,
                                        const StatementContext &where);

/// Registers `--import-ptx` with mlir-translate style drivers.
void registerImportPTXTranslation();

} // namespace pyptx

#endif
