#!/usr/bin/env python3
"""Host cost of a pyptx kernel under torch.compile, measured on the CPU.

No GPU needed: the kernel's launch is replaced by the same arithmetic on
the CPU tensor (x += 1 / y = x + 1), so what is timed is what
torch.compile puts around a pyptx call (Dynamo's guards, AOTAutograd's
wrapper, Inductor's generated code and its call of the op's implementation, our
Python) beside the same compiled function with PyTorch's own op.
--profile prints cProfile's top entries of one compiled pyptx call.

usage: compiled_overhead_cpu.py [--calls N] [--rounds K] [--profile ROW]
"""
import argparse
import cProfile
import math
import os
import pstats
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [os.path.join(ROOT, "python"), ROOT]

os.environ.setdefault("PYPTX_ARCH", "sm_90a")  # no GPU to ask
import torch  # noqa: E402

from benchmarks.launch_overhead import trivial_kernels  # noqa: E402
from pyptx.runtime.torch import launcher  # noqa: E402


def cpu_stand_ins(add_one, plus_one):
    """The kernels' launches done on the CPU tensor instead of the GPU."""
    def add_one_eager(inputs, raws, template, out=None, remember=False):
        inputs[0].add_(1)

    def plus_one_eager(inputs, raws, template, out=None, remember=False):
        return torch.add(inputs[0], 1, out=out)  # out=: Inductor's buffer
    launcher(add_one).eager = add_one_eager
    launcher(plus_one).eager = plus_one_eager


def per_call(fns, calls, rounds):
    """Best over rounds of each function's time per call, in microseconds;
    the functions interleaved round by round (the machine's load is shared)."""
    for fn in fns:
        for _ in range(200):
            fn()
    best = [math.inf] * len(fns)
    for _ in range(rounds):
        for i, fn in enumerate(fns):
            t = time.process_time()
            for _ in range(calls):
                fn()
            best[i] = min(best[i], (time.process_time() - t) / calls * 1e6)
    return best


def rows(mode):
    add_one, plus_one = trivial_kernels()
    cpu_stand_ins(add_one, plus_one)
    x = torch.zeros(32)

    def compiled(fn):
        return torch.compile(fn, fullgraph=True, mode=mode)
    return {
        "in place": (compiled(lambda t: t.add_(1)), compiled(lambda t: add_one(t)), x),
        "in place, then t * 2": (compiled(lambda t: (t.add_(1), t * 2)[1]),
                                 compiled(lambda t: (add_one(t), t * 2)[1]), x),
        "out of place": (compiled(lambda t: t + 1), compiled(lambda t: plus_one(t)), x),
        "out of place, then * 2": (compiled(lambda t: (t + 1) * 2),
                                   compiled(lambda t: plus_one(t) * 2), x),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--mode", default=None)
    parser.add_argument("--profile", help="a row's name: cProfile of its pyptx side")
    parser.add_argument("--side", type=int, default=1, help="with --profile: 0 torch's")
    args = parser.parse_args()
    table = rows(args.mode)
    if args.profile:
        ours, x = table[args.profile][args.side], table[args.profile][2]
        ours(x)
        prof = cProfile.Profile()
        prof.enable()
        for _ in range(args.calls):
            ours(x)
        prof.disable()
        pstats.Stats(prof).sort_stats("tottime").print_stats(30)
        return
    print(f"torch {torch.__version__}, CPU; us of CPU time per call, best of {args.rounds} x "
          f"{args.calls}")
    for name, (theirs, ours, x) in table.items():
        t, o = per_call([lambda: theirs(x), lambda: ours(x)], args.calls, args.rounds)
        print(f"  {name:24s} torch {t:7.2f}  pyptx {o:7.2f}  {o / t:5.2f}x")


if __name__ == "__main__":
    main()
