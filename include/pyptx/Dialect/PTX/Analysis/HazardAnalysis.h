//===- HazardAnalysis.h - hangs and races of asynchronous PTX ----*- C++ -*-===//
//
// Finds, before a kernel runs, the mistakes of asynchronous PTX that the ISA
// verifier cannot see because they are about order, not form: an
// accumulator of an in-flight wgmma read, shared memory written by ordinary
// stores and then used by TMA or wgmma with no fence.proxy.async between, a
// cp.async destination read before its wait, a bar.sync only some threads
// reach, a register read before any write. Each kind is a forward dataflow
// analysis over the control-flow graph of one function (labels, branches,
// loops and predicated instructions), driven by the memory effects of
// MemoryEffects.td. Precision over recall: a pattern that cannot be decided
// statically gives no finding. docs/design.md ("Hazard analysis") says what
// each kind proves and what it assumes.
//
//===----------------------------------------------------------------------===//

#ifndef PYPTX_DIALECT_PTX_ANALYSIS_HAZARDANALYSIS_H
#define PYPTX_DIALECT_PTX_ANALYSIS_HAZARDANALYSIS_H

#include "mlir/IR/Operation.h"

#include <string>
#include <vector>

namespace pyptx {

/// One finding.
struct Hazard {
  /// "wgmma-pending", "async-proxy", "async-copy-pending", "tcgen05-pending",
  /// "divergent-barrier", "mbarrier-accounting" or "uninitialized".
  std::string kind;
  /// What is wrong and the fix, naming `cause` by its line.
  std::string message;
  /// The instruction where the hazard shows, and the earlier instruction
  /// it comes from (null when there is none, e.g. an uninitialized read).
  mlir::Operation *at = nullptr;
  mlir::Operation *cause = nullptr;
};

/// The hazards of every function with a body under `op` (a module or a
/// function).
std::vector<Hazard> findHazards(mlir::Operation *op);

/// A finding as plain data, for bindings: the file, line and column of the
/// instruction and of its cause (cause's empty and 0 when there is none).
struct HazardRecord {
  std::string kind, message, file;
  unsigned line = 0, column = 0;
  std::string causeFile;
  unsigned causeLine = 0, causeColumn = 0;
};

/// findHazards(op), sorted by file, line and column.
std::vector<HazardRecord> findHazardRecords(mlir::Operation *op);

} // namespace pyptx

#endif // PYPTX_DIALECT_PTX_ANALYSIS_HAZARDANALYSIS_H
