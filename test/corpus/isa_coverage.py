#!/usr/bin/env python3
"""Which distinct opcodes of the corpora does the ISA description cover?

Every file of the corpora (ptxas-accepted or not) is imported with the ISA
checks off, and its opcodes (mnemonic and modifiers) are collected. Each
distinct opcode is then verified alone, with no operands, under
--pyptx-isa=warn-unknown: an opcode no form describes gives a warning (the
policy's meaning), a described one gives an error about its operands (or
its target) or nothing.

usage: isa_coverage.py [--bin DIR] [--jobs N] [CORPUS_DIR...]
Opcodes that are not PTX (listed in INVALID, with ptxas's verdict) must stay
undescribed. The last line is "isa-coverage: N distinct valid opcodes, D
described, U not; I invalid ones, W described"; exit status 1 when U or W
is not 0.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
DEFAULT_CORPORA = [os.path.normpath(os.path.join(ROOT, "..", "shared", "corpus", "pyptx")),
                   os.path.join(ROOT, "test", "corpus", "generated")]
# Opcodes of ptxas-rejected corpus files that are not PTX at all, with
# ptxas 13.0's verdict on them alone: the description must not take them.
INVALID = {
    "membar.cluster": "Illegal modifier '.cluster' for instruction 'membar'",
    "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cta.b64":
        "State space incorrect for instruction 'tcgen05.commit'",
    "wgmma.mma_async.sync.aligned.m64n256k16.f32.e4m3.e4m3":
        "Illegal matrix shape '.m64n256k16' for instruction "
        "'wgmma.mma_async with FP8 types'",
}
INST = re.compile(r'mnemonic = "([^"]*)", modifiers = \[([^\]]*)\]')


def opcodes_of(translate, path):
    out = subprocess.run([translate, "--import-ptx", "--pyptx-isa=off",
                          "--mlir-print-op-generic", path],
                         capture_output=True, text=True)
    if out.returncode:
        return path, None
    found = set()
    for mnemonic, modifiers in INST.findall(out.stdout):
        mods = re.findall(r'"([^"]*)"', modifiers)
        found.add(".".join([mnemonic] + mods))
    return path, found


def described(translate, opcode, tmp):
    path = os.path.join(tmp, re.sub(r"[^\w.]", "_", opcode) + ".ptx")
    with open(path, "w") as f:
        f.write(".version 9.0\n.target sm_100a\n.address_size 64\n"
                f".visible .entry k()\n{{\n  {opcode};\n  ret;\n}}\n")
    out = subprocess.run([translate, "--import-ptx", "--pyptx-isa=warn-unknown",
                          path, "-o", os.devnull], capture_output=True, text=True)
    return opcode, "warning:" not in out.stderr, out.stderr.strip().split("\n")[0]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("corpora", nargs="*", default=DEFAULT_CORPORA)
    args = parser.parse_args()
    translate = os.path.join(args.bin, "pyptx-translate")
    files = sorted(os.path.join(d, f) for c in args.corpora for d, _, fs in os.walk(c)
                   for f in fs if f.endswith(".ptx"))
    opcodes = {}
    with ThreadPoolExecutor(args.jobs) as pool:
        for path, found in pool.map(lambda p: opcodes_of(translate, p), files):
            if found is None:
                print(f"import failed: {path}", file=sys.stderr)
                continue
            for opcode in found:
                opcodes.setdefault(opcode, os.path.relpath(path, ROOT))
    print(f"{len(files)} files, {len(opcodes)} distinct opcodes", flush=True)
    missing, invalid, wrong = [], [], []
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(args.jobs) as pool:
        for opcode, ok, message in pool.map(lambda o: described(translate, o, tmp),
                                            sorted(opcodes)):
            if opcode in INVALID:
                (wrong if ok else invalid).append(opcode)
                print(f"{'DESCRIBED' if ok else 'rightly not described'}: {opcode} "
                      f"(invalid PTX; ptxas: {INVALID[opcode]})")
            elif not ok:
                missing.append(opcode)
                print(f"not described: {opcode} (in {opcodes[opcode]}): {message}")
    valid = len(opcodes) - len(invalid) - len(wrong)
    print(f"isa-coverage: {valid} distinct valid opcodes, "
          f"{valid - len(missing)} described, {len(missing)} not; "
          f"{len(invalid) + len(wrong)} invalid ones, {len(wrong)} described")
    return 1 if missing or wrong else 0


if __name__ == "__main__":
    sys.exit(main())
