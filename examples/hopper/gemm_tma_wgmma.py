"""Hopper (sm_90a) bf16 GEMM with TMA and wgmma: C = A @ B_T.T, f32 out.

A is M x K and B_T is N x K, both bf16 and row-major (K-major operands,
the layout wgmma reads without transposing). One CTA of one warpgroup
(128 threads) computes a BM x BN = 64 x 128 tile of C:

- thread 0 loads BM x BK and BN x BK tiles (BK = 64: one 128-byte swizzled
  row of bf16) with the TMA into a ring of STAGES shared-memory stages,
  each guarded by a `full` mbarrier (the bytes landed) and an `empty` one
  (all 128 threads are done with the stage);
- the warpgroup issues 4 wgmma.mma_async m64n128k16 per stage, stepping
  the descriptors 32 bytes along K, into 64 f32 accumulator registers;
- every thread stores its accumulator fragment to C.

Correct before fast: one warpgroup, a wait after each stage's wgmmas. The
stages take 72 KiB, so the kernel runs on dynamic shared memory.

    python examples/hopper/gemm_tma_wgmma.py [M N K]    # prints the PTX
"""
from __future__ import annotations

import os
import sys

if __package__ in (None, ""):  # run as a script: make `examples` importable
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

import numpy as np  # noqa: E402

import examples.common  # noqa: E402,F401  (makes pyptx importable)
from pyptx import Tile, kernel, ptx, reg, smem  # noqa: E402
from pyptx.types import bf16, f32, u32  # noqa: E402

ARCH = "sm_90a"
BM, BN, BK = 64, 128, 64
STAGES = 3
THREADS = 128
STAGE_BYTES = (BM + BN) * BK * 2


def build_gemm(M: int = 256, N: int = 256, K: int = 256, arch: str = ARCH):
    """The kernel for A (M x K), B_T (N x K) -> C (M x N), each a multiple
    of the tile (M of 64, N of 128, K of 64)."""
    if M % BM or N % BN or K % BK:
        raise ValueError(f"gemm tiles are {BM} x {BN} x {BK}: M must be a multiple of {BM}, "
                         f"N of {BN} and K of {BK}; got M={M} N={N} K={K}")
    k_tiles = K // BK

    @kernel(in_specs=(Tile(M, K, bf16), Tile(N, K, bf16)), out_specs=(Tile(M, N, f32),),
            grid=(N // BN, M // BM, 1), block=(THREADS, 1, 1), arch=arch)
    def gemm(A, B_T, C):
        a_desc = A.tma_desc(box=(BM, BK), swizzle="128B")
        b_desc = B_T.tma_desc(box=(BN, BK), swizzle="128B")
        (pc,) = ptx.global_ptrs(C)
        sA = smem.wgmma_tile(bf16, (STAGES, BM, BK), major="K")
        sB = smem.wgmma_tile(bf16, (STAGES, BN, BK), major="K")
        full = smem.mbarrier(STAGES)
        empty = smem.mbarrier(STAGES)
        tid = reg.from_(ptx.special.tid.x(), u32)
        n0 = reg.from_(ptx.special.ctaid.x(), u32) * BN
        m0 = reg.from_(ptx.special.ctaid.y(), u32) * BM
        leader = tid == 0

        def load(stage, bar, k):
            ptx.mbarrier.arrive_expect_tx(bar, STAGE_BYTES)
            ptx.cp.async_.bulk.tensor_2d(dst=sA[stage], src=a_desc, coord=(k * BK, m0),
                                         mbar=bar)
            ptx.cp.async_.bulk.tensor_2d(dst=sB[stage], src=b_desc, coord=(k * BK, n0),
                                         mbar=bar)

        with ptx.if_(leader):
            for s in range(STAGES):
                ptx.mbarrier.init(full[s], 1)
                ptx.mbarrier.init(empty[s], THREADS)
            ptx.fence.proxy_async_shared_cta()
            for s in range(min(STAGES, k_tiles)):
                load(s, full[s], s)
        ptx.bar.sync(0)

        acc = reg.wgmma_frag(m=BM, n=BN, dtype=f32)
        for r in acc:
            ptx.inst.mov.f32(r, 0.0)
        fulls = ptx.mbarrier.array(reg.from_(full, u32), 0, STAGES)
        empties = ptx.mbarrier.array(reg.from_(empty, u32), 0, STAGES)
        ring = ptx.pipeline(STAGES)
        for k in ptx.range_(0, k_tiles):
            stage, phase = ring.advance()
            fulls.at(stage).wait(phase)
            ptx.wgmma.fence()
            a_tile, b_tile = sA[stage], sB[stage]
            for j in range(BK // 16):
                ptx.wgmma.mma_async(shape=(BM, BN, 16), dtype_d=f32, dtype_a=bf16,
                                    dtype_b=bf16, d=acc, a=a_tile, b=b_tile, scale_d=True,
                                    a_k_offset=32 * j, b_k_offset=32 * j)
            ptx.wgmma.commit_group()
            ptx.wgmma.wait_group(0)
            free = empties.at(stage)
            free.arrive()
            with ptx.if_(leader):
                with ptx.if_(k + STAGES < k_tiles):
                    free.wait(phase)      # every thread is done with the stage
                    load(stage, fulls.at(stage), k + STAGES)

        # The accumulator fragment of m64nNk16: thread t of warp w holds rows
        # w*16 + t/4 (+8) and, per 8-column group j, columns j*8 + 2*(t%4) (+1).
        lane = tid & 31
        row = m0 + (tid >> 5) * 16 + (lane >> 2)
        col = n0 + (lane & 3) * 2
        out = pc + reg.from_(row * N + col, u32) * 4
        for j in range(BN // 8):
            for half in range(2):
                pair = [acc[4 * j + 2 * half], acc[4 * j + 2 * half + 1]]
                ptx.inst.st.global_.v2.f32(ptx.addr(out, 4 * (8 * half * N + 8 * j)), pair)
        ptx.ret()

    return gemm


def reference(a: np.ndarray, b_t: np.ndarray) -> np.ndarray:
    """C = A @ B_T.T in float64 (inputs as given, e.g. bf16 values)."""
    return a.astype(np.float64) @ b_t.astype(np.float64).T


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    M, N, K = (int(a) for a in argv[:3]) if len(argv) >= 3 else (256, 256, 256)
    print(build_gemm(M, N, K).ptx(), end="")


if __name__ == "__main__":
    main()
