#!/usr/bin/env python3
"""TFLOP/s of the Ampere mma.sync GEMMs (examples/ampere/gemm_highperf.py in
each configuration, gemm_pipelined.py, the one-warp gemm.py) beside PyTorch
(cuBLAS torch.matmul, bf16), measured in the same process with CUDA events.
sm_80 PTX: on a Hopper card the runtime assembles it with ptxas -arch=sm_90,
so these are mma.sync (HMMA) numbers, not wgmma ones.

Per shape: random bf16 inputs (normal, never zeros), enough input sets
rotated that the data read per call is not served from L2, a warm-up, then
--reps calls timed one by one with CUDA events; the figure is the median
(benchmarks/harness.py's time_calls). Each side is timed twice (ours, theirs,
ours, theirs) and both medians are kept: their difference is the noise.
Before timing, one output of ours, from NaN-poisoned memory, is checked
against a float64 reference (relative Frobenius error; a NaN fails).

Each variant runs in its own process with a time limit (variants joined
by "+" share one: --variants hp_128x128+hp_128x256,one_warp saves a
process start). Prints a table and
writes ampere_gemm.csv, ampere_gemm.json and ampere_gemm.png under --out;
with --sass, also the SASS (ptxas -arch=sm_90, cuobjdump) of the default
high-performance kernel at 4096^3 and its instruction counts.

usage: ampere_gemm.py [--out DIR] [--variants A+B,C,...] [--reps N] [--timeout S]
                      [--shapes 2048,4096,8192] [--sass]
"""
from __future__ import annotations

import argparse
import collections
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [os.path.join(ROOT, "python"), ROOT, os.path.dirname(os.path.abspath(__file__))]

from harness import (fmt, input_sets, row_result, run_child, time_calls,  # noqa: E402
                     write_results)

SIZES = [2048, 4096, 8192]

# name -> (module, build_gemm keyword arguments, largest size timed)
VARIANTS = {
    "hp_128x128": ("gemm_highperf", dict(config="128x128"), 8192),
    "hp_128x256": ("gemm_highperf", dict(config="128x256"), 8192),
    "hp_128x128_k64": ("gemm_highperf", dict(config="128x128_k64"), 8192),
    "hp_128x256_k64": ("gemm_highperf", dict(config="128x256_k64"), 8192),
    "hp_128x256_bf16": ("gemm_highperf", dict(config="128x256", out="bf16"), 8192),
    "pipelined_s3": ("gemm_pipelined", dict(stages=3), 8192),
    "one_warp": ("gemm", dict(), 2048),
}
DEFAULT_VARIANTS = list(VARIANTS)


def _torch():
    import torch
    return torch


def build(variant, M, N, K):
    import importlib

    from pyptx.types import bf16
    module, kwargs, _ = VARIANTS[variant]
    kwargs = dict(kwargs)
    if kwargs.pop("out", None) == "bf16":
        kwargs["out_dtype"] = bf16
    mod = importlib.import_module(f"examples.ampere.{module}")
    return mod.build_gemm(M, N, K, **kwargs)


def checked_error(k, a, b, out_bytes):
    """Relative error of k(a, b) against float64, the output's memory poisoned first."""
    torch = _torch()
    M, N = a.shape[0], b.shape[0]
    block = torch.full((M * N * out_bytes,), 255, dtype=torch.uint8, device="cuda")
    torch.cuda.synchronize()
    del block
    out = k(a, b).double()
    if torch.isnan(out).any():
        return float("nan")
    ref = a.double() @ b.double().T
    return ((out - ref).norm() / ref.norm()).item()


def run_variant(variant, sizes, reps):
    torch = _torch()
    limit = VARIANTS[variant][2]
    rows = []
    for size in [s for s in sizes if s <= limit]:
        M = N = K = size
        row = dict(variant=variant, shape=f"{M}x{N}x{K}", M=M, N=N, K=K, flops=2 * M * N * K)
        with row_result(row, rows):
            t0 = time.time()
            k = build(variant, M, N, K)
            k.module()
            row["build_s"] = round(time.time() - t0, 2)
            n = input_sets((M * K + N * K) * 2)
            a = [torch.randn(M, K, device="cuda").to(torch.bfloat16) for _ in range(n)]
            b = [torch.randn(N, K, device="cuda").to(torch.bfloat16) for _ in range(n)]
            out_bytes = 2 if VARIANTS[variant][1].get("out") == "bf16" else 4
            row["rel_err"] = checked_error(k, a[0], b[0], out_bytes)
            ours = [lambda i=i: k(a[i], b[i]) for i in range(n)]
            theirs = [lambda i=i: torch.matmul(a[i], b[i].T) for i in range(n)]
            r = reps if size <= 4096 else max(10, reps // 2)
            t = [time_calls(ours, r), time_calls(theirs, r),
                 time_calls(ours, r), time_calls(theirs, r)]
            row.update(ours_ms=[t[0], t[2]], ref_ms=[t[1], t[3]])
            row["ours_tflops"] = row["flops"] / statistics.mean(row["ours_ms"]) / 1e9
            row["ref_tflops"] = row["flops"] / statistics.mean(row["ref_ms"]) / 1e9
            row["ratio"] = row["ours_tflops"] / row["ref_tflops"]
    return rows


def write_sass(out):
    """SASS of the default high-performance kernel as the H100 runs it, and
    its instruction counts (the loop is traced once, so these are per K tile
    plus prologue and epilogue)."""
    ptxas = shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"
    cuobjdump = shutil.which("cuobjdump") or "/usr/local/cuda/bin/cuobjdump"
    k = build("hp_128x128", 4096, 4096, 4096)
    with tempfile.TemporaryDirectory() as tmp:
        src, cubin = os.path.join(tmp, "k.ptx"), os.path.join(tmp, "k.cubin")
        with open(src, "w") as f:
            f.write(k.ptx())
        log = subprocess.run([ptxas, "-arch=sm_90", "-v", "-o", cubin, src],
                             capture_output=True, text=True, check=True).stderr
        sass = subprocess.run([cuobjdump, "-sass", cubin], capture_output=True, text=True,
                              check=True).stdout
    ops = re.findall(r"/\*[0-9a-f]{4}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)", sass)
    counts = collections.Counter(op.split(".")[0] for op in ops)
    with open(os.path.join(out, "hp_128x128_sm90.sass"), "w") as f:
        f.write(log + "\n" + sass)
    print("ptxas -arch=sm_90:", " ".join(line.strip() for line in log.splitlines()
                                          if "Used" in line or "spill" in line))
    print("SASS counts:", dict(counts.most_common(16)))


# -- the parent: children, table, files ----------------------------------------------

def spawn(name, args):
    cmd = [sys.executable, os.path.abspath(__file__), "--child", name, "--reps",
           str(args.reps), "--shapes", args.shapes]
    rows, status, err, seconds = run_child(cmd, args.timeout)
    print(f"[{name}] exit {status} in {seconds:.0f} s, {len(rows)} results", flush=True)
    if status != 0:
        print("\n".join(err.strip().splitlines()[-15:]), flush=True)
    return rows, status == "timeout"


def table(rows):
    lines = [f"{'variant':16} {'shape':16} {'ours TF/s':>10} {'cuBLAS':>8} {'ratio':>6} "
             f"{'ours ms (2 runs)':>19} {'cuBLAS ms (2 runs)':>19} {'rel err':>8}"]
    for r in rows:
        if "error" in r:
            lines.append(f"{r['variant']:16} {r['shape']:16} ERROR {r['error']}")
            continue
        ours = "/".join(f"{t:.4f}" for t in r["ours_ms"])
        ref = "/".join(f"{t:.4f}" for t in r["ref_ms"])
        lines.append(f"{r['variant']:16} {r['shape']:16} {fmt(r['ours_tflops']):>10} "
                     f"{fmt(r['ref_tflops']):>8} {fmt(r['ratio'], '.3f'):>6} {ours:>19} "
                     f"{ref:>19} {fmt(r.get('rel_err'), '.1e'):>8}")
    return "\n".join(lines)


def write_files(rows, out, device):
    keys = ["variant", "shape", "ours_tflops", "ref_tflops", "ratio", "rel_err", "ours_ms",
            "ref_ms", "build_s", "error"]
    plt = write_results(out, "ampere_gemm", device, rows, keys)
    if plt is None:
        return
    good = [r for r in rows if "error" not in r]
    fig, ax = plt.subplots(figsize=(9, 5.5))
    for variant in dict.fromkeys(r["variant"] for r in good):
        rs = sorted((r for r in good if r["variant"] == variant), key=lambda r: r["M"])
        ax.plot([r["M"] for r in rs], [r["ours_tflops"] for r in rs], "o-",
                label=f"pyptx {variant}")
    by_size = collections.defaultdict(list)
    for r in good:
        by_size[r["M"]].append(r["ref_tflops"])
    sizes = sorted(by_size)
    ax.plot(sizes, [statistics.median(by_size[s]) for s in sizes], "s--", color="k",
            label="cuBLAS bf16 (torch.matmul; median over the children)")
    ax.set_xscale("log", base=2)
    ax.set_xticks(sizes)
    ax.set_xticklabels([f"{s}^3" for s in sizes])
    ax.set_xlabel("M = N = K")
    ax.set_ylabel("TFLOP/s (2MNK / time)")
    ax.set_title(f"Ampere mma.sync bf16 GEMM (sm_80 PTX), f32 accumulate\n{device}",
                 fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "ampere_gemm.png"), dpi=120)
    print(f"wrote {os.path.join(out, 'ampere_gemm.png')}")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", default="benchmark_out")
    p.add_argument("--variants", default=",".join(DEFAULT_VARIANTS),
                   help=f"comma-separated (joined by + to share a process), of "
                        f"{', '.join(VARIANTS)}")
    p.add_argument("--reps", type=int, default=40)
    p.add_argument("--timeout", type=int, default=120, help="seconds per child process")
    p.add_argument("--shapes", default=",".join(map(str, SIZES)),
                   help="comma-separated sizes (M = N = K)")
    p.add_argument("--sass", action="store_true", help="also write the default kernel's SASS")
    p.add_argument("--child", help=argparse.SUPPRESS)
    args = p.parse_args()
    sizes = [int(s) for s in args.shapes.split(",")]
    if args.child:
        for name in args.child.split("+"):
            _torch().manual_seed(0)
            run_variant(name, sizes, args.reps)
        return
    torch = _torch()
    prop = torch.cuda.get_device_properties(0)
    device = (f"{prop.name}, {prop.multi_processor_count} SMs, torch {torch.__version__}, "
              f"{time.strftime('%Y-%m-%d')}")
    print(device, flush=True)
    os.makedirs(args.out, exist_ok=True)
    if args.sass:
        write_sass(args.out)
    rows, hangs = [], 0
    groups = args.variants.split(",")
    for name in (n for group in groups for n in group.split("+")):
        if name not in VARIANTS:
            sys.exit(f"unknown variant {name!r}; one of {', '.join(VARIANTS)}")
    for name in groups:
        if hangs >= 2:
            print(f"[{name}] skipped: two children hung already", flush=True)
            continue
        got, hung = spawn(name, args)
        rows += got
        hangs += hung
    print(table(rows))
    write_files(rows, args.out, device)


if __name__ == "__main__":
    main()
