"""Loads a module written by pyptx-tblgen -gen-isa-python and prints a few
facts of it for FileCheck."""
import importlib.util
import sys

spec = importlib.util.spec_from_file_location("isa_table", sys.argv[1])
table = importlib.util.module_from_spec(spec)
spec.loader.exec_module(table)

print("tables:", " ".join(sorted(n for n in vars(table) if n.isupper())))
print("sm_90a needs PTX %d.%d" % divmod(table.TARGETS["sm_90a"], 10))
print("shared memory per CTA:", ", ".join(f"{t} {table.SHARED_PER_CTA[t]}"
                                          for t in ("sm_80", "sm_90a", "sm_100a", "sm_120")))
print("%%tid: %d bits, components %s" % tuple(table.SPECIAL_REGISTERS["%tid"]))
print("%%is_explicit_cluster: %d bit" % table.SPECIAL_REGISTERS["%is_explicit_cluster"][0])
for types in ("bf16.bf16", "s8.u8", "e4m3.e5m2"):
    w = table.WGMMA[types]
    print(f"wgmma {types}: d {' '.join(w['d'])} m{w['m']} k{w['k']} "
          f"n {' '.join(map(str, w['n']))} scale {w['imm_scale']} trans {w['imm_trans']}")
for group, s in sorted(table.TCGEN05_MMA_SHAPES.items()):
    print(f"tcgen05.mma cta_group::{group}: m {' '.join(map(str, s['m']))} "
          f"n {s['n'][0]}..{s['n'][-1]} ({len(s['n'])})")
ld = table.TCGEN05_LD_ST_REGISTERS["16x256b"]
print("tcgen05.ld 16x256b:", " ".join(f"x{c}:{r}" for c, r in ld.items()))
sizes = table.TCGEN05_CP_SIZES
if "64x128b.warpx2::01_23.b8x16.b4x16_p64" in sizes:
    print(f"tcgen05.cp sizes: {len(sizes)}, 64x128b.warpx2::01_23.b8x16.b4x16_p64 among them")
