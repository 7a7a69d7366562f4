//===- SpecialRegisters.td - PTX's special registers --------*- tablegen -*-===//
//
// Every special register: its width, the components it is read by, and what
// it needs beyond the oldest PTX. Widths and the legacy mov sizes are those
// ptxas 13.0 takes (test/corpus/sreg_sizes.py tries them all); requirements
// are those of the PTX ISA 9.0 manual, checked with ptxas 13.0.
//
//===----------------------------------------------------------------------===//

#ifndef PYPTX_DIALECT_PTX_ISA_SPECIALREGISTERS_TD
#define PYPTX_DIALECT_PTX_ISA_SPECIALREGISTERS_TD

// A special register of `width` bits (1: a predicate, into `mov.pred` only).
// `name` is the register without its component: "%clusterid" covers
// `%clusterid.x`.
class SpecialRegister<string name, int width, int ptx = 10, int sm = 0> {
  string Name = name;
  int Bits = width;
  // The components it is read by, one letter each ("xyzw": `%tid.x`); empty
  // for a register read whole.
  string Components = "";
  // A mov moves exactly `Bits` bits, except from PTX 1.x's registers, which
  // ptxas still moves down to this many bits (`mov.u16 %rh, %tid.x`).
  int MinMovBits = width;
  // Lowest PTX ISA version and target.
  int MinPTX = ptx;
  int MinSM = sm;
}

let Components = "xyzw" in {
  foreach name = ["%tid", "%ntid", "%ctaid", "%nctaid"] in
  def : SpecialRegister<name, 32> { let MinMovBits = 16; }
  foreach name = ["%clusterid", "%nclusterid", "%cluster_ctaid",
                  "%cluster_nctaid"] in
  def : SpecialRegister<name, 32, 78, 90>;
}
// 64-bit since PTX ISA 3.0; ptxas still moves 16 and 32 bits of it.
def : SpecialRegister<"%gridid", 64> { let MinMovBits = 16; }

foreach name = ["%laneid", "%warpid", "%nwarpid", "%smid", "%nsmid",
                "%clock"] in
def : SpecialRegister<name, 32>;
foreach name = ["%cluster_ctarank", "%cluster_nctarank"] in
def : SpecialRegister<name, 32, 78, 90>;
def : SpecialRegister<"%is_explicit_cluster", 1, 78, 90>;
foreach name = ["%lanemask_eq", "%lanemask_le", "%lanemask_lt",
                "%lanemask_ge", "%lanemask_gt"] in
def : SpecialRegister<name, 32, 20, 20>;
def : SpecialRegister<"%clock64", 64, 20>;
def : SpecialRegister<"%clock_hi", 32, 50>;
def : SpecialRegister<"%globaltimer", 64, 31>;
def : SpecialRegister<"%globaltimer_lo", 32, 31>;
def : SpecialRegister<"%globaltimer_hi", 32, 31>;
def : SpecialRegister<"%total_smem_size", 32, 41>;
def : SpecialRegister<"%dynamic_smem_size", 32, 41>;
def : SpecialRegister<"%aggr_smem_size", 32, 81, 90>;
foreach name = ["begin", "end", "cap", "0", "1"] in
def : SpecialRegister<"%reserved_smem_offset_" # name, 32, 76, 80>;
def : SpecialRegister<"%current_graph_exec", 64, 80, 50>;
foreach i = !range(32) in
def : SpecialRegister<"%envreg" # i, 32>;
foreach i = !range(8) in {
  def : SpecialRegister<"%pm" # i, 32>;
  def : SpecialRegister<"%pm" # i # "_64", 64>;
}

#endif // PYPTX_DIALECT_PTX_ISA_SPECIALREGISTERS_TD
