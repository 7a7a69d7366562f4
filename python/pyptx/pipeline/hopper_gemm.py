"""The dense Hopper (sm_90a) bf16 GEMM kernel, for any M, N, K: C = A @ B
(+ a fused epilogue), f32 accumulation, bf16, f32 or e4m3 (with its amax) out, built on
wgmma_gemm's warp-specialised main loop (examples/hopper/gemm.py shows it;
pyptx.ops.matmul launches it).

A is M x K, row-major. B is N x K (``b_major="K"``, a linear layer's
weight: C = A @ B.T) or K x N (``b_major="MN"``: C = A @ B). Tiles are
128 x bn (bn 256, 128 or 64) x 64, walked persistently in a grouped order by
min(tiles, SMs) CTAs (1-CTA or 2x1 clusters, B multicast).

Shapes off the tile: TMA zero-fills every load past the matrix (a K tail,
the last row or column tiles), so the wgmma sums zeros there; a box larger
than a matrix smaller than one tile (M < 128, or N < bn with a K-major B)
is cut to the matrix (its load_tx counts the bytes that come). Stores are
clipped: the TMA store stops at the matrix's bounds, the direct epilogue is
predicated on row < M and column < N. Every row must be 16-byte aligned
for TMA: K and N multiples of 8 (pyptx.ops.matmul pads other shapes), and
K >= 64, N >= 64 for an MN-major B (one 128-byte swizzle row per box).

split_k > 1 (small M x N, long K): each tile's K range is cut into split_k
equal parts of whole 64-column k tiles, each part a work unit of its own;
C is then f32 (split_k * M, N), the partial sums of part s in rows
s*M..(s+1)*M, and the caller adds them up (pyptx.ops.matmul does, then
applies the epilogue).

``plan_gemm`` picks bn, the cluster and split_k per shape (the heuristic
is in its docstring; the choice is cached).
"""
from __future__ import annotations

import functools
import inspect

from .. import Tile, kernel, ptx
from ..specs import Layout
from ..types import bf16, e4m3, f32
from . import scheduler
from .epilogue import (ACTIVATIONS, WG_M, Fp8Output, FusedEpilogue, RingResidual,
                       SmemResidual, store_direct)
from .roles import launch_directives, warpgroup_ids
from .wgmma_gemm import BK, BM, BN, CONSUMERS, THREADS, Config, GemmTile, GemmTiles, run_roles, \
    smem_bytes

ARCH = "sm_90a"
NUM_SMS = 132                      # H100 SXM / H200
GROUP_M = 8                        # cluster rows per group of the tile order
CLUSTER_MIN_WAVES = 2              # a K-major B multicasts when tiles > this x SMs
SMEM_LIMIT = 227 * 1024
SCHEDULES = ("cooperative", "pingpong")
RESIDUAL_FROM = ("global", "smem", "ring")
PINGPONG_MAX_K = 4096              # plan_gemm: ping-pong for fused epilogues up to this K


def cdiv(a: int, b: int) -> int:
    return -(-a // b)


def check_shape(M, N, K, *, b_major="K", cluster=1, bn=BN):
    """A ValueError naming the rule a shape breaks (see the module doc)."""
    if min(M, N, K) <= 0:
        raise ValueError(f"gemm: M, N, K must be positive; got M={M} N={N} K={K}")
    if K % 8 or N % 8:
        raise ValueError(
            f"gemm: K and N must be multiples of 8 (TMA needs 16-byte aligned rows of "
            f"bf16 A, B and C); got M={M} N={N} K={K} (pyptx.ops.matmul pads such shapes)")
    if K < BK:
        raise ValueError(f"gemm: K must be at least {BK} (one 128-byte swizzled row per "
                         f"box); got K={K} (pyptx.ops.matmul pads it)")
    if b_major == "MN" and N < 64:
        raise ValueError(f"gemm: an MN-major B needs N >= 64 (one 128-byte swizzled row "
                         f"per box); got N={N}")
    if cluster > 1 and (M < BM or N < bn):
        raise ValueError(f"gemm: a {cluster}-CTA cluster needs M >= {BM} and N >= {bn}; "
                         f"got M={M} N={N} (use cluster=1)")


def prefetch_tile_l2(desc, coord):
    """``cp.async.bulk.prefetch.tensor.2d.L2.global.tile [desc, {coord}]``:
    the box of `desc` at coord (innermost first) into L2 (one instruction)."""
    getattr(ptx.inst.cp.async_.bulk.prefetch.tensor, "2d").L2.global_.tile(
        ptx.tensor_addr(desc, *coord))


def _epi_cols(stages, bn, N):
    """Columns per TMA-store chunk: the whole tile when the ring leaves room,
    else halves; never wider than C."""
    cols = bn if stages * (BM + bn) * BK * 2 + CONSUMERS * WG_M * bn * 2 \
        <= SMEM_LIMIT - 1024 else bn // 2
    while cols > 64 and cols > N:
        cols //= 2
    return cols


def _default_stages(bn, epilogue, epi_cols, reserved=0):
    """The ring depth: 4 for bn 256, else as many as fit (up to 8, 10 for
    32-column tiles), beside the epilogue's tile and `reserved` bytes."""
    if bn == BN and not reserved:
        return 4
    stage = (BM + bn) * BK * 2
    epi = CONSUMERS * WG_M * epi_cols * 2 if epilogue == "tma" else 0
    # 32-column tiles stream 4 KB of B per stage: more stages keep as many
    # bytes in flight (measured on an H100: 8 -> 10 stages, 82% -> 85% of
    # the copy bandwidth at M = 1, N = 4096, K = 14336)
    most = 4 if bn == BN else 8 if bn > 32 else 10
    return min(most, (SMEM_LIMIT - 1024 - epi - reserved - 256) // stage)


def build_gemm(M: int, N: int, K: int, *, out_dtype=bf16, b_major: str = "K",
               cluster: int | None = None, stages: int | None = None,
               epilogue: str | None = None, epi_cols: int | None = None,
               l2_promotion: str = "256B", mn_b_rank: int | None = None,
               group_m: int = GROUP_M, prefetch: bool = True, num_sms: int = NUM_SMS,
               bn: int = BN, split_k: int = 1, bias: bool = False,
               activation: str | None = None, residual: bool = False,
               residual_from: str | None = None, schedule: str = "cooperative",
               arch: str = ARCH):
    """The kernel for A (M x K) and B ((N, K) for b_major "K", (K, N) for "MN")
    -> C (M x N, out_dtype bf16 or f32). epilogue: "tma" (bf16 only; the
    default for bf16 when N >= 64 and M >= 64; with N % 64 != 0 one store
    per 64-column stripe, the last clipped at N) or "direct". stages: the
    ring depth (default 4 for bn 256, as many as fit for bn 128). epi_cols:
    columns per TMA-store chunk.
    l2_promotion: the A and B descriptors' L2 promotion ("none", "64B",
    "128B", "256B"). mn_b_rank: an MN-major B loaded as one rank-3 box per
    k tile (3, the default where N allows) or one rank-2 box per 64-column
    stripe (2). cluster: CTAs per cluster along M (1 or 2). Default: 2 for a
    K-major B when M % 256 == 0 and there are more than CLUSTER_MIN_WAVES
    tiles per SM (measured on an H100: +3% at 8192^3, a tie at 4096^3),
    else 1 (+5% at 2048^3, one wave). group_m: cluster rows per group of the
    tile order. prefetch: prefetch.tensormap the descriptors first. bn: tile
    columns, 256, 128, 64 or 32 (the direct epilogue). split_k: see the module doc (C is f32 (split_k*M,
    N)). Fused epilogue, in this order: bias (the kernel takes a bf16 (N,)
    vector after B), activation ("gelu": tanh form, or "silu"), residual
    (a bf16 (M, N) matrix after the bias): C = act(A @ B + bias) + residual.
    schedule: "cooperative" (both consumer warpgroups on one 128 x bn tile,
    64 rows each) or "pingpong" (each owns whole 128 x bn tiles, bn 128 or
    64, and the two take turns: one's epilogue runs during the other's
    main loop; split_k 1; cluster 1 by default; see
    wgmma_gemm.run_pingpong_consumers). Measured on an H100 it matches the
    cooperative kernel at K = 4096 without a fused epilogue, wins with one
    and loses at long K (docs/pipeline.md): plan_gemm(fused=True) picks it
    for fused epilogues at K <= PINGPONG_MAX_K.
    out_dtype e4m3 (the direct epilogue, after any fused part): C = e4m3(z /
    scale), saturated at +-448, with the kernel taking OutScale (one f32)
    and Amax (one f32 the caller zeroes; the kernel raises it to max |z|
    over C, NaN if one is: the next call's scale) after the other inputs.
    residual_from: "ring" (the producer loads the tile's 64-column
    stripes by TMA into the ring's next stages after the tile's k tiles,
    so they land while the last k tiles are computed; the epilogue adds
    them with ldmatrix: epilogue.RingResidual; cooperative schedule, M >=
    128, N >= 64, bn >= 64, 2 stages or more), "global" (each thread
    loads its pairs: before the main loop into the accumulator without an
    activation, else in the epilogue) or "smem" (as "ring", into a 64 KB tile of its own, loaded
    after the tile's first lap of k tiles; N a multiple of 64; the ring
    loses a stage: 3 at bn 256). Default: "ring" where it applies, else
    "global" (measured on an H100, docs/pipeline.md).
    Kernel arguments: A, B[, bias][, residual][, out_scale, amax] -> C."""
    if b_major not in ("K", "MN"):
        raise ValueError(f"gemm: b_major must be 'K' (B is N x K) or 'MN' (B is K x N), "
                         f"not {b_major!r}")
    if bn not in (32, 64, 128, 256) or (bn == 32 and b_major != "K"):
        raise ValueError(f"gemm: bn must be 64, 128 or 256, or 32 with a K-major B (an "
                         f"MN-major B loads 64-column stripes), not {bn!r}")
    if out_dtype not in (bf16, f32, e4m3):
        raise ValueError(f"gemm: out_dtype must be bf16, f32 or e4m3, not {out_dtype}")
    fp8_out = out_dtype == e4m3
    if activation not in (None,) + ACTIVATIONS:
        raise ValueError(f"gemm: activation must be None, 'gelu' or 'silu', not "
                         f"{activation!r}")
    if schedule not in SCHEDULES:
        raise ValueError(f"gemm: schedule must be one of {', '.join(SCHEDULES)}, not "
                         f"{schedule!r}")
    pingpong = schedule == "pingpong"
    if pingpong and (bn > 128 or split_k != 1):
        raise ValueError(f"gemm: the pingpong schedule needs bn 128 or 64 (a warpgroup "
                         f"holds a 128 x bn f32 accumulator) and split_k 1; got bn={bn} "
                         f"split_k={split_k}")
    k_tiles = cdiv(K, BK)
    if not isinstance(split_k, int) or split_k < 1 or k_tiles % split_k:
        raise ValueError(f"gemm: split_k must divide the {k_tiles} k tiles of K={K}; "
                         f"got {split_k!r}")
    fused = bias or residual or activation is not None
    if residual_from is None:
        residual_from = "ring" if not pingpong and M >= BM and N >= 64 and bn >= 64 \
            and (stages is None or stages >= 2) else "global"
    if residual_from not in RESIDUAL_FROM:
        raise ValueError(f"gemm: residual_from must be one of {', '.join(RESIDUAL_FROM)}, "
                         f"not {residual_from!r}")
    residual_smem = residual and residual_from == "smem"
    residual_ring = residual and residual_from == "ring"
    if residual_smem and (pingpong or N % 64 or M < BM or N < bn or bn < 64):
        raise ValueError(f"gemm: residual_from='smem' needs the cooperative schedule, N a "
                         f"multiple of 64 (a rank-3 box of 64-column stripes), M >= {BM} "
                         f"and N >= bn >= 64 (a whole {BM} x bn box); got "
                         f"schedule={schedule!r} M={M} N={N} bn={bn}")
    if residual_ring and (pingpong or M < BM or N < 64 or bn < 64 or
                          (stages is not None and stages < 2)):
        raise ValueError(f"gemm: residual_from='ring' needs the cooperative schedule, M >= "
                         f"{BM}, N >= 64 and bn >= 64 (boxes of {BM} x 64) and 2 ring "
                         f"stages or more (a 256-column tile takes two); got "
                         f"schedule={schedule!r} M={M} N={N} bn={bn} stages={stages}")
    if split_k > 1 and (out_dtype != f32 or fused):
        raise ValueError("gemm: split_k > 1 writes f32 partial sums (out_dtype=f32) with "
                         "no fused epilogue (apply it after the sum)")
    if cluster is None:
        many = cdiv(M, BM) * cdiv(N, bn) > CLUSTER_MIN_WAVES * num_sms and M % (2 * BM) == 0
        # (ping-pong: 1; its 128-column tiles measured slower with a cluster's
        # 64-row multicast boxes)
        cluster = 2 if b_major == "K" and many and split_k == 1 and N >= bn \
            and not pingpong else 1
    if cluster not in (1, 2):
        raise ValueError(f"gemm: cluster must be 1 or 2, not {cluster!r}")
    check_shape(M, N, K, b_major=b_major, cluster=cluster, bn=bn)
    tma_ok = out_dtype == bf16 and N >= 64 and M >= WG_M and split_k == 1 and bn >= 64
    if epilogue is None:
        epilogue = "tma" if tma_ok else "direct"
    if epilogue not in ("tma", "direct") or (epilogue == "tma" and not tma_ok):
        raise ValueError(f"gemm: epilogue must be 'direct' or 'tma' (bf16 out, N >= 64, "
                         f"M >= 64), not {epilogue!r} (out {out_dtype}, M={M} N={N})")
    if epi_cols is None and residual_smem:
        epi_cols = 64                        # the residual tile takes the room
    if epi_cols is None:
        epi_cols = _epi_cols(stages or 4, bn, N) if bn == BN else min(bn, _epi_cols(6, bn, N))
    if epilogue == "direct":
        epi_cols = bn                        # no TMA-store chunks
    if epi_cols not in (32, 64, 128, 256) or epi_cols > bn:
        raise ValueError(f"gemm: epi_cols must be 64, 128 or 256 and at most bn={bn}, not "
                         f"{epi_cols!r}")
    if stages is None:
        stages = _default_stages(bn, epilogue, epi_cols,
                                 reserved=BM * bn * 2 if residual_smem else 0)
    a_rows = min(BM, M)
    b_part = bn // cluster
    b_cols = min(bn, N) if b_major == "K" else 0     # a K-major box is cut to N
    cfg = Config(bn=bn, stages=stages, cluster=cluster, b_major=b_major,
                 out_dtype=out_dtype, epilogue=epilogue, k_tiles=k_tiles // split_k,
                 epi_cols=epi_cols, a_rows=a_rows, b_cols=0 if b_cols == bn else b_cols,
                 pingpong=pingpong, residual_smem=residual_smem)
    if smem_bytes(cfg) > SMEM_LIMIT:
        raise ValueError(f"gemm: {stages} stages with the {epilogue} epilogue need "
                         f"{smem_bytes(cfg)} bytes of shared memory; a CTA has 227 KiB")

    m_rows = cdiv(M, BM * cluster)           # rows of cluster tiles
    n_tiles = cdiv(N, bn)
    total = m_rows * n_tiles * split_k
    group = scheduler.group_rows(m_rows, group_m)
    clusters = min(num_sms // cluster, total)
    row_tail = M % BM != 0 or split_k > 1
    col_tail = N % bn != 0

    a_spec = Tile(M, K, bf16, Layout.TMA_128B, tma_box=(a_rows, BK))
    b_box_cols = None
    if b_major == "K":
        b_spec = Tile(N, K, bf16, Layout.TMA_128B, tma_box=(min(b_part, N), BK))
        b_rank = 2
    else:
        # MN-major B: one rank-3 box of the tile's 64-column stripes per k
        # tile, or (mn_b_rank=2, or N off the stripes) one rank-2 box per stripe
        rank3_fits = N % 64 == 0 and N >= b_part
        b_rank = (mn_b_rank or 3) if b_part > 64 and rank3_fits else 2
        b_box_cols = b_part if b_rank == 3 else 64
        b_spec = Tile(K, N, bf16, Layout.TMA_128B, tma_box=(BK, b_box_cols), tma_rank=b_rank)
    r_spec = Tile(M, N, bf16, Layout.TMA_128B, tma_box=(BM, bn), tma_rank=3) \
        if residual_smem else Tile(M, N, bf16, Layout.TMA_128B, tma_box=(BM, 64)) \
        if residual_ring else Tile(M, N, bf16)
    extra_specs = ([Tile(N, bf16)] if bias else []) + ([r_spec] if residual else []) \
        + ([Tile(1, f32), Tile(1, f32)] if fp8_out else [])
    # C's rows off the 64-column stripes: a rank-2 store per stripe, the
    # last one clipped at N by the TMA unit
    c_stripes = epilogue == "tma" and N % 64 != 0
    if c_stripes:
        c_spec = Tile(M, N, bf16, Layout.TMA_128B, tma_box=(WG_M, 64))
    elif epilogue == "tma":
        c_spec = Tile(M, N, bf16, Layout.TMA_128B, tma_box=(WG_M, epi_cols), tma_rank=3)
    else:
        c_spec = Tile(M * split_k, N, out_dtype)

    def body(A, B, C, Bias=None, R=None, OutScale=None, Amax=None):
        a_desc = A.tma_desc(l2_promotion=l2_promotion)
        b_desc = B.tma_desc(l2_promotion=l2_promotion)
        c_desc = C.tma_desc() if epilogue == "tma" else None
        (pc,) = ptx.global_ptrs(C) if epilogue == "direct" else (None,)
        p_bias = ptx.global_ptrs(Bias)[0] if bias else None
        p_res = ptx.global_ptrs(R)[0] if residual_from == "global" and residual else None
        # the residual tile is prefetched into L2 when the producer starts the
        # tile, so that the threads' loads of it hit L2 (one tile per SM in
        # flight: 132 x 64 KB); from shared memory, TMA loads it outright
        r_desc = None
        if residual_smem:
            r_desc = R.tma_desc()
        elif p_res is not None:
            r_desc = R.tma_desc(box=(min(BM, M), min(bn, N)), swizzle="none")
        tiles = GemmTiles(cfg)
        # the residual tile by TMA (None: FusedEpilogue's loads)
        tile_residual = None
        if residual_smem:
            tile_residual = SmemResidual(tiles.sR, tiles.r_ring, r_desc, rows=BM, cols=bn)
        elif residual_ring:
            tile_residual = RingResidual(R.tma_desc(), tiles.sA, tiles.sB, a_bytes=cfg.a_bytes,
                                         b_bytes=cfg.b_bytes, rows=BM, bn=bn)
        tid, wg, lane128 = warpgroup_ids()
        tiles.init(tid == 0)
        grouped = scheduler.GroupedScheduler(m_rows, n_tiles, bm=BM, bn=bn, group=group,
                                             ctas=clusters, cluster=cluster, splits=split_k)

        def schedule(body):
            if split_k == 1:
                grouped(lambda m0, n0: body(GemmTile(a_row=m0, b_row=n0, b_col=n0, c_col=n0)))
                return
            k_part = cfg.k_tiles * BK

            def part(m0, n0, split):
                # part s of the K range goes to rows s*M.. of the f32 C
                c_row = split * M + m0
                body(GemmTile(a_row=m0, b_row=n0, b_col=n0, c_row=c_row, c_col=n0,
                              row_limit=split * M + M, k0=split * k_part))
            grouped(part)

        fused_parts = {}
        # the parts FusedEpilogue does (a residual from shared memory is not)
        fused_epilogue_preloads = activation is None and (
            bias or (residual and residual_from == "global"))
        p_scale, p_amax = ptx.global_ptrs(OutScale, Amax) if fp8_out else (None, None)

        def fused_epilogue():
            # one per kernel, made inside the consumers' role (its registers)
            if "epi" not in fused_parts:
                fused_parts["epi"] = FusedEpilogue(
                    bias=p_bias, activation=activation, residual=p_res, ldr=N,
                    row_limit=M if row_tail else None, col_limit=N if col_tail else None)
            return fused_parts["epi"]

        def preload(consumer, tile, row0, frag):
            fused_epilogue().preload(consumer.acc, bn, row0, tile.c_col, frag)

        def store(consumer, tile, row0, frag, tma_out):
            # (what FusedEpilogue.apply does; not the name `fused`, which
            # also counts a residual loaded by TMA)
            on_fragment = bias or activation is not None or p_res is not None
            if on_fragment and tma_out is not None and tile_residual is None and not fp8_out:
                # each TMA-store chunk's columns just before it (measured
                # faster than all the math first: benchmarks/NOTES.md)
                tma_out.store(consumer.acc, row0, tile.c_col, before_chunk=lambda c0, c1:
                              fused_epilogue().apply(consumer.acc, bn, row0, tile.c_col,
                                                     frag, cols=(c0, c1)))
                return
            if on_fragment:
                fused_epilogue().apply(consumer.acc, bn, row0, tile.c_col, frag)
            if tile_residual is not None:
                tile_residual.add(consumer, consumer.acc, bn)
            if fp8_out:
                if "fp8" not in fused_parts:
                    fused_parts["fp8"] = Fp8Output(
                        p_scale, p_amax, lane128, row_limit=M if row_tail else None,
                        col_limit=N if col_tail else None)
                fused_parts["fp8"].apply(consumer.acc, bn, row0, tile.c_col, frag)
            if tma_out is not None:
                tma_out.store(consumer.acc, row0, tile.c_col)
                return
            row_limit = None
            if split_k > 1:
                row_limit = tile.row_limit
            elif row_tail:
                row_limit = M
            store_direct(consumer.acc, out_dtype, pc, row0, tile.c_col, N, bn,
                         row_limit=row_limit, frag=frag, col_limit=N if col_tail else None)

        def prefetch_residual(tile):
            prefetch_tile_l2(r_desc, (tile.c_col, tile.a_row))

        run_roles(cfg, tiles, tid, wg, lane128, a_desc=a_desc, b_desc=b_desc, b_rank=b_rank,
                  c_desc=c_desc, schedule=schedule, store=store, b_box_cols=b_box_cols,
                  prefetch=prefetch, c_stripes=c_stripes,
                  before_load=prefetch_residual if residual_from == "global" and residual
                  else None,
                  preload=preload if fused_epilogue_preloads else None,
                  residual=tile_residual)
        ptx.ret()

    # the kernel's positional parameters are its tensors, the optional
    # epilogue inputs among them as built
    names = ["A", "B"] + ["Bias"] * bias + ["R"] * residual \
        + ["OutScale", "Amax"] * fp8_out + ["C"]

    def gemm(*tensors):
        body(**dict(zip(names, tensors)))
    gemm.__signature__ = inspect.Signature(
        [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD) for n in names])

    k = kernel(in_specs=(a_spec, b_spec, *extra_specs), out_specs=(c_spec,),
               grid=(clusters * cluster, 1, 1), block=(THREADS, 1, 1), cluster=(cluster, 1, 1),
               arch=arch, raw_directives=launch_directives(),
               writes=("Amax",) if fp8_out else ())(gemm)
    k.config = cfg
    return k


@functools.lru_cache(maxsize=None)
def plan_gemm(M: int, N: int, K: int, b_major: str = "K", num_sms: int = NUM_SMS,
              fused: bool = False) -> dict:
    """build_gemm keywords for a shape (cached). The heuristic:

    - bn, with more than half the SMs' worth of 256-column tiles: 256, or
      128 when N <= 128 or when 128-column tiles finish sooner (a wave of
      them takes about 0.55 of a wave of 256-column ones: half the work,
      some fixed cost), i.e. 1.1 x its waves < 2 x 256's;
    - with fewer (small M: decoding, short prompts): 64-column tiles when
      they fill a third to all of the SMs in one wave (M <= 128, N =
      6144: 96 CTAs, each streaming its 64 columns of B over the whole
      K), 32-column ones where those fill at most half (N = 4096: 128
      CTAs of 32 columns; measured on an H100: 85% of the copy bandwidth
      at M = 1, K = 14336, against 80% with 64 CTAs), else 128;
    - split_k: when neither fills half the SMs (N < 2816 at M <= 128) and
      K is long (>= 1024), the K range is cut into the most parts
      (a divisor of the k tiles, each part >= 4 k tiles) that keeps the
      work units within one wave. Measured on an H100 (2026-12-06): a CTA
      pays a few microseconds besides its stream of B, so few long-lived
      CTAs win: 2 MB of B per CTA reached 92-101% of the copy bandwidth
      at M = 16, 256 KB per CTA (split-K 4) 48%, and the split's sum and
      cast (two more kernels) cost about as much again;
    - cluster: build_gemm's default (2 for a K-major B with M % 256 == 0
      and more than 2 waves), 1 with split-K;
    - schedule: "pingpong" (bn 128) for an epilogue that runs after the
      main loop (fused=True: pyptx.ops.matmul asks for it with an
      activation; a bias or residual alone is preloaded into the
      accumulator, ops.matmul.call_plan) with a K-major B, K <=
      PINGPONG_MAX_K and more than half the SMs' worth of 256-column tiles,
      where one warpgroup's epilogue runs during the other's main loop;
      else "cooperative". Measured on an H100 (2026-12-06, pairs against
      cuBLAS + the PyTorch ops): at K = 4096 ping-pong 1.121 / 1.152 /
      1.068x (bias + GELU, SiLU, bias + residual) against the cooperative
      kernel's 1.097 / 1.087 / 1.030x; at K = 14336 (+ residual) 0.873
      against 1.015x (the epilogue is a small share there, and a 128 x 128
      tile per warpgroup moves more bytes per FLOP).
    """
    tiles = {b: cdiv(M, BM) * cdiv(N, b) for b in (256, 128, 64, 32)}
    waves = {b: cdiv(t, num_sms) for b, t in tiles.items()}
    if fused and b_major == "K" and K <= PINGPONG_MAX_K and tiles[256] > num_sms // 2:
        return {"bn": 128, "split_k": 1, "schedule": "pingpong"}
    if tiles[256] > num_sms // 2:
        bn = 128 if N <= 128 or 1.1 * waves[128] < 2 * waves[256] else 256
    elif num_sms // 3 <= tiles[64] <= num_sms // 2 and tiles[32] <= num_sms and b_major == "K":
        bn = 32
    elif num_sms // 3 <= tiles[64] <= num_sms:
        bn = 64
    else:
        bn = 128
    k_tiles = cdiv(K, BK)
    split_k = 1
    if bn > 64 and tiles[bn] * 2 <= num_sms and K >= 1024:
        for s in range(min(k_tiles // 4, num_sms // tiles[bn]), 1, -1):
            if k_tiles % s == 0:
                split_k = s
                break
    return {"bn": bn, "split_k": split_k, "schedule": "cooperative"}
