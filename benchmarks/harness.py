"""What the benchmarks share: CUDA-event timing, rotating input sets past
L2, running each configuration in a child process with a time limit, and
the bracket of one result row."""
from __future__ import annotations

import contextlib
import json
import math
import statistics
import subprocess
import time


def time_calls(calls, reps, warmup_calls=10, warmup_s=0.02):
    """Median milliseconds of one call; calls[i % len(calls)] runs i-th.

    Warm-up first: every input set, then at least `warmup_calls` calls and
    `warmup_s` seconds (a library's first calls in a process can be several
    times slower). The timed calls are enqueued behind a sleep kernel, so the
    host's launch time does not leak into the numbers."""
    import torch
    t0, done = time.perf_counter(), 0
    while done < warmup_calls + len(calls) or time.perf_counter() - t0 < warmup_s:
        calls[done % len(calls)]()
        done += 1
        if done % 10 == 0:
            torch.cuda.synchronize()
    torch.cuda.synchronize()
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    torch.cuda._sleep(20_000_000)   # ~10 ms of GPU time: the host enqueues meanwhile
    for i in range(reps):
        starts[i].record()
        calls[i % len(calls)]()
        ends[i].record()
    torch.cuda.synchronize()
    return statistics.median(s.elapsed_time(e) for s, e in zip(starts, ends))


def pair_order(n_a, n_b, pairs):
    """The calls of time_pair: per pair [("a", i), ("b", j)] in the order
    they run, i and j indices of the calls (input sets). With as many sets
    for both (the same inputs), b takes the set half a rotation ahead of
    a's, and with an even count the two swap places every other pair, so
    that between two uses of a set as many other sets pass for a as for b
    (when b ran right after a on the same set, it found that set in L2)."""
    if n_a != n_b:
        return [[("a", i % n_a), ("b", i % n_b)] for i in range(pairs)]
    n = n_a
    shift = n // 2 if n % 2 == 0 else (n + 1) // 2
    order = []
    for i in range(pairs):
        pair = [("a", i % n), ("b", (i + shift) % n)]
        order.append(pair[::-1] if n % 2 == 0 and i % 2 else pair)
    return order


def time_pair(calls_a, calls_b, pairs, warmup_calls=4, warmup_s=0.05):
    """(median ms of a, median ms of b, median of the per-pair ratios b/a):
    a and b alternate call by call (pair_order: each on a set that the
    other did not just read), each timed with CUDA events, enqueued behind
    a sleep kernel; the card's clock, which drifts over a run by more than
    a few percent, is nearly the same within a pair."""
    import torch
    time_calls(calls_a, 3, warmup_calls, warmup_s)          # warm-up of both
    time_calls(calls_b, 3, warmup_calls, warmup_s)
    calls = {"a": calls_a, "b": calls_b}
    events = [[torch.cuda.Event(enable_timing=True) for _ in range(3)] for _ in range(pairs)]
    order = pair_order(len(calls_a), len(calls_b), pairs)
    torch.cuda._sleep(20_000_000)
    for (e0, e1, e2), pair in zip(events, order):
        e0.record()
        calls[pair[0][0]][pair[0][1]]()
        e1.record()
        calls[pair[1][0]][pair[1][1]]()
        e2.record()
    torch.cuda.synchronize()
    first = [e0.elapsed_time(e1) for e0, e1, _ in events]
    second = [e1.elapsed_time(e2) for _, e1, e2 in events]
    a = [f if pair[0][0] == "a" else s for f, s, pair in zip(first, second, order)]
    b = [s if pair[0][0] == "a" else f for f, s, pair in zip(first, second, order)]
    return (statistics.median(a), statistics.median(b),
            statistics.median(y / x for x, y in zip(a, b)))


def add_attention_shape_args(parser, reps):
    """The attention benchmarks' shared options: output folder, tokens,
    heads, sequence lengths, head dims, causal masks, timed calls."""
    parser.add_argument("--out", default="benchmark_out")
    parser.add_argument("--tokens", type=int, default=65536, help="B*S (B = tokens // S)")
    parser.add_argument("--heads", type=int, default=16)
    parser.add_argument("--seqs", default="4096,8192,16384")
    parser.add_argument("--dims", default="64,128")
    parser.add_argument("--causal", default="both", choices=("both", "yes", "no"))
    parser.add_argument("--reps", type=int, default=reps)


@contextlib.contextmanager
def row_result(row, rows=None):
    """The bracket of one benchmark row's work: an exception in it becomes
    the row's "error" (the run goes on with the next row); then the CUDA
    cache is emptied, the row appended to `rows` (if given) and printed as
    a RESULT line (what a parent process collects)."""
    try:
        yield row
    except Exception as e:  # noqa: BLE001 -- report and go on with the next row
        row["error"] = f"{type(e).__name__}: {e}"[:500]
    import torch
    torch.cuda.empty_cache()
    if rows is not None:
        rows.append(row)
    print("RESULT " + json.dumps(row), flush=True)


def input_sets(nbytes_per_set, max_sets=8):
    """How many input sets to rotate so that together they pass 2x L2."""
    import torch
    l2 = getattr(torch.cuda.get_device_properties(0), "L2_cache_size", 50 << 20)
    return max(2, min(max_sets, math.ceil(2 * l2 / nbytes_per_set)))


def run_child(cmd, timeout):
    """Runs one child benchmark process; returns (rows, status, stderr,
    seconds): rows are the JSON objects it printed on lines "RESULT {...}",
    status its exit code or "timeout" (a hang costs its limit, not the run)."""
    t0 = time.time()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        out, err, status = proc.stdout, proc.stderr, proc.returncode
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        err, status = f"timed out after {timeout} s (a hang?)", "timeout"
    rows = [json.loads(line[7:]) for line in out.splitlines() if line.startswith("RESULT ")]
    return rows, status, err, time.time() - t0


def report_child(label, rows, status, err, seconds):
    """Prints a child's rows (its TFLOP/s figures, or its error) as they come,
    then how it ended and, if it failed, the end of its stderr."""
    for r in rows:
        print(f"  {r['config']}: " + ", ".join(
            f"{k[:-7]} {r[k]:.1f}" for k in r if k.endswith("_tflops")) + " TFLOP/s"
            + (f" ERROR {r['error']}" if "error" in r else ""), flush=True)
    print(f"[{label}] exit {status} in {seconds:.0f} s, {len(rows)} results", flush=True)
    if status != 0:
        print("\n".join(err.strip().splitlines()[-15:]), flush=True)


def write_results(out, stem, device, rows, keys):
    """Writes OUT/STEM.json (the device and every row) and OUT/STEM.csv (the
    columns `keys`); returns matplotlib's pyplot for the PNG, or None (with a
    message) where matplotlib is not installed."""
    import csv
    import os
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, f"{stem}.json"), "w") as f:
        json.dump(dict(device=device, rows=rows), f, indent=1)
    with open(os.path.join(out, f"{stem}.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, keys, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow(r)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print(f"matplotlib is not installed: no PNG, see {stem}.csv")
        return None
    return plt


def bar_chart(plt, out, stem, rows, sides, title, label=None, peak=None):
    """OUT/STEM.png: grouped bars of the rows without an error, one bar per
    (key, legend) of `sides`, TFLOP/s; x labels from `label(row)` (default:
    the config, "causal" on its own line); `peak`: (TFLOP/s, legend) of a
    horizontal line."""
    import os
    good = [r for r in rows if "error" not in r]
    label = label or (lambda r: r["config"].replace(" causal", "\ncausal"))
    fig, ax = plt.subplots(figsize=(12, 5))
    width = 0.8 / len(sides)
    for n, (key, legend) in enumerate(sides):
        ax.bar([i + (n - (len(sides) - 1) / 2) * width for i in range(len(good))],
               [r.get(key) or 0 for r in good], width, label=legend)
    if peak:
        ax.axhline(peak[0], color="gray", linestyle=":", label=peak[1])
    ax.set_xticks(range(len(good)))
    ax.set_xticklabels([label(r) for r in good], fontsize=7, rotation=30, ha="right")
    ax.set_ylabel("TFLOP/s")
    ax.set_title(title, fontsize=9)
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(out, f"{stem}.png"), dpi=120)
    plt.close(fig)


def fmt(x, spec=".1f"):
    return "-" if x is None else format(x, spec)
