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
The grouped (MoE) kernel with the same block scales ("grouped"): 8 experts
x 4096 tokens, N 4096, K 7168 (DeepSeek-V3's hidden size; its experts'
gate+up projection) and 64 experts x 512 tokens, N 1536, K 2048, beside
PyTorch's block-wise grouped scaled matmul where it runs, else a loop of
its block-wise scaled matmul over the experts with the same scales (the
row's ref says which), and ``torch._scaled_grouped_mm`` with row-wise
scales (PyTorch's grouped FP8 GEMM; a coarser scheme: its own inputs).

Per shape: random normal inputs (never zeros) quantised to e4m3 with their
scales, several input sets rotated past L2, a warm-up, then --reps calls
timed one by one with CUDA events behind a sleep kernel; the figure is the
median; each side is timed twice (ours, theirs, ours, theirs) and both
medians kept (the TFLOP/s); the ratio is the median of per-pair ratios
(harness.time_pair: 4 x --reps pairs, each side called in turn, so that
the card's clock is the same for both; ratio_blocks: that of the blocks).
Accuracy, on 128 sampled rows: the relative Frobenius error
against float64 of the dequantised inputs (ours and cuBLAS's), and
DeepGEMM's test metric against float64 of the unquantised inputs,
diff = 1 - 2 sum(xy) / sum(x^2 + y^2) (DeepGEMM's tests require < 1e-3).
Per-tensor and row-wise rows also time cuBLAS with ``use_fast_accum=True``
(no periodic promotion of the FP8 sums, as ours) and give its error.

Each scheme runs in its own process with a time limit. Prints a table and
writes gemm_fp8.csv, .json and .png under --out.

usage: gemm_fp8.py [--out DIR] [--schemes "tensor;row;block:cluster=2;grouped"] [--shapes NAMES]
                   [--reps N] [--timeout S]
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [os.path.join(ROOT, "python"), ROOT, os.path.dirname(os.path.abspath(__file__))]

from harness import (bar_chart, fmt, input_sets, row_result, run_child, time_calls,  # noqa: E402
                     time_pair, write_results)

SHAPES = {   # name -> (M, N, K)
    "4096^3": (4096, 4096, 4096),
    "8192^3": (8192, 8192, 8192),
    "L3-70B qkv": (8192, 10240, 8192),
    "L3-70B gate": (8192, 28672, 8192),
    "L3-70B down": (8192, 8192, 28672),
}
GROUPED_SHAPES = {   # name -> (G experts, tokens per expert, N, K)
    "MoE G8": (8, 4096, 4096, 7168),
    "MoE G64": (64, 512, 1536, 2048),
}
SCHEME_SHAPES = {"tensor": list(SHAPES), "row": list(SHAPES), "block": ["8192^3", "4096^3"],
                 "grouped": list(GROUPED_SHAPES)}
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


def torch_block_layouts(sa, sb):
    """Block scales in the layouts PyTorch's block-wise scaled matmul takes:
    A's outer-dim-major (a column-major copy of (M, K/128)), B's as
    (K/128, N/128) (a view)."""
    return sa.t().contiguous().t(), sb.t()


def block_mm(torch):
    """A function (a8, w8, sa, sb) -> C through PyTorch's block-wise scaled
    matmul with the scales in torch_block_layouts, and its name."""
    import torch.nn.functional as F
    if hasattr(F, "scaled_mm") and hasattr(F, "ScalingType"):
        def call(a8, w8, sa, sb):
            return F.scaled_mm(a8, w8.t(), sa, F.ScalingType.BlockWise1x128, sb,
                               F.ScalingType.BlockWise128x128, output_dtype=torch.bfloat16)
        return call, "F.scaled_mm block-wise"

    def call(a8, w8, sa, sb):
        return torch._scaled_mm(a8, w8.t(), scale_a=sa, scale_b=sb, out_dtype=torch.bfloat16)
    return call, "torch._scaled_mm block-wise"


def block_reference(torch):
    """A function (a8, w8, sa, sb) -> C through PyTorch's block-wise scaled
    matmul (our scale layouts, converted in the call), and its name."""
    mm, name = block_mm(torch)
    return (lambda a8, w8, sa, sb: mm(a8, w8, *torch_block_layouts(sa, sb))), name


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
        with row_result(row, rows):
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
                # judged at a few percent, less than the card's clock drifts
                # between blocks: the ratio is the median of per-pair ratios
                row["ratio_blocks"] = row["ours_tflops"] / row["ref_tflops"]
                *_, row["ratio"] = time_pair(ours, theirs, 4 * reps)
            del sets, a8, w8, sa, sb, a, w
    return rows


def grouped_inputs(T, G, N, K, torch, gemm_fp8):
    """One input set of the grouped GEMM: a (T, K) and w (G*N, K) quantised
    with block scales (ours and the same-scale reference) and row-wise
    (torch._scaled_grouped_mm), and the float originals."""
    a = torch.randn(T, K, device="cuda")
    w = torch.randn(G * N, K, device="cuda")
    a8, sa = gemm_fp8.quantize(a, "block")
    w8, sb = gemm_fp8.quantize(w, "block", block_rows=128)
    a8r, sar = gemm_fp8.quantize(a, "row")
    w8r, sbr = gemm_fp8.quantize(w, "row")
    return dict(a8=a8, w8=w8, sa=sa, sb=sb, a8r=a8r, w8r=w8r, sar=sar, sbr=sbr, a=a, w=w)


def grouped_references(s, G, N, offs, offs_list, torch, row):
    """{name: function of an input set -> C (T, N) or the experts' outputs}:
    PyTorch's block-wise grouped scaled matmul if it runs here (same
    scales), else a loop of its block-wise scaled matmul over the experts
    (same scales); and torch._scaled_grouped_mm row-wise. Prepares the
    scale layouts of set `s` outside the timed calls (in s). What failed is
    noted in row."""
    import torch.nn.functional as F
    K = s["a8"].shape[1]
    nb, kb = N // 128, s["sb"].shape[1]
    bounds = list(zip([0] + offs_list[:-1], offs_list))
    refs = {}

    def prepare(s):
        s["sa_l"] = [s["sa"][lo:hi].t().contiguous().t() for lo, hi in bounds]
        s["sb_l"] = [s["sb"][g * nb:(g + 1) * nb].t() for g in range(G)]
        s["sa_cm"] = s["sa"].t().contiguous().t()
        s["sb_3d"] = s["sb"].view(G, nb, kb).transpose(-2, -1)
    prepare(s)
    if hasattr(F, "scaled_grouped_mm") and hasattr(F, "ScalingType"):
        def grouped_block(s):
            return F.scaled_grouped_mm(
                s["a8"], s["w8"].view(G, N, K).transpose(-2, -1), s["sa_cm"],
                F.ScalingType.BlockWise1x128, s["sb_3d"], F.ScalingType.BlockWise128x128,
                offs=offs, output_dtype=torch.bfloat16)
        try:
            grouped_block(s)
            refs["F.scaled_grouped_mm block-wise"] = grouped_block
        except Exception as e:  # noqa: BLE001 -- not offered on this GPU / PyTorch
            row["grouped_block_error"] = f"{type(e).__name__}: {str(e)[:160]}"
    mm, mm_name = block_mm(torch)

    def loop(s):
        return [mm(s["a8"][lo:hi], s["w8"][g * N:(g + 1) * N], s["sa_l"][g], s["sb_l"][g])
                for g, (lo, hi) in enumerate(bounds)]
    try:
        loop(s)
        refs[f"loop of {G} {mm_name}"] = loop
    except Exception as e:  # noqa: BLE001
        row["loop_error"] = f"{type(e).__name__}: {str(e)[:160]}"
    gmm = getattr(torch, "_scaled_grouped_mm", None)
    if gmm is not None:
        def grouped_row(s):
            return gmm(s["a8r"], s["w8r"].view(G, N, K).transpose(-2, -1), s["sar"],
                       s["sbr"].view(G, N), offs=offs, out_dtype=torch.bfloat16)
        try:
            grouped_row(s)
            refs["torch._scaled_grouped_mm row-wise"] = grouped_row
        except Exception as e:  # noqa: BLE001
            row["grouped_row_error"] = f"{type(e).__name__}: {str(e)[:160]}"
    return refs, prepare


def run_grouped(names, reps):
    """The grouped block-scaled kernel at MoE shapes (equal tokens per
    expert) beside PyTorch (grouped_references); accuracy on sampled rows
    against float64 of each side's dequantised inputs and DeepGEMM's diff
    against the unquantised ones."""
    import torch
    from examples.hopper import gemm_fp8
    rows = []
    for name in names:
        G, per, N, K = GROUPED_SHAPES[name]
        T = G * per
        row = dict(scheme="grouped", shape=name, M=T, N=N, K=K, G=G, flops=2 * T * N * K)
        with row_result(row, rows):
            t0 = time.time()
            k = gemm_fp8.build_grouped_gemm_fp8(T, N, K, G)
            k.module()
            row["build_s"] = round(time.time() - t0, 2)
            row["bn"], row["cluster"] = k.config.bn, k.config.cluster
            offs_list = [per * (g + 1) for g in range(G)]
            offs = torch.tensor(offs_list, dtype=torch.int32, device="cuda")
            sets = [grouped_inputs(T, G, N, K, torch, gemm_fp8)
                    for _ in range(input_sets((T + G * N) * K, max_sets=4))]
            refs, prepare = grouped_references(sets[0], G, N, offs, offs_list, torch, row)
            for s in sets[1:]:
                prepare(s)
            s0 = sets[0]
            same = [n for n in refs if "row-wise" not in n][:1]
            outs = {"ours": k(s0["a8"], s0["w8"], s0["sa"], s0["sb"], offs)}
            for ref_name, f in refs.items():
                c = f(s0)
                key = ("grouped_row" if "row-wise" in ref_name
                       else "ref" if ref_name in same else "loop")
                outs[key] = torch.cat(c) if isinstance(c, list) else c
            torch.cuda.synchronize()
            _grouped_accuracy(row, outs, s0, G, N, offs, torch)
            for s in sets:
                for key in ("a", "w"):
                    s.pop(key)
            torch.cuda.empty_cache()
            ours = [lambda s=s: k(s["a8"], s["w8"], s["sa"], s["sb"], offs) for s in sets]
            if same:
                theirs = [lambda s=s: refs[same[0]](s) for s in sets]
                t = [time_calls(ours, reps), time_calls(theirs, reps),
                     time_calls(ours, reps), time_calls(theirs, reps)]
                row["ours_ms"], row["ref_ms"] = [t[0], t[2]], [t[1], t[3]]
                row["ref"] = same[0] + " (same scales)"
                row["ref_tflops"] = row["flops"] / statistics.mean(row["ref_ms"]) / 1e9
            else:
                row["ours_ms"] = [time_calls(ours, reps), time_calls(ours, reps)]
                row["ref"] = "no block-wise PyTorch reference ran"
            row["ours_tflops"] = row["flops"] / statistics.mean(row["ours_ms"]) / 1e9
            if "ref_tflops" in row:
                row["ratio"] = row["ours_tflops"] / row["ref_tflops"]
            grouped_row = refs.get("torch._scaled_grouped_mm row-wise")
            if grouped_row is not None:
                row["grouped_row_tflops"] = row["flops"] / time_calls(
                    [lambda s=s: grouped_row(s) for s in sets], reps) / 1e9
            del sets, s0, outs
    return rows


def _grouped_accuracy(row, outs, s, G, N, offs, torch):
    """Relative errors on SAMPLE_ROWS rows: each output of `outs` (ours, ref,
    loop: block scales; grouped_row: row-wise) against float64 of its own
    dequantised inputs, and DeepGEMM's diff against float64 of the
    unquantised inputs."""
    T = s["a8"].shape[0]
    pick = torch.randperm(T, device="cuda")[:SAMPLE_ROWS]
    expert = torch.searchsorted(offs.long(), pick, right=True)
    exact = {"block": torch.empty(len(pick), N, dtype=torch.float64, device="cuda")}
    exact["row"], original = torch.empty_like(exact["block"]), torch.empty_like(exact["block"])
    nb = N // 128
    for g in expert.unique().tolist():
        sel = (expert == g).nonzero().flatten()
        rows_a, rows_w = pick[sel], slice(g * N, (g + 1) * N)
        wb = dequantised(s["w8"][rows_w], s["sb"][g * nb:(g + 1) * nb], "block", 128, torch)
        exact["block"][sel] = dequantised(s["a8"][rows_a], s["sa"][rows_a], "block", 1,
                                          torch) @ wb.T
        wr = dequantised(s["w8r"][rows_w], s["sbr"][rows_w], "row", 1, torch)
        exact["row"][sel] = dequantised(s["a8r"][rows_a], s["sar"][rows_a], "row", 1,
                                        torch) @ wr.T
        original[sel] = s["a"][rows_a].double() @ s["w"][rows_w].double().T
    for key, out in outs.items():
        o = out[pick].double()
        ref = exact["row" if key == "grouped_row" else "block"]
        row[f"{key}_rel_err"] = ((o - ref).norm() / ref.norm()).item()
        row[f"{key}_deepgemm_diff"] = deepgemm_diff(o, original)


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
                     f"{fmt(r.get('ref_fast_rel_err'), '.2e'):>9}  {r.get('ref')}"
                     + (f"; torch._scaled_grouped_mm row-wise {r['grouped_row_tflops']:.0f} "
                        f"TF/s, err {r['grouped_row_rel_err']:.2e}"
                        if "grouped_row_tflops" in r else ""))
    return "\n".join(lines)


def write_files(rows, out, device):
    keys = ["scheme", "shape", "M", "N", "K", "ours_tflops", "ref_tflops", "ratio", "ref",
            "ours_rel_err", "ref_rel_err", "ours_deepgemm_diff", "ref_deepgemm_diff",
            "ref_fast_tflops", "ref_fast_rel_err",
            "grouped_row_tflops", "grouped_row_rel_err", "G",
            "ours_ms", "ref_ms", "bn", "cluster", "grouped_block_error", "error"]
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
    p.add_argument("--schemes", default="tensor;row;block;grouped",
                   help="';'-separated, each a scaling and optional build_gemm_fp8 keywords: "
                        "tensor;block;block:cluster=2;grouped")
    p.add_argument("--shapes", default=None,
                   help=f"comma-separated, of {', '.join(SHAPES)} (grouped: "
                        f"{', '.join(GROUPED_SHAPES)}; default: each scheme's)")
    p.add_argument("--reps", type=int, default=30)
    p.add_argument("--timeout", type=int, default=200, help="seconds per child process")
    p.add_argument("--child", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        import torch
        torch.manual_seed(0)
        scheme = parse_spec(args.child)[0]
        known = GROUPED_SHAPES if scheme == "grouped" else SHAPES
        names = ([n for n in args.shapes.split(",") if n in known] if args.shapes
                 else SCHEME_SHAPES[scheme])
        if args.child == "grouped":
            run_grouped(names, args.reps)
        else:
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
