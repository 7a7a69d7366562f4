"""Hopper (sm_90a) grouped GEMM for mixture-of-experts layers, bf16 in, f32
accumulation, bf16 or f32 out, built on pyptx.pipeline (the TMA ring, the
producer warp, the consumer warpgroups' wgmma k-loop and the epilogues of
pipeline.wgmma_gemm, the expert tile scheduler), like examples/hopper/gemm.py.

Two kernels:

- ``build_grouped_gemm_uniform(G, M, N, K)``: G problems of one shape,
  ``C[g] = A[g] @ B[g]``, with A given as (G*M, K), B as (G*K, N) (each
  expert's K x N block, row-major: MN-major wgmma operand) and C as (G*M, N).
  One 128 x N tile per CTA at a time (N up to 256, rounded up to 64
  columns); tile t is rows 128t.. of A and C and expert t // (M/128) of B
  (with M off the tile: ceil(M/128) tiles per expert, rows guarded at the
  expert's end). With N = 64 the problem is
  bound by reading A (each 2-byte element of A feeds only 128 flops), so
  the ring is deep (8 stages) to keep many loads in flight.

- ``build_grouped_gemm(T, N, K, G)``: variable tokens per expert, as
  ``torch._grouped_mm`` takes them: A is (T, K) with the rows of expert g
  from ``offs[g-1]`` to ``offs[g]`` (offs: G int32 cumulative row ends),
  B is (G*N, K) (expert g's N x K weight: K-major), C is (T, N). At the
  start every CTA turns offs into per-expert tile counts and their prefix
  sums in shared memory (one thread per expert); each tile index then maps
  to (expert, m tile, n tile) by a short search from the expert of the
  previous tile. Tiles are 128 x 256; rows past an expert's end are loaded
  (harmless: rows of C depend only on their row of A) but not stored.
  Full tiles leave through the TMA-store epilogue (bf16), the last partial
  tile of an expert through predicated stores.

    python examples/hopper/grouped_gemm.py     # prints the PTX of both
"""
from __future__ import annotations

import os
import sys

if __package__ in (None, ""):  # run as a script: make `examples` importable
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

import numpy as np  # noqa: E402

import examples.common  # noqa: E402,F401  (makes pyptx importable)
from pyptx import Tile, kernel, ptx, reg  # noqa: E402
from pyptx.pipeline import wgmma_gemm as wg_gemm  # noqa: E402
from pyptx.pipeline.epilogue import WG_M, store_direct  # noqa: E402
from pyptx.pipeline.roles import launch_directives, warpgroup_ids  # noqa: E402
from pyptx.pipeline.scheduler import ExpertScheduler  # noqa: E402
from pyptx.pipeline.wgmma_gemm import BK, BM, BN, THREADS, Config, GemmTile, GemmTiles  # noqa: E402
from pyptx.specs import Layout  # noqa: E402
from pyptx.types import bf16, f32, s32, u32  # noqa: E402

ARCH = "sm_90a"
NUM_SMS = 132               # H100 SXM / H200
MAX_EXPERTS = THREADS       # one thread per expert builds the schedule


def _check_out(out_dtype):
    if out_dtype not in (bf16, f32):
        raise ValueError(f"grouped gemm: out_dtype must be bf16 or f32, not {out_dtype}")


# -- G equal problems --------------------------------------------------------------------

def build_grouped_gemm_uniform(G: int, M: int, N: int, K: int, *, out_dtype=bf16,
                               stages: int | None = None, l2_promotion: str = "256B",
                               num_sms: int = NUM_SMS, arch: str = ARCH):
    """C (G*M, N) = per group g: A[g*M:(g+1)*M] @ B[g*K:(g+1)*K] for A (G*M, K)
    and B (G*K, N), bf16. K and N multiples of 8 (16-byte rows for TMA), K
    >= 64, 64 <= N <= 256 (one tile of N rounded up to 64 columns). Off the
    tiles: a K tail of A is zero-filled by TMA, so the rows of the next
    group's B that the last k tile reads are multiplied by zeros; a partial
    last row tile of a group computes the next group's first rows with this
    group's B and does not store them. l2_promotion: of the A and B
    descriptors."""
    _check_out(out_dtype)
    if M < 1 or G < 1 or K % 8 or N % 8 or K < BK or not 64 <= N <= 256:
        raise ValueError(f"grouped gemm: K and N must be multiples of 8, K >= {BK} and "
                         f"64 <= N <= 256; got G={G} M={M} N={N} K={K}")
    bn = -(-N // 64) * 64
    if stages is None:
        stages = min(8, (200 * 1024) // ((BM + bn) * BK * 2))
    cfg = Config(bn=bn, stages=stages, cluster=1, b_major="MN", out_dtype=out_dtype,
                 epilogue="direct", k_tiles=-(-K // BK), a_rows=min(BM, G * M))
    if wg_gemm.smem_bytes(cfg) > 227 * 1024:
        raise ValueError(f"grouped gemm: {stages} stages need {wg_gemm.smem_bytes(cfg)} bytes "
                         f"of shared memory; a CTA has 227 KiB")
    m_tiles = -(-M // BM)
    total = G * m_tiles
    ctas = min(num_sms, total)
    # whole 64-column stripes: one box (rank 3 past one stripe); else one per stripe
    b_rank = 3 if N > 64 and N == bn else 2
    b_box = (BK, N) if N == bn else (BK, 64)
    row_tail = M % BM != 0
    col_limit = N if N != bn else None

    @kernel(in_specs=(Tile(G * M, K, bf16, Layout.TMA_128B, tma_box=(cfg.a_rows, BK)),
                      Tile(G * K, N, bf16, Layout.TMA_128B, tma_box=b_box, tma_rank=b_rank)),
            out_specs=(Tile(G * M, N, out_dtype),), grid=(ctas, 1, 1), block=(THREADS, 1, 1),
            arch=arch, raw_directives=launch_directives())
    def grouped_gemm_uniform(A, B, C):
        a_desc = A.tma_desc(l2_promotion=l2_promotion)
        b_desc = B.tma_desc(l2_promotion=l2_promotion)
        (pc,) = ptx.global_ptrs(C)
        tiles = GemmTiles(cfg)
        tid, wg, lane128 = warpgroup_ids()
        tiles.init(tid == 0)

        def schedule(body):
            start = reg.from_(ptx.special.ctaid.x(), u32)
            for t in ptx.range_(start, total, ctas):
                if not row_tail:
                    row = t * BM
                    body(GemmTile(a_row=row, b_col=0, k_row=(t // m_tiles) * K, c_row=row))
                    continue
                g = t // m_tiles
                row = g * M + (t - g * m_tiles) * BM
                body(GemmTile(a_row=row, b_col=0, k_row=g * K, c_row=row,
                              row_limit=g * M + M))

        def store(consumer, tile, row0, frag, _tma):
            store_direct(consumer.acc, out_dtype, pc, row0, 0, N, bn, frag=frag,
                         row_limit=tile.row_limit, col_limit=col_limit)

        wg_gemm.run_roles(cfg, tiles, tid, wg, lane128, a_desc=a_desc, b_desc=b_desc,
                          b_rank=b_rank, c_desc=None, schedule=schedule, store=store,
                          b_box_cols=None if N == bn else 64)
        ptx.ret()

    grouped_gemm_uniform.config = cfg
    return grouped_gemm_uniform


# -- variable tokens per expert ------------------------------------------------------------

def build_grouped_gemm(T: int, N: int, K: int, G: int, *, out_dtype=bf16,
                       epilogue: str | None = None, stages: int | None = None,
                       l2_promotion: str = "256B", num_sms: int = NUM_SMS,
                       arch: str = ARCH):
    """C (T, N) with rows offs[g-1]:offs[g] = those rows of A (T, K) @ B_g.T,
    B_g = B[g*N:(g+1)*N] (B is (G*N, K)), offs a (G,) int32 tensor of
    cumulative row ends (offs[G-1] <= T; rows past it are not written).
    N and K must be multiples of 8 (16-byte rows for TMA), K >= 64,
    G * N >= 256, G at most 384. A K tail is zero-filled by TMA; a last
    column tile past N reads the next expert's rows of B (harmless: those
    columns are not stored). l2_promotion: of the A and B descriptors."""
    _check_out(out_dtype)
    if N % 8 or K % 8 or K < BK or G * N < BN or not 1 <= G <= MAX_EXPERTS or T < 1:
        raise ValueError(f"grouped gemm: N and K must be multiples of 8, K >= {BK}, "
                         f"G * N >= {BN}, 1 <= G <= {MAX_EXPERTS}; got T={T} N={N} K={K} "
                         f"G={G}")
    tma_ok = out_dtype == bf16 and N % 64 == 0 and T >= WG_M
    if epilogue is None:
        epilogue = "tma" if tma_ok else "direct"
    if epilogue not in ("tma", "direct") or (epilogue == "tma" and not tma_ok):
        raise ValueError(f"grouped gemm: epilogue must be 'direct' or (bf16 out, N a multiple "
                         f"of 64) 'tma', not {epilogue!r}")
    schedule_bytes = ExpertScheduler.smem_bytes(G)
    choices = [(stages, 128), (stages, 256)] if stages else [(4, 128), (3, 256)]
    for n_stages, epi_cols in choices:
        cfg = Config(bn=BN, stages=n_stages, cluster=1, b_major="K",
                     out_dtype=out_dtype, epilogue=epilogue, k_tiles=-(-K // BK),
                     epi_cols=epi_cols, a_rows=min(BM, T))
        if wg_gemm.smem_bytes(cfg) + schedule_bytes <= 227 * 1024:
            break
    else:
        raise ValueError(f"grouped gemm: {stages} stages need "
                         f"{wg_gemm.smem_bytes(cfg) + schedule_bytes} bytes of shared "
                         f"memory; a CTA has 227 KiB")
    if epilogue == "tma" and cfg.epi_cols > N:    # a store chunk no wider than C
        cfg = Config(**{**cfg.__dict__, "epi_cols": 64 if N < 128 else 128})
    n_tiles = -(-N // BN)
    col_limit = N if N % BN else None
    c_spec = (Tile(T, N, bf16, Layout.TMA_128B, tma_box=(WG_M, cfg.epi_cols),
                   tma_rank=3) if epilogue == "tma" else Tile(T, N, out_dtype))

    @kernel(in_specs=(Tile(T, K, bf16, Layout.TMA_128B, tma_box=(cfg.a_rows, BK)),
                      Tile(G * N, K, bf16, Layout.TMA_128B, tma_box=(BN, BK)),
                      Tile(G, s32)),
            out_specs=(c_spec,), grid=(num_sms, 1, 1), block=(THREADS, 1, 1), arch=arch,
            raw_directives=launch_directives())
    def grouped_gemm(A, B, offs, C):
        a_desc = A.tma_desc(l2_promotion=l2_promotion)
        b_desc = B.tma_desc(l2_promotion=l2_promotion)
        c_desc = C.tma_desc() if epilogue == "tma" else None
        p_offs, pc = ptx.global_ptrs(offs, C)
        tiles = GemmTiles(cfg)
        experts = ExpertScheduler(G, n_tiles, bm=BM, bn=BN)
        tid, wg, lane128 = warpgroup_ids()
        experts.build(tid, p_offs)
        tiles.init(tid == 0)           # its bar.sync also publishes the schedule

        def tile_of(e):
            limit = e.row_end
            return GemmTile(a_row=e.row, b_row=e.expert * N + e.n0, c_row=e.row, c_col=e.n0,
                            row_limit=limit, full=(e.row + BM) <= limit)

        def schedule(body):
            experts(lambda e: body(tile_of(e)), ctas=num_sms)

        def store(consumer, tile, row0, frag, tma_out):
            if tma_out is None:
                store_direct(consumer.acc, out_dtype, pc, row0, tile.c_col, N, BN,
                             row_limit=tile.row_limit, frag=frag, col_limit=col_limit)
                return
            with ptx.if_(tile.full):
                tma_out.store(consumer.acc, row0, tile.c_col)    # clipped at N
            with ptx.else_():
                store_direct(consumer.acc, out_dtype, pc, row0, tile.c_col, N, BN,
                             row_limit=tile.row_limit, frag=frag, col_limit=col_limit)

        wg_gemm.run_roles(cfg, tiles, tid, wg, lane128, a_desc=a_desc, b_desc=b_desc, b_rank=2,
                        c_desc=c_desc, schedule=schedule, store=store)
        ptx.ret()

    grouped_gemm.config = cfg
    return grouped_gemm


def reference_uniform(a, b, G):
    """float64 C (G*M, N) of A (G*M, K), B (G*K, N)."""
    M, K = a.shape[0] // G, a.shape[1]
    return np.concatenate([a[g * M:(g + 1) * M].astype(np.float64)
                           @ b[g * K:(g + 1) * K].astype(np.float64) for g in range(G)])


def reference(a, b, offs):
    """float64 C (T, N) for A (T, K), B (G*N, K), offs (G,) row ends; rows
    past offs[-1] are NaN (not written by the kernel)."""
    G = len(offs)
    N = b.shape[0] // G
    out = np.full((a.shape[0], N), np.nan)
    start = 0
    for g, end in enumerate(offs):
        out[start:end] = a[start:end].astype(np.float64) @ b[g * N:(g + 1) * N].astype(
            np.float64).T
        start = end
    return out


def main(argv=None):
    print(build_grouped_gemm_uniform(8, 2048, 64, 2048).ptx(), end="")
    print(build_grouped_gemm(4096, 768, 2048, 8).ptx(), end="")


if __name__ == "__main__":
    main()
