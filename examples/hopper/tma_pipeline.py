"""Hopper (sm_90a) TMA pipeline: a tiled copy with row sums through a ring of
shared-memory stages.

Each CTA owns BM = 128 rows of X (M x N, f32) and walks them in tiles of
BN columns. Thread 0 loads the tiles with the TMA into a ring of STAGES
shared-memory stages; each stage has a `full` mbarrier (the TMA's bytes have
landed) and an `empty` one (all 128 threads have read it). Every thread adds
its row of the tile to its row sum, and thread 0 writes the tile back to Y
with a TMA store, then refills the stage with the tile STAGES ahead. Outputs:
Y = X and S = X.sum(axis=1).

    python examples/hopper/tma_pipeline.py [M N]    # prints the PTX
"""
from __future__ import annotations

import os
import sys

if __package__ in (None, ""):  # run as a script: make `examples` importable
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

import numpy as np  # noqa: E402

import examples.common  # noqa: E402,F401  (makes pyptx importable)
from pyptx import Tile, kernel, ptx, reg, smem  # noqa: E402
from pyptx.hw.mbarrier import pipeline  # noqa: E402
from pyptx.types import f32, u32  # noqa: E402

ARCH = "sm_90a"
BM = 128        # rows per CTA, one per thread
BN = 16         # columns per tile: a 64-byte inner box
STAGES = 3
THREADS = BM
TILE_BYTES = BM * BN * 4


def build_tma_pipeline(M: int = 256, N: int = 256, arch: str = ARCH):
    """The kernel for an M x N f32 matrix (M a multiple of 128, N of 16)."""
    if M % BM or N % BN:
        raise ValueError(f"M must be a multiple of {BM} and N of {BN}; got {M} x {N}")
    tiles = N // BN

    @kernel(in_specs=(Tile(M, N, f32),), out_specs=(Tile(M, N, f32), Tile(M, f32)),
            grid=(M // BM, 1, 1), block=(THREADS, 1, 1), arch=arch)
    def tma_pipeline(X, Y, S):
        load_desc = X.tma_desc(box=(BM, BN))
        store_desc = Y.tma_desc(box=(BM, BN))
        (sums,) = ptx.global_ptrs(S)
        buf = smem.alloc(f32, (STAGES, BM, BN))
        full = smem.mbarrier(STAGES)
        empty = smem.mbarrier(STAGES)
        tid = reg.from_(ptx.special.tid.x(), u32)
        row0 = reg.from_(ptx.special.ctaid.x(), u32) * BM
        leader = tid == 0

        # Barriers, then the first tiles of the ring.
        with ptx.if_(leader):
            for s in range(STAGES):
                ptx.mbarrier.init(full[s], 1)
                ptx.mbarrier.init(empty[s], THREADS)
            ptx.fence.proxy_async_shared_cta()
            for s in range(min(STAGES, tiles)):
                ptx.mbarrier.arrive_expect_tx(full[s], TILE_BYTES)
                ptx.cp.async_.bulk.tensor_2d(dst=buf[s], src=load_desc,
                                             coord=(s * BN, row0), mbar=full[s])
        ptx.bar.sync(0)

        # The ring, indexed by a stage register.
        fulls = ptx.mbarrier.array(reg.from_(full, u32), 0, STAGES)
        empties = ptx.mbarrier.array(reg.from_(empty, u32), 0, STAGES)
        ring = pipeline(STAGES)
        my_row = tid * (BN * 4)
        total = reg.scalar(f32, init=0.0)
        part = reg.array(f32, 4)
        for k in ptx.range_(0, tiles):
            stage, phase = ring.advance()
            tile = buf[stage]                       # [stage address]: mov + mad
            ready, free = fulls.at(stage), empties.at(stage)
            ready.wait(phase)
            row = tile.base + my_row
            for q in range(BN // 4):
                ptx.inst.ld.shared.v4.f32(part, ptx.addr(row, 16 * q))
                for x in part:
                    total += x
            free.arrive()
            with ptx.if_(leader):
                col = k * BN
                ptx.cp.async_.bulk.tensor_2d.store(dst=store_desc, src=tile, coord=(col, row0))
                ptx.cp.async_.bulk.commit_group()
                with ptx.if_(k + STAGES < tiles):
                    free.wait(phase)                          # every thread read it
                    ptx.cp.async_.bulk.wait_group(0, read=True)  # and so did the store
                    ready.arrive_expect_tx(TILE_BYTES)
                    ptx.cp.async_.bulk.tensor_2d(dst=tile, src=load_desc,
                                                 coord=(col + STAGES * BN, row0), mbar=ready)

        ptx.inst.st.global_.f32(ptx.addr(sums + (row0 + tid) * 4), total)
        with ptx.if_(leader):
            ptx.cp.async_.bulk.wait_group(0)
        ptx.ret()

    return tma_pipeline


def reference(x: np.ndarray):
    """(Y, S): the copy and the row sums (accumulated in float64)."""
    return x.copy(), x.astype(np.float64).sum(axis=1).astype(np.float32)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    M, N = (int(a) for a in argv[:2]) if len(argv) >= 2 else (256, 256)
    print(build_tma_pipeline(M, N).ptx(), end="")


if __name__ == "__main__":
    main()
