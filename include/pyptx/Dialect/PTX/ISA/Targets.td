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

// The most shared memory one CTA may use on an SM of compute capability
// sm/10 (static plus dynamic, after the launch opts in): the CUDA C++
// Programming Guide's "maximum amount of shared memory per thread block".
// Not a PTX rule -- ptxas accepts more; the launch fails -- but a hardware
// fact pyptx checks while tracing (pyptx._isa_facts.max_shared_per_cta).
class SharedMemoryPerCTA<int sm, int bytes> {
  int SM = sm;
  int Bytes = bytes;
}

def : SharedMemoryPerCTA<50, 49152>;   // 48 KiB
def : SharedMemoryPerCTA<52, 49152>;
def : SharedMemoryPerCTA<53, 49152>;
def : SharedMemoryPerCTA<60, 49152>;
def : SharedMemoryPerCTA<61, 49152>;
def : SharedMemoryPerCTA<62, 49152>;
def : SharedMemoryPerCTA<70, 98304>;   // 96 KiB
def : SharedMemoryPerCTA<72, 98304>;
def : SharedMemoryPerCTA<75, 65536>;   // 64 KiB
def : SharedMemoryPerCTA<80, 166912>;  // 163 KiB
def : SharedMemoryPerCTA<86, 101376>;  // 99 KiB
def : SharedMemoryPerCTA<87, 166912>;
def : SharedMemoryPerCTA<89, 101376>;
def : SharedMemoryPerCTA<90, 232448>;  // 227 KiB
def : SharedMemoryPerCTA<100, 232448>;
def : SharedMemoryPerCTA<101, 232448>;
def : SharedMemoryPerCTA<103, 232448>;
def : SharedMemoryPerCTA<110, 232448>;
def : SharedMemoryPerCTA<120, 101376>;
def : SharedMemoryPerCTA<121, 101376>;

#endif // PYPTX_DIALECT_PTX_ISA_TARGETS_TD
