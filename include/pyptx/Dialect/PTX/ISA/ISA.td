//===- ISA.td - the PTX instruction set, PTX ISA 9.0 --------*- tablegen -*-===//
//
// Everything pyptx knows about PTX instructions: one file per family.
//
//===----------------------------------------------------------------------===//

#ifndef PYPTX_DIALECT_PTX_ISA_ISA_TD
#define PYPTX_DIALECT_PTX_ISA_ISA_TD

include "pyptx/Dialect/PTX/ISA/ISABase.td"
include "pyptx/Dialect/PTX/ISA/Targets.td"
include "pyptx/Dialect/PTX/ISA/SpecialRegisters.td"

include "pyptx/Dialect/PTX/ISA/Integer.td"
include "pyptx/Dialect/PTX/ISA/Float.td"
include "pyptx/Dialect/PTX/ISA/Half.td"
include "pyptx/Dialect/PTX/ISA/Compare.td"
include "pyptx/Dialect/PTX/ISA/Logic.td"
include "pyptx/Dialect/PTX/ISA/DataMovement.td"
include "pyptx/Dialect/PTX/ISA/Async.td"
include "pyptx/Dialect/PTX/ISA/Multimem.td"
include "pyptx/Dialect/PTX/ISA/Texture.td"
include "pyptx/Dialect/PTX/ISA/Control.td"
include "pyptx/Dialect/PTX/ISA/Misc.td"
include "pyptx/Dialect/PTX/ISA/Video.td"
include "pyptx/Dialect/PTX/ISA/MMA.td"
include "pyptx/Dialect/PTX/ISA/Sync.td"
include "pyptx/Dialect/PTX/ISA/WGMMA.td"
include "pyptx/Dialect/PTX/ISA/TCGen05.td"

#endif // PYPTX_DIALECT_PTX_ISA_ISA_TD
