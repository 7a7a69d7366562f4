#!/usr/bin/env python3
"""TFLOP/s of one training step's attention -- forward and backward together
-- through ``pyptx.ops.flash_attention`` (the op a model calls: its forward
kernel, then its backward kernels through autograd) beside
``scaled_dot_product_attention`` with its flash and cuDNN backends, in the
same process with CUDA events. FLOPs = forward 4*B*H*S^2*D + backward
10*B*H*S^2*D, halved for causal.

Per configuration: random bf16 Q, K, V, dO (normal, never zeros; two sets,
rotated, each far past L2; layout (batch, heads, seq, D)), a warm-up, then
--reps calls timed one by one (harness.time_calls); each side is timed
twice in turn and the mean of the two medians is reported. Before timing,
our O and dQ, dK, dV are compared with sdpa flash's. Rows: D in --dims, S in
--seqs, causal and not, --heads heads, B = --tokens / S; and with --gqa a
grouped-query row (32 Q heads / 8 K/V heads, S=4096, D=128; sdpa with
enable_gqa). Prints a table and writes attention_train.{csv,json,png}
under --out.

usage: attention_train.py [--out DIR] [--tokens N] [--heads H] [--seqs 4096,8192,16384]
                          [--dims 64,128] [--causal both|yes|no] [--reps N] [--no-gqa]
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [os.path.join(ROOT, "python"), ROOT, os.path.dirname(os.path.abspath(__file__))]

from harness import (  # noqa: E402
    add_attention_shape_args, bar_chart, fmt, row_result, time_calls, write_results)

SIDES = ("ours", "flash", "cudnn")


def step(side, q, k, v, do, causal):
    """A call running one forward and its backward on `side`."""
    import torch
    from torch.nn.attention import SDPBackend, sdpa_kernel
    from pyptx.ops import flash_attention
    q, k, v = (x.detach().requires_grad_() for x in (q, k, v))
    gqa = dict(enable_gqa=True) if k.shape[1] != q.shape[1] else {}
    backend = {"flash": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION}

    def call():
        if side == "ours":
            o = flash_attention(q, k, v, causal=causal, layout="bhsd")
        else:
            with sdpa_kernel(backend[side]):
                o = torch.nn.functional.scaled_dot_product_attention(
                    q, k, v, is_causal=causal, **gqa)
        return (o,) + torch.autograd.grad(o, (q, k, v), do)
    return call


def rel(a, b):
    a, b = a.double(), b.double()
    if bool(a.isnan().any()):
        return float("nan")
    return ((a - b).norm() / b.norm()).item()


def cases(args):
    causals = {"both": (False, True), "yes": (True,), "no": (False,)}[args.causal]
    for D in (int(d) for d in args.dims.split(",")):
        for S in (int(s) for s in args.seqs.split(",")):
            for causal in causals:
                yield max(1, args.tokens // S), args.heads, args.heads, S, D, causal
    if args.gqa:
        for causal in causals:
            yield max(1, args.tokens // 4096), 32, 8, 4096, 128, causal


def run(args):
    import torch
    torch.manual_seed(0)
    rows = []
    for B, H, Hkv, S, D, causal in cases(args):
        flops = 14 * B * H * S * S * D // (2 if causal else 1)
        row = dict(B=B, H=H, Hkv=Hkv, S=S, D=D, causal=causal, flops=flops,
                   config=f"B{B} H{H}/{Hkv} S{S} D{D}{' causal' if causal else ''}")
        with row_result(row, rows):
            sets = [tuple(torch.randn(B, h, S, D, device="cuda").to(torch.bfloat16)
                          for h in (H, Hkv, Hkv, H)) for _ in range(2)]
            calls = {}
            for side in SIDES:
                try:
                    calls[side] = [step(side, *s, causal) for s in sets]
                    result = calls[side][0]()
                    torch.cuda.synchronize()
                    if side == "ours":
                        ours = result
                    elif side == "flash":
                        for name, a, b in zip(("o", "dq", "dk", "dv"), ours, result):
                            row[f"rel_err_{name}_vs_flash"] = rel(a, b)
                except Exception as e:  # noqa: BLE001 -- not offered on this card/build
                    calls.pop(side, None)
                    row[f"{side}_error"] = f"{type(e).__name__}: {e}"[:300]
            times = {side: [] for side in calls}
            for _ in range(2):
                for side, cs in calls.items():
                    times[side].append(time_calls(cs, args.reps, warmup_calls=3))
            for side, ms in times.items():
                row[f"{side}_ms"] = ms
                row[f"{side}_tflops"] = flops / statistics.mean(ms) / 1e9
            for side in ("flash", "cudnn"):
                if f"{side}_tflops" in row and "ours_tflops" in row:
                    row[f"ratio_{side}"] = row["ours_tflops"] / row[f"{side}_tflops"]
            del sets, calls
    return rows


def table(rows):
    lines = [f"{'config':30} {'ours':>7} {'flash':>7} {'cuDNN':>7} {'/flash':>7} {'/cuDNN':>7} "
             + " ".join(f"{n + ' err':>8}" for n in ("o", "dq", "dk", "dv"))]
    for r in rows:
        if "error" in r:
            lines.append(f"{r['config']:30} ERROR {r['error']}")
            continue
        lines.append(f"{r['config']:30} " + " ".join(
            f"{fmt(r.get(f'{s}_tflops')):>7}" for s in SIDES) + " "
            + " ".join(f"{fmt(r.get(f'ratio_{s}'), '.3f'):>7}" for s in ("flash", "cudnn")) + " "
            + " ".join(f"{fmt(r.get(f'rel_err_{n}_vs_flash'), '.1e'):>8}"
                       for n in ("o", "dq", "dk", "dv")))
    lines.append("TFLOP/s = 14*B*H*S^2*D (/2 causal) / time of forward + backward; ratios: "
                 "ours / theirs; errors: ours vs sdpa flash")
    return "\n".join(lines)


def write_files(rows, out, device):
    keys = ["config", "B", "H", "Hkv", "S", "D", "causal", "ours_tflops", "flash_tflops",
            "cudnn_tflops", "ratio_flash", "ratio_cudnn", "ours_ms", "flash_ms", "cudnn_ms",
            "rel_err_o_vs_flash", "rel_err_dq_vs_flash", "rel_err_dk_vs_flash",
            "rel_err_dv_vs_flash", "ours_error", "flash_error", "cudnn_error", "error"]
    plt = write_results(out, "attention_train", device, rows, keys)
    if plt is None:
        return
    labels = {"ours": "pyptx op", "flash": "sdpa flash", "cudnn": "sdpa cuDNN"}
    bar_chart(plt, out, "attention_train", rows, [(f"{s}_tflops", labels[s]) for s in SIDES],
              f"bf16 attention, forward + backward\n{device}")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_attention_shape_args(p, reps=20)
    p.add_argument("--no-gqa", dest="gqa", action="store_false",
                   help="leave out the grouped-query row")
    args = p.parse_args(argv)
    import torch
    if not torch.cuda.is_available():
        sys.exit("attention_train.py: needs a CUDA GPU (sm_90a)")
    prop = torch.cuda.get_device_properties(0)
    device = (f"{prop.name}, {prop.multi_processor_count} SMs, torch {torch.__version__}, "
              f"{time.strftime('%Y-%m-%d')}")
    print(device, flush=True)
    rows = run(args)
    write_files(rows, args.out, device)
    print(table(rows))


if __name__ == "__main__":
    main()
