"""FP8 (e4m3) GEMMs on Hopper (sm_90a): C = (sa * A) @ (sb * B)^T with A
(M, K) and B (N, K) e4m3, both K-major (FP8 wgmma reads no MN-major
operand), f32 accumulation, bf16 (or f32) out. Built on wgmma_gemm's
warp-specialised main loop with ``ab_dtype=e4m3``: a k tile is one
128-byte swizzled row of 128 fp8 (the bytes of a bf16 k tile of 64), each
consumer warpgroup issues 4 ``wgmma m64n{bn}k32 .e4m3.e4m3`` per k tile.

Scalings (pipeline.scales):

- "tensor": sa and sb are one f32 each, in device memory; the epilogue
  multiplies by their product.
- "row": sa (M,) and sb (N,) f32, applied in the epilogue.
- "block": DeepGEMM's sa (M, ceil(K/128)) per 1 x 128 block of A and sb
  (ceil(N/128), ceil(K/128)) per 128 x 128 block of B; every k tile's
  partial product is promoted into the f32 accumulator with its scales
  (BlockScaledConsumer). The accumulator and two partials (64 x bn f32
  fragments each) fit the consumers' registers only with 128-column
  tiles, so block-scaled tiles are 128 x 128, or 128 x 192 with one
  partial (promotion_chunk 1: each k tile waited for before its
  promotion) and a B scale per 64-column segment.

Shapes: any M; N a multiple of 8 and K a multiple of 16 (16-byte rows for
TMA), K >= 128 (one swizzled row per box). TMA zero-fills loads past the
matrices (tails of M, N, K: the zeros add nothing whatever the scale);
stores are clipped at C's bounds (TMA store, or stores predicated on row
and column); scales past the matrix are not read (rows clamped to M - 1,
columns guarded).

Measured on an H100 SXM (2026-12-06, benchmarks/gemm_fp8.py, beside
``torch._scaled_mm`` with the same scales): per-tensor and row-wise
1400-1510 TFLOP/s at 4096^3 to 8192 x 28672 x 8192 (cuBLAS 1250-1460);
block-scaled 1184-1228 TFLOP/s at 8192^3 (cuBLAS block-wise 1178-1276 in
the same runs) with the overlapped promotion, 1096 in DeepGEMM's serial
order; a 2 x 2 cluster sharing A and B was slower (734 block-scaled, 904
per-tensor).

``build_grouped_gemm_fp8`` is the MoE grouped GEMM with block scales:
variable rows per expert (offs, the rows' cumulative ends, as
examples/hopper/grouped_gemm.py's build_grouped_gemm takes them), each
expert its own B (rows g*N.. of a (G*N, K) B) and its own B scales.
"""
from __future__ import annotations

import functools

from .. import Tile, kernel, ptx
from ..specs import Layout
from ..types import bf16, e4m3, f32, s32
from . import scheduler
from .epilogue import WG_M, store_direct
from .roles import launch_directives, warpgroup_ids
from .scales import BLOCK, BlockScaledConsumer, BlockScales, RowScales, TensorScales
from .wgmma_gemm import BM, THREADS, Config, GemmTile, GemmTiles, run_roles, smem_bytes

ARCH = "sm_90a"
NUM_SMS = 132                      # H100 SXM / H200
GROUP_M = 8                        # cluster rows per group of the tile order
SMEM_LIMIT = 227 * 1024
BK = 128                           # K elements (bytes) per k tile
SCALINGS = ("tensor", "row", "block")
MAX_EXPERTS = THREADS              # one thread per expert builds the schedule
PROMOTION_CHUNK = 8                # k tiles per run of overlapped promotion (block scales)


def cdiv(a: int, b: int) -> int:
    return -(-a // b)


def k_blocks(K: int) -> int:
    """Block scales along K: one per 128 elements (the last may be partial)."""
    return cdiv(K, BLOCK)


def scale_shapes(scaling: str, M: int, N: int, K: int):
    """The shapes of sa and sb for a scaling of A (M, K) and B (N, K)."""
    if scaling == "tensor":
        return (1,), (1,)
    if scaling == "row":
        return (M,), (N,)
    return (M, k_blocks(K)), (cdiv(N, BLOCK), k_blocks(K))


def check_shape(M, N, K, scaling="tensor"):
    """A ValueError naming the rule a shape breaks (see the module doc)."""
    if scaling not in SCALINGS:
        raise ValueError(f"fp8 gemm: scaling must be one of {', '.join(SCALINGS)}; "
                         f"got {scaling!r}")
    if min(M, N, K) <= 0:
        raise ValueError(f"fp8 gemm: M, N, K must be positive; got M={M} N={N} K={K}")
    if K % 16 or N % 8:
        raise ValueError(f"fp8 gemm: K must be a multiple of 16 (16-byte rows of the fp8 A "
                         f"and B for TMA) and N of 8 (of the bf16 C); got M={M} N={N} K={K}")
    if K < BK:
        raise ValueError(f"fp8 gemm: K must be at least {BK} (one 128-byte swizzled row per "
                         f"box); got K={K} (pyptx.ops.matmul_fp8 pads it)")


@functools.lru_cache(maxsize=None)
def plan_gemm_fp8(M: int, N: int, K: int, scaling: str = "tensor",
                  num_sms: int = NUM_SMS) -> dict:
    """build_gemm_fp8 keywords for a shape (cached). Per-tensor and
    row-wise: 128-column tiles where 256-column ones would not fill half
    the SMs or 128-column ones finish in fewer waves (as the bf16 plan: a
    wave of 128-column tiles costs about 0.55 of a 256-column wave), else
    256. Block scales (the registers allow 128, or 192 with promotion_chunk
    1): the width whose waves cover the fewer columns (waves x bn; measured
    on an H100 a 192-column tile costs 1.5 128-column ones: 8192^3, 32 waves
    of 128 against 21 of 192, ran 1224 against 1255 TFLOP/s; 4096^3, 8
    against 6, 1140 against 1058), 128 on a tie. A 2-CTA cluster (B
    multicast) when M is whole cluster rows and there are more than two
    waves of tiles."""
    widths = (128, 192) if scaling == "block" else (256, 128)
    tiles = {b: cdiv(M, BM) * cdiv(N, b) for b in widths}
    waves = {b: cdiv(t, num_sms) for b, t in tiles.items()}
    plan = {}
    if scaling == "block":
        bn = 192 if N > 128 and waves[192] * 192 < waves[128] * 128 else 128
        plan["promotion_chunk"] = 1 if bn == 192 else PROMOTION_CHUNK
    elif N <= 128 or tiles[256] <= num_sms // 2 or 1.1 * waves[128] < 2 * waves[256]:
        bn = 128
    else:
        bn = 256
    cluster = 2 if M % (2 * BM) == 0 and tiles[bn] > 2 * num_sms and N >= bn else 1
    return {"bn": bn, "cluster": cluster, **plan}


def _config(M, N, K, *, bn, cluster, stages, epilogue, out_dtype, extra_smem=0):
    epi_cols = min(bn, 128) if bn % 128 == 0 else 64
    epi_bytes = 2 * WG_M * epi_cols * 2 if epilogue == "tma" else 0
    if stages is None:
        stage = (BM + bn) * BK
        stages = min(8, (SMEM_LIMIT - 1024 - epi_bytes - extra_smem - 256) // stage)
    cfg = Config(bn=bn, stages=stages, cluster=cluster, b_major="K", out_dtype=out_dtype,
                 epilogue=epilogue, k_tiles=cdiv(K, BK), epi_cols=epi_cols,
                 a_rows=min(BM, M), b_cols=0 if min(bn, N) == bn else N, ab_dtype=e4m3)
    if smem_bytes(cfg) + extra_smem > SMEM_LIMIT:
        raise ValueError(f"fp8 gemm: {stages} stages with the {epilogue} epilogue need "
                         f"{smem_bytes(cfg) + extra_smem} bytes of shared memory; a CTA "
                         f"has 227 KiB")
    return cfg


def _scale_specs(scaling, M, N, K):
    return tuple(Tile(*shape, f32) for shape in scale_shapes(scaling, M, N, K))


def build_gemm_fp8(M: int, N: int, K: int, *, scaling: str = "tensor", out_dtype=bf16,
                   bn: int | None = None, cluster: int | None = None,
                   stages: int | None = None, epilogue: str | None = None,
                   group_m: int = GROUP_M, l2_promotion: str = "256B",
                   promotion_chunk: int | None = None, num_sms: int = NUM_SMS,
                   arch: str = ARCH):
    """The kernel gemm(A, B, SA, SB) -> C for e4m3 A (M, K), B (N, K), f32
    scales of `scaling`'s shapes (scale_shapes) and C (M, N) out_dtype
    (bf16 or f32). bn (128 or 256; for block scales 128, or 192 with
    promotion_chunk 1), cluster (1 or 2
    CTAs along M sharing B by multicast): plan_gemm_fp8's by default.
    stages: the ring depth (as many as fit by default). epilogue: "tma"
    (bf16, N % 64 == 0, M >= 64: the default there) or "direct".
    promotion_chunk (block scales): k tiles per run in which each k tile's
    partial is promoted while the next one's wgmmas run (1: each waited
    for, DeepGEMM's order; see BlockScaledConsumer); by default 8, or 1
    for 192-column tiles."""
    check_shape(M, N, K, scaling)
    if out_dtype not in (bf16, f32):
        raise ValueError(f"fp8 gemm: out_dtype must be bf16 or f32, not {out_dtype}")
    plan = plan_gemm_fp8(M, N, K, scaling, num_sms)
    if bn is None:
        # an explicit overlapped promotion holds two partials: 128 columns
        bn = BLOCK if scaling == "block" and (promotion_chunk or 1) > 1 else plan["bn"]
    cluster = plan["cluster"] if cluster is None else cluster
    if promotion_chunk is None:
        promotion_chunk = 1 if bn == 192 else PROMOTION_CHUNK
    block_widths = (BLOCK,) if promotion_chunk > 1 else (BLOCK, 192)
    if (scaling != "block" and bn not in (128, 256)) or \
            (scaling == "block" and bn not in block_widths):
        raise ValueError(f"fp8 gemm: bn must be 128 or 256 (with block scales 128, or 192 "
                         f"with promotion_chunk 1), not {bn!r}")
    if cluster not in (1, 2) or (cluster == 2 and (M < 2 * BM or N < bn)):
        raise ValueError(f"fp8 gemm: cluster must be 1, or 2 with M >= {2 * BM} and "
                         f"N >= bn={bn}; got {cluster!r} (M={M} N={N})")
    tma_ok = out_dtype == bf16 and N % 64 == 0 and M >= WG_M
    epilogue = epilogue or ("tma" if tma_ok else "direct")
    if epilogue not in ("tma", "direct") or (epilogue == "tma" and not tma_ok):
        raise ValueError(f"fp8 gemm: epilogue must be 'direct' or 'tma' (bf16 out, N a "
                         f"multiple of 64, M >= 64), not {epilogue!r}")
    cfg = _config(M, N, K, bn=bn, cluster=cluster, stages=stages, epilogue=epilogue,
                  out_dtype=out_dtype)

    m_rows = cdiv(M, BM * cluster)
    n_tiles = cdiv(N, bn)
    clusters = min(num_sms // cluster, m_rows * n_tiles)
    group = scheduler.group_rows(m_rows, group_m)
    last_row = M - 1 if M % BM else None
    col_limit = N if N % bn else None
    sa_spec, sb_spec = _scale_specs(scaling, M, N, K)
    a_spec = Tile(M, K, e4m3, Layout.TMA_128B, tma_box=(cfg.a_rows, BK))
    b_spec = Tile(N, K, e4m3, Layout.TMA_128B, tma_box=(min(bn // cluster, N), BK))
    c_spec = (Tile(M, N, bf16, Layout.TMA_128B, tma_box=(WG_M, cfg.epi_cols), tma_rank=3)
              if epilogue == "tma" else Tile(M, N, out_dtype))

    @kernel(in_specs=(a_spec, b_spec, sa_spec, sb_spec), out_specs=(c_spec,),
            grid=(clusters * cluster, 1, 1), block=(THREADS, 1, 1),
            cluster=(cluster, 1, 1), arch=arch,
            raw_directives=launch_directives(THREADS))
    def gemm_fp8(A, B, SA, SB, C):
        a_desc = A.tma_desc(l2_promotion=l2_promotion)
        b_desc = B.tma_desc(l2_promotion=l2_promotion)
        c_desc = C.tma_desc() if epilogue == "tma" else None
        p_sa, p_sb = ptx.global_ptrs(SA, SB)
        (pc,) = ptx.global_ptrs(C) if epilogue == "direct" else (None,)
        tiles = GemmTiles(cfg)
        tid, wg, lane128 = warpgroup_ids()
        tiles.init(tid == 0)
        consumer_class, epilogue_scales = None, None
        if scaling == "block":
            consumer_class = functools.partial(
                BlockScaledConsumer, chunk=promotion_chunk,
                scales=BlockScales(p_sa, p_sb, k_blocks(K), last_row=last_row,
                                   last_block=cdiv(N, BLOCK) - 1 if N % bn else None))
        elif scaling == "row":
            epilogue_scales = RowScales(p_sa, p_sb, last_row=last_row, col_limit=col_limit)
        else:
            epilogue_scales = TensorScales(p_sa, p_sb)

        grouped = scheduler.GroupedScheduler(m_rows, n_tiles, bm=BM, bn=bn, group=group,
                                             ctas=clusters, cluster=cluster)

        def schedule(body):
            grouped(lambda m0, n0: body(GemmTile(a_row=m0, b_row=n0, c_col=n0)))

        def store(consumer, tile, row0, frag, tma_out):
            if epilogue_scales is not None:
                epilogue_scales.apply(consumer.acc, bn, row0, tile.c_col, frag)
            if tma_out is not None:
                tma_out.store(consumer.acc, row0, tile.c_col)
                return
            store_direct(consumer.acc, out_dtype, pc, row0, tile.c_col, N, bn, frag=frag,
                         row_limit=M if last_row is not None else None, col_limit=col_limit)

        run_roles(cfg, tiles, tid, wg, lane128, a_desc=a_desc, b_desc=b_desc, b_rank=2,
                  c_desc=c_desc, schedule=schedule, store=store,
                  consumer_class=consumer_class)
        ptx.ret()

    gemm_fp8.config = cfg
    return gemm_fp8


def build_grouped_gemm_fp8(T: int, N: int, K: int, G: int, *, out_dtype=bf16,
                           stages: int | None = None, epilogue: str | None = None,
                           l2_promotion: str = "256B", promotion_chunk: int = PROMOTION_CHUNK,
                           num_sms: int = NUM_SMS, arch: str = ARCH):
    """The kernel grouped(A, B, SA, SB, offs) -> C: the rows offs[g-1]:offs[g]
    of C (T, N) are those rows of A (T, K) @ B_g^T, B_g = B[g*N:(g+1)*N]
    (B is (G*N, K) e4m3), with block scales SA (T, ceil(K/128)) and SB
    (G*N/128, ceil(K/128)) (expert g's blocks are rows g*N/128..); offs a
    (G,) int32 tensor of cumulative row ends (rows past offs[G-1] are not
    written). N a multiple of 128 (an expert's B blocks), K of 16 and >= 128,
    1 <= G <= 384. Tiles are 128 x 128; full tiles leave through the
    TMA-store epilogue (bf16), an expert's last partial tile through
    predicated stores."""
    if N % BLOCK or not 1 <= G <= MAX_EXPERTS or T < 1:
        raise ValueError(f"grouped fp8 gemm: N must be a multiple of {BLOCK} and 1 <= G <= "
                         f"{MAX_EXPERTS}; got T={T} N={N} K={K} G={G}")
    check_shape(T, N, K, "block")
    if out_dtype not in (bf16, f32):
        raise ValueError(f"grouped fp8 gemm: out_dtype must be bf16 or f32, not {out_dtype}")
    tma_ok = out_dtype == bf16 and T >= WG_M
    epilogue = epilogue or ("tma" if tma_ok else "direct")
    if epilogue not in ("tma", "direct") or (epilogue == "tma" and not tma_ok):
        raise ValueError(f"grouped fp8 gemm: epilogue must be 'direct' or (bf16 out, T >= "
                         f"64) 'tma', not {epilogue!r}")
    schedule_bytes = scheduler.ExpertScheduler.smem_bytes(G)
    cfg = _config(T, N, K, bn=BLOCK, cluster=1, stages=stages, epilogue=epilogue,
                  out_dtype=out_dtype, extra_smem=schedule_bytes)
    n_tiles = N // BLOCK
    kb = k_blocks(K)
    c_spec = (Tile(T, N, bf16, Layout.TMA_128B, tma_box=(WG_M, cfg.epi_cols), tma_rank=3)
              if epilogue == "tma" else Tile(T, N, out_dtype))

    @kernel(in_specs=(Tile(T, K, e4m3, Layout.TMA_128B, tma_box=(cfg.a_rows, BK)),
                      Tile(G * N, K, e4m3, Layout.TMA_128B, tma_box=(BLOCK, BK)),
                      Tile(T, kb, f32), Tile(G * N // BLOCK, kb, f32), Tile(G, s32)),
            out_specs=(c_spec,), grid=(num_sms, 1, 1), block=(THREADS, 1, 1), arch=arch,
            raw_directives=launch_directives(THREADS))
    def grouped_gemm_fp8(A, B, SA, SB, offs, C):
        a_desc = A.tma_desc(l2_promotion=l2_promotion)
        b_desc = B.tma_desc(l2_promotion=l2_promotion)
        c_desc = C.tma_desc() if epilogue == "tma" else None
        p_sa, p_sb, p_offs, pc = ptx.global_ptrs(SA, SB, offs, C)
        tiles = GemmTiles(cfg)
        experts = scheduler.ExpertScheduler(G, n_tiles, bm=BM, bn=BLOCK)
        tid, wg, lane128 = warpgroup_ids()
        experts.build(tid, p_offs)
        tiles.init(tid == 0)            # its bar.sync also publishes the schedule
        # a tile's rows past its expert's end are the next expert's (or past T):
        # their scales are read (clamped to T - 1), their outputs not stored
        consumer_class = functools.partial(
            BlockScaledConsumer, chunk=promotion_chunk,
            scales=BlockScales(p_sa, p_sb, kb, last_row=T - 1))

        def tile_of(e):
            return GemmTile(a_row=e.row, b_row=e.expert * N + e.n0, c_row=e.row, c_col=e.n0,
                            row_limit=e.row_end, full=(e.row + BM) <= e.row_end)

        def schedule(body):
            experts(lambda e: body(tile_of(e)), ctas=num_sms)

        def store(consumer, tile, row0, frag, tma_out):
            def direct():
                store_direct(consumer.acc, out_dtype, pc, row0, tile.c_col, N, BLOCK,
                             row_limit=tile.row_limit, frag=frag)
            if tma_out is None:
                direct()
                return
            with ptx.if_(tile.full):
                tma_out.store(consumer.acc, row0, tile.c_col)
            with ptx.else_():
                direct()

        run_roles(cfg, tiles, tid, wg, lane128, a_desc=a_desc, b_desc=b_desc, b_rank=2,
                  c_desc=c_desc, schedule=schedule, store=store,
                  consumer_class=consumer_class)
        ptx.ret()

    grouped_gemm_fp8.config = cfg
    return grouped_gemm_fp8
