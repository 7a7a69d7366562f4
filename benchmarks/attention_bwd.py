#!/usr/bin/env python3
"""TFLOP/s of the Hopper flash attention backward
(examples/hopper/flash_attention_bwd.py: its three kernels) beside the
backward of PyTorch's scaled_dot_product_attention with its flash and its
cuDNN backends (torch.autograd.grad through sdpa; the forward runs outside
the timed region), in the same process with CUDA events. FLOPs =
2.5 x the forward's = 10*B*H*S^2*D, halved for causal.

Per configuration: random bf16 Q, K, V, dO (normal, never zeros; two
sets, rotated, each far past L2), our O and LSE from our forward kernel
(sdpa flash's forward for a length ours refuses);
a warm-up, then --reps calls timed one by one (harness.time_calls); each
side is timed twice in turn and the mean of the two medians is reported.
Before timing, our dQ, dK, dV (out= tensors poisoned with NaN) are
compared with sdpa flash's gradients. Also timed: our main kernel alone
(``main_ms``: without the preprocess and convert kernels), and with
--variants the other variants of our kernels (VARIANTS: how dQ is
accumulated, ring depth), each checked against the first.

Each head_dim runs in its own process with a time limit. Prints a table
and writes attention_bwd.csv, attention_bwd.json, attention_bwd.png under
--out.

--features gqa,odd,bshd,varlen instead times the backward of the forward's
other cases (examples/hopper/flash_attention_bwd_seq.py's entry point),
D=128, --tokens tokens each: grouped-query (32 Q heads / 8 K/V heads,
S=4096), odd lengths (S = 1000, 4097), the (batch, seq, heads, D) layout
(S=4096) and packed sequences (random lengths 1-8192,
seed 0, summing to --tokens), each beside our dense backward on the same
number of tokens (S rounded to a multiple of 128, packed: 4096; B = tokens
/ S; as many K/V heads as Q heads: ``dense`` and the ratio of TFLOP/s) and sdpa's flash and cuDNN
backends where sdpa takes the case (GQA with enable_gqa); FLOPs of packed
sequences: the sum over sequences. Writes attention_bwd_features.*.

usage: attention_bwd.py [--out DIR] [--tokens N] [--heads H] [--seqs 4096,8192,16384]
                        [--dims 64,128] [--causal both|yes|no] [--reps N] [--timeout S]
                        [--variants bulk,red,stages3] [--features gqa,odd,bshd,varlen]
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
    add_attention_shape_args, bar_chart, fmt, report_child, run_child, write_results)
from harness import row_result  # noqa: E402
from harness import time_calls as harness_time_calls  # noqa: E402

# our kernels' variants: name -> kernels_for keyword arguments; the first is "ours"
VARIANTS = {"bulk": {}, "red": {"dq_reduce": "red"}, "stages3": {"stages": 3}}


def time_calls(calls, reps):
    return harness_time_calls(calls, reps, warmup_calls=3, warmup_s=0.05)


def rel(a, b):
    a, b = a.double(), b.double()
    if bool(a.isnan().any()):
        return float("nan")
    return ((a - b).norm() / b.norm()).item()


def sdpa_backward(backend, q, k, v, do, causal):
    """A call running sdpa's backward (its forward done here, once); K/V
    with fewer heads: enable_gqa."""
    import torch
    from torch.nn.attention import SDPBackend, sdpa_kernel
    which = {"flash": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION}[backend]
    q, k, v = (x.detach().requires_grad_() for x in (q, k, v))
    gqa = dict(enable_gqa=True) if k.shape[1] != q.shape[1] else {}
    with sdpa_kernel(which):
        o = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal, **gqa)

    def call():
        with sdpa_kernel(which):
            return torch.autograd.grad(o, (q, k, v), do, retain_graph=True)
    return call


def forward(fa, q, k, v, causal):
    """(O, LSE) of our forward kernel; of sdpa's flash forward (aten's op,
    which returns the natural-log LSE) for a shape ours refuses."""
    import torch
    try:
        return fa.flash_attention(q, k, v, causal=causal)
    except fa.AttentionShapeError:
        out = torch.ops.aten._scaled_dot_product_flash_attention(q, k, v, is_causal=causal)
        return out[0].contiguous(), out[1][..., :q.shape[2]].contiguous()


def run_group(D, causals, seqs, tokens, heads, reps, variants):
    import torch
    from examples.hopper import flash_attention as fa
    from examples.hopper import flash_attention_bwd as fb
    for causal, S in [(c, S) for c in causals for S in seqs]:
        B = max(1, tokens // S)
        flops = 10 * B * heads * S * S * D // (2 if causal else 1)
        row = dict(B=B, H=heads, S=S, D=D, causal=causal, flops=flops,
                   config=f"B{B} H{heads} S{S} D{D}{' causal' if causal else ''}")
        with row_result(row):
            sets = []
            for _ in range(2):
                q, k, v, do = (torch.randn(B, heads, S, D, device="cuda").to(torch.bfloat16)
                               for _ in range(4))
                o, lse = forward(fa, q, k, v, causal)
                sets.append((q, k, v, o, do, lse))
            t0 = time.time()
            outs = [torch.full((B, heads, S, D), float("nan"), dtype=torch.bfloat16,
                               device="cuda") for _ in range(3)]
            ours = fb.flash_attention_backward(*sets[0], causal=causal, out=outs,
                                               **VARIANTS[variants[0]])
            torch.cuda.synchronize()
            ours = [x.clone() for x in ours]     # outs is rewritten below
            row["build_s"] = round(time.time() - t0, 2)
            calls = {}
            for n, variant in enumerate(variants):
                options = VARIANTS[variant]
                if n:   # the others: checked against the first
                    fb.flash_attention_backward(*sets[0], causal=causal, out=outs, **options)
                    torch.cuda.synchronize()
                    row[f"{variant}_rel_err_dq_vs_ours"] = rel(outs[0], ours[0])
                calls["ours" if n == 0 else variant] = [
                    lambda s=s, o=options: fb.flash_attention_backward(*s, causal=causal,
                                                                        out=outs, **o)
                    for s in sets]
            kern = fb.kernels_for(B, heads, heads, S, D, causal, **VARIANTS[variants[0]])
            main_args = []
            for q, k, v, o, do, lse in sets:
                stats, acc = kern.preprocess(o.reshape(-1, D), do.reshape(-1, D), lse.reshape(-1))
                main_args.append((q.reshape(-1, D), k.reshape(-1, D), v.reshape(-1, D),
                                  do.reshape(-1, D), stats, acc))
            main_out = (outs[1].view(-1, D), outs[2].view(-1, D))
            calls["main"] = [lambda a=a: kern.main(*a, out=main_out) for a in main_args]
            for side in ("flash", "cudnn"):
                try:
                    call = sdpa_backward(side, *(sets[0][i] for i in (0, 1, 2, 4)), causal)
                    grads = call()
                    torch.cuda.synchronize()
                    if side == "flash":
                        for name, a, b in zip(("dq", "dk", "dv"), ours, grads):
                            row[f"rel_err_{name}_vs_flash"] = rel(a, b)
                    del grads
                    calls[side] = [call] + [sdpa_backward(side, *(s[i] for i in (0, 1, 2, 4)),
                                                          causal) for s in sets[1:]]
                except Exception as e:  # noqa: BLE001 -- not offered on this card/build
                    row[f"{side}_error"] = f"{type(e).__name__}: {e}"[:300]
            times = {side: [] for side in calls}
            for _ in range(2):
                for side, cs in calls.items():
                    times[side].append(time_calls(cs, reps))
            for side, ms in times.items():
                row[f"{side}_ms"] = ms
                row[f"{side}_tflops"] = flops / statistics.mean(ms) / 1e9
            for side in ("flash", "cudnn"):
                if f"{side}_tflops" in row:
                    row[f"ratio_{side}"] = row["ours_tflops"] / row[f"{side}_tflops"]
            del sets, calls, outs, ours, main_args


def spawn(D, args):
    cmd = [sys.executable, os.path.abspath(__file__), "--child", str(D), "--causal", args.causal,
           "--seqs", args.seqs, "--tokens", str(args.tokens), "--heads", str(args.heads),
           "--reps", str(args.reps), "--variants", args.variants]
    rows, status, err, seconds = run_child(cmd, args.timeout)
    report_child(f"D={D}", rows, status, err, seconds)
    return rows


def table(rows):
    lines = [f"{'config':28} {'ours':>7} {'flash':>7} {'cuDNN':>7} {'/flash':>7} {'/cuDNN':>7} "
             f"{'main':>7} {'ours ms (2 runs)':>18} {'dq err':>8} {'dk err':>8} {'dv err':>8}"]
    for r in rows:
        if "error" in r:
            lines.append(f"{r['config']:28} ERROR {r['error']}")
            continue
        ms = "/".join(f"{t:.3f}" for t in r["ours_ms"])
        lines.append(f"{r['config']:28} {fmt(r.get('ours_tflops')):>7} "
                     f"{fmt(r.get('flash_tflops')):>7} {fmt(r.get('cudnn_tflops')):>7} "
                     f"{fmt(r.get('ratio_flash'), '.3f'):>7} {fmt(r.get('ratio_cudnn'), '.3f'):>7} "
                     f"{fmt(r.get('main_tflops')):>7} {ms:>18} "
                     + " ".join(f"{fmt(r.get(f'rel_err_{n}_vs_flash'), '.1e'):>8}"
                                for n in ("dq", "dk", "dv"))
                     + "".join(f" {k[:-7]} {r[k]:.1f}" for k in r
                               if k.endswith("_tflops") and k[:-7] in VARIANTS))
    lines.append("TFLOP/s = 10*B*H*S^2*D (/2 causal) / time of the backward; ratios: ours / "
                 "theirs; main: our main kernel alone; errors: ours vs sdpa flash's gradients")
    return "\n".join(lines)


def write_files(rows, out, device):
    keys = ["config", "B", "H", "S", "D", "causal", "ours_tflops", "flash_tflops",
            "cudnn_tflops", "ratio_flash", "ratio_cudnn", "main_tflops", "ours_ms", "main_ms",
            "flash_ms", "cudnn_ms", "rel_err_dq_vs_flash", "rel_err_dk_vs_flash",
            "rel_err_dv_vs_flash", "build_s"] + [
        f"{v}_{what}" for v in VARIANTS for what in ("tflops", "ms", "rel_err_dq_vs_ours")] + [
        "flash_error", "cudnn_error", "error"]
    plt = write_results(out, "attention_bwd", device, rows, keys)
    if plt is None:
        return
    sides = [("ours_tflops", "pyptx"), ("flash_tflops", "sdpa flash"),
             ("cudnn_tflops", "sdpa cuDNN")]
    bar_chart(plt, out, "attention_bwd", rows, sides, f"bf16 attention backward\n{device}")


# -- the forward's other cases ----------------------------------------------------------------

BLOCK = 128      # rows of a K/V block: the dense case's lengths are multiples of it

def feature_cases(features, tokens, heads):
    """(name, B, H, Hkv, S, lens) per feature row; lens: packed lengths."""
    import random
    cases = []
    if "gqa" in features:
        cases.append(("gqa", max(1, tokens // 4096), 32, 8, 4096, None))
    if "odd" in features:
        cases += [("odd", max(1, tokens // S), heads, heads, S, None) for S in (1000, 4097)]
    if "bshd" in features:
        cases.append(("bshd", max(1, tokens // 4096), heads, heads, 4096, None))
    if "varlen" in features:
        rng, lens = random.Random(0), []
        while sum(lens) < tokens:
            lens.append(min(rng.randint(1, 8192), tokens - sum(lens)))
        cases.append(("varlen", len(lens), heads, heads, max(lens), lens))
    return cases


def run_features(features, tokens, heads, reps, causals, D=128):
    import torch
    from examples.hopper import flash_attention as fa
    from examples.hopper import flash_attention_bwd_seq as fs
    for (name, B, H, Hkv, S, lens), causal in [(c, k) for c in feature_cases(
            features, tokens, heads) for k in causals]:
        row = dict(feature=name, B=B, H=H, Hkv=Hkv, S=S, D=D, causal=causal,
                   config=f"{name} B{B} H{H}/{Hkv} S{'<=' if lens else ''}{S} D{D}"
                          f"{' causal' if causal else ''}")
        with row_result(row):
            calls = {}
            if lens:
                cu = torch.tensor([0] + [sum(lens[:i + 1]) for i in range(len(lens))],
                                  dtype=torch.int32, device="cuda")
                total = int(cu[-1])
                pairs = sum(n * n for n in lens)
                sets = []
                for _ in range(2):
                    q, k, v, do = (torch.randn(total, h, D, device="cuda").to(torch.bfloat16)
                                   for h in (H, Hkv, Hkv, H))
                    packed = dict(cu_seqlens_q=cu, cu_seqlens_k=cu, max_seqlen_q=S,
                                  max_seqlen_k=S)
                    o, lse = fa.flash_attention(q, k, v, causal, **packed)
                    sets.append(((q, k, v, o, do, lse), packed))
                outs = [torch.empty_like(x) for x in sets[0][0][:3]]
                calls["ours"] = [lambda a=a, kw=kw: fs.flash_attention_backward(
                    *a, causal=causal, out=outs, **kw) for a, kw in sets]
            else:
                pairs = B * S * S
                layout = "bshd" if name == "bshd" else "bhsd"
                sets = []
                for _ in range(2):
                    q, k, v, do = (torch.randn(B, h, S, D, device="cuda").to(torch.bfloat16)
                                   for h in (H, Hkv, Hkv, H))
                    o, lse = fa.flash_attention(q, k, v, causal)
                    if layout == "bshd":
                        q, k, v, o, do = (x.transpose(1, 2).contiguous()
                                          for x in (q, k, v, o, do))
                    sets.append((q, k, v, o, do, lse))
                outs = [torch.empty_like(x) for x in sets[0][:3]]
                calls["ours"] = [lambda a=a: fs.flash_attention_backward(
                    *a, causal=causal, out=outs, layout=layout) for a in sets]
                for side in ("flash", "cudnn") if layout == "bhsd" else ():
                    try:
                        cs = [sdpa_backward(side, *(a[i] for i in (0, 1, 2, 4)), causal)
                              for a in sets]
                        grads = cs[0]()
                        ours = calls["ours"][0]()
                        torch.cuda.synchronize()
                        if side == "flash":
                            for n, a, b in zip(("dq", "dk", "dv"), ours, grads):
                                row[f"rel_err_{n}_vs_flash"] = rel(a, b)
                        calls[side] = cs
                    except Exception as e:  # noqa: BLE001 -- sdpa does not take the case
                        row[f"{side}_error"] = f"{type(e).__name__}: {e}"[:300]
            # our dense backward on as many tokens: S rounded to whole 128-row
            # blocks (packed: 4096), B = tokens / S
            n_tokens = sum(lens) if lens else B * S
            Sd = 4096 if lens else max(BLOCK, round(S / BLOCK) * BLOCK)
            Bd = max(1, n_tokens // Sd)
            row["dense_config"] = f"B{Bd} H{H} S{Sd}"
            dense_sets = []
            for _ in range(2):
                q, k, v, do = (torch.randn(Bd, H, Sd, D, device="cuda").to(torch.bfloat16)
                               for _ in range(4))
                o, lse = fa.flash_attention(q, k, v, causal)
                dense_sets.append((q, k, v, o, do, lse))
            dense_outs = [torch.empty_like(x) for x in dense_sets[0][:3]]
            calls["dense"] = [lambda a=a: fs.flash_attention_backward(
                *a, causal=causal, out=dense_outs) for a in dense_sets]
            div = 2 if causal else 1
            flops = {"dense": 10 * Bd * H * Sd * Sd * D // div}
            row["flops"] = 10 * H * pairs * D // div
            times = {side: [] for side in calls}
            for _ in range(2):
                for side, cs in calls.items():
                    times[side].append(time_calls(cs, reps))
            for side, ms in times.items():
                row[f"{side}_ms"] = ms
                row[f"{side}_tflops"] = flops.get(side, row["flops"]) / statistics.mean(ms) / 1e9
            for side in ("dense", "flash", "cudnn"):
                if f"{side}_tflops" in row:
                    row[f"ratio_{side}"] = row["ours_tflops"] / row[f"{side}_tflops"]
            del sets, dense_sets, calls


def feature_table(rows):
    lines = [f"{'config':34} {'ours':>7} {'dense':>7} {'flash':>7} {'cuDNN':>7} {'/dense':>7} "
             f"{'/flash':>7} {'/cuDNN':>7} {'dq err':>8} {'dk err':>8} {'dv err':>8}"]
    for r in rows:
        if "error" in r:
            lines.append(f"{r['config']:34} ERROR {r['error']}")
            continue
        lines.append(f"{r['config']:34} " + " ".join(
            f"{fmt(r.get(k)):>7}" for k in ("ours_tflops", "dense_tflops", "flash_tflops",
                                            "cudnn_tflops"))
            + " " + " ".join(f"{fmt(r.get(k), '.3f'):>7}" for k in ("ratio_dense", "ratio_flash",
                                                                  "ratio_cudnn"))
            + " " + " ".join(f"{fmt(r.get(f'rel_err_{n}_vs_flash'), '.1e'):>8}"
                             for n in ("dq", "dk", "dv")))
    lines.append("TFLOP/s = 10*H*D*(sum of S^2) (/2 causal) / time; dense: our backward on as "
                 "many tokens (S rounded to 128, packed 4096; K/V heads = Q heads); ratios: "
                 "ours / theirs")
    return "\n".join(lines)


def write_feature_files(rows, out, device):
    keys = ["config", "feature", "B", "H", "Hkv", "S", "D", "causal", "dense_config",
            "ours_tflops",
            "dense_tflops", "flash_tflops", "cudnn_tflops", "ratio_dense", "ratio_flash",
            "ratio_cudnn", "ours_ms", "dense_ms", "flash_ms", "cudnn_ms",
            "rel_err_dq_vs_flash", "rel_err_dk_vs_flash", "rel_err_dv_vs_flash",
            "flash_error", "cudnn_error", "error"]
    plt = write_results(out, "attention_bwd_features", device, rows, keys)
    if plt is None:
        return
    sides = [("ours_tflops", "pyptx"), ("dense_tflops", "pyptx dense, same tokens"),
             ("flash_tflops", "sdpa flash"), ("cudnn_tflops", "sdpa cuDNN")]
    bar_chart(plt, out, "attention_bwd_features", rows, sides,
              f"bf16 attention backward: GQA, odd lengths, packed\n{device}")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_attention_shape_args(p, reps=20)
    p.add_argument("--timeout", type=int, default=480, help="seconds per child process")
    p.add_argument("--variants", default="bulk",
                   help=f"comma-separated, the first is 'ours': {', '.join(VARIANTS)}")
    p.add_argument("--features", default="", help="gqa,odd,bshd,varlen: the feature rows instead")
    p.add_argument("--child", help=argparse.SUPPRESS)
    args = p.parse_args()
    seqs = [int(s) for s in args.seqs.split(",")]
    causals = {"both": (False, True), "yes": (True,), "no": (False,)}[args.causal]
    import torch
    if args.child == "features":
        torch.manual_seed(0)
        return run_features(args.features.split(","), args.tokens, args.heads, args.reps,
                            causals)
    if args.child:
        torch.manual_seed(0)
        return run_group(int(args.child), causals, seqs, args.tokens, args.heads, args.reps,
                         args.variants.split(","))
    prop = torch.cuda.get_device_properties(0)
    device = (f"{prop.name}, {prop.multi_processor_count} SMs, torch {torch.__version__}, "
              f"{time.strftime('%Y-%m-%d')}")
    print(device, flush=True)
    if args.features:
        cmd = [sys.executable, os.path.abspath(__file__), "--child", "features", "--features",
               args.features, "--causal", args.causal, "--tokens", str(args.tokens),
               "--heads", str(args.heads), "--reps", str(args.reps)]
        rows, status, err, seconds = run_child(cmd, args.timeout)
        report_child("features", rows, status, err, seconds)
        write_feature_files(rows, args.out, device)
        print(feature_table(rows))
        return
    rows = []
    for D in (int(d) for d in args.dims.split(",")):
        rows += spawn(D, args)
        write_files(rows, args.out, device)
    print(table(rows))


if __name__ == "__main__":
    main()
