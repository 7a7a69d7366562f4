//===- Text.h - PTX and MLIR text through the dialect -----------*- C++ -*-===//
//
// The translations pyptx._native offers besides the builder, each in a
// fresh context, their failures reported as Diagnosed errors.
//
//===----------------------------------------------------------------------===//

#ifndef PYPTX_BUILDER_TEXT_H
#define PYPTX_BUILDER_TEXT_H

#include "pyptx/Builder/Diagnostics.h"
#include "pyptx/Dialect/PTX/Analysis/HazardAnalysis.h"

#include <optional>
#include <string>

namespace pyptx::builder {

/// PTX text -> the dialect's MLIR text (verified).
Result<std::string> importText(llvm::StringRef text, llvm::StringRef filename);

/// PTX text -> the hazard analysis's findings (python -m pyptx.check); the
/// ISA checks are off: hazards are asked of PTX newer than the tables too.
Result<std::vector<HazardRecord>> ptxHazards(llvm::StringRef text,
                                             llvm::StringRef filename);

/// The dialect's MLIR text -> PTX text.
Result<std::string> exportText(llvm::StringRef mlirText);

/// PTX text -> the transpiler's Python program (--export-python), in one
/// step: the diagnostics (import errors, constructs the DSL cannot express)
/// are located in the PTX text.
Result<std::string> ptxToPython(llvm::StringRef text, llvm::StringRef filename,
                                llvm::StringRef name,
                                llvm::StringRef isaPolicy, bool sugar);

/// Why the ISA description takes no form of this opcode (mnemonic and
/// modifiers), or none.
std::optional<std::string> opcodeProblem(llvm::StringRef opcode);

} // namespace pyptx::builder

#endif // PYPTX_BUILDER_TEXT_H
