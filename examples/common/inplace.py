"""Kernels that write their input in place.

- add_one(X): X += 1, element-wise; no outputs.
- add_one_copy(X) -> Y: Y = X, then X += 1 (an output and an in-place input).
- scale_tma(X): X *= 2 through shared memory: a TMA load of the R x C tile,
  each thread scales its part, a TMA store writes the tile back to X (sm_90a).

None of them says what it writes: the dialect's ParamEffects analysis finds
X (TracedModule.writes), so under torch.compile X is a mutated argument of
the custom op and under JAX an output aliasing the input X.
"""
from __future__ import annotations

import os
import sys

if __package__ in (None, ""):  # run as a script: make `examples` importable
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

import numpy as np  # noqa: E402

import examples.common  # noqa: E402,F401  (makes pyptx importable)
from pyptx import Tile, kernel, ptx, reg, smem  # noqa: E402
from pyptx.types import f32, s32, u32, u64  # noqa: E402


def _element(N: int, threads: int, pointers):
    """Each thread's element index i (returns past N) and the pointers
    advanced to element i."""
    tid = reg.from_(ptx.special.tid.x(), u32)
    cta = reg.from_(ptx.special.ctaid.x(), u32)
    i = reg.scalar(u32)
    ptx.fma(i, cta, threads, tid)
    if N % threads:
        ptx.ret(pred=i >= N)
    off = reg.scalar(u64)
    ptx.inst.mul.wide.u32(off, i, 4)
    for p in pointers:
        p += off
    return pointers


def build_add_one(N: int, arch: str = "sm_90a", threads: int = 128):
    """Kernel add_one(X[N] f32): X += 1 in place, no outputs."""

    @kernel(in_specs=(Tile(N, f32),), grid=(-(-N // threads), 1, 1),
            block=(threads, 1, 1), arch=arch)
    def add_one(X):
        (px,) = _element(N, threads, list(ptx.global_ptrs(X)))
        v = reg.scalar(f32)
        ptx.inst.ld.global_.f32(v, ptx.addr(px))
        ptx.add(v, v, 1.0)
        ptx.inst.st.global_.f32(ptx.addr(px), v)
        ptx.ret()

    return add_one


def build_add_one_copy(N: int, arch: str = "sm_90a", threads: int = 128):
    """Kernel add_one_copy(X[N] f32) -> Y[N] f32: Y = X, then X += 1."""

    @kernel(in_specs=(Tile(N, f32),), out_specs=(Tile(N, f32),),
            grid=(-(-N // threads), 1, 1), block=(threads, 1, 1), arch=arch)
    def add_one_copy(X, Y):
        px, py = _element(N, threads, list(ptx.global_ptrs(X, Y)))
        v = reg.scalar(f32)
        ptx.inst.ld.global_.f32(v, ptx.addr(px))
        ptx.inst.st.global_.f32(ptx.addr(py), v)
        ptx.add(v, v, 1.0)
        ptx.inst.st.global_.f32(ptx.addr(px), v)
        ptx.ret()

    return add_one_copy


THREADS = 128


def build_scale_tma(R: int = 64, C: int = 64, arch: str = "sm_90a"):
    """Kernel scale_tma(X[R, C] f32): X *= 2 in place, one CTA, TMA both
    ways (R, C <= 256; R * C a multiple of 128)."""

    @kernel(in_specs=(Tile(R, C, f32),), grid=(1, 1, 1), block=(THREADS, 1, 1),
            arch=arch)
    def scale_tma(X):
        desc = X.tma_desc(box=(R, C))
        buf = smem.alloc(f32, (R, C))
        bar = smem.mbarrier(1)
        tid = reg.from_(ptx.special.tid.x(), u32)
        sbuf = reg.from_(buf, u32)
        sbar = reg.from_(bar, u32)
        zero = reg.scalar(s32, init=0)
        with ptx.if_(tid == 0):
            ptx.inst.mbarrier.init.shared__cta.b64(ptx.addr(sbar), 1)
            ptx.inst.fence.proxy.async_.shared__cta()
            ptx.inst.mbarrier.arrive.expect_tx.shared__cta.b64(
                ptx.sink, ptx.addr(sbar), R * C * 4)
            ptx.inst.cp.async_.bulk.tensor._2d.shared__cluster.global_.mbarrier__complete_tx__bytes(
                ptx.addr(sbuf), ptx.tensor_addr(desc, zero, zero), ptx.addr(sbar))
        ptx.bar.sync(0)
        done = reg.pred()
        wait = ptx.label("wait")
        ptx.inst.mbarrier.try_wait.parity.shared__cta.b64(done, ptx.addr(sbar), 0)
        ptx.bra(wait, pred=~done)
        value = reg.scalar(f32)
        for j in range(R * C // THREADS):
            offset = reg.from_(tid + j * THREADS, u32) * 4
            ptx.inst.ld.shared.f32(value, ptx.addr(sbuf + offset))
            ptx.add(value, value, value)
            ptx.inst.st.shared.f32(ptx.addr(sbuf + offset), value)
        # The generic-proxy writes must be visible to the TMA (async proxy).
        ptx.inst.fence.proxy.async_.shared__cta()
        ptx.bar.sync(0)
        with ptx.if_(tid == 0):
            ptx.cp.async_.bulk.tensor_2d.store(dst=desc, src=buf, coord=(0, 0))
            ptx.cp.async_.bulk.commit_group()
            ptx.cp.async_.bulk.wait_group(0)
        ptx.ret()

    return scale_tma


def reference_add_one(x):
    return (np.asarray(x, np.float32) + np.float32(1)).astype(np.float32)


def reference_scale(x):
    return (np.asarray(x, np.float32) * np.float32(2)).astype(np.float32)


if __name__ == "__main__":
    for build in (build_add_one, build_add_one_copy):
        print(build(1024).ptx(), end="")
    print(build_scale_tma().ptx(), end="")
