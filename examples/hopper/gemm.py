"""Hopper (sm_90a) persistent, warp-specialised bf16 GEMM: C = A @ B, f32
accumulation, bf16 or f32 out.

A is M x K, row-major. B is either N x K row-major (``b_major="K"``: the
layout a linear layer's weight has; C = A @ B.T) or K x N row-major
(``b_major="MN"``; C = A @ B). Each CTA has 384 threads in three
warpgroups:

- warpgroup 0 is the producer: it lowers its register budget
  (``setmaxnreg.dec``) and one thread issues TMA loads of 128 x 64 A tiles
  and 256 x 64 B tiles (128-byte swizzle) into a ring of STAGES shared-memory
  stages; a ``full`` mbarrier per stage counts the bytes in, an ``empty``
  one counts the consumers out;
- warpgroups 1 and 2 are consumers (``setmaxnreg.inc``): each issues
  ``wgmma.mma_async m64n256k16`` on its 64-row half of the 128 x 256 tile,
  keeps one wgmma group in flight (``wait_group(1)``) and frees a stage as
  soon as the wgmmas that read it are done.

The grid is persistent (one CTA per SM); tiles are walked in a grouped
order (GROUP_M cluster rows at a time) so that the tiles in flight share
A rows and B columns in L2. With ``cluster=2`` (the default for a K-major
B when there are more than two tiles per SM) two CTAs of a 2x1 cluster
compute vertically adjacent tiles: each loads its own A tile and half of
the shared B tile, multicast to both (``.multicast::cluster``), and the
consumers free a stage in both CTAs (``mapa`` + remote arrive). The bf16
epilogue goes through shared memory (``stmatrix`` into a 128B-swizzled
tile, in two 128-column chunks beside a 4-stage ring, then a TMA store);
the f32 one stores the fragments to global memory. The producer prefetches
the TMA descriptors first (``prefetch.tensormap``).

Measured on an H100 (benchmarks/NOTES.md): 0.99-1.03x cuBLAS at 4096^3,
1.02-1.09x at 8192^3.

M must be a multiple of 128 * cluster, N of 256 and K of 64 (``ValueError``
says so otherwise). The pieces (ring, roles, producer, consumer k-loop,
grouped scheduler, epilogues) are pyptx.pipeline's (wgmma_gemm,
scheduler, epilogue), shared with examples/hopper/grouped_gemm.py.

    python examples/hopper/gemm.py [M N K]    # prints the PTX
"""
from __future__ import annotations

import os
import sys

if __package__ in (None, ""):  # run as a script: make `examples` importable
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

import numpy as np  # noqa: E402

import examples.common  # noqa: E402,F401  (makes pyptx importable)
from pyptx import Tile, kernel, ptx  # noqa: E402
from pyptx.pipeline import scheduler  # noqa: E402
from pyptx.pipeline.epilogue import WG_M, store_direct  # noqa: E402
from pyptx.pipeline.roles import (CONSUMER_REGS, PRODUCER_REGS,  # noqa: E402,F401
                                  launch_directives, warpgroup_ids)
from pyptx.pipeline.wgmma_gemm import (BK, BM, BN, CONSUMERS, THREADS,  # noqa: E402,F401
                                       Config, GemmTile, GemmTiles, run_roles, smem_bytes)
from pyptx.specs import Layout  # noqa: E402
from pyptx.types import bf16, f32  # noqa: E402

ARCH = "sm_90a"
NUM_SMS = 132                      # H100 SXM / H200
GROUP_M = 8                        # cluster rows per group of the tile order
CLUSTER_MIN_WAVES = 2              # a K-major B multicasts when tiles > this x SMs
tile_order = scheduler.tile_order


# -- the dense GEMM ----------------------------------------------------------------------

def check_shape(M, N, K, cluster):
    if M % (BM * cluster) or N % BN or K % BK or min(M, N, K) <= 0:
        raise ValueError(
            f"gemm: M must be a positive multiple of {BM * cluster} (BM={BM} x cluster="
            f"{cluster}), N of {BN} and K of {BK}; got M={M} N={N} K={K} (pad the "
            f"operands to these multiples)")


def build_gemm(M: int, N: int, K: int, *, out_dtype=bf16, b_major: str = "K",
               cluster: int | None = None, stages: int | None = None,
               epilogue: str | None = None, epi_cols: int | None = None,
               l2_promotion: str = "256B", mn_b_rank: int | None = None,
               group_m: int = GROUP_M, prefetch: bool = True, num_sms: int = NUM_SMS,
               arch: str = ARCH):
    """The kernel for A (M x K) and B ((N, K) for b_major "K", (K, N) for "MN")
    -> C (M x N, out_dtype bf16 or f32). epilogue: "tma" (bf16 only; the
    default for bf16) or "direct" (the f32 default). stages: the ring depth
    (default 4). epi_cols: columns per TMA-store chunk (default: 256 when
    its 64 KiB fit beside the ring, else 128). l2_promotion: the A and B
    descriptors' L2 promotion ("none", "64B", "128B", "256B"). mn_b_rank:
    an MN-major B loaded as one rank-3 box per k tile (3, the default) or
    one rank-2 box per 64-column stripe (2).
    cluster: CTAs per cluster along M (1 or 2). Default: 2 for a K-major B
    when there are more than CLUSTER_MIN_WAVES tiles per SM (measured on an
    H100: +3% at 8192^3, a tie at 4096^3), else 1 (+5% at 2048^3, one wave);
    an MN-major B defaults to 1 (2 is allowed). group_m: cluster rows per
    group of the tile order. prefetch: prefetch.tensormap the descriptors
    first."""
    if b_major not in ("K", "MN"):
        raise ValueError(f"gemm: b_major must be 'K' (B is N x K) or 'MN' (B is K x N), "
                         f"not {b_major!r}")
    if cluster is None:
        many = (M // BM) * (N // BN) > CLUSTER_MIN_WAVES * num_sms and M % (2 * BM) == 0
        cluster = 2 if b_major == "K" and many else 1
    if cluster not in (1, 2):
        raise ValueError(f"gemm: cluster must be 1 or 2, not {cluster!r}")
    if out_dtype not in (bf16, f32):
        raise ValueError(f"gemm: out_dtype must be bf16 or f32, not {out_dtype}")
    check_shape(M, N, K, cluster)
    if epilogue is None:
        epilogue = "tma" if out_dtype == bf16 else "direct"
    if epilogue not in ("tma", "direct") or (epilogue == "tma" and out_dtype != bf16):
        raise ValueError(f"gemm: epilogue must be 'direct' or (bf16 out) 'tma', not "
                         f"{epilogue!r}")
    if stages is None:
        stages = 4
    if epi_cols is None:   # the whole tile when the ring leaves room, else halves
        epi_cols = BN if stages * (BM + BN) * BK * 2 + CONSUMERS * WG_M * BN * 2 \
            <= 227 * 1024 - 1024 else BN // 2
    if epi_cols not in (64, 128, 256):
        raise ValueError(f"gemm: epi_cols must be 64, 128 or 256, not {epi_cols!r}")
    cfg = Config(bn=BN, stages=stages, cluster=cluster, b_major=b_major,
                 out_dtype=out_dtype, epilogue=epilogue, k_tiles=K // BK, epi_cols=epi_cols)
    if smem_bytes(cfg) > 227 * 1024:
        raise ValueError(f"gemm: {stages} stages with the {epilogue} epilogue need "
                         f"{smem_bytes(cfg)} bytes of shared memory; a CTA has 227 KiB")

    m_rows = M // (BM * cluster)           # rows of cluster tiles
    n_tiles = N // BN
    total = m_rows * n_tiles
    group = scheduler.group_rows(m_rows, group_m)
    clusters = min(num_sms // cluster, total)

    a_spec = Tile(M, K, bf16, Layout.TMA_128B, tma_box=(BM, BK))
    b_box_cols = None
    if b_major == "K":
        b_spec = Tile(N, K, bf16, Layout.TMA_128B, tma_box=(cfg.b_part, BK))
        b_rank = 2
    else:
        # MN-major B: one rank-3 box of the tile's 64-column stripes per k
        # tile, or (mn_b_rank=2) one rank-2 box per stripe
        if mn_b_rank is None:
            mn_b_rank = 3
        b_rank = mn_b_rank if cfg.b_part > 64 else 2
        b_box_cols = cfg.b_part if b_rank == 3 else 64
        b_spec = Tile(K, N, bf16, Layout.TMA_128B, tma_box=(BK, b_box_cols), tma_rank=b_rank)
    if epilogue == "tma":
        c_spec = Tile(M, N, bf16, Layout.TMA_128B, tma_box=(WG_M, epi_cols), tma_rank=3)
    else:
        c_spec = Tile(M, N, out_dtype)

    @kernel(in_specs=(a_spec, b_spec), out_specs=(c_spec,), grid=(clusters * cluster, 1, 1),
            block=(THREADS, 1, 1), cluster=(cluster, 1, 1), arch=arch,
            raw_directives=launch_directives())
    def gemm(A, B, C):
        a_desc = A.tma_desc(l2_promotion=l2_promotion)
        b_desc = B.tma_desc(l2_promotion=l2_promotion)
        c_desc = C.tma_desc() if epilogue == "tma" else None
        (pc,) = ptx.global_ptrs(C) if epilogue == "direct" else (None,)
        tiles = GemmTiles(cfg)
        tid, wg, lane128 = warpgroup_ids()
        tiles.init(tid == 0)
        grouped = scheduler.GroupedScheduler(m_rows, n_tiles, bm=BM, bn=BN, group=group,
                                             ctas=clusters, cluster=cluster)

        def schedule(body):
            grouped(lambda m0, n0: body(GemmTile(a_row=m0, b_row=n0, b_col=n0, c_col=n0)))

        def store(consumer, tile, row0, frag, tma_out):
            if tma_out is not None:
                tma_out.store(consumer.acc, row0, tile.c_col)
            else:
                store_direct(consumer.acc, out_dtype, pc, row0, tile.c_col, N, BN, frag=frag)

        run_roles(cfg, tiles, tid, wg, lane128, a_desc=a_desc, b_desc=b_desc, b_rank=b_rank,
                  c_desc=c_desc, schedule=schedule, store=store, b_box_cols=b_box_cols,
                  prefetch=prefetch)
        ptx.ret()

    gemm.config = cfg
    return gemm


def reference(a: np.ndarray, b: np.ndarray, b_major: str = "K") -> np.ndarray:
    """C in float64: A @ B.T for b_major "K" (B is N x K), A @ B for "MN"."""
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    return a64 @ (b64.T if b_major == "K" else b64)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    M, N, K = (int(a) for a in argv[:3]) if len(argv) >= 3 else (512, 512, 256)
    print(build_gemm(M, N, K).ptx(), end="")


if __name__ == "__main__":
    main()
