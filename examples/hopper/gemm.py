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
says so otherwise). The pieces (ring, producer, consumer k-loop,
epilogues) are reused by examples/hopper/grouped_gemm.py.

    python examples/hopper/gemm.py [M N K]    # prints the PTX
"""
from __future__ import annotations

import os
import sys
from dataclasses import dataclass

if __package__ in (None, ""):  # run as a script: make `examples` importable
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

import numpy as np  # noqa: E402

import examples.common  # noqa: E402,F401  (makes pyptx importable)
from pyptx import Tile, kernel, ptx, reg, smem  # noqa: E402
from pyptx.specs import Layout  # noqa: E402
from pyptx.types import b32, bf16, f32, u32, u64  # noqa: E402

ARCH = "sm_90a"
BM, BN, BK = 128, 256, 64          # CTA tile; each consumer warpgroup owns 64 rows
WG_M = 64                          # rows per consumer warpgroup (wgmma M)
THREADS = 384                      # producer warpgroup + two consumer warpgroups
CONSUMERS = 2
PRODUCER_REGS, CONSUMER_REGS = 40, 232   # 128*40 + 256*232 <= 64K registers
NUM_SMS = 132                      # H100 SXM / H200
GROUP_M = 8                        # cluster rows per group of the tile order
CLUSTER_MIN_WAVES = 2              # a K-major B multicasts when tiles > this x SMs


@dataclass
class Config:
    """The shape of one persistent warp-specialised GEMM kernel."""
    bn: int = BN                   # CTA tile columns (= the wgmma N)
    stages: int = 4
    cluster: int = 1               # CTAs along M sharing (multicasting) B
    b_major: str = "K"             # "K": B is (N, K); "MN": B is (K, N)
    out_dtype: object = bf16
    epilogue: str = "direct"       # "direct" (registers -> global) or "tma"
    k_tiles: int = 1               # K // BK
    epi_cols: int = BN             # columns per TMA-store chunk of the epilogue

    @property
    def a_bytes(self):
        return BM * BK * 2

    @property
    def b_bytes(self):
        return self.bn * BK * 2

    @property
    def stage_tx(self):
        """Bytes that land in one CTA's stage (A + the whole B tile)."""
        return self.a_bytes + self.b_bytes

    @property
    def b_part(self):
        """B columns (N) each CTA of the cluster loads and multicasts."""
        return self.bn // self.cluster


def smem_bytes(cfg: Config) -> int:
    """Dynamic shared memory the kernel asks for (tiles, epilogue, barriers)."""
    total = cfg.stages * cfg.stage_tx + 2 * 8 * cfg.stages
    if cfg.epilogue == "tma":
        total += CONSUMERS * WG_M * cfg.epi_cols * 2
    return total + 1024


# -- pieces shared with grouped_gemm.py ------------------------------------------------

class Ring:
    """The shared-memory stages and their barriers, allocated in the trace."""

    def __init__(self, cfg: Config):
        self.cfg = cfg
        self.sA = smem.wgmma_tile(bf16, (cfg.stages, BM, BK), major="K")
        if cfg.b_major == "K":
            self.sB = smem.wgmma_tile(bf16, (cfg.stages, cfg.bn, BK), major="K")
        else:
            self.sB = smem.wgmma_tile(bf16, (cfg.stages, BK, cfg.bn), major="MN")
        self.sC = None
        if cfg.epilogue == "tma":
            self.sC = smem.alloc(bf16, (CONSUMERS, WG_M, cfg.epi_cols), swizzle="128B",
                                 align=1024)
        self.full_bars = smem.mbarrier(cfg.stages)
        self.empty_bars = smem.mbarrier(cfg.stages)

    def init(self, leader):
        """Thread `leader` initialises the barriers; then every thread of the
        CTA (and of the cluster) synchronises."""
        cfg = self.cfg
        with ptx.if_(leader):
            for s in range(cfg.stages):
                ptx.mbarrier.init(self.full_bars[s], 1)
                # one arrival per consumer warpgroup of every CTA that writes here
                ptx.mbarrier.init(self.empty_bars[s], CONSUMERS * cfg.cluster)
            if cfg.cluster > 1:
                ptx.fence.mbarrier_init()
            else:
                ptx.fence.proxy_async_shared_cta()
        if cfg.cluster > 1:
            ptx.cluster.sync()
        else:
            ptx.bar.sync(0)

    def barrier_arrays(self):
        fulls = ptx.mbarrier.array(reg.from_(self.full_bars, u32), 0, self.cfg.stages)
        empties = ptx.mbarrier.array(reg.from_(self.empty_bars, u32), 0, self.cfg.stages)
        return fulls, empties


def _b_coord(cfg, b_desc_rank, k_elem, b_row, b_col):
    """TMA coordinates (innermost first) of a B box: K-major B (N, K) at row
    b_row (an N index); MN-major B (K, N) at row k (+ b_row) and column b_col."""
    if cfg.b_major == "K":
        return (k_elem, b_row)
    if b_desc_rank == 3:
        return (0, k_elem, b_col >> 6)
    return (b_col, k_elem)


class Producer:
    """One thread's TMA loads into the ring (call from a single thread).
    b_box_cols: the columns of one B load of an MN-major B (64 with a rank-2
    descriptor, the CTA's whole part with a rank-3 one); a CTA's part of
    the B tile is cfg.b_part // b_box_cols loads."""

    def __init__(self, cfg, ring, fulls, empties, a_desc, b_desc, b_rank, cta_rank=None,
                 b_box_cols=None):
        self.cfg, self.ring = cfg, ring
        self.fulls, self.empties = fulls, empties
        self.a_desc, self.b_desc, self.b_rank = a_desc, b_desc, b_rank
        self.b_box_cols = b_box_cols or cfg.b_part
        # The ring's empty barriers start in phase 0: waiting on parity 1 (the
        # phase "before" it) passes at once, so the first lap does not block.
        self.state = ptx.pipeline(cfg.stages, phase=reg.scalar(u32, init=1))
        self.sB_base = reg.from_(ring.sB, u32)
        self.b_offset, self.b_shift = 0, 0
        if cfg.cluster > 1:
            # this CTA's part of the B tile: rows (K-major) or 64-column
            # stripes (MN-major) cfg.b_part * rank on
            self.b_offset = cta_rank * (cfg.b_part * BK * 2)
            self.b_shift = cta_rank * cfg.b_part

    def load_tile(self, a_row, b_row, b_col, k_row=0):
        """Loads the K tiles of one output tile: A rows a_row.., B rows b_row..
        (K-major) or B rows k_row + k, columns b_col.. (MN-major)."""
        cfg = self.cfg
        load = getattr(ptx.cp.async_.bulk, f"tensor_{self.b_rank}d")
        multicast = {} if cfg.cluster == 1 else {"multicast_mask": (1 << cfg.cluster) - 1}
        if cfg.b_major == "K":
            b_row = b_row + self.b_shift if cfg.cluster > 1 else b_row
        elif cfg.cluster > 1:
            b_col = b_col + self.b_shift
        for k in ptx.range_(0, cfg.k_tiles):
            stage, phase = self.state.advance()
            self.empties.at(stage).wait(phase)
            full = self.fulls.at(stage)
            full.arrive_expect_tx(cfg.stage_tx)
            k_elem = k * BK
            ptx.cp.async_.bulk.tensor_2d(dst=self.ring.sA[stage], src=self.a_desc,
                                         coord=(k_elem, a_row), mbar=full)
            kb = k_elem if isinstance(k_row, int) and k_row == 0 else k_elem + k_row
            if cfg.cluster == 1 and self.b_box_cols == cfg.b_part:
                dst = self.ring.sB[stage]
            else:
                dst = self.sB_base + stage * cfg.b_bytes
                if cfg.cluster > 1:
                    dst = dst + self.b_offset
            for i in range(cfg.b_part // self.b_box_cols):
                col = b_col if i == 0 else b_col + i * self.b_box_cols
                where = dst if i == 0 else ptx.addr(dst, i * BK * self.b_box_cols * 2)
                load(dst=where, src=self.b_desc, coord=_b_coord(cfg, self.b_rank, kb, b_row, col),
                     mbar=full, **multicast)


class Consumer:
    """A consumer warpgroup's k-loop: wgmma on its 64 rows of the tile."""

    def __init__(self, cfg, ring, fulls, empties, consumer, lane128):
        self.cfg, self.ring = cfg, ring
        self.fulls, self.empties = fulls, empties
        self.lane128 = lane128
        self.state = ptx.pipeline(cfg.stages)
        self.prev = reg.scalar(u32, init=0)
        self.acc = reg.wgmma_frag(m=WG_M, n=cfg.bn, dtype=f32)
        # this warpgroup's 64 rows of each A stage start 64 * 128 bytes in
        self.a_base = reg.from_(ring.sA, u32) + consumer * (WG_M * BK * 2)
        self.b_base = reg.from_(ring.sB, u32)
        self.a_layout = ring.sA.gmma_layout
        self.b_layout = ring.sB.gmma_layout
        # one k16 step: 32 bytes along a K-major line, 16 lines of an MN-major tile
        self.b_step = 32 if cfg.b_major == "K" else 16 * self.b_layout.line_bytes
        self.signal = lane128 < cfg.cluster      # threads that free a stage

    def _descriptor(self, base, stage, stage_bytes, layout):
        address = base + stage * stage_bytes
        return ptx.wgmma.make_descriptor(
            address, leading_byte_offset=layout.leading_byte_offset,
            stride_byte_offset=layout.stride_byte_offset, swizzle=layout.swizzle_code)

    def _k_tile(self, first):
        cfg = self.cfg
        stage, phase = self.state.advance()
        self.fulls.at(stage).wait(phase)
        a = self._descriptor(self.a_base, stage, cfg.a_bytes, self.a_layout)
        b = self._descriptor(self.b_base, stage, cfg.b_bytes, self.b_layout)
        ptx.wgmma.fence()
        for j in range(BK // 16):
            ptx.wgmma.mma_async(shape=(WG_M, cfg.bn, 16), dtype_d=f32, dtype_a=bf16,
                                dtype_b=bf16, d=self.acc, a=a, b=b,
                                scale_d=not (first and j == 0),
                                trans_b=0 if cfg.b_major == "K" else 1,
                                a_k_offset=32 * j, b_k_offset=self.b_step * j)
        ptx.wgmma.commit_group()
        return stage

    def _release(self, stage):
        """Frees `stage` in every CTA of the cluster: lane i of the warpgroup
        arrives on the empty barrier of CTA i (one arrival per warpgroup)."""
        slot = self.empties.at(stage)
        if self.cfg.cluster == 1:
            ptx.mbarrier.arrive(slot, pred=self.signal)
        else:
            slot.arrive_remote(self.lane128, 1, pred=self.signal)

    def mainloop(self):
        """All K tiles of one output tile into self.acc; every stage is freed."""
        stage = self._k_tile(first=True)
        ptx.inst.mov.u32(self.prev, stage)
        for _ in ptx.range_(1, self.cfg.k_tiles):
            stage = self._k_tile(first=False)
            ptx.wgmma.wait_group(1)          # the previous k tile's wgmmas are done
            self._release(self.prev)
            ptx.inst.mov.u32(self.prev, stage)
        ptx.wgmma.wait_group(0)
        self._release(self.prev)


def fragment_row_col(lane128):
    """(row, column) of a thread's first accumulator element in its
    warpgroup's 64 x N tile: row 16*warp + lane/4, column 2*(lane%4)."""
    lane = lane128 & 31
    row = ((lane128 >> 5) << 4) + (lane >> 2)
    col = (lane & 3) << 1
    return row, col


def store_direct(acc, out_dtype, pc, row0, col0, ldc, n, row_limit=None, frag=None):
    """Stores a 64 x n f32 fragment to global memory at (row0, col0) of a
    row-major matrix with ldc columns: st.global.v2.f32 (f32) or cvt to
    bf16x2 + st.global.b32 (bf16), two rows per 8-column group. With
    row_limit, rows >= row_limit are not written."""
    row, col = frag
    grow = row0 + row
    esize = 4 if out_dtype == f32 else 2
    offset = reg.from_(grow * ldc + (col0 + col), u32)
    ptr = pc + reg.from_(offset, u64) * esize    # 64-bit: C may pass 4 GiB
    preds = [None, None]
    if row_limit is not None:
        preds = [grow < row_limit, (grow + 8) < row_limit]
    packed = reg.scalar(b32) if out_dtype != f32 else None
    for j in range(n // 8):
        for half in range(2):
            lo, hi = acc[4 * j + 2 * half], acc[4 * j + 2 * half + 1]
            where = ptx.addr(ptr, esize * (8 * half * ldc + 8 * j))
            if out_dtype == f32:
                ptx.inst.st.global_.v2.f32(where, [lo, hi], pred=preds[half])
            else:
                # cvt.rn.bf16x2.f32 d, a, b puts a in the high half
                ptx.inst.cvt.rn.bf16x2.f32(packed, hi, lo)
                ptx.inst.st.global_.b32(where, packed, pred=preds[half])


class TmaEpilogue:
    """bf16 epilogue of a consumer warpgroup, in chunks of cfg.epi_cols
    columns: stmatrix into its 64 x epi_cols shared tile (128B-swizzled
    64-column stripes, the layout of a rank-3 TMA box), then one thread
    issues the TMA store. Before a chunk overwrites the tile, the leader
    waits until the previous store has read it (wait_group.read 0) and the
    warpgroup meets at its named barrier."""

    def __init__(self, cfg, ring, c_desc, consumer, lane128):
        self.cfg, self.c_desc = cfg, c_desc
        self.leader = lane128 == 0
        self.bar_id = consumer + 1          # named barriers 1, 2: one per warpgroup
        tile_bytes = WG_M * cfg.epi_cols * 2
        self.base = reg.from_(ring.sC, u32) + consumer * tile_bytes
        self.slice = ring.sC[consumer]
        # stmatrix.x4 row addresses: lanes 8i..8i+7 give matrix i's rows;
        # matrices (rows 0-7 | 8-15) x (cols 0-7 | 8-15) of a 16 x 16 block.
        lane = lane128 & 31
        r8 = lane & 7
        row = ((lane128 >> 5) << 4) + r8 + (((lane >> 3) & 1) << 3)
        hi = lane >> 4                       # second 8 columns
        row_base = self.base + row * 128
        self.addrs = []
        for q in range(4):                   # the 16-column block's place in a stripe
            chunk = hi + 2 * q if q else hi
            phys = (chunk ^ r8) << 4         # 128B swizzle: chunk ^= row % 8
            self.addrs.append(row_base + phys)
        self.pack = [reg.scalar(b32) for _ in range(4)]

    def store(self, acc, row0, col0):
        cfg = self.cfg
        blocks = cfg.epi_cols // 16           # 16-column blocks per chunk
        for chunk in range(cfg.bn // cfg.epi_cols):
            with ptx.if_(self.leader):
                ptx.cp.async_.bulk.wait_group(0, read=True)
            ptx.bar.sync(self.bar_id, 128)
            for b in range(blocks):
                jj = chunk * blocks + b
                for m in range(4):
                    ptx.inst.cvt.rn.bf16x2.f32(self.pack[m], acc[8 * jj + 2 * m + 1],
                                               acc[8 * jj + 2 * m])
                stripe = b // 4
                ptx.stmatrix(smem=ptx.addr(self.addrs[b % 4], stripe * WG_M * 128),
                             regs=self.pack, layout="x4")
            ptx.fence.proxy_async_shared_cta()
            ptx.bar.sync(self.bar_id, 128)
            with ptx.if_(self.leader):
                col = col0 if chunk == 0 else col0 + chunk * cfg.epi_cols
                ptx.cp.async_.bulk.tensor_3d.store(dst=self.c_desc, src=self.slice,
                                                   coord=(0, row0, col >> 6))
                ptx.cp.async_.bulk.commit_group()

    def finish(self):
        with ptx.if_(self.leader):
            ptx.cp.async_.bulk.wait_group(0)


def roles(cfg):
    """(tid, warpgroup, lane128) registers of the thread."""
    tid = reg.from_(ptx.special.tid.x(), u32)
    return tid, tid >> 7, tid & 127


def launch_directives():
    """A register cap at entry (384 threads, 1 CTA per SM: 168 registers),
    which setmaxnreg needs to move registers between the warpgroups."""
    return [("maxntid", (THREADS, 1, 1)), ("minnctapersm", (1,))]


class Tile_:
    """One output tile of a schedule (registers or ints): A row; B row (an N
    index of a K-major B); B column and k_row (the K row added to each k
    tile's row) of an MN-major B; C row and column; row_limit: rows at or
    past it are not stored (None: all); full: a predicate, true when no row
    of the tile is past row_limit."""

    def __init__(self, a_row, b_row=0, b_col=0, c_row=None, c_col=0, row_limit=None,
                 full=None, k_row=0):
        self.a_row, self.b_row, self.b_col, self.k_row = a_row, b_row, b_col, k_row
        self.c_row = a_row if c_row is None else c_row
        self.c_col, self.row_limit, self.full = c_col, row_limit, full


def run_roles(cfg, ring, tid, wg, lane128, *, a_desc, b_desc, b_rank, c_desc, schedule,
              store, b_box_cols=None, prefetch=True):
    """The warp-specialised body: warpgroup 0 lowers its registers and its
    first thread loads every tile of `schedule` into the ring; warpgroups 1
    and 2 raise theirs, run the k-loop of each tile and call
    store(consumer, tile, row0, frag, tma_epilogue) for their 64 rows. With a
    cluster, every thread meets at a cluster barrier before leaving. prefetch:
    the producer thread first prefetches the TMA descriptors
    (``prefetch.tensormap``), so the first loads do not wait for them."""
    fulls, empties = ring.barrier_arrays()
    with ptx.if_(wg == 0):
        ptx.setmaxnreg(PRODUCER_REGS, inc=False)
        with ptx.if_(tid == 0):
            if prefetch:
                for desc in (a_desc, b_desc, c_desc):
                    if desc is not None:
                        ptx.inst.prefetch.tensormap(ptx.addr(desc))
            rank = reg.from_(ptx.special.cluster_ctarank(), u32) if cfg.cluster > 1 else None
            producer = Producer(cfg, ring, fulls, empties, a_desc, b_desc, b_rank, rank,
                                b_box_cols)
            schedule(lambda t: producer.load_tile(t.a_row, t.b_row, t.b_col, t.k_row))
    with ptx.else_():
        ptx.setmaxnreg(CONSUMER_REGS, inc=True)
        consumer_id = wg - 1
        consumer = Consumer(cfg, ring, fulls, empties, consumer_id, lane128)
        frag = fragment_row_col(lane128)
        tma_out = TmaEpilogue(cfg, ring, c_desc, consumer_id, lane128) \
            if ring.sC is not None else None

        def tile(t):
            consumer.mainloop()
            store(consumer, t, t.c_row + consumer_id * WG_M, frag, tma_out)
        schedule(tile)
        if tma_out is not None:
            tma_out.finish()
    if cfg.cluster > 1:
        # no CTA may leave while its peer can still write its shared memory
        ptx.cluster.sync()


# -- the dense GEMM ----------------------------------------------------------------------

def check_shape(M, N, K, cluster):
    if M % (BM * cluster) or N % BN or K % BK or min(M, N, K) <= 0:
        raise ValueError(
            f"gemm: M must be a positive multiple of {BM * cluster} (BM={BM} x cluster="
            f"{cluster}), N of {BN} and K of {BK}; got M={M} N={N} K={K} (pad the "
            f"operands to these multiples)")


def tile_order(m_tiles, n_tiles, group):
    """The (m, n) tile of each schedule index t in the grouped order: groups
    of `group` tile rows, each walked column by column (Python mirror of the
    kernel's arithmetic, for tests)."""
    out = []
    for t in range(m_tiles * n_tiles):
        g, local = divmod(t, group * n_tiles)
        out.append((g * group + local % group, local // group))
    return out


def _group_rows(rows, largest=GROUP_M):
    """The largest of largest, 8, 4, 2, 1 that divides the cluster rows."""
    return next(g for g in (largest, 8, 4, 2, 1) if g <= largest and rows % g == 0)


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
    an MN-major B takes 1, see below. group_m: cluster rows per group of
    the tile order. prefetch: prefetch.tensormap the descriptors first.

    An MN-major B with a 2-CTA cluster gave wrong tiles in the second CTA
    of each cluster on an H100 (2026-11-26; columns 64..255 of its tile,
    whether B went in as rank-3 or rank-2 boxes; K-major B is right at every
    size tested): until that is understood the combination is refused."""
    if b_major not in ("K", "MN"):
        raise ValueError(f"gemm: b_major must be 'K' (B is N x K) or 'MN' (B is K x N), "
                         f"not {b_major!r}")
    if cluster is None:
        many = (M // BM) * (N // BN) > CLUSTER_MIN_WAVES * num_sms and M % (2 * BM) == 0
        cluster = 2 if b_major == "K" and many else 1
    if cluster not in (1, 2):
        raise ValueError(f"gemm: cluster must be 1 or 2, not {cluster!r}")
    if cluster > 1 and b_major == "MN":
        raise ValueError("gemm: an MN-major B (K x N) runs with cluster=1: with a 2-CTA "
                         "cluster the second CTA's tiles came out wrong on the GPU (an "
                         "open bug, see benchmarks/NOTES.md); pass cluster=1 or a K-major B")
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
    group = _group_rows(m_rows, group_m)
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
        ring = Ring(cfg)
        tid, wg, lane128 = roles(cfg)
        ring.init(tid == 0)

        def schedule(body):
            """This CTA's tiles, in the grouped order: body(tile) for each."""
            if cluster > 1:
                cid = reg.from_(ptx.special.clusterid.x(), u32)
                rank = reg.from_(ptx.special.cluster_ctarank(), u32)
            else:
                cid, rank = reg.from_(ptx.special.ctaid.x(), u32), 0
            for t in ptx.range_(cid, total, clusters):
                g = t // (group * n_tiles)
                local = t - g * (group * n_tiles)
                mc = g * group + local % group
                n0 = (local // group) * BN
                m0 = (mc * cluster + rank) * BM if cluster > 1 else mc * BM
                body(Tile_(a_row=m0, b_row=n0, b_col=n0, c_row=m0, c_col=n0))

        def store(consumer, tile, row0, frag, tma_out):
            if tma_out is not None:
                tma_out.store(consumer.acc, row0, tile.c_col)
            else:
                store_direct(consumer.acc, out_dtype, pc, row0, tile.c_col, N, BN, frag=frag)

        run_roles(cfg, ring, tid, wg, lane128, a_desc=a_desc, b_desc=b_desc, b_rank=b_rank,
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
