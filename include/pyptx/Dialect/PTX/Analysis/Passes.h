//===- Passes.h - pyptx analysis passes -------------------------*- C++ -*-===//

#ifndef PYPTX_DIALECT_PTX_ANALYSIS_PASSES_H
#define PYPTX_DIALECT_PTX_ANALYSIS_PASSES_H

#include "mlir/Pass/Pass.h"

namespace pyptx {

#define GEN_PASS_DECL
#include "pyptx/Dialect/PTX/Analysis/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "pyptx/Dialect/PTX/Analysis/Passes.h.inc"

} // namespace pyptx

#endif // PYPTX_DIALECT_PTX_ANALYSIS_PASSES_H
