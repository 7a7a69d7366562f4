#!/usr/bin/env python3
"""Special registers in mov and cvt: our ISA verdict against ptxas's.

ptxas takes a special register only as the source of a mov or of an integer
cvt, and sizes it: a mov moves exactly its width (the legacy %tid family and
%gridid also 16 bits, %gridid 32), a cvt converts from at most its width,
and the 1-bit %is_explicit_cluster goes only into mov.pred. This probes every
special register we know (components and indices sampled) against mov of
each integer/bit type and pred, and cvt.u32 from each integer type, with both
tools, and prints the table: A = ptxas accepts, - = it rejects; a mark after
it where we differ (! we accept what it rejects, ? we reject what it takes).

usage: sreg_sizes.py [--bin DIR] [--ptxas PTXAS] [--arch sm_90a] [--jobs J]
Exit status 1 on any disagreement.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

SREGS = [
    "%tid.x", "%ntid.y", "%ctaid.z", "%nctaid.x", "%gridid", "%laneid",
    "%warpid", "%nwarpid", "%smid", "%nsmid", "%lanemask_eq", "%lanemask_gt",
    "%clock", "%clock_hi", "%clock64", "%globaltimer", "%globaltimer_lo",
    "%pm0", "%pm7_64", "%envreg0", "%envreg31", "%total_smem_size",
    "%aggr_smem_size", "%dynamic_smem_size", "%reserved_smem_offset_begin",
    "%current_graph_exec", "%is_explicit_cluster", "%clusterid.x",
    "%nclusterid.y", "%cluster_ctaid.x", "%cluster_nctaid.z",
    "%cluster_ctarank", "%cluster_nctarank",
]
DEST = {1: "%p1", 16: "%h1", 32: "%r1", 64: "%rd1"}
FORMS = ([(f"mov.{t}", DEST[int(t[1:])]) for t in
          ("b16", "u16", "s16", "b32", "u32", "s32", "b64", "u64", "s64")] +
         [("mov.pred", DEST[1])] +
         [(f"cvt.u32.{t}", DEST[32]) for t in
          ("u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64")])
TEMPLATE = """.version 8.7
.target {arch}
.address_size 64
.visible .entry k()
{{
.reg .b16 %h<2>;
.reg .b32 %r<2>;
.reg .b64 %rd<2>;
.reg .pred %p<2>;
{op} {dest}, {sreg};
ret;
}}
"""


def accepts(cmd):
    result = subprocess.run(cmd, capture_output=True, text=True)
    if result.returncode not in (0, 1, 255):
        raise SystemExit(f"{cmd[0]} crashed (exit {result.returncode}):\n{result.stderr}")
    return result.returncode == 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    ap.add_argument("--ptxas", default="ptxas")
    ap.add_argument("--arch", default="sm_90a")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    args = ap.parse_args(argv)
    translate = os.path.join(args.bin, "pyptx-translate")
    with tempfile.TemporaryDirectory() as tmp:
        def judge(job):
            i, (sreg, (op, dest)) = job
            path = os.path.join(tmp, f"{i}.ptx")
            with open(path, "w") as f:
                f.write(TEMPLATE.format(arch=args.arch, op=op, dest=dest, sreg=sreg))
            return (accepts([args.ptxas, f"-arch={args.arch}", path, "-o", os.devnull]),
                    accepts([translate, "--import-ptx", "--pyptx-isa=strict", path,
                             "-o", os.devnull]))
        jobs = list(enumerate((s, f) for s in SREGS for f in FORMS))
        with ThreadPoolExecutor(args.jobs) as pool:
            verdicts = list(pool.map(judge, jobs))
    heads = [op.split(".", 1)[1] for op, _ in FORMS]
    print(f"{'':28}" + " ".join(f"{h:>8}" for h in heads))
    wrong = 0
    for r, sreg in enumerate(SREGS):
        cells = []
        for c in range(len(FORMS)):
            ptxas, ours = verdicts[r * len(FORMS) + c]
            mark = "" if ptxas == ours else ("!" if ours else "?")
            wrong += ptxas != ours
            cells.append(f"{('A' if ptxas else '-') + mark:>8}")
        print(f"{sreg:28}" + " ".join(cells))
    print(f"sreg-sizes: {len(jobs)} cases, {len(jobs) - wrong} agree, {wrong} disagree")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
