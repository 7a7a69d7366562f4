#!/usr/bin/env python3
"""TFLOP/s of the Hopper GEMMs (examples/hopper/gemm.py, grouped_gemm.py)
beside PyTorch (cuBLAS torch.matmul; torch._grouped_mm where the installed
PyTorch has it, else a per-expert loop of matmuls), measured in the same
process with CUDA events.

Per shape: fresh random bf16 inputs (normal, never zeros), several input
sets rotated so that the data read per call is not served from L2, a
warm-up, then --reps calls timed one by one with CUDA events (enqueued
behind a sleep kernel, so host launch time does not leak into the
numbers); the figure is the median. Each side is timed twice (ours, theirs,
ours, theirs) and both medians are kept: their difference is the noise.
Every timed output of ours is also checked against a float32 reference
(relative Frobenius error; a NaN fails).

Each variant runs in its own process with a time limit, so a kernel that
hangs costs its limit and not the run. Prints a table and writes
gemm.csv, gemm.json and gemm.png (matplotlib; if it is missing the CSV
says it all) under --out.

With --sweep (or --sweep-only): the model sweep -- Llama-3-8B and -70B
projections at M = 1 .. 16384, odd shapes, fused-epilogue rows -- through
pyptx.ops.matmul beside cuBLAS (+ the PyTorch ops of the epilogue), with
the geometric mean, the worst row and the M <= 16 rows' share of the
copy bandwidth (gemm_sweep.png; rows in gemm.csv). A sweep row's ratio is
the median of per-pair ratios (each side called in turn: the card's clock
drifts between blocks by more than the rows are judged at).

With --fp8 (and in the full run, --sweep): the FP8 rows of
benchmarks/gemm_fp8.py -- per-tensor and row-wise scales beside
torch._scaled_mm, DeepGEMM's block scales, the grouped (MoE) block-scaled
kernel -- each scheme its own child process, in the table, CSV and a
panel of gemm.png, with a summary (each row's ratio, block-scaled 8192^3).

usage: gemm.py [--out DIR] [--variants NAMES] [--reps N] [--timeout S]
               [--skip-grouped] [--quick] [--sweep | --sweep-only] [--rows SUBSTRINGS]
               [--fp8] [--fp8-shapes NAMES]
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

from harness import (fmt, input_sets, row_result, run_child, time_calls, time_pair,  # noqa: E402
                     write_results)

DENSE_SHAPES = [(2048, 2048, 2048), (4096, 4096, 4096), (6144, 6144, 6144),
                (8192, 8192, 8192), (8192, 8192, 1024)]
QUICK_SHAPES = [(2048, 2048, 2048), (4096, 4096, 4096)]

# name -> build_gemm keyword arguments
VARIANTS = {
    "auto": dict(),                                          # build_gemm's defaults
    "c2": dict(cluster=2),                                   # 4 stages, epilogue in 2 chunks
    "c1": dict(cluster=1),
    "c2_nopf": dict(cluster=2, prefetch=False),
    "c1_nopf": dict(cluster=1, prefetch=False),
    "c1_g16": dict(cluster=1, group_m=16),
    "c2_noL2p": dict(cluster=2, l2_promotion="none"),
    "c2_tma3": dict(cluster=2, stages=3),                    # whole-tile epilogue
    "c2_direct": dict(cluster=2, epilogue="direct"),
}
DEFAULT_VARIANTS = ["auto", "c1", "c2"]

# The sweep: projections of real models, (model, layer, N, K) at several M
# (tokens): Llama-3-8B (hidden 4096, 8 KV heads of 128, MLP 14336) and
# Llama-3-70B (hidden 8192, 8 KV heads of 128, MLP 28672); QKV is one fused
# projection, gate-up the fused gate and up projections.
LLAMA_LAYERS = [("Llama-3-8B", "qkv", 6144, 4096), ("Llama-3-8B", "o", 4096, 4096),
                ("Llama-3-8B", "gate_up", 28672, 4096), ("Llama-3-8B", "down", 4096, 14336),
                ("Llama-3-70B", "qkv", 10240, 8192), ("Llama-3-70B", "o", 8192, 8192),
                ("Llama-3-70B", "gate_up", 57344, 8192), ("Llama-3-70B", "down", 8192, 28672)]
SWEEP = ([(m, l, M, N, K) for m, l, N, K in LLAMA_LAYERS[:4]
          for M in (1, 16, 128, 1024, 4096, 16384)]
         + [(m, l, M, N, K) for m, l, N, K in LLAMA_LAYERS[4:] for M in (16, 4096)])
ODD_SHAPES = [("odd", "M=1000", 1000, 4096, 4096), ("odd", "N=1000", 4096, 1000, 4096),
              ("odd", "K=1008", 4096, 4096, 1008), ("odd", "all", 1000, 1000, 1008)]
# fused epilogues: (model, layer, M, N, K, bias, activation, residual, e4m3 out);
# the e4m3 output (with its amax) is what an FP8 recipe feeds the next GEMM
EPILOGUE_ROWS = [("Llama-3-8B", "up+bias+gelu", 4096, 14336, 4096, True, "gelu", False, False),
                 ("Llama-3-8B", "gate_up+silu", 4096, 28672, 4096, False, "silu", False, False),
                 ("Llama-3-8B", "down+residual", 4096, 4096, 14336, False, None, True, False),
                 ("Llama-3-8B", "o+bias+residual", 1024, 4096, 4096, True, None, True, False),
                 ("Llama-3-8B", "up+gelu+e4m3 out", 4096, 14336, 4096, False, "gelu", False,
                  True)]
# an epilogue row also times our kernel under each schedule, built directly
# (name -> build_gemm keywords; without bn: the unfused plan's)
EPILOGUE_SCHEDULES = {"cooperative": dict(schedule="cooperative"),
                      "pingpong": dict(schedule="pingpong", bn=128),
                      # (rows with a residual only)
                      "cooperative+residual_smem": dict(schedule="cooperative",
                                                        residual_from="smem"),
                      "cooperative+residual_ring": dict(schedule="cooperative",
                                                        residual_from="ring")}

UNIFORM_SHAPES = [(8, 2048, 64, 2048)]          # G, M, N, K
UNIFORM_VARIANTS = {"uniform": {}, "uniform_noL2p": dict(l2_promotion="none"),
                    "uniform_s4": dict(stages=4)}
MOE_SHAPES = [(8, 4096, 4096, 7168), (64, 512, 1536, 2048), (128, 512, 768, 2048)]
# G, tokens per expert (mean), N, K


# -- timing (child processes) ----------------------------------------------------------

def _torch():
    import torch
    return torch


def copy_bandwidth(nbytes=1 << 30):
    """TB/s of a device-to-device copy of nbytes (read + write counted)."""
    torch = _torch()
    src = torch.randn(nbytes // 4, device="cuda")
    dst = torch.empty_like(src)
    ms = time_calls([lambda: dst.copy_(src)], 20)
    del src, dst
    return 2 * nbytes / (ms * 1e-3) / 1e12


def rel_err(out, ref):
    out = out.float()
    if torch_isnan(out):
        return float("nan")
    return ((out - ref).norm() / ref.norm()).item()


def torch_isnan(x):
    return bool(_torch().isnan(x).any().item())


def run_dense(variant, shapes, reps):
    torch = _torch()
    from examples.hopper import gemm
    kwargs = VARIANTS[variant]
    rows = []
    for M, N, K in shapes:
        row = dict(kind="dense", variant=variant, shape=f"{M}x{N}x{K}", M=M, N=N, K=K,
                   flops=2 * M * N * K)
        with row_result(row, rows):
            t0 = time.time()
            k = gemm.build_gemm(M, N, K, **kwargs)
            k.module()
            row["build_s"] = round(time.time() - t0, 2)
            n = input_sets((M * K + N * K) * 2)
            a = [torch.randn(M, K, device="cuda").to(torch.bfloat16) for _ in range(n)]
            b = [torch.randn(N, K, device="cuda").to(torch.bfloat16) for _ in range(n)]
            c = k(a[0], b[0])
            torch.cuda.synchronize()
            row["rel_err"] = rel_err(c, a[0].float() @ b[0].float().T)
            del c
            ours = [lambda i=i: k(a[i], b[i]) for i in range(n)]
            theirs = [lambda i=i: torch.matmul(a[i], b[i].T) for i in range(n)]
            t = [time_calls(ours, reps), time_calls(theirs, reps),
                 time_calls(ours, reps), time_calls(theirs, reps)]
            row.update(ours_ms=[t[0], t[2]], ref_ms=[t[1], t[3]])
            row["ours_tflops"] = row["flops"] / statistics.mean(row["ours_ms"]) / 1e9
            row["ref_tflops"] = row["flops"] / statistics.mean(row["ref_ms"]) / 1e9
            row["ratio"] = row["ours_tflops"] / row["ref_tflops"]
            del a, b
    return rows


def run_sweep(reps, rows=None):
    """The model sweep, odd shapes and fused-epilogue rows, each through
    pyptx.ops.matmul (the planned kernel; split-K included) beside cuBLAS
    (torch.matmul / F.linear, then the PyTorch ops of the epilogue). An
    epilogue row also times our kernel with the plain store (its epilogue's
    share of the time: epi_share), the kernel under each of
    EPILOGUE_SCHEDULES (schedule_ratio: against cuBLAS + the ops), and
    cuBLAS's GEMM alone: ceiling = (cuBLAS + the ops) / cuBLAS alone, the
    ratio a kernel whose main loop equals cuBLAS and whose epilogue is free
    would reach. Every row's ratio (and an epilogue row's ceiling and
    schedule ratios) is the median of per-pair ratios (harness.time_pair:
    each side called in turn); its TFLOP/s and ratio_blocks are those of
    blocks of calls (ours, theirs, ours, theirs). The e4m3-out row's PyTorch side is the amax
    (vector_norm, inf) and the scaled, clamped cast of the bf16 result; it
    has no schedule timings. rows: substrings; only the rows whose "model
    layer MxNxK" holds one of them (None: all)."""
    torch = _torch()
    import importlib

    import torch.nn.functional as F

    import pyptx.ops as ops
    from pyptx.pipeline import hopper_gemm
    mm = importlib.import_module("pyptx.ops.matmul")
    copy_tbps = copy_bandwidth()
    cases = [c + (False, None, False, False) for c in SWEEP + ODD_SHAPES] + EPILOGUE_ROWS
    if rows:
        cases = [c for c in cases if any(r in f"{c[0]} {c[1]} {c[2]}x{c[3]}x{c[4]}"
                                         for r in rows)]
    for model, layer, M, N, K, bias, act, res, fp8 in cases:
        epi = bias or act or res or fp8
        row = dict(kind="epilogue" if epi else ("odd" if model == "odd" else "sweep"),
                   variant=f"{model} {layer}", shape=f"{M}x{N}x{K}", M=M, N=N, K=K,
                   flops=2 * M * N * K, copy_tbps=copy_tbps)
        with row_result(row):
            row.update(mm.call_plan(M, N, K, "K", act, "e4m3" if fp8 else "bf16"))
            n = input_sets((M * K + N * K + M * N) * 2)
            a = [torch.randn(M, K, device="cuda").to(torch.bfloat16) for _ in range(n)]
            w = [(torch.randn(N, K, device="cuda") / K ** 0.5).to(torch.bfloat16)
                 for _ in range(n)]
            vb = torch.randn(N, device="cuda").to(torch.bfloat16) if bias else None
            r = [torch.randn(M, N, device="cuda").to(torch.bfloat16) if res else None
                 for _ in range(n)]

            ref = a[0].float() @ w[0].float().T + (vb.float() if bias else 0)
            ref = mm.act_value(torch, ref, act) + (r[0].float() if res else 0)
            # e4m3 out: a scale from this output's amax, as delayed scaling has
            scale = (ref.abs().max() / 448).reshape(1) if fp8 else None

            def ours(i):
                return ops.matmul(a[i], w[i].T, bias=vb, activation=act, residual=r[i],
                                  out_dtype=torch.float8_e4m3fn if fp8 else None,
                                  out_scale=scale)

            def theirs(i):
                z = F.linear(a[i], w[i], vb)
                if act == "gelu":
                    z = F.gelu(z, approximate="tanh")
                elif act == "silu":
                    z = F.silu(z)
                z = z + r[i] if res else z
                if fp8:
                    return (torch.linalg.vector_norm(z, float("inf")),
                            (z / scale).clamp(-448, 448).to(torch.float8_e4m3fn))
                return z
            c = ours(0)
            torch.cuda.synchronize()
            row["rel_err"] = rel_err(c[0].float() * scale if fp8 else c, ref)
            del c, ref
            t = [time_calls([lambda i=i: ours(i) for i in range(n)], reps),
                 time_calls([lambda i=i: theirs(i) for i in range(n)], reps),
                 time_calls([lambda i=i: ours(i) for i in range(n)], reps),
                 time_calls([lambda i=i: theirs(i) for i in range(n)], reps)]
            _finish(row, t, "cuBLAS + torch ops" if epi else "cuBLAS")
            # rows are judged at a few percent, less than the card's clock
            # drifts between two timing blocks (the same kernel measured
            # 0.92x and 1.10x in two runs): the ratio is the median of
            # per-pair ratios, each side called in turn
            their_calls = [lambda i=i: theirs(i) for i in range(n)]
            row["ratio_blocks"] = row["ratio"]
            *_, row["ratio"] = time_pair([lambda i=i: ours(i) for i in range(n)],
                                         their_calls, 4 * reps)
            if epi:
                plain = time_calls([lambda i=i: ops.matmul(a[i], w[i].T) for i in range(n)],
                                   reps)
                row["plain_ms"] = plain
                row["epi_share"] = 1 - plain / statistics.mean(row["ours_ms"])
                gemm_alone, _, row["ceiling"] = time_pair(
                    [lambda i=i: torch.matmul(a[i], w[i].T) for i in range(n)],
                    their_calls, 4 * reps)
                row["cublas_gemm_ms"] = gemm_alone
                if not fp8:
                    _time_schedules(row, hopper_gemm, M, N, K, bias, act, res, a, w, vb, r,
                                    n, reps, their_calls)
            moved = (M * K + N * K + M * N) * 2
            row["ours_tbps"] = moved / (statistics.mean(row["ours_ms"]) * 1e-3) / 1e12
            del a, w, r


def _time_schedules(row, hopper_gemm, M, N, K, bias, act, res, a, w, vb, r, n, reps,
                    their_calls):
    """Our fused kernel under each of EPILOGUE_SCHEDULES (called directly,
    on the inputs of the row): schedule_ms, schedule_ratio (against the
    row's cuBLAS + torch ops, timed in pairs) and, per schedule, its
    relative error."""
    torch = _torch()
    row["schedule_ms"], row["schedule_ratio"], row["schedule_err"] = {}, {}, {}
    for name, kw in EPILOGUE_SCHEDULES.items():
        if "residual_from" in kw and not res:
            continue
        try:
            kw = dict(bn=hopper_gemm.plan_gemm(M, N, K)["bn"], **kw) if "bn" not in kw else kw
            k = hopper_gemm.build_gemm(M, N, K, bias=bias, activation=act, residual=res,
                                       **kw)

            def call(i, k=k):
                return k(a[i], w[i], *([vb] if bias else []), *([r[i]] if res else []))
            c = call(0)
            torch.cuda.synchronize()
            z = torch.matmul(a[0].float(), w[0].float().T) + (vb.float() if bias else 0)
            if act == "gelu":
                z = torch.nn.functional.gelu(z, approximate="tanh")
            elif act == "silu":
                z = torch.nn.functional.silu(z)
            row["schedule_err"][name] = rel_err(c, z + (r[0].float() if res else 0))
            ms, _, ratio = time_pair([lambda i=i: call(i) for i in range(n)], their_calls,
                                     4 * reps)
            row["schedule_ms"][name] = ms
            row["schedule_ratio"][name] = ratio
        except Exception as e:  # noqa: BLE001
            row["schedule_ratio"][name] = f"{type(e).__name__}: {e}"[:200]


def run_variance(reps, trials=8, size=2048):
    """2048^3 across fresh allocations: each trial draws new inputs (new
    addresses) and times ours (default, cluster 1 and 2) and cuBLAS; a
    spread that follows the trial (not the variant) points at placement
    (addresses, L2 slices) rather than at the kernel."""
    torch = _torch()
    from examples.hopper import gemm
    M = N = K = size
    kernels = {"auto": gemm.build_gemm(M, N, K), "c2": gemm.build_gemm(M, N, K, cluster=2),
               "c1_66": gemm.build_gemm(M, N, K, cluster=1, num_sms=66)}
    for trial in range(trials):
        keep = [torch.empty(int(torch.randint(1, 64, (1,))) << 20, dtype=torch.uint8,
                            device="cuda")]                       # shifts the next addresses
        a = torch.randn(M, K, device="cuda").to(torch.bfloat16)
        b = torch.randn(N, K, device="cuda").to(torch.bfloat16)
        row = dict(kind="variance", variant=f"trial {trial}", shape=f"{M}x{N}x{K}",
                   a_addr=hex(a.data_ptr()), b_addr=hex(b.data_ptr()), flops=2 * M * N * K)
        for name, k in kernels.items():
            row[f"{name}_tflops"] = row["flops"] / time_calls([lambda k=k: k(a, b)], reps) / 1e9
        row["cublas_tflops"] = row["flops"] / time_calls([lambda: a @ b.T], reps) / 1e9
        print("RESULT " + json.dumps(row), flush=True)
        del keep, a, b


def sweep_summary(rows):
    """Geometric mean and worst of ours / cuBLAS over the sweep and odd rows,
    the worst epilogue row, and each M <= 16 row's share of the copy
    bandwidth."""
    import math
    plain = [r for r in rows if r["kind"] in ("sweep", "odd") and "ratio" in r]
    epi = [r for r in rows if r["kind"] == "epilogue" and "ratio" in r]
    lines = []
    if plain:
        geo = math.exp(sum(math.log(r["ratio"]) for r in plain) / len(plain))
        worst = min(plain, key=lambda r: r["ratio"])
        lines.append(f"sweep + odd: {len(plain)} rows, geometric mean {geo:.3f}x cuBLAS, "
                     f"worst {worst['ratio']:.3f}x ({worst['variant']} {worst['shape']})")
    if epi:
        worst = min(epi, key=lambda r: r["ratio"])
        lines.append(f"epilogue: {len(epi)} rows, worst {worst['ratio']:.3f}x cuBLAS + torch "
                     f"ops ({worst['variant']})")
        for r in epi:
            lines.append(f"  {r['variant']:32} {r['ratio']:.3f}x (ceiling "
                         f"{r.get('ceiling', float('nan')):.3f}x: cuBLAS + ops / cuBLAS alone); "
                         f"the epilogue's share of our time "
                         f"{100 * r.get('epi_share', float('nan')):.1f}% (plain store "
                         f"{r.get('plain_ms', float('nan')):.4f} ms)")
            sched = r.get("schedule_ratio", {})
            if sched:
                lines.append("      schedules: " + ", ".join(
                    f"{k} {v:.3f}x (err {r['schedule_err'].get(k, float('nan')):.1e})"
                    if isinstance(v, float) else f"{k} {v}" for k, v in sched.items()))
    for r in plain:
        if r["M"] <= 16:
            lines.append(f"  M={r['M']:<3} {r['variant']:24} {r['ours_tbps']:.2f} TB/s = "
                         f"{100 * r['ours_tbps'] / r['copy_tbps']:.0f}% of the copy "
                         f"({r['copy_tbps']:.2f} TB/s)")
    return "\n".join(lines)


def write_sweep_png(rows, out, device):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    rs = [r for r in rows if r["kind"] in ("sweep", "odd", "epilogue") and "ratio" in r]
    if not rs:
        return
    fig, ax = plt.subplots(figsize=(max(10, 0.35 * len(rs)), 5.5))
    colors = {"sweep": "tab:blue", "odd": "tab:orange", "epilogue": "tab:green"}
    ax.bar(range(len(rs)), [r["ratio"] for r in rs], color=[colors[r["kind"]] for r in rs])
    ax.axhline(1.0, color="k", lw=0.8)
    ax.axhline(0.9, color="r", lw=0.6, ls="--")
    ax.set_xticks(range(len(rs)))
    ax.set_xticklabels([f"{r['variant']} {r['shape']}" for r in rs], rotation=75,
                       ha="right", fontsize=6)
    ax.set_ylabel("pyptx.ops.matmul / cuBLAS (epilogue: / cuBLAS + torch ops)")
    ax.set_title(f"bf16 GEMM sweep (blue: models, orange: odd, green: fused epilogue)\n"
                 f"{device}", fontsize=9)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "gemm_sweep.png"), dpi=120)


def _grouped_mm():
    torch = _torch()
    return getattr(torch, "_grouped_mm", None)


def run_grouped(reps, quick=False, uniform_variants=False):
    torch = _torch()
    from examples.hopper import grouped_gemm as gg
    gmm = _grouped_mm()
    for (G, M, N, K), variant in [(s, v) for s in UNIFORM_SHAPES for v in
                                  (UNIFORM_VARIANTS if uniform_variants else ["uniform"])]:
        row = dict(kind="grouped_uniform", variant=variant, shape=f"G{G} M{M} N{N} K{K}",
                   G=G, M=M, N=N, K=K, flops=2 * G * M * N * K)
        with row_result(row):
            k = gg.build_grouped_gemm_uniform(G, M, N, K, **UNIFORM_VARIANTS[variant])
            n = input_sets(G * (M * K + K * N) * 2)
            a = [torch.randn(G * M, K, device="cuda").to(torch.bfloat16) for _ in range(n)]
            b = [torch.randn(G * K, N, device="cuda").to(torch.bfloat16) for _ in range(n)]
            c = k(a[0], b[0])
            torch.cuda.synchronize()
            ref = torch.bmm(a[0].float().view(G, M, K), b[0].float().view(G, K, N))
            row["rel_err"] = rel_err(c.view(G, M, N), ref)
            ours = [lambda i=i: k(a[i], b[i]) for i in range(n)]
            ref_name, theirs = "torch.bmm", [
                lambda i=i: torch.bmm(a[i].view(G, M, K), b[i].view(G, K, N)) for i in range(n)]
            if gmm is not None:
                # torch's preferred B layout may be column-major: try both
                b_cm = [x.view(G, K, N).transpose(-2, -1).contiguous().transpose(-2, -1)
                        for x in b]
                for label, bs in (("", [x.view(G, K, N) for x in b]), (" (B col-major)", b_cm)):
                    try:
                        gmm(a[0].view(G, M, K), bs[0])
                        ref_name = "torch._grouped_mm" + label
                        theirs = [lambda i=i, bs=bs: gmm(a[i].view(G, M, K), bs[i])
                                  for i in range(n)]
                        break
                    except Exception as e:  # noqa: BLE001
                        row["grouped_mm_error"] = str(e)[:200]
            t = [time_calls(ours, reps), time_calls(theirs, reps),
                 time_calls(ours, reps), time_calls(theirs, reps)]
            _finish(row, t, ref_name)
            row["loop_tflops"] = row["flops"] / time_calls(
                [lambda i=i: [a[i][g * M:(g + 1) * M] @ b[i][g * K:(g + 1) * K]
                              for g in range(G)] for i in range(n)], reps) / 1e9
            # The memory bound: at N=64 each byte of A feeds 64 flops, so the
            # time cannot go below (bytes of A, B and C) / copy bandwidth.
            moved = (G * M * K + G * K * N + G * M * N * c.element_size() // 2) * 2
            row["copy_tbps"] = copy_bandwidth()
            row["bound_tflops"] = row["flops"] / (moved / row["copy_tbps"] / 1e12) / 1e12
            row["ours_tbps"] = moved / (statistics.mean(row["ours_ms"]) * 1e-3) / 1e12
            # With one input set (no rotation) part of A may stay in L2 between
            # calls: the way a benchmark without rotation sees it.
            row["ours_l2warm_tflops"] = row["flops"] / time_calls(
                [lambda: k(a[0], b[0])], reps) / 1e9

    shapes = MOE_SHAPES[1:] if quick else MOE_SHAPES
    gen = torch.Generator().manual_seed(0)
    for G, M, N, K in shapes:
        for split in ("equal", "random"):
            T = G * M
            if split == "equal":
                counts = [M] * G
            else:   # a multinomial routing: uneven, not multiples of the tile
                picks = torch.randint(0, G, (T,), generator=gen)
                counts = torch.bincount(picks, minlength=G).tolist()
            offs_list = [sum(counts[:g + 1]) for g in range(G)]
            row = dict(kind="grouped_moe", variant=split, shape=f"G{G} M{M} N{N} K{K}",
                       G=G, M=M, N=N, K=K, flops=2 * T * N * K)
            with row_result(row):
                k = gg.build_grouped_gemm(T, N, K, G)
                n = input_sets((T * K + G * N * K) * 2, max_sets=4)
                offs = torch.tensor(offs_list, dtype=torch.int32, device="cuda")
                a = [torch.randn(T, K, device="cuda").to(torch.bfloat16) for _ in range(n)]
                b = [torch.randn(G, N, K, device="cuda").to(torch.bfloat16) for _ in range(n)]
                c = k(a[0], b[0].view(G * N, K), offs)
                torch.cuda.synchronize()
                row["rel_err"] = _moe_err(c, a[0], b[0], offs_list)
                ours = [lambda i=i: k(a[i], b[i].view(G * N, K), offs) for i in range(n)]
                ref_name, theirs = "per-expert loop", [
                    lambda i=i: _moe_loop(a[i], b[i], offs_list) for i in range(n)]
                if gmm is not None:
                    # B (G, N, K) seen as (G, K, N) column-major, else a row-major copy
                    for label, bs in (("", [x.transpose(-2, -1) for x in b]),
                                      (" (B row-major)",
                                       [x.transpose(-2, -1).contiguous() for x in b])):
                        try:
                            gmm(a[0], bs[0], offs=offs)
                            ref_name = "torch._grouped_mm" + label
                            theirs = [lambda i=i, bs=bs: gmm(a[i], bs[i], offs=offs)
                                      for i in range(n)]
                            break
                        except Exception as e:  # noqa: BLE001
                            row["grouped_mm_error"] = str(e)[:200]
                t = [time_calls(ours, reps), time_calls(theirs, reps),
                     time_calls(ours, reps), time_calls(theirs, reps)]
                _finish(row, t, ref_name)
                row["loop_tflops"] = row["flops"] / time_calls(
                    [lambda i=i: _moe_loop(a[i], b[i], offs_list) for i in range(n)],
                    max(5, reps // 4)) / 1e9
                del a, b


def _moe_loop(a, b, offs_list):
    start, outs = 0, []
    for g, end in enumerate(offs_list):
        outs.append(a[start:end] @ b[g].T)
        start = end
    return outs


def _moe_err(c, a, b, offs_list):
    torch = _torch()
    ref = torch.cat([o.float() for o in _moe_loop(a.float(), b.float(), offs_list)])
    return rel_err(c[:offs_list[-1]], ref)


def _finish(row, t, ref_name):
    row.update(ours_ms=[t[0], t[2]], ref_ms=[t[1], t[3]], ref=ref_name)
    row["ours_tflops"] = row["flops"] / statistics.mean(row["ours_ms"]) / 1e9
    row["ref_tflops"] = row["flops"] / statistics.mean(row["ref_ms"]) / 1e9
    row["ratio"] = row["ours_tflops"] / row["ref_tflops"]


# -- FP8 rows (benchmarks/gemm_fp8.py's schemes, each a child process) ----------------------

FP8_SCHEMES = ("tensor", "row", "block", "grouped")


def fp8_rows(args):
    """gemm_fp8.py's rows for each of FP8_SCHEMES (run as `gemm_fp8.py
    --child SCHEME`), as rows of this table (kind "fp8")."""
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gemm_fp8.py")
    rows = []
    for scheme in FP8_SCHEMES:
        cmd = [sys.executable, script, "--child", scheme, "--reps", str(args.reps)] + (
            ["--shapes", args.fp8_shapes] if args.fp8_shapes else [])
        got, status, err, seconds = run_child(cmd, max(args.timeout, 200))
        print(f"[fp8 {scheme}] exit {status} in {seconds:.0f} s, {len(got)} results", flush=True)
        if status != 0:
            print("\n".join(err.strip().splitlines()[-15:]), flush=True)
        for r in got:
            rows.append(dict(r, kind="fp8", variant=scheme, model_shape=r["shape"],
                             shape=f"{r['shape']} {r['M']}x{r['N']}x{r['K']}",
                             rel_err=r.get("ours_rel_err"), ref_tflops=r.get("ref_tflops"),
                             ratio=r.get("ratio")))
    return rows


def fp8_summary(rows):
    """Each FP8 row's TFLOP/s and ratio to its PyTorch reference, and the
    block-scaled 8192^3 figure (the goal: 1,200 TFLOP/s)."""
    fp8 = [r for r in rows if r["kind"] == "fp8"]
    if not fp8:
        return ""
    lines = ["FP8 (e4m3, bf16 out):"]
    for r in fp8:
        if "error" in r:
            lines.append(f"  {r['variant']:8} {r['shape']:34} ERROR {r['error'][:120]}")
            continue
        lines.append(f"  {r['variant']:8} {r['shape']:34} {r['ours_tflops']:7.1f} TF/s, "
                     f"{fmt(r.get('ratio'), '.3f')}x {r.get('ref')}, rel err "
                     f"{fmt(r.get('ours_rel_err'), '.1e')}"
                     + (f"; torch._scaled_grouped_mm row-wise {r['grouped_row_tflops']:.1f} "
                        f"TF/s" if "grouped_row_tflops" in r else ""))
    plain = [r for r in fp8 if r["variant"] in ("tensor", "row") and "ratio" in r]
    if plain:
        ok = sum(r["ratio"] >= 1.0 for r in plain)
        lines.append(f"per-tensor and row-wise: {ok} of {len(plain)} rows >= 1.0x "
                     f"torch._scaled_mm (worst {min(r['ratio'] for r in plain):.3f}x)")
    block = [r for r in fp8 if r["variant"] == "block" and r["model_shape"] == "8192^3"
             and "ours_tflops" in r]
    for r in block:
        lines.append(f"block-scaled 8192^3: {r['ours_tflops']:.0f} TFLOP/s (goal 1,200)")
    return "\n".join(lines)


def fp8_panel(ax, rows):
    """Bars of the FP8 rows: ours and the PyTorch reference, TFLOP/s."""
    fp8 = [r for r in rows if r["kind"] == "fp8" and "error" not in r]
    x = range(len(fp8))
    ax.bar([i - 0.2 for i in x], [r["ours_tflops"] for r in fp8], 0.4, label="pyptx")
    ax.bar([i + 0.2 for i in x], [r.get("ref_tflops") or 0 for r in fp8], 0.4,
           label="PyTorch (torch._scaled_mm etc., same scales)")
    ax.axhline(1979, color="gray", ls=":", label="H100 SXM dense FP8 peak")
    ax.set_xticks(list(x))
    ax.set_xticklabels([f"{r['variant']}\n{r['model_shape']}" for r in fp8], fontsize=6,
                       rotation=30, ha="right")
    ax.set_ylabel("TFLOP/s")
    ax.set_title("FP8 e4m3 GEMM")
    ax.legend(fontsize=7)


# -- the parent: children, table, files ----------------------------------------------------

def child(args):
    torch = _torch()
    torch.manual_seed(0)
    if args.child == "grouped":
        run_grouped(args.reps, args.quick, args.uniform_variants)
    elif args.child == "sweep":
        run_sweep(args.reps, args.rows.split(",") if args.rows else None)
    elif args.child == "variance":
        run_variance(args.reps)
    else:
        run_dense(args.child, QUICK_SHAPES if args.quick else DENSE_SHAPES, args.reps)


def spawn(name, args):
    cmd = [sys.executable, os.path.abspath(__file__), "--child", name, "--reps",
           str(args.reps)] + (["--quick"] if args.quick else []) + (
               ["--rows", args.rows] if args.rows else []) + (
               ["--uniform-variants"] if args.uniform_variants else [])
    rows, status, err, seconds = run_child(cmd, args.timeout)
    print(f"[{name}] exit {status} in {seconds:.0f} s, {len(rows)} results", flush=True)
    if status != 0:
        print("\n".join(err.strip().splitlines()[-15:]), flush=True)
    return rows, status == "timeout"


def table(rows):
    lines = [f"{'kind':16} {'variant':10} {'shape':26} {'ours TF/s':>10} {'ref TF/s':>9} "
             f"{'ratio':>6} {'ours ms (2 runs)':>19} {'rel err':>8}  ref"]
    for r in rows:
        if "error" in r:
            lines.append(f"{r['kind']:16} {r['variant']:10} {r['shape']:26} ERROR {r['error']}")
            continue
        ms = "/".join(f"{t:.4f}" for t in r["ours_ms"])
        lines.append(f"{r['kind']:16} {r['variant']:10} {r['shape']:26} "
                     f"{fmt(r['ours_tflops']):>10} {fmt(r['ref_tflops']):>9} "
                     f"{fmt(r['ratio'], '.3f'):>6} {ms:>19} {fmt(r.get('rel_err'), '.1e'):>8}"
                     f"  {r.get('ref', 'cuBLAS')}"
                     + (f" (loop {r['loop_tflops']:.1f})" if "loop_tflops" in r else "")
                     + (f"; memory bound {r['bound_tflops']:.1f} at the measured copy "
                        f"{r['copy_tbps']:.2f} TB/s, ours moves {r['ours_tbps']:.2f} TB/s; "
                        f"L2-warm (one input set) {r['ours_l2warm_tflops']:.1f}"
                        if "bound_tflops" in r else ""))
    return "\n".join(lines)


def write_files(rows, out, device):
    keys = ["kind", "variant", "shape", "ours_tflops", "ref_tflops", "ratio", "ref",
            "loop_tflops", "bound_tflops", "copy_tbps", "ours_tbps", "ours_l2warm_tflops",
            "rel_err", "ours_ms", "ref_ms", "plain_ms", "epi_share", "ceiling", "bn", "split_k",
            "error"]
    plt = write_results(out, "gemm", device, rows, keys)
    if plt is None:
        return
    dense = [r for r in rows if r["kind"] == "dense" and "error" not in r]
    other = [r for r in rows if r["kind"].startswith("grouped") and "error" not in r]
    panels = 3 if any(r["kind"] == "fp8" for r in rows) else 2
    fig, axes = plt.subplots(1, panels, figsize=(7.5 * panels, 5.5))
    if panels == 3:
        fp8_panel(axes[2], rows)
    ax = axes[0]

    def series(rs, square):
        rs = sorted((r for r in rs if (r["M"] == r["N"] == r["K"]) == square),
                    key=lambda r: r["flops"])
        return [r["flops"] / 1e9 for r in rs], rs

    variants = sorted({r["variant"] for r in dense})
    for i, variant in enumerate(variants):
        mine = [r for r in dense if r["variant"] == variant]
        x, rs = series(mine, True)
        line, = ax.plot(x, [r["ours_tflops"] for r in rs], "o-", label=f"pyptx {variant}")
        x, rs = series(mine, False)
        ax.plot(x, [r["ours_tflops"] for r in rs], "^", color=line.get_color())
    if dense:
        first = [r for r in dense if r["variant"] == variants[0]]
        x, rs = series(first, True)
        ax.plot(x, [r["ref_tflops"] for r in rs], "s--", color="k",
                label="cuBLAS (torch.matmul)")
        for r in rs:
            ax.annotate(f"{r['M']}^3", (r["flops"] / 1e9, r["ref_tflops"]), fontsize=7)
        x, rs = series(first, False)
        ax.plot(x, [r["ref_tflops"] for r in rs], "^", color="k",
                label="non-square (triangles): " + ", ".join(r["shape"] for r in rs))
    ax.set_xscale("log")
    ax.set_xlabel("GFLOP per call (2MNK)")
    ax.set_ylabel("TFLOP/s")
    ax.set_title(f"bf16 GEMM, f32 accumulate\n{device}", fontsize=9)
    ax.legend()
    ax = axes[1]
    labels = [f"{r['shape']}\n{r['variant']}" for r in other]
    x = range(len(other))
    ax.bar([i - 0.2 for i in x], [r["ours_tflops"] for r in other], 0.4, label="pyptx")
    ax.bar([i + 0.2 for i in x], [r["ref_tflops"] for r in other], 0.4,
           label="torch._grouped_mm / bmm")
    ax.set_xticks(list(x))
    ax.set_xticklabels(labels, fontsize=6, rotation=30, ha="right")
    ax.set_ylabel("TFLOP/s")
    ax.set_title("grouped GEMM")
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(out, "gemm.png"), dpi=120)
    print(f"wrote {os.path.join(out, 'gemm.png')}")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", default="benchmark_out")
    p.add_argument("--variants", default=",".join(DEFAULT_VARIANTS),
                   help=f"comma-separated, of {', '.join(VARIANTS)} (or 'all')")
    p.add_argument("--reps", type=int, default=40)
    p.add_argument("--timeout", type=int, default=120, help="seconds per child process")
    p.add_argument("--skip-grouped", action="store_true")
    p.add_argument("--quick", action="store_true", help="fewer shapes")
    p.add_argument("--uniform-variants", action="store_true",
                   help="also time the uniform grouped kernel's variants")
    p.add_argument("--sweep", action="store_true",
                   help="also run the model sweep (gemm_sweep.csv / .png)")
    p.add_argument("--sweep-only", action="store_true", help="only the model sweep")
    p.add_argument("--rows", help="comma-separated substrings: only the sweep rows whose "
                   "'model layer MxNxK' holds one (e.g. 'N=1000,+' for the N=1000 row and "
                   "the fused-epilogue rows)")
    p.add_argument("--variance", action="store_true",
                   help="also 2048^3 across fresh allocations (prints per-trial TFLOP/s)")
    p.add_argument("--fp8", action="store_true",
                   help="also the FP8 rows (gemm_fp8.py's schemes); --sweep includes them")
    p.add_argument("--fp8-shapes", help="comma-separated gemm_fp8.py shape names (default: "
                   "each scheme's), e.g. '8192^3,MoE G8'")
    p.add_argument("--child", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        return child(args)
    torch = _torch()
    prop = torch.cuda.get_device_properties(0)
    device = (f"{prop.name}, {prop.multi_processor_count} SMs, torch {torch.__version__}, "
              f"{time.strftime('%Y-%m-%d')}")
    print(device, flush=True)
    names = list(VARIANTS) if args.variants == "all" else args.variants.split(",")
    names += [] if args.skip_grouped else ["grouped"]
    if args.sweep_only:
        names = ["sweep"]
    elif args.sweep:
        names.append("sweep")
    if args.variance:
        names.append("variance")
    rows, hangs = [], 0
    for name in names:
        if hangs >= 2:
            print(f"[{name}] skipped: two children hung already", flush=True)
            continue
        got, hung = spawn(name, args)
        rows += got
        hangs += hung
    if args.fp8 or args.sweep:
        rows += fp8_rows(args)
    variance = [r for r in rows if r["kind"] == "variance"]
    rows = [r for r in rows if r["kind"] != "variance"]
    print(table(rows))
    write_files(rows, args.out, device)
    for r in variance:
        print(f"variance {r['variant']}: " + ", ".join(
            f"{k[:-7]} {v:.0f}" for k, v in r.items() if k.endswith("_tflops"))
            + f" TFLOP/s (A at {r['a_addr']})")
    if "sweep" in names:
        print(sweep_summary(rows))
        write_sweep_png(rows, args.out, device)
    print(fp8_summary(rows))


if __name__ == "__main__":
    main()
