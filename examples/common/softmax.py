"""Row-wise softmax: y = exp(x - max(x)) / sum(exp(x - max(x))).

One CTA per row (grid = B), the row in registers. Block max, then
exp(x - max) = ex2(x * log2(e) - max * log2(e)) (one fma + ex2.approx per
element), block sum, and a multiply by rcp.approx(sum).
"""
from __future__ import annotations

import os
import sys

if __package__ in (None, ""):  # run as a script: make `examples` importable
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

import examples.common  # noqa: E402,F401  (makes pyptx importable)
import numpy as np  # noqa: E402

from pyptx import Tile, kernel, ptx, reg  # noqa: E402
from pyptx.types import f32  # noqa: E402

from examples.common._rows import LOG2E, BlockReducer, RowPlan, load_row, prologue, store_row  # noqa: E402


def build_softmax(B: int, N: int, arch: str = "sm_90a", threads: int | None = None):
    """Kernel softmax(X[B, N]) -> Y[B, N], f32."""
    plan = RowPlan(N, threads)

    @kernel(in_specs=(Tile(B, N, f32),), out_specs=(Tile(B, N, f32),),
            grid=(B, 1, 1), block=(plan.threads, 1, 1), arch=arch)
    def softmax(X, Y):
        tid, (px, py), _ = prologue(plan, (X, Y), ())
        reduce = BlockReducer(plan, tid, reductions=2)
        x = reg.array(f32, plan.per_thread)
        load_row(plan, px, x)
        m = reg.scalar(f32)
        ptx.max(m, x[0], x[1]) if len(x) > 1 else ptx.mov(m, x[0])
        for v in x[2:]:
            ptx.max(m, m, v)
        row_max = reduce(m, "max")
        neg_max = reg.scalar(f32)
        ptx.mul(neg_max, row_max, -LOG2E)
        s = reg.scalar(f32, init=0.0)
        for v in x:                       # x <- exp(x - max)
            ptx.fma(v, v, LOG2E, neg_max)
            ptx.inst.ex2.approx.ftz.f32(v, v)
            ptx.add(s, s, v)
        total = reduce(s, "add")
        inv = reg.scalar(f32)
        ptx.inst.rcp.approx.ftz.f32(inv, total)
        for v in x:
            ptx.mul(v, v, inv)
        store_row(plan, py, x)
        ptx.ret()

    return softmax


def reference(x):
    x = np.asarray(x, np.float32)
    e = np.exp(x - np.max(x, axis=-1, keepdims=True))
    return (e / np.sum(e, axis=-1, keepdims=True, dtype=np.float32)).astype(np.float32)


if __name__ == "__main__":
    print(build_softmax(16, 1024).ptx(), end="")
