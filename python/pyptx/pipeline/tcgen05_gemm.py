"""Blackwell (sm_100a) warp-specialised tcgen05 GEMM pieces, built on
this package's ring: a TMA producer thread (1-SM, or a CTA pair whose loads
complete on the even CTA's barrier), an MMA thread that issues
``tcgen05.mma`` into one of two TMEM accumulators and commits
(``tcgen05.commit``) each stage free and each accumulator full to
mbarriers, and four epilogue warps that read an accumulator
(``tcgen05.ld``), free it for the next tile and store to global memory.

The two accumulators are themselves a ring of 2 stages (:class:`TmemRing`):
the MMA thread is its producer, the epilogue warps its consumers, so the
epilogue of tile i overlaps the MMAs of tile i+1 (CUTLASS's sm100
kernels). ``run_roles`` is the whole body given a schedule;
examples/blackwell/gemm.py and grouped_gemm.py are built on it.
"""
from __future__ import annotations

from dataclasses import dataclass

from .. import ptx, reg, smem
from ..types import b16, b32, bf16, f32, pred, u32, u64
from .epilogue import TmaStore
from .ring import Ring

BM = 128                    # rows per CTA = TMEM lanes
BK = 64                     # bf16 per 128-byte swizzled row: one k tile
K_MMA = 16                  # K of one tcgen05.mma kind::f16
ATOM_BYTES = 8 * BK * 2     # 8 swizzled rows: the descriptors' stride byte offset
TMA_WARP, MMA_WARP, FIRST_EPI_WARP = 0, 1, 2
EPI_THREADS = 128           # four epilogue warps, one per TMEM lane quarter
THREADS = 32 * FIRST_EPI_WARP + EPI_THREADS
NUM_SMS = 148               # B200
SMEM_LIMIT = 227 * 1024     # per CTA on sm_100


@dataclass
class Config:
    """The shape of one persistent tcgen05 GEMM kernel."""
    bn: int = 256           # N of a tile (and of one MMA)
    stages: int = 4
    cta_group: int = 1      # 2: a CTA pair computes a (2 * BM) x bn tile
    out_dtype: object = bf16
    k_tiles: int = 1        # K // BK
    epi_cols: int = 32      # columns per tcgen05.ld of the epilogue
    epilogue: str = "direct"    # "direct" (registers -> global) or "tma" (-> smem -> TMA store)

    @property
    def a_bytes(self):
        return BM * BK * 2

    @property
    def b_rows(self):
        """Rows of B (N) one CTA loads per k tile."""
        return self.bn // self.cta_group

    @property
    def b_bytes(self):
        return self.b_rows * BK * 2

    @property
    def tx_bytes(self):
        """Bytes that complete on the MMA CTA's full barrier per stage."""
        return (self.a_bytes + self.b_bytes) * self.cta_group

    @property
    def esize(self):
        """Bytes of an output element."""
        return 4 if self.out_dtype == f32 else 2

    @property
    def epi_row_bytes(self):
        """Bytes of one row of the TMA epilogue's shared tile (= its swizzle span)."""
        return self.epi_cols * self.esize

    @property
    def tmem_cols(self):
        """Two f32 accumulators of bn columns."""
        return 2 * self.bn

    @property
    def idesc(self):
        """The instruction descriptor: M 128 (256 for a pair), N bn, bf16 -> f32."""
        return ptx.tcgen05.make_instr_desc_f16bf16_f32(m=BM * self.cta_group, n=self.bn,
                                                       ab_dtype="bf16")


def smem_bytes(cfg: Config, extra: int = 0) -> int:
    """Shared memory one CTA asks for (ring, barriers, TMEM slot, alignment)."""
    tma_tile = BM * cfg.epi_row_bytes + 1024 if cfg.epilogue == "tma" else 0
    return cfg.stages * (cfg.a_bytes + cfg.b_bytes) + 8 * (2 * cfg.stages + 4) + 16 \
        + 1024 + extra + tma_tile


def fit_stages(cfg: Config, extra_smem: int = 0, most: int = 6) -> int:
    """The deepest ring (at most `most` stages) whose shared memory fits."""
    stages = 2
    while stages < most and smem_bytes(Config(**{**cfg.__dict__, "stages": stages + 1}),
                                       extra_smem) <= SMEM_LIMIT:
        stages += 1
    return stages


def check_config(cfg: Config, extra_smem: int = 0):
    """ValueError unless the tile, ring and epilogue fit the hardware."""
    if cfg.cta_group not in (1, 2):
        raise ValueError(f"gemm: cta_group must be 1 or 2, not {cfg.cta_group!r}")
    if cfg.bn not in (64, 128, 256):
        raise ValueError(f"gemm: bn must be 64, 128 or 256 (2 x bn TMEM columns, a power "
                         f"of two), not {cfg.bn!r}")
    if cfg.epi_cols not in (16, 32, 64) or cfg.bn % cfg.epi_cols:
        raise ValueError(f"gemm: epi_cols must be 16, 32 or 64 and divide bn={cfg.bn}; "
                         f"got {cfg.epi_cols!r}")
    if cfg.epilogue not in ("direct", "tma") or (
            cfg.epilogue == "tma" and cfg.epi_row_bytes not in (32, 64, 128)):
        raise ValueError(f"gemm: epilogue must be 'direct' or 'tma' (whose rows of epi_cols "
                         f"outputs must be 32, 64 or 128 bytes: a TMA swizzle span); got "
                         f"{cfg.epilogue!r} with epi_cols={cfg.epi_cols}")
    if cfg.out_dtype not in (bf16, f32):
        raise ValueError(f"gemm: out_dtype must be bf16 or f32, not {cfg.out_dtype}")
    if cfg.stages < 2 or smem_bytes(cfg, extra_smem) > SMEM_LIMIT:
        raise ValueError(f"gemm: {cfg.stages} stages need {smem_bytes(cfg, extra_smem)} "
                         f"bytes of shared memory; a CTA has {SMEM_LIMIT} (and at least 2 "
                         f"stages are needed)")


class GemmTile:
    """One output tile of a schedule (registers or ints): the row of A this
    CTA loads, the row of B (an N index) this CTA loads, the output row of
    this CTA's 128 rows and the output column; row_limit: rows at or past it
    are not stored (None: all)."""

    def __init__(self, a_row, b_row, c_row, c_col, row_limit=None):
        self.a_row, self.b_row, self.c_row, self.c_col = a_row, b_row, c_row, c_col
        self.row_limit = row_limit


# -- shared memory, barriers, TMEM ----------------------------------------------------------

class TmemRing:
    """Two f32 accumulators of bn TMEM columns as a 2-stage ring: acc_full
    (one tcgen05.commit from the MMA thread) and acc_empty (every epilogue
    thread of the CTA, or of the pair, arrives) barriers; the TMEM address
    is allocated by one warp into a shared slot."""

    def __init__(self, bn: int, *, epilogue_threads: int, cta_group: int = 1):
        self.bn, self.cta_group = bn, cta_group
        self.ring = Ring(2, empty_arrivals=epilogue_threads * cta_group)
        self.slot = smem.alloc(b32, (1,))

    @property
    def columns(self):
        return 2 * self.bn

    def alloc(self):
        """tcgen05.alloc of both accumulators (one warp), then give up the
        allocation permit."""
        ptx.tcgen05.alloc(self.slot, self.columns, cta_group=self.cta_group)
        ptx.tcgen05.relinquish_alloc_permit(cta_group=self.cta_group)

    def address(self):
        """The TMEM base address (after the CTA met): one ld.shared."""
        tmem = reg.scalar(b32)
        ptx.inst.ld.shared.b32(tmem, ptx.addr(self.slot))
        return tmem

    def dealloc(self, tmem):
        ptx.tcgen05.dealloc(tmem, self.columns, cta_group=self.cta_group)


class Tcgen05Tiles:
    """The A/B stages and their ring, and the TMEM accumulators, of one CTA,
    allocated in the trace (the same offsets in both CTAs of a pair, which
    the pair's MMA relies on)."""

    def __init__(self, cfg: Config):
        self.cfg = cfg
        self.sA = smem.alloc(bf16, (cfg.stages, BM, BK), swizzle="128B", align=1024)
        self.sB = smem.alloc(bf16, (cfg.stages, cfg.b_rows, BK), swizzle="128B", align=1024)
        self.ring = Ring(cfg.stages)
        self.acc = TmemRing(cfg.bn, epilogue_threads=EPI_THREADS, cta_group=cfg.cta_group)
        self.sC = None
        if cfg.epilogue == "tma":   # 128 rows of epi_cols outputs, swizzled by its row span
            self.sC = smem.alloc(cfg.out_dtype, (BM, cfg.epi_cols),
                                 swizzle=f"{cfg.epi_row_bytes}B", align=1024)

    def init(self, tid, warp):
        """Thread 0 initialises the barriers, warp 1 allocates TMEM; then the
        CTA (the pair) synchronises and every thread reads the TMEM address."""
        with ptx.if_(tid == 0):
            for ring in (self.ring, self.acc.ring):
                for s in range(ring.stages):
                    ring.init_stage(s)
            ptx.fence.mbarrier_init()
        with ptx.if_(warp == MMA_WARP):
            self.acc.alloc()
        ptx.tcgen05.fence_before_thread_sync()
        sync_all(self.cfg)
        ptx.tcgen05.fence_after_thread_sync()
        return self.acc.address()

    def finish(self, warp, tmem):
        """Everyone is done with TMEM (the epilogue read every accumulator):
        warp 1 frees it."""
        ptx.tcgen05.fence_before_thread_sync()
        sync_all(self.cfg)
        with ptx.if_(warp == MMA_WARP):
            ptx.tcgen05.fence_after_thread_sync()
            self.acc.dealloc(tmem)


def sync_all(cfg):
    """bar.sync of the CTA, or a cluster barrier for a pair."""
    if cfg.cta_group == 2:
        ptx.cluster.sync()
    else:
        ptx.bar.sync(0)


# -- the three roles ------------------------------------------------------------------------

def produce(cfg, tiles, barriers, a_desc, b_desc):
    """The producer thread's body for one tile: every k tile into the ring.
    A pair's loads complete on the even CTA's full barrier (mapa to rank 0)."""
    producer = tiles.ring.producer(barriers)
    is_leader = ptx.cluster.rank(0) if cfg.cta_group == 2 else None

    def tile(t):
        for k in ptx.range_(0, cfg.k_tiles):
            stage, full = producer.acquire()
            k_elem = k * BK
            if cfg.cta_group == 1:
                full.arrive_expect_tx(cfg.tx_bytes)
                ptx.cp.async_.bulk.tensor_2d(dst=tiles.sA[stage], src=a_desc,
                                             coord=(k_elem, t.a_row), mbar=full)
                ptx.cp.async_.bulk.tensor_2d(dst=tiles.sB[stage], src=b_desc,
                                             coord=(k_elem, t.b_row), mbar=full)
            else:
                ptx.mbarrier.arrive_expect_tx(full, cfg.tx_bytes, pred=is_leader)
                target = ptx.cluster.map_shared_u32(full.addr_reg(), 0)
                ptx.cp.async_.bulk.tensor_2d(dst=tiles.sA[stage], src=a_desc,
                                             coord=(k_elem, t.a_row), mbar=target, cta_group=2)
                ptx.cp.async_.bulk.tensor_2d(dst=tiles.sB[stage], src=b_desc,
                                             coord=(k_elem, t.b_row), mbar=target, cta_group=2)
    return tile


def issue_mma(cfg, tiles, barriers, acc_barriers, tmem):
    """The MMA thread's body for one tile: wait for a free accumulator, one
    k tile at a time wait for its stage, 4 MMAs, commit the stage free; at
    the end commit the accumulator full."""
    stages = tiles.ring.consumer(barriers)
    accumulators = tiles.acc.ring.producer(acc_barriers)
    sA, sB = reg.from_(tiles.sA, u32), reg.from_(tiles.sB, u32)
    mask = reg.scalar(b16, init=0b11) if cfg.cta_group == 2 else None  # both CTAs of the pair
    idesc = cfg.idesc

    def commit(slot):
        ptx.tcgen05.commit(slot, cta_group=cfg.cta_group, multicast_mask=mask)

    def tile(t):
        acc, acc_full = accumulators.acquire()
        ptx.tcgen05.fence_after_thread_sync()
        d = reg.scalar(b32)
        ptx.inst.mad.lo.u32(d, acc, cfg.bn, tmem)          # accumulator b at column b * bn
        accumulate = reg.scalar(pred)
        for k in ptx.range_(0, cfg.k_tiles):
            stage = stages.wait()
            ptx.tcgen05.fence_after_thread_sync()
            ptx.inst.setp.ne.u32(accumulate, k, 0)          # the tile's first MMA overwrites D
            a0 = ptx.tcgen05.descriptor(sA + stage * cfg.a_bytes, stride_bytes=ATOM_BYTES,
                                        swizzle="128B")
            b0 = ptx.tcgen05.descriptor(sB + stage * cfg.b_bytes, stride_bytes=ATOM_BYTES,
                                        swizzle="128B")
            for kk in range(BK // K_MMA):
                step = kk * K_MMA * 2 >> 4                  # 32 bytes per k16, in 16-byte units
                a = a0 + step if kk else a0
                b = b0 + step if kk else b0
                ptx.tcgen05.mma(d, a, b, idesc, cta_group=cfg.cta_group, kind="f16",
                                enable_input_d=accumulate if kk == 0 else True)
            commit(stages.empty_at(stage))
        commit(acc_full)
    return tile


class Epilogue:
    """Warps 2-5: TMEM -> registers (32x32b, one row per thread) -> global
    memory, directly or (cfg.epilogue "tma") through a shared tile and one
    thread's TMA store per chunk (TmaStore on named barrier 1). The shared
    tile is swizzled by its row span, so that the 8 rows a quarter-warp
    writes at once fall in distinct banks."""

    def __init__(self, cfg, tiles, acc_barriers, tmem, warp, lane, pc, ldc, c_desc=None):
        self.cfg = cfg
        self.accumulators = tiles.acc.ring.consumer(acc_barriers)
        quarter = warp & 3                                  # the lanes this warp may access
        self.row = (quarter << 5) + lane                    # row of the CTA's 128
        self.taddr = tmem + (quarter << 21)                 # lane 32 * quarter, column 0
        self.pc, self.ldc = pc, ldc
        self.esize = 4 if cfg.out_dtype == f32 else 2
        self.regs = reg.array(f32, cfg.epi_cols)
        self.packed = reg.array(b32, cfg.epi_cols // 2) if cfg.out_dtype == bf16 else None
        self.c_desc, self.sC, self.tma = c_desc, tiles.sC, None
        if tiles.sC is not None:
            self.tma = TmaStore(self.row == 0, 1, EPI_THREADS)
            row_bytes = cfg.epi_row_bytes
            row_addr = reg.from_(tiles.sC, u32) + self.row * row_bytes
            # the swizzle: 16-byte chunk j of a row lands at j ^ (address bits 7.. of the row)
            key = ((self.row * row_bytes) >> 7) & (row_bytes // 16 - 1)
            self.chunk_addrs = [row_addr + ((key ^ j) << 4) if j else row_addr + (key << 4)
                                for j in range(row_bytes // 16)]

    def _release(self, acc):
        # a pair: the even CTA's MMA thread waits for both CTAs' epilogues
        self.accumulators.release(acc, cta=0 if self.cfg.cta_group == 2 else None)

    def tile(self, t):
        cfg = self.cfg
        acc = self.accumulators.wait()
        ptx.tcgen05.fence_after_thread_sync()
        taddr = reg.scalar(u32)
        ptx.inst.mad.lo.u32(taddr, acc, cfg.bn, self.taddr)
        if self.tma is None:
            row = t.c_row + self.row
            keep = row < t.row_limit if t.row_limit is not None else None
            offset = reg.from_(row, u64) * self.ldc + reg.from_(t.c_col, u64)
            ptr = self.pc + offset * self.esize
        chunks = cfg.bn // cfg.epi_cols
        for c in range(chunks):
            c0 = c * cfg.epi_cols
            ptx.tcgen05.ld(self.regs, ptx.addr(taddr, c0), shape="32x32b", count=cfg.epi_cols)
            ptx.tcgen05.wait_ld()
            if c == chunks - 1:        # the whole accumulator is in registers
                ptx.tcgen05.fence_before_thread_sync()
                self._release(acc)
            if self.tma is None:
                self._store(ptr, c0, keep)
            else:
                self._store_tma(t, c0)

    def _store_tma(self, t, c0):
        """The chunk's 128 x epi_cols outputs -> the shared tile -> TMA store
        at (t.c_row, t.c_col + c0)."""
        if self.cfg.out_dtype == f32:
            values = self.regs
        else:
            values = self.packed
            for j in range(len(values)):
                ptx.inst.cvt.rn.bf16x2.f32(values[j], self.regs[2 * j + 1], self.regs[2 * j])
        self.tma.begin()
        for j, addr in enumerate(self.chunk_addrs):
            st = ptx.inst.st.shared.v4.f32 if self.cfg.out_dtype == f32 else \
                ptx.inst.st.shared.v4.b32
            st(ptx.addr(addr), values[4 * j:4 * j + 4])
        col = t.c_col if c0 == 0 else t.c_col + c0
        self.tma.end(lambda: ptx.cp.async_.bulk.tensor_2d.store(dst=self.c_desc, src=self.sC,
                                                                coord=(col, t.c_row)))

    def _store(self, ptr, c0, keep):
        regs = self.regs
        if self.cfg.out_dtype == f32:
            for j in range(0, self.cfg.epi_cols, 4):
                ptx.inst.st.global_.v4.f32(ptx.addr(ptr, 4 * (c0 + j)), regs[j:j + 4], pred=keep)
            return
        packed = self.packed
        for j in range(len(packed)):
            # cvt.rn.bf16x2.f32 d, a, b puts a in the upper half: column 2j+1
            ptx.inst.cvt.rn.bf16x2.f32(packed[j], regs[2 * j + 1], regs[2 * j])
        for j in range(0, len(packed), 4):
            ptx.inst.st.global_.v4.b32(ptx.addr(ptr, 2 * c0 + 4 * j), packed[j:j + 4], pred=keep)


def run_roles(cfg, tiles, tid, *, a_desc, b_desc, pc, ldc, schedule, c_desc=None):
    """The warp-specialised body: schedule(body) calls body(tile) for every
    tile of this CTA, in the same order for each role. c_desc: C's TMA
    descriptor for the "tma" epilogue (box 128 x epi_cols, swizzled by
    the row span), else pc/ldc: C's pointer and row length."""
    warp, lane = tid >> 5, tid & 31
    tmem = tiles.init(tid, warp)
    barriers, acc_barriers = tiles.ring.barriers(), tiles.acc.ring.barriers()
    with ptx.if_(tid == 32 * TMA_WARP):
        for desc in (a_desc, b_desc):
            ptx.inst.prefetch.tensormap(ptx.addr(desc))
        schedule(produce(cfg, tiles, barriers, a_desc, b_desc))
    mma_thread = tid == 32 * MMA_WARP
    if cfg.cta_group == 2:             # only the even CTA issues the pair's MMAs
        mma_thread = mma_thread & ptx.cluster.rank(0)
    with ptx.if_(mma_thread):
        schedule(issue_mma(cfg, tiles, barriers, acc_barriers, tmem))
    with ptx.if_(warp >= FIRST_EPI_WARP):
        epilogue = Epilogue(cfg, tiles, acc_barriers, tmem, warp, lane, pc, ldc, c_desc)
        schedule(epilogue.tile)
        if epilogue.tma is not None:
            epilogue.tma.finish()
    tiles.finish(warp, tmem)


