#!/usr/bin/env python3
"""Microseconds per launch of a trivial kernel (add 1 to 32 floats, in
place) through pyptx's eager path, torch.compile and a replayed CUDA graph,
beside PyTorch's own ``x.add_(1)`` eager and in a replayed graph, measured
in the same run; and, when JAX sees the GPU, a jax.jit function calling a
kernel (y = x + 1 into a new array) beside jax.jit of ``x + 1``. Each figure is the median of --rounds rounds of --launches
back-to-back launches timed on the host (synchronised before and after).

usage: launch_overhead.py [--launches N] [--rounds K]
"""
import argparse
import os
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [os.path.join(ROOT, "python"), ROOT]

import torch  # noqa: E402

from pyptx import Tile, kernel, ptx, reg  # noqa: E402
from pyptx.types import f32, u32  # noqa: E402


@kernel(in_specs=(Tile(32, f32),), grid=(1, 1, 1), block=(32, 1, 1), arch="auto")
def add_one(X):
    (px,) = ptx.global_ptrs(X)
    tid = reg.from_(ptx.special.tid.x(), u32)
    p = px + tid * 4
    v = reg.scalar(f32)
    ptx.inst.ld.global_.f32(v, ptx.addr(p))
    ptx.inst.add.f32(v, v, 1.0)
    ptx.inst.st.global_.f32(ptx.addr(p), v)
    ptx.ret()


@kernel(in_specs=(Tile(32, f32),), out_specs=(Tile(32, f32),), grid=(1, 1, 1),
        block=(32, 1, 1), arch="auto")
def plus_one(X, Y):
    px, py = ptx.global_ptrs(X, Y)
    off = reg.from_(ptx.special.tid.x(), u32) * 4
    v = reg.scalar(f32)
    ptx.inst.ld.global_.f32(v, ptx.addr(px + off))
    ptx.inst.add.f32(v, v, 1.0)
    ptx.inst.st.global_.f32(ptx.addr(py + off), v)
    ptx.ret()


def per_launch(fn, launches, rounds, sync=torch.cuda.synchronize):
    """Median over rounds of the host time per call, in microseconds."""
    for _ in range(100):
        fn()
    sync()
    times = []
    for _ in range(rounds):
        t = time.perf_counter()
        for _ in range(launches):
            fn()
        sync()
        times.append((time.perf_counter() - t) / launches * 1e6)
    return statistics.median(times)


def jax_rows():
    """(name, fn, sync) rows for jax.jit, or [] where JAX has no GPU."""
    # JAX would otherwise take most of the GPU's memory next to PyTorch.
    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
    try:
        import jax
        import jax.numpy as jnp
        if jax.default_backend() != "gpu":
            return []
    except ImportError:
        return []
    x = jnp.zeros(32, jnp.float32)
    ours, theirs = jax.jit(lambda a: plus_one(a)), jax.jit(lambda a: a + 1)
    assert float(ours(x)[0]) == 1.0, "plus_one under jax.jit computed wrong"
    state = {}

    def run(f):
        def call():
            state["y"] = f(x)
        return call

    def sync():
        state["y"].block_until_ready()
    return [("jax.jit(x + 1)", run(theirs), sync),
            ("pyptx plus_one(x) under jax.jit", run(ours), sync)]


def graph_of(fn):
    fn()
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        fn()
    return g.replay


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--launches", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    x = torch.zeros(32, device="cuda")
    add_one(x)
    torch.cuda.synchronize()
    assert torch.equal(x, torch.ones_like(x)), f"add_one computed {x}"
    compiled = torch.compile(lambda t: add_one(t), fullgraph=True)

    rows = [
        ("torch x.add_(1), eager", lambda: x.add_(1)),
        ("pyptx add_one(x), eager", lambda: add_one(x)),
        ("pyptx under torch.compile", lambda: compiled(x)),
        ("torch x.add_(1), graph replay", graph_of(lambda: x.add_(1))),
        ("pyptx add_one(x), graph replay", graph_of(lambda: add_one(x))),
    ]
    results = {}
    for name, fn in rows:
        results[name] = per_launch(fn, args.launches, args.rounds)
    for name, fn, sync in jax_rows():
        rows.append((name, fn))
        results[name] = per_launch(fn, args.launches, args.rounds, sync)
    print(f"{torch.cuda.get_device_name()}, torch {torch.__version__}; "
          f"{args.launches} launches x {args.rounds} rounds, median us per launch:")
    for name, _ in rows:
        print(f"  {name:34s} {results[name]:7.2f}")
    eager = results["pyptx add_one(x), eager"] / results["torch x.add_(1), eager"]
    graph = (results["pyptx add_one(x), graph replay"] /
             results["torch x.add_(1), graph replay"])
    print(f"eager: pyptx / torch = {eager:.2f}x (target <= 1.5x); "
          f"graph replay: {graph:.2f}x (target <= 1.1x)")


if __name__ == "__main__":
    main()
