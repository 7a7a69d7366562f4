//===- SpecialRegisters.td - what special registers need ----*- tablegen -*-===//
//
// Only the special registers that need more than the oldest PTX; the names
// themselves and their widths are checked by pyptx.sreg's verifier.
// Requirements are those of the PTX ISA 9.0 manual, checked with ptxas 13.0.
//
//===----------------------------------------------------------------------===//

#ifndef PYPTX_DIALECT_PTX_ISA_SPECIALREGISTERS_TD
#define PYPTX_DIALECT_PTX_ISA_SPECIALREGISTERS_TD

include "pyptx/Dialect/PTX/ISA/ISABase.td"

foreach name = ["%clusterid", "%nclusterid", "%cluster_ctaid",
                "%cluster_nctaid", "%cluster_ctarank", "%cluster_nctarank",
                "%is_explicit_cluster"] in
def : SpecialRegister<name, 78, 90>;
def : SpecialRegister<"%lanemask_eq", 20, 20>;
def : SpecialRegister<"%lanemask_le", 20, 20>;
def : SpecialRegister<"%lanemask_lt", 20, 20>;
def : SpecialRegister<"%lanemask_ge", 20, 20>;
def : SpecialRegister<"%lanemask_gt", 20, 20>;
def : SpecialRegister<"%clock64", 20>;
def : SpecialRegister<"%clock_hi", 50>;
def : SpecialRegister<"%globaltimer", 31>;
def : SpecialRegister<"%globaltimer_lo", 31>;
def : SpecialRegister<"%globaltimer_hi", 31>;
def : SpecialRegister<"%total_smem_size", 41>;
def : SpecialRegister<"%dynamic_smem_size", 41>;
def : SpecialRegister<"%aggr_smem_size", 81, 90>;
def : SpecialRegister<"%reserved_smem_offset_begin", 76, 80>;
def : SpecialRegister<"%reserved_smem_offset_end", 76, 80>;
def : SpecialRegister<"%reserved_smem_offset_cap", 76, 80>;
def : SpecialRegister<"%reserved_smem_offset_0", 76, 80>;
def : SpecialRegister<"%reserved_smem_offset_1", 76, 80>;
def : SpecialRegister<"%current_graph_exec", 80, 50>;

#endif // PYPTX_DIALECT_PTX_ISA_SPECIALREGISTERS_TD
