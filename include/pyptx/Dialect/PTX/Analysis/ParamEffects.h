//===- ParamEffects.h - which parameters a function writes through -*- C++ -*-//
//
// A may-analysis over one `pyptx.func`: the parameters whose memory its
// instructions may write (st, atom, red, multimem, bulk and TMA copies to
// global memory, tensormap.replace, surface stores). A framework uses it to
// know which tensor arguments a kernel mutates.
//
// A PTX register is a mutable handle that any instruction may redefine, so
// the analysis is flow-insensitive: each register gets the union of the
// origins of every value written into it anywhere in the function, computed
// to a fixpoint. An instruction's first operand is its destination (PTX's
// convention; an instruction without a register result names an address
// first, and a spurious origin on a register it does not write only adds
// parameters). Origins are:
//
//   - a parameter: `ld.param` of it, or its address (`mov.u64 %rd, p`);
//   - a variable: the address of a `.shared`/`.global`/... variable;
//   - a loaded pointer: a pointer-wide value read from memory (`ld.global.u64`,
//     `atom...b64`), which may be a pointer of any origin. Narrower loads
//     are data (indices), with no origin.
//
// Every instruction that computes its destination from registers
// (mov, add, mad, cvta, cvt, shl, ...) passes on the union of its sources'
// origins. A write through an address is attributed to the pointer-wide
// parameters among the address's origins; for a TMA store or a surface
// store that is the tensor map (or surface) operand's, so the descriptor
// parameter is reported, not the coordinates'. A write the analysis cannot
// attribute -- through a loaded pointer, through an address no pointer
// parameter or variable reaches, or any `call` -- makes the result
// incomplete: every pointer-wide parameter then counts as written.
//
//===----------------------------------------------------------------------===//

#ifndef PYPTX_DIALECT_PTX_ANALYSIS_PARAMEFFECTS_H
#define PYPTX_DIALECT_PTX_ANALYSIS_PARAMEFFECTS_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/SmallVector.h"

#include <string>

namespace pyptx {

class ParamEffects {
public:
  /// Analyses `op`, a `pyptx.func` (nothing is written by one without a
  /// body, or by any other op).
  explicit ParamEffects(mlir::Operation *op);

  /// The names of the parameters the function may write through, in
  /// parameter order. Parameters a pointer fits in only: 64-bit integers
  /// (32-bit under `.address_size 32`) and arrays (a tensor map, a struct).
  llvm::ArrayRef<mlir::StringAttr> getWritten() const { return written; }

  /// Whether every write was attributed to parameters or variables.
  bool isComplete() const { return !unattributed; }

  /// The first write the analysis could not attribute (null when complete):
  /// every pointer-wide parameter is then in getWritten().
  mlir::Operation *getUnattributedWrite() const { return unattributed; }

  /// Why that write is not attributed, e.g. "writes through a pointer
  /// loaded from memory"; empty when complete.
  const std::string &getReason() const { return reason; }

private:
  llvm::SmallVector<mlir::StringAttr> written;
  mlir::Operation *unattributed = nullptr;
  std::string reason;
};

} // namespace pyptx

#endif // PYPTX_DIALECT_PTX_ANALYSIS_PARAMEFFECTS_H
