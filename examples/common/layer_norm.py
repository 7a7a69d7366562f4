"""LayerNorm over the last dimension: y = (x - mean) / sqrt(var + eps) * w + b.

One CTA per row (grid = B), the row in registers; two passes over the
registers (mean, then the variance of x - mean, which is more accurate than
E[x^2] - mean^2), each a warp-shuffle + shared-memory block reduction.
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

from examples.common._rows import BlockReducer, RowPlan, load_row, prologue, store_row  # noqa: E402


def build_layer_norm(B: int, N: int, eps: float = 1e-5, arch: str = "sm_90a",
                     threads: int | None = None):
    """Kernel layer_norm(X[B, N], W[N], Bias[N]) -> Y[B, N], f32."""
    plan = RowPlan(N, threads)

    @kernel(in_specs=(Tile(B, N, f32), Tile(N, f32), Tile(N, f32)),
            out_specs=(Tile(B, N, f32),),
            grid=(B, 1, 1), block=(plan.threads, 1, 1), arch=arch)
    def layer_norm(X, W, Bias, Y):
        tid, (px, py), (pw, pb) = prologue(plan, (X, Y), (W, Bias))
        reduce = BlockReducer(plan, tid, reductions=2)
        x = reg.array(f32, plan.per_thread)
        load_row(plan, px, x)
        w = reg.array(f32, plan.per_thread)   # issued early: overlaps the reductions
        b = reg.array(f32, plan.per_thread)
        load_row(plan, pw, w, space="global.nc")
        load_row(plan, pb, b, space="global.nc")
        s = reg.scalar(f32)
        ptx.add(s, x[0], x[1]) if len(x) > 1 else ptx.mov(s, x[0])
        for v in x[2:]:
            ptx.add(s, s, v)
        total = reduce(s, "add")
        mean = reg.scalar(f32)
        ptx.mul(mean, total, 1.0 / N)
        for v in x:                       # x <- x - mean
            ptx.sub(v, v, mean)
        q = reg.scalar(f32)
        ptx.mul(q, x[0], x[0])
        for v in x[1:]:
            ptx.fma(q, v, v, q)
        qtotal = reduce(q, "add")
        rstd = reg.scalar(f32)
        ptx.fma(rstd, qtotal, 1.0 / N, float(eps))       # var + eps
        ptx.inst.rsqrt.approx.ftz.f32(rstd, rstd)
        for xv, wv, bv in zip(x, w, b):
            ptx.mul(xv, xv, rstd)
            ptx.fma(xv, xv, wv, bv)
        store_row(plan, py, x)
        ptx.ret()

    return layer_norm


def reference(x, w, b, eps: float = 1e-5):
    x = np.asarray(x, np.float32)
    mean = np.mean(x, axis=-1, keepdims=True, dtype=np.float32)
    d = x - mean
    var = np.mean(d * d, axis=-1, keepdims=True, dtype=np.float32)
    y = d / np.sqrt(var + np.float32(eps)) * np.asarray(w, np.float32) \
        + np.asarray(b, np.float32)
    return y.astype(np.float32)


if __name__ == "__main__":
    print(build_layer_norm(16, 1024).ptx(), end="")
