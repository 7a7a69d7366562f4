#!/usr/bin/env python3
"""TFLOP/s of the Hopper flash attention forward (examples/hopper/flash_attention.py)
beside PyTorch's scaled_dot_product_attention with its flash backend and
with its cuDNN backend (each where PyTorch offers it on the card), measured
in the same process with CUDA events. FLOPs = 4*B*H*S^2*D, halved for causal.

Per configuration: fresh random bf16 Q, K, V (normal, never zeros; one
set is hundreds of MB, far past L2, and two sets are rotated), a warm-up,
then --reps calls timed one by one with CUDA events (enqueued behind a
sleep kernel, so host launch time does not leak into the numbers); the
figure is the median. Each side is timed twice (ours, flash, cuDNN, ours,
flash, cuDNN) and the mean of the two medians is reported; their
difference is the noise. Before timing, our output (its memory poisoned
with NaN first) is compared with sdpa's flash output and, for the last 256
query rows of the first head, with a float64 reference.

Each head_dim runs in its own process (both causal settings, every seq)
with a time limit; the rows are printed as they come and the files are
rewritten after each process. Prints a table and writes attention.csv,
attention.json and attention.png (matplotlib) under --out.

usage: attention.py [--out DIR] [--tokens N] [--heads H] [--seqs 4096,8192,16384]
                    [--dims 64,128] [--causal both|yes|no] [--reps N] [--timeout S]
                    [--variants tile,persistent,...]
       attention.py --features [--heads H] [--reps N] [--out DIR] [--only odd,GQA,...]

--features: D=128 rows of the general kernel, each beside the dense row of
the same tokens: grouped-query (32 Q / 8 KV heads), odd lengths (S = 1000,
4097), packed sequences (random lengths 1..8k summing to 64k tokens), causal
and not; sdpa's flash backend beside the dense and GQA ones. Each row and
its dense row are timed call by call in turn (the median of 4 x reps
per-pair ratios): the card's clock drifts over a run by more than the
differences measured.
"""
from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import random
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [os.path.join(ROOT, "python"), ROOT, os.path.dirname(os.path.abspath(__file__))]

from harness import (  # noqa: E402
    add_attention_shape_args, bar_chart, fmt, report_child, run_child, write_results)
from harness import time_calls as harness_time_calls  # noqa: E402
from harness import row_result, time_pair  # noqa: E402

# our kernel's variants: name -> build_flash_attention keyword arguments
VARIANTS = {"tile": {}, "persistent": {"persistent": True}, "nopingpong": {"pingpong": False},
            "stages3": {"stages": 3}}


def _torch():
    import torch
    return torch


def time_calls(calls, reps):
    """Median milliseconds of one call (harness.time_calls, a shorter warm-up:
    these calls are long)."""
    return harness_time_calls(calls, reps, warmup_calls=4, warmup_s=0.05)


def sdpa_call(backend, q, k, v, causal):
    torch = _torch()
    from torch.nn.attention import SDPBackend, sdpa_kernel
    which = {"flash": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION}[backend]

    def call():
        with sdpa_kernel(which):
            return torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)
    return call


def tail_reference(q, k, v, causal, rows=256):
    """float64 O of the last `rows` query rows of batch 0, head 0."""
    torch = _torch()
    S, D = q.shape[2], q.shape[3]
    q64, k64, v64 = q[0, 0, -rows:].double(), k[0, 0].double(), v[0, 0].double()
    s = q64 @ k64.T / math.sqrt(D)
    if causal:
        pos = torch.arange(S - rows, S, device=q.device)[:, None]
        s = s.masked_fill(torch.arange(S, device=q.device)[None, :] > pos, float("-inf"))
    return torch.softmax(s, -1) @ v64


def rel(a, b):
    a, b = a.double(), b.double()
    if bool(a.isnan().any()):
        return float("nan")
    return ((a - b).norm() / b.norm()).item()


def run_group(D, causals, seqs, tokens, heads, reps, variants):
    torch = _torch()
    from examples.hopper import flash_attention as fa
    for causal, S in [(c, S) for c in causals for S in seqs]:
        B = max(1, tokens // S)
        flops = 4 * B * heads * S * S * D // (2 if causal else 1)
        row = dict(B=B, H=heads, S=S, D=D, causal=causal, flops=flops,
                   config=f"B{B} H{heads} S{S} D{D}{' causal' if causal else ''}")
        with row_result(row):
            sets = [[torch.randn(B, heads, S, D, device="cuda").to(torch.bfloat16)
                     for _ in range(3)] for _ in range(2)]
            q, k, v = sets[0]
            tail = tail_reference(q, k, v, causal)
            calls, outputs = {}, {}
            for variant in variants:
                t0 = time.time()
                kern = fa.build_flash_attention(B, heads, S, D, causal, **VARIANTS[variant])
                poison = torch.full((B * heads * S, D), float("nan"), dtype=torch.bfloat16,
                                    device="cuda")
                address = poison.data_ptr()
                del poison
                o, lse = fa.run(kern, q, k, v)
                torch.cuda.synchronize()
                row[f"{variant}_build_s"] = round(time.time() - t0, 2)   # trace, ptxas, load
                row[f"{variant}_poisoned_reused"] = o.data_ptr() == address
                row[f"{variant}_rel_err_f64_tail"] = rel(o[0, 0, -256:], tail)
                outputs[variant] = o
                calls[variant] = [lambda s=s, kern=kern: fa.run(kern, *s) for s in sets]
            o = outputs[variants[0]]
            row["rel_err_f64_tail"] = row[f"{variants[0]}_rel_err_f64_tail"]
            for side in ("flash", "cudnn"):
                try:
                    ref = sdpa_call(side, q, k, v, causal)()
                    torch.cuda.synchronize()
                    row[f"rel_err_vs_{side}"] = rel(o, ref)
                    del ref
                    calls[side] = [sdpa_call(side, *s, causal) for s in sets]
                except Exception as e:  # noqa: BLE001 -- not offered on this card/build
                    row[f"{side}_error"] = f"{type(e).__name__}: {e}"[:300]
            del o, lse, outputs
            times = {side: [] for side in calls}
            for _ in range(2):
                for side, cs in calls.items():
                    times[side].append(time_calls(cs, reps))
            for side, ms in times.items():
                row[f"{side}_ms"] = ms
                row[f"{side}_tflops"] = flops / statistics.mean(ms) / 1e9
            # "ours": the first variant (the default kernel)
            row["ours_ms"], row["ours_tflops"] = row[f"{variants[0]}_ms"], \
                row[f"{variants[0]}_tflops"]
            for side in ("flash", "cudnn"):
                if f"{side}_tflops" in row:
                    row[f"ratio_{side}"] = row["ours_tflops"] / row[f"{side}_tflops"]
            del sets, q, k, v


def spawn(D, args):
    cmd = [sys.executable, os.path.abspath(__file__), "--child", str(D), "--causal", args.causal,
           "--seqs", args.seqs, "--tokens", str(args.tokens), "--heads", str(args.heads),
           "--reps", str(args.reps), "--variants", args.variants]
    rows, status, err, seconds = run_child(cmd, args.timeout)
    report_child(f"D={D}", rows, status, err, seconds)
    return rows, status == "timeout"


def table(rows, variants):
    others = variants[1:]
    lines = [f"{'config':28} {'ours':>7} {'flash':>7} {'cuDNN':>7} {'/flash':>7} "
             f"{'/cuDNN':>7} {'ours ms (2 runs)':>18} {'err f64':>8} {'vs flash':>8}"
             + "".join(f" {v[:10]:>10}" for v in others)]
    for r in rows:
        if "error" in r:
            lines.append(f"{r['config']:28} ERROR {r['error']}")
            continue
        ms = "/".join(f"{t:.3f}" for t in r["ours_ms"])
        lines.append(f"{r['config']:28} {fmt(r.get('ours_tflops')):>7} "
                     f"{fmt(r.get('flash_tflops')):>7} {fmt(r.get('cudnn_tflops')):>7} "
                     f"{fmt(r.get('ratio_flash'), '.3f'):>7} {fmt(r.get('ratio_cudnn'), '.3f'):>7} "
                     f"{ms:>18} {fmt(r.get('rel_err_f64_tail'), '.1e'):>8} "
                     f"{fmt(r.get('rel_err_vs_flash'), '.1e'):>8}"
                     + "".join(f" {fmt(r.get(f'{v}_tflops')):>10}" for v in others))
    lines.append(f"TFLOP/s = 4*B*H*S^2*D (/2 causal) / time; ours = {variants[0]}; "
                 f"ratios: ours / theirs; last columns: the other variants' TFLOP/s")
    return "\n".join(lines)


def write_files(rows, out, device, variants):
    keys = ["config", "B", "H", "S", "D", "causal", "ours_tflops", "flash_tflops",
            "cudnn_tflops", "ratio_flash", "ratio_cudnn", "ours_ms", "flash_ms", "cudnn_ms",
            "rel_err_f64_tail", "rel_err_vs_flash", "rel_err_vs_cudnn"] + [
        f"{v}_{what}" for v in variants for what in ("tflops", "ms", "rel_err_f64_tail",
                                                     "build_s")] + [
        "flash_error", "cudnn_error", "error"]
    plt = write_results(out, "attention", device, rows, keys)
    if plt is None:
        return
    sides = [(f"{v}_tflops", f"pyptx {v}") for v in variants] + [
        ("flash_tflops", "sdpa flash"), ("cudnn_tflops", "sdpa cuDNN")]
    bar_chart(plt, out, "attention", rows, sides, f"bf16 attention forward\n{device}")



# -- feature rows: GQA, odd lengths, packed sequences ------------------------------------

def feature_rows(heads, seed=0):
    """(name, shape, causal, vs) of the feature rows: vs names the dense row of
    the same tokens each is compared with (D = 128, about 65536 tokens)."""
    rng = random.Random(seed)
    lens, total = [], 0
    while total < 65536:                      # random lengths 1..8192 summing to 64k
        n = min(rng.randint(1, 8192), 65536 - total)
        lens.append(n)
        total += n
    rows = []
    for causal in (False, True):
        rows += [
            (f"dense B16 H{heads} S4096", dict(B=16, H=heads, Hk=heads, S=4096), causal, None),
            ("GQA B16 H32/8 S4096", dict(B=16, H=32, Hk=8, S=4096), causal,
             "dense B16 H32/32 S4096"),
            ("dense B16 H32/32 S4096", dict(B=16, H=32, Hk=32, S=4096), causal, None),
            (f"odd B65 H{heads} S1000", dict(B=65, H=heads, Hk=heads, S=1000), causal,
             f"dense B64 H{heads} S1024"),
            (f"dense B64 H{heads} S1024", dict(B=64, H=heads, Hk=heads, S=1024), causal, None),
            (f"odd B15 H{heads} S4097", dict(B=15, H=heads, Hk=heads, S=4097), causal,
             f"dense B16 H{heads} S4096"),
            (f"varlen {len(lens)} seqs H{heads} 64k tokens", dict(lens=lens, H=heads), causal,
             f"dense B16 H{heads} S4096"),
        ]
    return rows


def feature_inputs(shape, causal, fa):
    """(our calls on two input sets, sdpa flash calls or None, FLOPs) of a
    feature row's shape."""
    torch = _torch()
    D = 128
    if "lens" in shape:
        lens, H = shape["lens"], shape["H"]
        cu = torch.tensor([0] + list(itertools.accumulate(lens)), dtype=torch.int32,
                          device="cuda")
        T = int(cu[-1])
        pairs = sum(n * (n + 1) // 2 if causal else n * n for n in lens)
        sets = [[torch.randn(T, H, D, device="cuda").to(torch.bfloat16) for _ in range(3)]
                for _ in range(2)]
        kw = dict(cu_seqlens_q=cu, cu_seqlens_k=cu, max_seqlen_q=max(lens),
                  max_seqlen_k=max(lens))
        ours = [lambda s=s: fa.flash_attention(*s, causal, **kw) for s in sets]
        return ours, None, 4 * pairs * H * D
    B, H, Hk, S = shape["B"], shape["H"], shape["Hk"], shape["S"]
    pairs = B * (S * (S + 1) // 2 if causal else S * S)
    sets = [[torch.randn(B, h, S, D, device="cuda").to(torch.bfloat16) for h in (H, Hk, Hk)]
            for _ in range(2)]
    ours = [lambda s=s: fa.flash_attention(*s, causal) for s in sets]
    gqa = dict(enable_gqa=True) if Hk != H else {}
    from torch.nn.attention import SDPBackend, sdpa_kernel

    def flash_call(s):
        with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
            return torch.nn.functional.scaled_dot_product_attention(
                *s, is_causal=causal, **gqa)
    flash = [lambda s=s: flash_call(s) for s in sets]
    return ours, flash, 4 * pairs * H * D


def run_features(heads, reps, only=None):
    """RESULT lines for feature_rows: ours (TFLOP/s of the FLOPs actually
    needed), sdpa's flash backend where it takes the case, and ours / the
    dense row of the same tokens, the two timed call by call in turn
    (time_pair, 4 * reps pairs). only: substrings of the row names to run
    (None: all)."""
    torch = _torch()
    from examples.hopper import flash_attention as fa
    dense, done = {}, {}      # dense (name, causal) -> (calls, flops); config -> row
    for name, shape, causal, vs in feature_rows(heads):
        config = f"{name}{' causal' if causal else ''}"
        if only and not any(o in config for o in only):
            continue
        row = dict(config=config, causal=causal, D=128)
        with row_result(row):
            ours, flash, flops = feature_inputs(shape, causal, fa)
            if flash is not None and ("S" in shape and shape["S"] % 128 or
                                      shape.get("Hk") != shape.get("H")):
                o, _ = ours[0]()             # ours against sdpa flash once
                ref = flash[0]()
                torch.cuda.synchronize()
                row["rel_err_vs_flash"] = rel(o, ref)
            if vs is None:
                dense[(name, causal)] = (ours, flops)
                ms = time_calls(ours, reps)
            else:
                partner = dense.get((vs, causal))
                if partner is None:          # built here, kept for the next rows
                    shape_vs = next(r[1] for r in feature_rows(heads) if r[0] == vs)
                    got = feature_inputs(shape_vs, causal, fa)
                    partner = dense[(vs, causal)] = (got[0], got[2])
                ms, dense_ms, time_ratio = time_pair(ours, partner[0], 4 * reps)
                row.update(dense_ms=dense_ms, dense_tflops=partner[1] / dense_ms / 1e9,
                           ratio_dense_same_tokens=flops / partner[1] * time_ratio)
            row.update(ours_ms=ms, ours_tflops=flops / ms / 1e9)
            if flash is not None:
                try:
                    fms = time_calls(flash, reps)
                    row.update(flash_ms=fms, flash_tflops=flops / fms / 1e9,
                               ratio_flash=fms / ms)
                except Exception as e:  # noqa: BLE001 -- not offered
                    row["flash_error"] = f"{type(e).__name__}: {e}"[:200]
            del ours, flash
        done[config] = row
    return list(done.values())


def feature_table(rows):
    lines = [f"{'config':44} {'ours':>7} {'flash':>7} {'/flash':>7} {'/dense':>7}"]
    for r in rows:
        if "error" in r:
            lines.append(f"{r['config']:44} ERROR {r['error']}")
            continue
        lines.append(f"{r['config']:44} {fmt(r.get('ours_tflops')):>7} "
                     f"{fmt(r.get('flash_tflops')):>7} {fmt(r.get('ratio_flash'), '.3f'):>7} "
                     f"{fmt(r.get('ratio_dense_same_tokens'), '.3f'):>7}")
    lines.append("TFLOP/s of the FLOPs each row needs (causal: the kept pairs); /dense: "
                 "ours / ours on the dense row of the same tokens (D=128)")
    return "\n".join(lines)

def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_attention_shape_args(p, reps=30)
    p.add_argument("--timeout", type=int, default=480, help="seconds per child process")
    p.add_argument("--variants", default="tile",
                   help=f"comma-separated, the first is 'ours': {', '.join(VARIANTS)}")
    p.add_argument("--features", action="store_true",
                   help="the feature rows instead: GQA, odd lengths, packed sequences")
    p.add_argument("--only", help="--features: comma-separated substrings of the rows to run")
    p.add_argument("--child", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.features:
        rows = run_features(args.heads, args.reps,
                            args.only.split(",") if args.only else None)
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "attention_features.json"), "w") as f:
            json.dump(rows, f, indent=1)
        print(feature_table(rows))
        return None
    seqs = [int(s) for s in args.seqs.split(",")]
    variants = args.variants.split(",")
    unknown = [v for v in variants if v not in VARIANTS]
    if unknown:
        p.error(f"unknown variants {unknown}; known: {', '.join(VARIANTS)}")
    causals = {"both": (False, True), "yes": (True,), "no": (False,)}[args.causal]
    if args.child:
        _torch().manual_seed(0)
        return run_group(int(args.child), causals, seqs, args.tokens, args.heads, args.reps,
                         variants)
    torch = _torch()
    prop = torch.cuda.get_device_properties(0)
    device = (f"{prop.name}, {prop.multi_processor_count} SMs, torch {torch.__version__}, "
              f"{time.strftime('%Y-%m-%d')}")
    print(device, flush=True)
    rows = []
    for D in (int(d) for d in args.dims.split(",")):
        got, _ = spawn(D, args)
        rows += got
        write_files(rows, args.out, device, variants)
    print(table(rows, variants))


if __name__ == "__main__":
    main()
