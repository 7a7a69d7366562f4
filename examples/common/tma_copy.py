"""A TMA copy (sm_90a): one CTA loads an R x C f32 tile of X into shared
memory with cp.async.bulk.tensor (the descriptor a kernel parameter,
X.tma_desc()), waits on an mbarrier, and its threads store the tile to Y."""
from __future__ import annotations

import os
import sys

if __package__ in (None, ""):  # run as a script: make `examples` importable
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

import examples.common  # noqa: E402,F401  (makes pyptx importable)
from pyptx import Tile, kernel, ptx, reg, smem  # noqa: E402
from pyptx.types import f32, s32, u32  # noqa: E402

THREADS = 128


def build_tma_copy(R: int = 64, C: int = 64, arch: str = "sm_90a"):
    @kernel(in_specs=(Tile(R, C, f32),), out_specs=(Tile(R, C, f32),),
            grid=(1, 1, 1), block=(THREADS, 1, 1), arch=arch)
    def tma_copy(X, Y):
        desc = X.tma_desc(box=(R, C))
        (py,) = ptx.global_ptrs(Y)
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
            ptx.inst.st.global_.f32(ptx.addr(py + offset), value)
        ptx.ret()

    return tma_copy


if __name__ == "__main__":
    print(build_tma_copy().ptx(), end="")
