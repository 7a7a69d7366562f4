"""Loads a module written by pyptx-tblgen -gen-isa-python and prints a few
facts of it for FileCheck."""
import importlib.util
import sys

spec = importlib.util.spec_from_file_location("isa_table", sys.argv[1])
table = importlib.util.module_from_spec(spec)
spec.loader.exec_module(table)

wgmma = [f for f in table.FORMS if f["opcode"] == "wgmma.mma_async"]
print("wgmma.mma_async archs:", " ".join(sorted({a for f in wgmma for a in f["archs"]})))
add = next(f for f in table.FORMS if f["name"] == "ADD_INT")
print("add.s32 type group:", " ".join(dict((g[0], g[1]) for g in add["groups"])["type"]))
print("sm_90a needs PTX %d.%d" % divmod(table.TARGETS["sm_90a"][1], 10))
print("families:", len({f["family"] for f in table.FORMS}))
