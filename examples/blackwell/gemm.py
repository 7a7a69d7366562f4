"""Blackwell (sm_100a) persistent, warp-specialised bf16 GEMM on tcgen05:
C = A @ B.T, f32 accumulation in Tensor Memory, bf16 or f32 out.

A is M x K and B is N x K, both row-major (K-major operands, the layout of
a linear layer's weight). Each CTA has 192 threads in three roles, after
CUTLASS's sm100 kernels:

- warp 0, one thread: the TMA producer. It loads 128 x 64 A tiles and
  bn x 64 B tiles (128-byte swizzle) into a ring of ``stages`` shared-memory
  stages; ``full[s]`` counts the bytes in (``arrive.expect_tx``), ``empty[s]``
  says the tensor core has finished reading the stage;
- warp 1: allocates 2 x bn TMEM columns (two accumulators, so that the
  epilogue of one tile overlaps the MMAs of the next) and frees them at the
  end; its first thread issues ``tcgen05.mma.kind::f16`` (M 128, N bn, K 16,
  four per k tile, descriptors stepped 32 bytes along the swizzled rows),
  then ``tcgen05.commit`` to ``empty[s]`` (the stage is free once those MMAs
  completed) and, after the last k tile, to ``acc_full[b]``;
- warps 2-5: the epilogue. Warp w may touch TMEM lanes 32 (w % 4) ..
  + 31, which are rows of the tile; ``tcgen05.ld.32x32b`` gives each thread
  one row, ``epi_cols`` columns at a time; the rows are converted and stored
  to global memory, and after the last load every thread arrives on
  ``acc_empty[b]`` (after ``tcgen05.fence::before_thread_sync``) so the MMA
  thread may overwrite that accumulator. With ``epilogue="tma"`` the rows
  go to a swizzled shared tile instead and one thread stores each chunk
  by TMA (pyptx.pipeline's TmaStore).

The grid is persistent (one CTA, or one CTA pair, per SM); tiles go M-first
(consecutive CTAs share a B tile in L2).

``cta_group=2`` is the 2-SM form: a cluster of two CTAs computes a 256 x bn
tile with ``tcgen05.mma.cta_group::2`` (M 256) issued by the even CTA.
Each CTA loads its own 128 rows of A and its half (bn / 2 rows) of B into
the same shared-memory offsets; the loads (``cp.async.bulk.tensor
.cta_group::2``) complete on the even CTA's ``full`` barrier (``mapa`` to
rank 0), which expects both CTAs' bytes. The MMA thread's commits are
multicast to both CTAs (mask 0b11): each CTA's producer waits on its own
``empty`` and each epilogue on its own ``acc_full``; the accumulator rows
128..255 land in the odd CTA's TMEM. Both CTAs allocate with
``tcgen05.alloc.cta_group::2`` from the same warp into the same slot; the
epilogue threads of both arrive on the even CTA's ``acc_empty`` (256
arrivals). Every tcgen05 instruction of that kernel says ``cta_group::2``.

The roles, the TMEM accumulator ring and the M-first scheduler are
pyptx.pipeline's (tcgen05_gemm, scheduler), shared with grouped_gemm.py.

M must be a multiple of 128 x cta_group, N of bn, K of 64. Not run on a
Blackwell GPU yet (none was available): the kernels assemble with ptxas
-arch=sm_100a, and test/gpu/test_blackwell.py checks them where one is.

    python examples/blackwell/gemm.py [M N K [2]]    # prints the PTX
"""
from __future__ import annotations

import os
import sys

if __package__ in (None, ""):  # run as a script: make `examples` importable
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

import numpy as np  # noqa: E402

import examples.common  # noqa: E402,F401  (makes pyptx importable)
from pyptx import Tile, kernel, ptx, reg  # noqa: E402
from pyptx.pipeline.scheduler import MFirstScheduler  # noqa: E402
from pyptx.pipeline.tcgen05_gemm import (BK, BM, K_MMA, NUM_SMS, SMEM_LIMIT,  # noqa: E402,F401
                                         THREADS, Config, GemmTile, Tcgen05Tiles,
                                         check_config, fit_stages, run_roles, smem_bytes)
from pyptx.specs import Layout  # noqa: E402
from pyptx.types import bf16, u32  # noqa: E402

ARCH = "sm_100a"


# -- the dense GEMM --------------------------------------------------------------------------

def check_shape(M, N, K, cfg):
    rows = BM * cfg.cta_group
    if M % rows or N % cfg.bn or K % BK or min(M, N, K) <= 0:
        raise ValueError(f"gemm: M must be a positive multiple of {rows} (128 x cta_group="
                         f"{cfg.cta_group}), N of bn={cfg.bn} and K of {BK}; got M={M} N={N} "
                         f"K={K} (pad the operands to these multiples)")


def build_gemm(M: int, N: int, K: int, *, out_dtype=bf16, cta_group: int = 1,
               bn: int = 256, stages: int | None = None, epi_cols: int = 32,
               epilogue: str = "direct", num_sms: int = NUM_SMS, arch: str = ARCH):
    """The kernel for A (M x K) and B (N x K), bf16 -> C = A @ B.T (M x N,
    out_dtype bf16 or f32). cta_group 1 (one CTA per 128 x bn tile) or 2
    (a CTA pair per 256 x bn tile, see the module doc). stages: the ring
    depth (default: as many as fit, at most 6). epi_cols: columns per
    tcgen05.ld of the epilogue. epilogue: "direct" (registers -> global) or
    "tma" (registers -> a swizzled shared tile -> one thread's TMA store per
    chunk; rows of epi_cols outputs must be 32, 64 or 128 bytes). num_sms:
    CTAs (pairs: 2 x pairs) of the persistent grid at most."""
    cfg = Config(bn=bn, stages=stages or 2, cta_group=cta_group, out_dtype=out_dtype,
                 k_tiles=K // BK, epi_cols=epi_cols, epilogue=epilogue)
    cfg.stages = stages or fit_stages(cfg)
    check_config(cfg)
    check_shape(M, N, K, cfg)
    m_tiles = M // (BM * cta_group)         # tiles of the CTA (pair)
    total = m_tiles * (N // bn)
    groups = min(max(num_sms // cta_group, 1), total)   # CTAs or pairs
    c_spec = Tile(M, N, out_dtype)
    if epilogue == "tma":    # 128 x epi_cols boxes, swizzled by their row span
        swizzled = {32: Layout.TMA_32B, 64: Layout.TMA_64B, 128: Layout.TMA_128B}
        c_spec = Tile(M, N, out_dtype, swizzled[cfg.epi_row_bytes], tma_box=(BM, epi_cols))

    @kernel(in_specs=(Tile(M, K, bf16, Layout.TMA_128B, tma_box=(BM, BK)),
                      Tile(N, K, bf16, Layout.TMA_128B, tma_box=(cfg.b_rows, BK))),
            out_specs=(c_spec,), grid=(groups * cta_group, 1, 1),
            block=(THREADS, 1, 1), cluster=(cta_group, 1, 1), arch=arch)
    def gemm(A, B, C):
        a_desc, b_desc = A.tma_desc(), B.tma_desc()
        (pc,), c_desc = (None,), None
        if epilogue == "tma":
            c_desc = C.tma_desc()
        else:
            (pc,) = ptx.global_ptrs(C)
        tiles = Tcgen05Tiles(cfg)
        tid = reg.from_(ptx.special.tid.x(), u32)
        m_first = MFirstScheduler(m_tiles, N // bn, bm=BM, bn=bn, ctas=groups,
                                  cluster=cta_group)

        def tile_of(m0, n0, rank):
            row = m0 + rank * BM if cta_group == 2 else m0
            b_row = n0 + rank * cfg.b_rows if cta_group == 2 else n0
            return GemmTile(a_row=row, b_row=b_row, c_row=row, c_col=n0)

        def schedule(body):
            """This CTA's tiles, M first: body(tile) for each."""
            m_first(lambda m0, n0, rank: body(tile_of(m0, n0, rank)))

        run_roles(cfg, tiles, tid, a_desc=a_desc, b_desc=b_desc, pc=pc, ldc=N,
                  schedule=schedule, c_desc=c_desc)
        ptx.ret()

    gemm.config = cfg
    return gemm


def cta_tiles(M: int, N: int, cfg: Config, num_sms: int = NUM_SMS) -> dict:
    """Python mirror of the kernel's schedule: {(cta, rank): [(a_row, b_row,
    c_row, c_col), ...]} for every CTA (rank: its place in the pair)."""
    rows = BM * cfg.cta_group
    m_tiles, total = M // rows, (M // rows) * (N // cfg.bn)
    groups = min(max(num_sms // cfg.cta_group, 1), total)
    out = {}
    for g in range(groups):
        for rank in range(cfg.cta_group):
            out[g, rank] = []
            for t in range(g, total, groups):
                n_tile, m_tile = divmod(t, m_tiles)
                row = m_tile * rows + rank * BM
                out[g, rank].append((row, n_tile * cfg.bn + rank * cfg.b_rows, row,
                                     n_tile * cfg.bn))
    return out


def reference(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """C = A @ B.T in float64 (A: M x K, B: N x K)."""
    return a.astype(np.float64) @ b.astype(np.float64).T


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    M, N, K = (int(a) for a in argv[:3]) if len(argv) >= 3 else (512, 512, 256)
    cta_group = int(argv[3]) if len(argv) >= 4 else 1
    print(build_gemm(M, N, K, cta_group=cta_group).ptx(), end="")


if __name__ == "__main__":
    main()
