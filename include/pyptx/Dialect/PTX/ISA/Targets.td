//===- Targets.td - targets `.target` may name --------------*- tablegen -*-===//

#ifndef PYPTX_DIALECT_PTX_ISA_TARGETS_TD
#define PYPTX_DIALECT_PTX_ISA_TARGETS_TD

// A target the `.target` directive may name, with the PTX ISA version that
// introduced it. The `a` targets name the arch-specific features of one
// architecture, the `f` targets those of its family (ISABase.td's SM90a,
// SM100a, SM100f and SM120a lists).
class Target<string name, int sm, int ptx> {
  string Name = name;
  int SM = sm;
  int MinPTX = ptx;
}

def : Target<"sm_50", 50, 40>;
def : Target<"sm_52", 52, 41>;
def : Target<"sm_53", 53, 42>;
def : Target<"sm_60", 60, 50>;
def : Target<"sm_61", 61, 50>;
def : Target<"sm_62", 62, 50>;
def : Target<"sm_70", 70, 60>;
def : Target<"sm_72", 72, 61>;
def : Target<"sm_75", 75, 63>;
def : Target<"sm_80", 80, 70>;
def : Target<"sm_86", 86, 71>;
def : Target<"sm_87", 87, 74>;
def : Target<"sm_88", 88, 73>; // PTX ISA 9.0 names it; ptxas 13.0 takes it from 7.3
def : Target<"sm_89", 89, 78>;
def : Target<"sm_90", 90, 78>;
def : Target<"sm_90a", 90, 80>;
def : Target<"sm_100", 100, 86>;
def : Target<"sm_100a", 100, 86>;
def : Target<"sm_100f", 100, 88>;
def : Target<"sm_101", 101, 86>;
def : Target<"sm_101a", 101, 86>;
def : Target<"sm_101f", 101, 88>;
def : Target<"sm_103", 103, 88>;
def : Target<"sm_103a", 103, 88>;
def : Target<"sm_103f", 103, 88>;
def : Target<"sm_110", 110, 90>;
def : Target<"sm_110a", 110, 90>;
def : Target<"sm_110f", 110, 90>;
def : Target<"sm_120", 120, 87>;
def : Target<"sm_120a", 120, 87>;
def : Target<"sm_120f", 120, 88>;
def : Target<"sm_121", 121, 88>;
def : Target<"sm_121a", 121, 88>;
def : Target<"sm_121f", 121, 88>;

#endif // PYPTX_DIALECT_PTX_ISA_TARGETS_TD
