//===- Misc.td - miscellaneous instructions -----------------*- tablegen -*-===//

#ifndef PYPTX_DIALECT_PTX_ISA_MISC_TD
#define PYPTX_DIALECT_PTX_ISA_MISC_TD

include "pyptx/Dialect/PTX/ISA/ISABase.td"

let Family = "Miscellaneous" in {

def MISC_BRKPT : Inst<"brkpt", [], []> {
  let Summary = "suspend execution (breakpoint)";
  let MinSM = 11;
}
def MISC_NANOSLEEP : Inst<"nanosleep", [Fixed<"u32">], [RegImm<"u32">]> {
  let Summary = "suspend the thread for about t nanoseconds";
  let MinPTX = 63; let MinSM = 70;
}
// ptxas: the event number is an immediate in [0, 15]; the mask an immediate
// of 16 bits. Registers are rejected.
def MISC_PMEVENT : Inst<"pmevent", [], [Imm<>]> {
  let Summary = "trigger performance monitor event a";
  let MinPTX = 14;
}
def MISC_PMEVENT_MASK : Inst<"pmevent", [Fixed<"mask">], [Imm<>]> {
  let Summary = "trigger the performance monitor events of mask a";
  let MinPTX = 30;
}
def MISC_TRAP : Inst<"trap", [], []> {
  let Summary = "abort execution";
}

} // Family = "Miscellaneous"

#endif // PYPTX_DIALECT_PTX_ISA_MISC_TD
