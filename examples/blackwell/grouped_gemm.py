"""Blackwell (sm_100a) grouped GEMM for mixture-of-experts layers on tcgen05,
bf16 in, f32 accumulation in Tensor Memory, bf16 or f32 out, built from the
pieces of pyptx.pipeline.tcgen05_gemm (the TMA producer thread, the MMA
thread with double-buffered TMEM accumulators, the epilogue warps) and the
expert tile scheduler of pyptx.pipeline.scheduler.

``build_grouped_gemm(T, N, K, G)``: variable tokens per expert, as
``torch._grouped_mm`` takes them. A is (T, K) with the rows of expert g from
``offs[g-1]`` to ``offs[g]`` (offs: G int32 cumulative row ends, offs[-1] <=
T), B is (G*N, K) (expert g's N x K weight, K-major), C is (T, N); rows
past offs[-1] are not written. At the start every CTA turns offs into
per-expert tile counts and their prefix sums in shared memory (one thread
per expert); each tile index then maps to (expert, m tile, n tile) by a
short search from the expert of the previous tile. Tiles are 128 x bn; rows
past an expert's end are loaded (rows of C depend only on their row of A,
and TMA fills rows past T with zeros) but not stored: the epilogue's stores
are predicated on the expert's row end.

G problems of one shape (A (G*M, K), B (G*N, K), C (G*M, N)) are the case
offs = [M, 2M, ..., G*M] (``uniform_offsets``).

One CTA per 128-row tile (cta_group 1). Not run on a Blackwell GPU yet
(none was available): the kernel assembles with ptxas -arch=sm_100a, and
test/gpu/test_blackwell.py checks it where one is.

    python examples/blackwell/grouped_gemm.py     # prints the PTX
"""
from __future__ import annotations

import os
import sys

if __package__ in (None, ""):  # run as a script: make `examples` importable
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

import numpy as np  # noqa: E402

import examples.common  # noqa: E402,F401  (makes pyptx importable)
from pyptx import Tile, kernel, ptx, reg  # noqa: E402
from pyptx.pipeline import tcgen05_gemm as tc  # noqa: E402
from pyptx.pipeline.scheduler import ExpertScheduler, expert_tiles  # noqa: E402
from pyptx.pipeline.tcgen05_gemm import BK, BM, THREADS, Config, GemmTile, Tcgen05Tiles  # noqa: E402
from pyptx.specs import Layout  # noqa: E402
from pyptx.types import bf16, s32, u32  # noqa: E402

ARCH = "sm_100a"
MAX_EXPERTS = THREADS       # one thread per expert builds the schedule


def schedule_bytes(G: int) -> int:
    """Shared memory of the schedule: first row, row end, first tile per expert."""
    return ExpertScheduler.smem_bytes(G)


def build_grouped_gemm(T: int, N: int, K: int, G: int, *, out_dtype=bf16, bn: int = 256,
                       stages: int | None = None, epi_cols: int = 32,
                       num_sms: int = tc.NUM_SMS, arch: str = ARCH):
    """C (T, N) with rows offs[g-1]:offs[g] = those rows of A (T, K) @ B_g.T,
    B_g = B[g*N:(g+1)*N] (B is (G*N, K)), offs a (G,) int32 tensor of
    cumulative row ends. N must be a multiple of bn (64, 128 or 256), K of
    64, 1 <= G <= 192. stages: ring depth (default: as many as fit, <= 6)."""
    if N % bn or K % BK or not 1 <= G <= MAX_EXPERTS or T < 1:
        raise ValueError(f"grouped gemm: N must be a multiple of bn={bn}, K of {BK}, "
                         f"1 <= G <= {MAX_EXPERTS}, T >= 1; got T={T} N={N} K={K} G={G}")
    extra = schedule_bytes(G)
    cfg = Config(bn=bn, stages=stages or 2, out_dtype=out_dtype, k_tiles=K // BK,
                 epi_cols=epi_cols)
    cfg.stages = stages or tc.fit_stages(cfg, extra)
    tc.check_config(cfg, extra)
    n_tiles = N // bn

    @kernel(in_specs=(Tile(T, K, bf16, Layout.TMA_128B, tma_box=(BM, BK)),
                      Tile(G * N, K, bf16, Layout.TMA_128B, tma_box=(bn, BK)),
                      Tile(G, s32)),
            out_specs=(Tile(T, N, out_dtype),), grid=(num_sms, 1, 1), block=(THREADS, 1, 1),
            arch=arch)
    def grouped_gemm(A, B, offs, C):
        a_desc, b_desc = A.tma_desc(), B.tma_desc()
        p_offs, pc = ptx.global_ptrs(offs, C)
        tiles = Tcgen05Tiles(cfg)
        experts = ExpertScheduler(G, n_tiles, bm=BM, bn=bn)
        tid = reg.from_(ptx.special.tid.x(), u32)
        experts.build(tid, p_offs, count_first=False)
        # (the ring's start-up barrier publishes the schedule)

        def schedule(body):
            experts(lambda e: body(GemmTile(a_row=e.row, b_row=e.expert * N + e.n0, c_row=e.row,
                                            c_col=e.n0, row_limit=e.row_end)), ctas=num_sms)

        tc.run_roles(cfg, tiles, tid, a_desc=a_desc, b_desc=b_desc, pc=pc, ldc=N,
                        schedule=schedule)
        ptx.ret()

    grouped_gemm.config = cfg
    return grouped_gemm


def uniform_offsets(G: int, M: int) -> np.ndarray:
    """offs of G problems of M rows each: [M, 2M, ..., G*M] (int32)."""
    return (np.arange(1, G + 1) * M).astype(np.int32)


def tile_schedule(offs, N: int, bn: int = 256):
    """Python mirror of the kernel's schedule: (expert, first row, row end,
    column) of every tile, in tile-index order."""
    return expert_tiles(offs, N, BM, bn)


def reference(a, b, offs):
    """float64 C (T, N) for A (T, K), B (G*N, K), offs (G,) row ends; rows
    past offs[-1] are NaN (not written by the kernel)."""
    G = len(offs)
    N = b.shape[0] // G
    out = np.full((a.shape[0], N), np.nan)
    start = 0
    for g, end in enumerate(int(o) for o in offs):
        out[start:end] = a[start:end].astype(np.float64) @ b[g * N:(g + 1) * N].astype(
            np.float64).T
        start = end
    return out


def main(argv=None):
    print(build_grouped_gemm(4096, 768, 2048, 8).ptx(), end="")


if __name__ == "__main__":
    main()
