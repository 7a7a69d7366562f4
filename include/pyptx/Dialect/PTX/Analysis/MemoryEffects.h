//===- MemoryEffects.h - what an instruction does to memory ------*- C++ -*-===//
//
// The memory effects and asynchronous events of one `pyptx.inst`, looked up
// in the table pyptx-tblgen -gen-memory-effects makes from MemoryEffects.td:
// which memory it reads or writes, in which state space, through which proxy
// and at which operand, and what the hazard analysis tracks about it
// ("proxy-fence", "wgmma-commit", ...).
//
//===----------------------------------------------------------------------===//

#ifndef PYPTX_DIALECT_PTX_ANALYSIS_MEMORYEFFECTS_H
#define PYPTX_DIALECT_PTX_ANALYSIS_MEMORYEFFECTS_H

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

namespace pyptx {

class InstOp;

/// One memory access of an instruction.
struct MemoryAccess {
  bool reads = false, writes = false;
  /// "generic" (no state space named), "global", "shared", "shared::cta",
  /// "shared::cluster", "local", "param", "const", "tmem" or "mbarrier".
  llvm::StringRef space;
  /// Through the async proxy (TMA, wgmma and tcgen05 operands).
  bool async = false;
  /// The address operand's index among the PTX operands, or -1 when the
  /// instruction reaches memory through a descriptor (address unknown).
  int operand = -1;

  /// Whether the space is shared memory (of this CTA or the cluster).
  bool isShared() const { return space.starts_with("shared"); }
};

/// What one instruction does, by the table.
struct InstEffects {
  llvm::SmallVector<MemoryAccess, 2> accesses;
  /// The events of MemoryEffects.td ("wgmma-fence", "exit", ...).
  llvm::SmallVector<llvm::StringRef, 1> events;
  /// Whether the first operand, when a register, is written (PTX's
  /// destination-first convention); false for bar.sync, bra, ...
  bool firstOperandIsDest = true;

  bool has(llvm::StringRef event) const {
    return llvm::is_contained(events, event);
  }
};

/// Looks `inst` up in the table.
InstEffects getInstEffects(InstOp inst);

} // namespace pyptx

#endif // PYPTX_DIALECT_PTX_ANALYSIS_MEMORYEFFECTS_H
