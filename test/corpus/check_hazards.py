"""The hazard checker's acceptance runs (docs/hazards.md), run by scripts/test.sh:

  examples   every example kernel (the table of test/python/test_param_effects.py,
             which fails when an example is missing from it) traced: no finding.
  corpus     every PTX file of test/corpus/generated and the shared corpus
             (../shared/corpus, or $PYPTX_SHARED_CORPUS), those that exist:
             each finding must be listed in hazards_allowed.txt with the
             reason it is a real hazard, and each entry must still match.
  mutants    each fence/wait line of the examples' PTX deleted, one at a time:
             the rate of mutants with a finding, per kind of line deleted;
             fails when the rate of a kind with at least MIN_PER_KIND
             mutants, or the overall rate, is below 90% (harmless deletions
             listed in MUTANT_HARMLESS are not counted).

    python3 test/corpus/check_hazards.py [examples|corpus|mutants|all]
"""
from __future__ import annotations

import glob
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path[:0] = [ROOT, os.path.join(ROOT, "test", "python"), os.path.join(ROOT, "python")]

from pyptx.check import check_text, main as check_main  # noqa: E402

SHARED = os.environ.setdefault("PYPTX_SHARED_CORPUS",
                               os.path.join(ROOT, "..", "shared", "corpus"))
ALLOWED = os.path.join(HERE, "hazards_allowed.txt")

# The lines whose deletion the checker must notice, by kind.
MUTANT_KINDS = {
    "fence.proxy.async": re.compile(r"^\s*fence\.proxy\.async\b"),
    "fence.mbarrier_init": re.compile(r"^\s*fence\.mbarrier_init\b"),
    "wgmma.fence": re.compile(r"^\s*(@!?%\w+\s+)?wgmma\.fence\b"),
    "wgmma.wait_group": re.compile(r"^\s*(@!?%\w+\s+)?wgmma\.wait_group\b"),
    "cp.async.wait": re.compile(r"^\s*(@!?%\w+\s+)?cp\.async\.wait_(group|all)\b"),
    "cp.async.bulk.wait_group": re.compile(r"^\s*(@!?%\w+\s+)?cp\.async\.bulk\.wait_group\b"),
    "tcgen05.wait": re.compile(r"^\s*(@!?%\w+\s+)?tcgen05\.wait::"),
}
MIN_PER_KIND = 3
# (example key, kind, 1-based occurrence) -> why deleting that line is harmless.
_AFTER_PROXY_FENCE = ("a fence.proxy.async.shared::cta follows before the first async use of "
                      "the barrier, and it orders the mbarrier.init for the async proxy too")
_SAME_SHAPE = ("the PTX ISA (wgmma.fence): a fence is needed between a register access by "
               "another instruction and wgmma.mma_async, \"except when these are accumulator "
               "register accesses across multiple wgmma.mma_async instructions of the same "
               "shape\": between this K step's wgmmas and the previous one's nothing else "
               "touches the accumulators")
_EARLIER_FENCE = ("the PTX ISA (wgmma.fence): it orders \"prior accesses to any warpgroup "
                  "registers\" before later wgmma accesses to them; the earlier wgmma.fence of "
                  "the same loop step lies after every access to this wgmma's registers (the "
                  "previous step's), with only wgmma.mma_async on other registers and address "
                  "arithmetic between")
MUTANT_HARMLESS: dict[tuple[str, str, int], str] = {
    ("examples.blackwell.tcgen05_alloc_mma:build_tcgen05_alloc_mma", "fence.mbarrier_init", 1):
        _AFTER_PROXY_FENCE,
    ("examples.blackwell.tcgen05_cp_shift:build_tcgen05_cp_shift", "fence.mbarrier_init", 1):
        _AFTER_PROXY_FENCE,
    ("examples.blackwell.tcgen05_suite:build_mma", "fence.mbarrier_init", 1): _AFTER_PROXY_FENCE,
    ("examples.blackwell.tcgen05_suite:build_cp_128x128b", "fence.mbarrier_init", 1):
        _AFTER_PROXY_FENCE,
    ("examples.hopper.gemm:build_gemm", "wgmma.fence", 2): _SAME_SHAPE,
    ("examples.hopper.grouped_gemm:build_grouped_gemm_uniform", "wgmma.fence", 2): _SAME_SHAPE,
    ("examples.hopper.grouped_gemm:build_grouped_gemm", "wgmma.fence", 2): _SAME_SHAPE,
    ("examples.hopper.gemm:build_gemm[('cluster', 1), ('epilogue', 'direct')]", "wgmma.fence", 2):
        _SAME_SHAPE,
    # dP = dO V^T after S = Q K^T (occurrences 2, 7: both consumer paths), and dQ = dS K
    # after dK's wgmma (5, 10)
    # (the backward of packed sequences and unequal lengths runs the same per-block products)
    **{(key, "wgmma.fence", n): _EARLIER_FENCE for n in (2, 5, 7, 10)
       for key in ("examples.hopper.flash_attention_bwd:build_main",
                   "examples.hopper.flash_attention_bwd_seq:build_main")},
}


def example_ptx():
    """{example key: PTX text}, traced with hazards="error"."""
    os.environ["PYPTX_HAZARDS"] = "error"
    from test_param_effects import EXAMPLES, VARIANTS, _build
    out = {}
    for key, args, kwargs, *_ in [(k, *v) for k, v in EXAMPLES.items()] + VARIANTS:
        name = key + ("" if not kwargs else repr(sorted(kwargs.items())))
        out[name] = _build(key, args, kwargs).ptx()
    return out


def run_examples() -> int:
    try:
        texts = example_ptx()
    except Exception as e:  # a KernelError from a finding
        print(f"examples: FAILED: {e}")
        return 1
    print(f"examples: {len(texts)} kernels traced, 0 findings")
    return 0


def corpus_files():
    """The .ptx files of each corpus that exists here (a fresh clone may
    lack the shared one), and a line saying what was found."""
    files, found = [], []
    for name, folder in (("test/corpus/generated",
                          os.path.join(ROOT, "test", "corpus", "generated")),
                         ("shared corpus", SHARED)):
        these = glob.glob(os.path.join(folder, "**", "*.ptx"), recursive=True)
        found.append(f"{name}: {len(these)} files" if these else f"{name}: not found")
        files += these
    return sorted(files), "; ".join(found)


def run_corpus() -> int:
    files, found = corpus_files()
    print(f"corpus: {found}")
    if not files:
        print("corpus: nothing to check")
        return 0
    status = check_main(["--allow", ALLOWED, "--strict-allow", *files])
    print(f"corpus: {len(files)} files: " + ("ok" if status == 0 else "FAILED"))
    return status


def run_mutants() -> int:
    texts = example_ptx()
    counts = {kind: [0, 0] for kind in MUTANT_KINDS}  # kind -> [found, total]
    missed = []
    for key, text in texts.items():
        lines = text.splitlines()
        seen = {kind: 0 for kind in MUTANT_KINDS}
        for i, line in enumerate(lines):
            for kind, pattern in MUTANT_KINDS.items():
                if not pattern.match(line):
                    continue
                seen[kind] += 1
                if (key, kind, seen[kind]) in MUTANT_HARMLESS:
                    continue
                mutant = "\n".join(lines[:i] + lines[i + 1:]) + "\n"
                counts[kind][1] += 1
                if check_text(mutant, key):
                    counts[kind][0] += 1
                else:
                    missed.append(f"{key}: line {i + 1}: {line.strip()}")
    status = 0
    for kind, (found, total) in counts.items():
        rate = found / total if total else 1.0
        # A kind with fewer mutants than MIN_PER_KIND is only counted overall.
        low = total >= MIN_PER_KIND and found < 0.9 * total
        status |= low
        print(f"mutants: {kind:26} {found:4}/{total:<4} {rate:6.1%}"
              + (": FAILED (below 90%)" if low else ""))
    found = sum(c[0] for c in counts.values())
    total = sum(c[1] for c in counts.values())
    status |= found < 0.9 * total
    print(f"mutants: all {found}/{total} ({found / max(total, 1):.1%})"
          + ("" if status == 0 else ": FAILED (below 90%)"))
    for m in missed:
        print("  missed:", m)
    return status


def main(argv):
    what = argv[1] if len(argv) > 1 else "all"
    runs = {"examples": run_examples, "corpus": run_corpus, "mutants": run_mutants}
    selected = list(runs) if what == "all" else [what]
    return max(runs[name]() for name in selected)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
