#!/usr/bin/env python3
"""TFLOP/s and accuracy of the Hopper FP8 GEMM (examples/hopper/gemm_fp8.py,
pyptx.pipeline.fp8_gemm) beside ``torch._scaled_mm`` (cuBLAS) with the same
e4m3 inputs and scales, measured in the same process with CUDA events.

Schemes: per-tensor and row-wise scales at 4096^3, 8192^3 and three
Llama-3-70B projections at M = 8192 tokens (QKV 8192 x 10240 x 8192, one
of gate/up 8192 x 28672 x 8192, down 8192 x 8192 x 28672); DeepGEMM's
block scales (1 x 128 for A, 128 x 128 for B) at 8192^3 and 4096^3, beside
``torch.nn.functional.scaled_mm`` / ``torch._scaled_mm`` block-wise where
the installed PyTorch offers it (the row says what happened otherwise).

Per shape: random normal inputs (never zeros) quantised to e4m3 with their
scales, several input sets rotated past L2, a warm-up, then --reps calls
timed one by one with CUDA events behind a sleep kernel; the figure is the
median; each side is timed twice (ours, theirs, ours, theirs) and both
medians kept. Accuracy, on 128 sampled rows: the relative Frobenius error
against float64 of the dequantised inputs (ours and cuBLAS's), and
DeepGEMM's test metric against float64 of the unquantised inputs,
diff = 1 - 2 sum(xy) / sum(x^2 + y^2) (DeepGEMM's tests require < 1e-3).
Per-tensor and row-wise rows also time cuBLAS with ``use_fast_accum=True``
(no periodic promotion of the FP8 sums, as ours) and give its error.

Each scheme runs in its own process with a time limit. Prints a table and
writes gemm_fp8.csv, .json and .png under --out.

usage: gemm_fp8.py [--out DIR] [--schemes "tensor;row;block:cluster=2"] [--shapes NAMES]
                   [--reps N] [--timeout S]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [os.path.join(ROOT, "python"), ROOT, os.path.dirname(os.path.abspath(__file__))]

from harness import bar_chart, fmt, input_sets, run_child, time_calls, write_results  # noqa: E402

SHAPES = {   # name -> (M, N, K)
    "4096^3": (4096, 4096, 4096),
    "8192^3": (8192, 8192, 8192),
    "L3-70B qkv": (8192, 10240, 8192),
    "L3-70B gate": (8192, 28672, 8192),
    "L3-70B down": (8192, 8192, 28672),
}
SCHEME_SHAPES = {"tensor": list(SHAPES), "row": list(SHAPES), "block": ["8192^3", "4096^3"]}
SAMPLE_ROWS = 128


def deepgemm_diff(x, y):
    """DeepGEMM's calc_diff: 1 - 2 sum(xy) / sum(x^2 + y^2) (0 when equal)."""
    return (1 - 2 * (x * y).sum() / (x * x + y * y).sum()).item()


def inputs(M, N, K, scheme, torch, gemm_fp8):
    """(a8, w8, sa, sb, a, w): e4m3 A (M, K), W (N, K), scales, and the float
    originals of the sampled rows (A) and all of W."""
    a = torch.randn(M, K, device="cuda")
    w = torch.randn(N, K, device="cuda")
    a8, sa = gemm_fp8.quantize(a, scheme)
    w8, sb = gemm_fp8.quantize(w, scheme, block_rows=128 if scheme == "block" else 1)
    return a8, w8, sa, sb, a, w


def dequantised(x8, s, scheme, block_rows, torch):
    x = x8.double()
    if scheme == "tensor":
        return x * s.double()
    if scheme == "row":
        return x * s.double()[:, None]
    full = s.double().repeat_interleave(block_rows, 0).repeat_interleave(128, 1)
    return x * full[:x.shape[0], :x.shape[1]]


def block_reference(torch):
    """A function (a8, w8, sa, sb) -> C through PyTorch's block-wise scaled
    matmul, and its name; (None, why) where there is none."""
    import torch.nn.functional as F
    if hasattr(F, "scaled_mm") and hasattr(F, "ScalingType"):
        def call(a8, w8, sa, sb):
            # cuBLAS wants A's scales outer-dim-major and B's as (K/128, N/128)
            return F.scaled_mm(a8, w8.t(), sa.t().contiguous().t(), F.ScalingType.BlockWise1x128,
                               sb.t(), F.ScalingType.BlockWise128x128,
                               output_dtype=torch.bfloat16)
        return call, "F.scaled_mm block-wise"

    def call(a8, w8, sa, sb):
        return torch._scaled_mm(a8, w8.t(), scale_a=sa.t().contiguous().t(), scale_b=sb.t(),
                                out_dtype=torch.bfloat16)
    return call, "torch._scaled_mm block-wise"


def parse_spec(spec):
    """"block" or "block:cluster=2,bn=128" -> ("block", {"cluster": 2, "bn": 128})."""
    scheme, _, rest = spec.partition(":")
    options = {}
    for item in filter(None, rest.split(",")):
        key, _, value = item.partition("=")
        options[key] = int(value) if value.isdigit() else value
    return scheme, options


def run_scheme(spec, names, reps):
    import torch
    from examples.hopper import gemm_fp8
    from pyptx.ops.matmul_fp8 import gemm_fp8_kernel
    scheme, options = parse_spec(spec)
    rows = []
    for name in names:
        M, N, K = SHAPES[name]
        row = dict(scheme=spec, shape=name, M=M, N=N, K=K, flops=2 * M * N * K)
        try:
            t0 = time.time()
            k = (gemm_fp8.build_gemm_fp8(M, N, K, scaling=scheme, **options) if options
                 else gemm_fp8_kernel(M, N, K, scheme, False))
            k.module()
            row["build_s"] = round(time.time() - t0, 2)
            row["bn"], row["cluster"] = k.config.bn, k.config.cluster
            n = input_sets((M + N) * K)
            sets = [inputs(M, N, K, scheme, torch, gemm_fp8) for _ in range(n)]
            a8, w8, sa, sb, a, w = sets[0]
            fast = None
            if scheme == "block":
                ref, row["ref"] = block_reference(torch)
            else:
                row_wise = scheme == "row"

                def ref(a8, w8, sa, sb, fast_accum=False):
                    return torch._scaled_mm(
                        a8, w8.t(), scale_a=sa.reshape(-1, 1) if row_wise else sa.reshape(()),
                        scale_b=sb.reshape(1, -1) if row_wise else sb.reshape(()),
                        out_dtype=torch.bfloat16, use_fast_accum=fast_accum)
                row["ref"] = "torch._scaled_mm"

                def fast(a8, w8, sa, sb):
                    return ref(a8, w8, sa, sb, fast_accum=True)
            c = k(a8, w8, sa, sb)
            theirs_c = None
            try:
                theirs_c = ref(a8, w8, sa, sb)
            except Exception as e:  # noqa: BLE001 -- the reference is optional
                row["ref"] += f" unavailable: {type(e).__name__}: {str(e)[:200]}"
                ref = None
            torch.cuda.synchronize()
            pick = torch.randperm(M, device="cuda")[:SAMPLE_ROWS]
            sa_rows = sa[pick] if scheme != "tensor" else sa
            exact = dequantised(a8[pick], sa_rows, scheme, 1, torch) @ dequantised(
                w8, sb, scheme, 128, torch).T
            original = a[pick].double() @ w.double().T
            fast_c = fast(a8, w8, sa, sb) if fast is not None else None
            for who, out in (("ours", c), ("ref", theirs_c), ("ref_fast", fast_c)):
                if out is None:
                    continue
                o = out[pick].double()
                row[f"{who}_rel_err"] = ((o - exact).norm() / exact.norm()).item()
                row[f"{who}_deepgemm_diff"] = deepgemm_diff(o, original)
            del c, theirs_c, fast_c, exact, original
            ours = [lambda s=s: k(s[0], s[1], s[2], s[3]) for s in sets]
            t = [time_calls(ours, reps)]
            if ref is not None:
                theirs = [lambda s=s: ref(s[0], s[1], s[2], s[3]) for s in sets]
                t += [time_calls(theirs, reps), time_calls(ours, reps),
                      time_calls(theirs, reps)]
                row["ref_ms"] = [t[1], t[3]]
                row["ref_tflops"] = row["flops"] / statistics.mean(row["ref_ms"]) / 1e9
            else:
                t.append(time_calls(ours, reps))
            row["ours_ms"] = [t[0], t[2] if ref is not None else t[1]]
            if fast is not None:
                row["ref_fast_ms"] = time_calls([lambda s=s: fast(*s[:4]) for s in sets], reps)
                row["ref_fast_tflops"] = row["flops"] / row["ref_fast_ms"] / 1e9
            row["ours_tflops"] = row["flops"] / statistics.mean(row["ours_ms"]) / 1e9
            if "ref_tflops" in row:
                row["ratio"] = row["ours_tflops"] / row["ref_tflops"]
            del sets, a8, w8, sa, sb, a, w
        except Exception as e:  # noqa: BLE001 -- report and go on with the next shape
            row["error"] = f"{type(e).__name__}: {e}"[:500]
        torch.cuda.empty_cache()
        rows.append(row)
        print("RESULT " + json.dumps(row), flush=True)
    return rows


def table(rows):
    lines = [f"{'scheme':17} {'shape':12} {'M x N x K':20} {'ours TF/s':>9} {'ref TF/s':>9} "
             f"{'ratio':>6} {'err ours':>9} {'err ref':>9} {'DG diff':>8} {'fast TF/s':>9} "
             f"{'err fast':>9}  ref"]
    for r in rows:
        shape = f"{r['M']}x{r['N']}x{r['K']}"
        if "error" in r:
            lines.append(f"{r['scheme']:17} {r['shape']:12} {shape:20} ERROR {r['error']}")
            continue
        lines.append(f"{r['scheme']:17} {r['shape']:12} {shape:20} {fmt(r['ours_tflops']):>9} "
                     f"{fmt(r.get('ref_tflops')):>9} {fmt(r.get('ratio'), '.3f'):>6} "
                     f"{fmt(r.get('ours_rel_err'), '.2e'):>9} "
                     f"{fmt(r.get('ref_rel_err'), '.2e'):>9} "
                     f"{fmt(r.get('ours_deepgemm_diff'), '.1e'):>8} "
                     f"{fmt(r.get('ref_fast_tflops')):>9} "
                     f"{fmt(r.get('ref_fast_rel_err'), '.2e'):>9}  {r.get('ref')}")
    return "\n".join(lines)


def write_files(rows, out, device):
    keys = ["scheme", "shape", "M", "N", "K", "ours_tflops", "ref_tflops", "ratio", "ref",
            "ours_rel_err", "ref_rel_err", "ours_deepgemm_diff", "ref_deepgemm_diff",
            "ref_fast_tflops", "ref_fast_rel_err",
            "ours_ms", "ref_ms", "bn", "cluster", "error"]
    plt = write_results(out, "gemm_fp8", device, rows, keys)
    if plt is None:
        return
    bar_chart(plt, out, "gemm_fp8", rows,
              [("ours_tflops", "pyptx"), ("ref_tflops", "cuBLAS (torch._scaled_mm)")],
              f"FP8 e4m3 GEMM, f32 accumulate, bf16 out\n{device}",
              label=lambda r: f"{r['scheme']}\n{r['shape']}",
              peak=(1979, "H100 SXM dense FP8 peak"))
    print(f"wrote {os.path.join(out, 'gemm_fp8.png')}")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", default="benchmark_out")
    p.add_argument("--schemes", default="tensor;row;block",
                   help="';'-separated, each a scaling and optional build_gemm_fp8 keywords: "
                        "tensor;block;block:cluster=2")
    p.add_argument("--shapes", default=None,
                   help=f"comma-separated, of {', '.join(SHAPES)} (default: each scheme's)")
    p.add_argument("--reps", type=int, default=30)
    p.add_argument("--timeout", type=int, default=200, help="seconds per child process")
    p.add_argument("--child", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        import torch
        torch.manual_seed(0)
        names = (args.shapes.split(",") if args.shapes
                 else SCHEME_SHAPES[parse_spec(args.child)[0]])
        run_scheme(args.child, names, args.reps)
        return
    import torch
    prop = torch.cuda.get_device_properties(0)
    device = (f"{prop.name}, {prop.multi_processor_count} SMs, torch {torch.__version__}, "
              f"{time.strftime('%Y-%m-%d')}")
    print(device, flush=True)
    rows = []
    for scheme in args.schemes.split(";"):
        cmd = [sys.executable, os.path.abspath(__file__), "--child", scheme, "--reps",
               str(args.reps)] + (["--shapes", args.shapes] if args.shapes else [])
        got, status, err, seconds = run_child(cmd, args.timeout)
        print(f"[{scheme}] exit {status} in {seconds:.0f} s, {len(got)} results", flush=True)
        if status != 0:
            print("\n".join(err.strip().splitlines()[-15:]), flush=True)
        rows += got
    print(table(rows))
    write_files(rows, args.out, device)


if __name__ == "__main__":
    main()
