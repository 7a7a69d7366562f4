#!/usr/bin/env python3
"""How fast pyptx traces: microseconds per emitted PTX instruction.

Traces the seeds' rms_norm kernel (examples/seeds.py) at a width that
makes it emit over 5,000 instructions, with our package and, when given
--original DIR (the original Python pyptx, e.g. `pip install --target DIR
pyptx==0.1.1`), with that one too, in the same run, from the same source.
Each measurement runs in a fresh interpreter: the best of --repeat traces,
each `Kernel.ptx()` from scratch (trace, verify, print); for ours also the
trace alone (until the kernel function returns). --rounds interpreters per
package, alternating between the two, show how noisy the machine is; the
summary gives the best and the median round.

usage: trace_speed.py [--n N] [--repeat R] [--rounds K] [--original DIR]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# Runs inside the measured interpreter (PYTHONPATH: the package measured,
# then the repository for examples/seeds.py); prints one JSON line.
KERNEL = r'''
import json, sys, time
from examples.seeds import build_rms_norm

# Ours only: when the trace ends (before verification and printing).
marks = {}
try:
    from pyptx._trace import TraceContext
except ImportError:
    TraceContext = None
if TraceContext is not None and hasattr(TraceContext, "finish"):
    _finish = TraceContext.finish
    def finish(self):
        marks["traced"] = time.perf_counter()
        return _finish(self)
    TraceContext.finish = finish

N, repeat = int(sys.argv[1]), int(sys.argv[2])
best = best_trace = None
for _ in range(repeat):
    k = build_rms_norm(4, N)
    t = time.perf_counter()
    text = k.ptx()
    best = min(best or 1e9, time.perf_counter() - t)
    if "traced" in marks:
        best_trace = min(best_trace or 1e9, marks["traced"] - t)
lines = [l for l in text.splitlines()
         if l.strip() and l.strip()[0] not in ".{}/" and not l.strip().endswith(":")]
print(json.dumps({"seconds": best, "trace_seconds": best_trace,
                  "instructions": len(lines)}))
'''


def measure(path_entries, n, repeat):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(path_entries + [ROOT]))
    out = subprocess.run([sys.executable, "-c", KERNEL, str(n), str(repeat)],
                         env=env, capture_output=True, text=True)
    if out.returncode:
        sys.exit(f"trace failed:\n{out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def per_instruction(m, key="seconds"):
    return m[key] / m["instructions"] * 1e6


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=16384,
                        help="row width (items per thread = N/32); default 16384")
    parser.add_argument("--repeat", type=int, default=5,
                        help="traces per interpreter (the best counts); default 5")
    parser.add_argument("--rounds", type=int, default=3,
                        help="fresh interpreters per package, alternating; default 3")
    parser.add_argument("--original", help="directory holding the original pyptx package")
    args = parser.parse_args()
    ours, orig = [], []
    for r in range(args.rounds):
        ours.append(measure([os.path.join(ROOT, "python")], args.n, args.repeat))
        line = (f"round {r + 1}: pyptx {per_instruction(ours[-1]):.2f} us per instruction "
                f"(trace alone {per_instruction(ours[-1], 'trace_seconds'):.2f})")
        if args.original:
            orig.append(measure([args.original], args.n, args.repeat))
            line += f"; original pyptx {per_instruction(orig[-1]):.2f}"
        print(line, flush=True)

    def summary(runs, key="seconds"):
        values = sorted(per_instruction(m, key) for m in runs)
        return f"best {values[0]:.2f}, median {statistics.median(values):.2f}"

    print(f"pyptx (this repo): rms_norm N={args.n}: {ours[0]['instructions']} instructions; "
          f"us per instruction (trace + verify + PTX, best of {args.repeat} per round, "
          f"{args.rounds} rounds): {summary(ours)}; the trace alone: "
          f"{summary(ours, 'trace_seconds')}")
    if args.original:
        print(f"original pyptx ({args.original}): {orig[0]['instructions']} instructions; "
              f"us per instruction: {summary(orig)}")
        ratios = sorted(per_instruction(o) / per_instruction(u) for o, u in zip(orig, ours))
        print(f"ratio (original / ours, per round): {', '.join(f'{x:.1f}x' for x in ratios)}")
    else:
        print("original pyptx: not measured (pass --original DIR after "
              "`pip install --target DIR pyptx==0.1.1`)")


if __name__ == "__main__":
    main()
