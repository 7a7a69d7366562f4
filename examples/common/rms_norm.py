"""RMSNorm over the last dimension: y = x / sqrt(mean(x^2) + eps) * w.

One CTA per row (grid = B); the row stays in registers between the
reduction and the scaling. Loads and stores are vectorised (v4 where N
allows), the sum of squares is reduced with warp shuffles and, across warps,
shared memory; 1/sqrt is rsqrt.approx.
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


def build_rms_norm(B: int, N: int, eps: float = 1e-6, arch: str = "sm_90a",
                   threads: int | None = None):
    """Kernel rms_norm(X[B, N], W[N]) -> Y[B, N], f32."""
    plan = RowPlan(N, threads)

    @kernel(in_specs=(Tile(B, N, f32), Tile(N, f32)), out_specs=(Tile(B, N, f32),),
            grid=(B, 1, 1), block=(plan.threads, 1, 1), arch=arch)
    def rms_norm(X, W, Y):
        tid, (px, py), (pw,) = prologue(plan, (X, Y), (W,))
        reduce = BlockReducer(plan, tid, reductions=1)
        x = reg.array(f32, plan.per_thread)
        load_row(plan, px, x)
        w = reg.array(f32, plan.per_thread)   # issued early: overlaps the reduction
        load_row(plan, pw, w, space="global.nc")
        sum_sq = reg.scalar(f32)
        ptx.mul(sum_sq, x[0], x[0])
        for v in x[1:]:
            ptx.fma(sum_sq, v, v, sum_sq)
        total = reduce(sum_sq, "add")
        rstd = reg.scalar(f32)
        ptx.fma(rstd, total, 1.0 / N, float(eps))       # mean(x^2) + eps
        ptx.inst.rsqrt.approx.ftz.f32(rstd, rstd)
        for xv, wv in zip(x, w):
            ptx.mul(xv, xv, rstd)
            ptx.mul(xv, xv, wv)
        store_row(plan, py, x)
        ptx.ret()

    return rms_norm


def reference(x, w, eps: float = 1e-6):
    x = np.asarray(x, np.float32)
    w = np.asarray(w, np.float32)
    ms = np.mean(x * x, axis=-1, keepdims=True, dtype=np.float32)
    return (x / np.sqrt(ms + np.float32(eps)) * w).astype(np.float32)


if __name__ == "__main__":
    print(build_rms_norm(16, 1024).ptx(), end="")
