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
  thread may overwrite that accumulator.

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

M must be a multiple of 128 x cta_group, N of bn, K of 64. Not run on a
Blackwell GPU yet (none was available): the kernels assemble with ptxas
-arch=sm_100a, and test/gpu/test_blackwell.py checks them where one is.

    python examples/blackwell/gemm.py [M N K [2]]    # prints the PTX
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
from pyptx.types import b16, b32, bf16, f32, pred, u32, u64  # noqa: E402

ARCH = "sm_100a"
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
    return cfg.stages * (cfg.a_bytes + cfg.b_bytes) + 8 * (2 * cfg.stages + 4) + 16 \
        + 1024 + extra


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
    if cfg.out_dtype not in (bf16, f32):
        raise ValueError(f"gemm: out_dtype must be bf16 or f32, not {cfg.out_dtype}")
    if cfg.stages < 2 or smem_bytes(cfg, extra_smem) > SMEM_LIMIT:
        raise ValueError(f"gemm: {cfg.stages} stages need {smem_bytes(cfg, extra_smem)} "
                         f"bytes of shared memory; a CTA has {SMEM_LIMIT} (and at least 2 "
                         f"stages are needed)")


class Tile_:
    """One output tile of a schedule (registers or ints): the row of A this
    CTA loads, the row of B (an N index) this CTA loads, the output row of
    this CTA's 128 rows and the output column; row_limit: rows at or past it
    are not stored (None: all)."""

    def __init__(self, a_row, b_row, c_row, c_col, row_limit=None):
        self.a_row, self.b_row, self.c_row, self.c_col = a_row, b_row, c_row, c_col
        self.row_limit = row_limit


# -- shared memory and barriers ----------------------------------------------------------

class Ring:
    """The stages, barriers and TMEM slot of one CTA, allocated in the trace
    (the same offsets in both CTAs of a pair, which the pair's MMA relies on)."""

    def __init__(self, cfg: Config):
        self.cfg = cfg
        self.sA = smem.alloc(bf16, (cfg.stages, BM, BK), swizzle="128B", align=1024)
        self.sB = smem.alloc(bf16, (cfg.stages, cfg.b_rows, BK), swizzle="128B", align=1024)
        self.full = smem.mbarrier(cfg.stages)
        self.empty = smem.mbarrier(cfg.stages)
        self.acc_full = smem.mbarrier(2)
        self.acc_empty = smem.mbarrier(2)
        self.tmem_slot = smem.alloc(b32, (1,))

    def init(self, tid, warp):
        """Thread 0 initialises the barriers, warp 1 allocates TMEM; then the
        CTA (the pair) synchronises and every thread reads the TMEM address."""
        cfg = self.cfg
        with ptx.if_(tid == 0):
            for s in range(cfg.stages):
                ptx.mbarrier.init(self.full[s], 1)
                ptx.mbarrier.init(self.empty[s], 1)
            for b in range(2):
                ptx.mbarrier.init(self.acc_full[b], 1)
                ptx.mbarrier.init(self.acc_empty[b], EPI_THREADS * cfg.cta_group)
            ptx.fence.mbarrier_init()
        with ptx.if_(warp == MMA_WARP):
            ptx.tcgen05.alloc(self.tmem_slot, cfg.tmem_cols, cta_group=cfg.cta_group)
            ptx.tcgen05.relinquish_alloc_permit(cta_group=cfg.cta_group)
        ptx.tcgen05.fence_before_thread_sync()
        sync_all(cfg)
        ptx.tcgen05.fence_after_thread_sync()
        tmem = reg.scalar(b32)
        ptx.inst.ld.shared.b32(tmem, ptx.addr(self.tmem_slot))
        return tmem

    def barrier_arrays(self):
        arrays = [reg.from_(a, u32) for a in (self.full, self.empty, self.acc_full,
                                               self.acc_empty)]
        counts = [self.cfg.stages, self.cfg.stages, 2, 2]
        return [ptx.mbarrier.array(base, 0, n) for base, n in zip(arrays, counts)]

    def finish(self, warp, tmem):
        """Everyone is done with TMEM (the epilogue read every accumulator):
        warp 1 frees it."""
        cfg = self.cfg
        ptx.tcgen05.fence_before_thread_sync()
        sync_all(cfg)
        with ptx.if_(warp == MMA_WARP):
            ptx.tcgen05.fence_after_thread_sync()
            ptx.tcgen05.dealloc(tmem, cfg.tmem_cols, cta_group=cfg.cta_group)


def sync_all(cfg):
    """bar.sync of the CTA, or a cluster barrier for a pair."""
    if cfg.cta_group == 2:
        ptx.cluster.sync()
    else:
        ptx.bar.sync(0)


# -- the three roles ------------------------------------------------------------------------

def produce(cfg, ring, fulls, empties, a_desc, b_desc):
    """The producer thread's body for one tile: every k tile into the ring.
    A pair's loads complete on the even CTA's full barrier (mapa to rank 0)."""
    state = ptx.pipeline(cfg.stages, phase=reg.scalar(u32, init=1))  # empty: first lap free
    is_leader = ptx.cluster.rank(0) if cfg.cta_group == 2 else None

    def tile(t):
        for k in ptx.range_(0, cfg.k_tiles):
            stage, phase = state.advance()
            empties.at(stage).wait(phase)
            full = fulls.at(stage)
            k_elem = k * BK
            if cfg.cta_group == 1:
                full.arrive_expect_tx(cfg.tx_bytes)
                ptx.cp.async_.bulk.tensor_2d(dst=ring.sA[stage], src=a_desc,
                                             coord=(k_elem, t.a_row), mbar=full)
                ptx.cp.async_.bulk.tensor_2d(dst=ring.sB[stage], src=b_desc,
                                             coord=(k_elem, t.b_row), mbar=full)
            else:
                ptx.mbarrier.arrive_expect_tx(full, cfg.tx_bytes, pred=is_leader)
                target = ptx.cluster.map_shared_u32(full.addr_reg(), 0)
                ptx.cp.async_.bulk.tensor_2d(dst=ring.sA[stage], src=a_desc,
                                             coord=(k_elem, t.a_row), mbar=target, cta_group=2)
                ptx.cp.async_.bulk.tensor_2d(dst=ring.sB[stage], src=b_desc,
                                             coord=(k_elem, t.b_row), mbar=target, cta_group=2)
    return tile


def issue_mma(cfg, ring, fulls, empties, acc_fulls, acc_empties, tmem):
    """The MMA thread's body for one tile: wait for a free accumulator, one
    k tile at a time wait for its stage, 4 MMAs, commit the stage free; at
    the end commit the accumulator full."""
    kstate = ptx.pipeline(cfg.stages)
    astate = ptx.pipeline(2, phase=reg.scalar(u32, init=1))          # acc_empty: first lap free
    sA, sB = reg.from_(ring.sA, u32), reg.from_(ring.sB, u32)
    mask = reg.scalar(b16, init=0b11) if cfg.cta_group == 2 else None  # both CTAs of the pair
    idesc = cfg.idesc

    def commit(slot):
        ptx.tcgen05.commit(slot, cta_group=cfg.cta_group, multicast_mask=mask)

    def tile(t):
        acc, acc_phase = astate.advance()
        acc_empties.at(acc).wait(acc_phase)
        ptx.tcgen05.fence_after_thread_sync()
        d = reg.scalar(b32)
        ptx.inst.mad.lo.u32(d, acc, cfg.bn, tmem)          # accumulator b at column b * bn
        accumulate = reg.scalar(pred)
        for k in ptx.range_(0, cfg.k_tiles):
            stage, phase = kstate.advance()
            fulls.at(stage).wait(phase)
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
            commit(empties.at(stage))
        commit(acc_fulls.at(acc))
    return tile


class Epilogue:
    """Warps 2-5: TMEM -> registers (32x32b, one row per thread) -> global."""

    def __init__(self, cfg, acc_fulls, acc_empties, tmem, warp, lane, pc, ldc):
        self.cfg, self.acc_fulls, self.acc_empties = cfg, acc_fulls, acc_empties
        self.state = ptx.pipeline(2)
        quarter = warp & 3                                  # the lanes this warp may access
        self.row = (quarter << 5) + lane                    # row of the CTA's 128
        self.taddr = tmem + (quarter << 21)                 # lane 32 * quarter, column 0
        self.pc, self.ldc = pc, ldc
        self.esize = 4 if cfg.out_dtype == f32 else 2
        self.regs = reg.array(f32, cfg.epi_cols)
        self.packed = reg.array(b32, cfg.epi_cols // 2) if cfg.out_dtype == bf16 else None

    def _release(self, acc):
        slot = self.acc_empties.at(acc)
        if self.cfg.cta_group == 2:   # the even CTA's MMA thread waits for both CTAs
            ptx.cluster.arrive_remote(slot.addr_reg(), 0)
        else:
            ptx.mbarrier.arrive(slot)

    def tile(self, t):
        cfg = self.cfg
        acc, phase = self.state.advance()
        self.acc_fulls.at(acc).wait(phase)
        ptx.tcgen05.fence_after_thread_sync()
        taddr = reg.scalar(u32)
        ptx.inst.mad.lo.u32(taddr, acc, cfg.bn, self.taddr)
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
            self._store(ptr, c0, keep)

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


def run_roles(cfg, ring, tid, *, a_desc, b_desc, pc, ldc, schedule):
    """The warp-specialised body: schedule(body) calls body(tile) for every
    tile of this CTA, in the same order for each role."""
    warp, lane = tid >> 5, tid & 31
    tmem = ring.init(tid, warp)
    fulls, empties, acc_fulls, acc_empties = ring.barrier_arrays()
    with ptx.if_(tid == 32 * TMA_WARP):
        for desc in (a_desc, b_desc):
            ptx.inst.prefetch.tensormap(ptx.addr(desc))
        schedule(produce(cfg, ring, fulls, empties, a_desc, b_desc))
    mma_thread = tid == 32 * MMA_WARP
    if cfg.cta_group == 2:             # only the even CTA issues the pair's MMAs
        mma_thread = mma_thread & ptx.cluster.rank(0)
    with ptx.if_(mma_thread):
        schedule(issue_mma(cfg, ring, fulls, empties, acc_fulls, acc_empties, tmem))
    with ptx.if_(warp >= FIRST_EPI_WARP):
        epilogue = Epilogue(cfg, acc_fulls, acc_empties, tmem, warp, lane, pc, ldc)
        schedule(epilogue.tile)
    ring.finish(warp, tmem)


# -- the dense GEMM --------------------------------------------------------------------------

def check_shape(M, N, K, cfg):
    rows = BM * cfg.cta_group
    if M % rows or N % cfg.bn or K % BK or min(M, N, K) <= 0:
        raise ValueError(f"gemm: M must be a positive multiple of {rows} (128 x cta_group="
                         f"{cfg.cta_group}), N of bn={cfg.bn} and K of {BK}; got M={M} N={N} "
                         f"K={K} (pad the operands to these multiples)")


def build_gemm(M: int, N: int, K: int, *, out_dtype=bf16, cta_group: int = 1,
               bn: int = 256, stages: int | None = None, epi_cols: int = 32,
               num_sms: int = NUM_SMS, arch: str = ARCH):
    """The kernel for A (M x K) and B (N x K), bf16 -> C = A @ B.T (M x N,
    out_dtype bf16 or f32). cta_group 1 (one CTA per 128 x bn tile) or 2
    (a CTA pair per 256 x bn tile, see the module doc). stages: the ring
    depth (default: as many as fit, at most 6). epi_cols: columns per
    tcgen05.ld of the epilogue. num_sms: CTAs (pairs: 2 x pairs) of the
    persistent grid at most."""
    cfg = Config(bn=bn, stages=stages or 2, cta_group=cta_group, out_dtype=out_dtype,
                 k_tiles=K // BK, epi_cols=epi_cols)
    cfg.stages = stages or fit_stages(cfg)
    check_config(cfg)
    check_shape(M, N, K, cfg)
    m_tiles = M // (BM * cta_group)         # tiles of the CTA (pair)
    total = m_tiles * (N // bn)
    groups = min(max(num_sms // cta_group, 1), total)   # CTAs or pairs

    @kernel(in_specs=(Tile(M, K, bf16, Layout.TMA_128B, tma_box=(BM, BK)),
                      Tile(N, K, bf16, Layout.TMA_128B, tma_box=(cfg.b_rows, BK))),
            out_specs=(Tile(M, N, out_dtype),), grid=(groups * cta_group, 1, 1),
            block=(THREADS, 1, 1), cluster=(cta_group, 1, 1), arch=arch)
    def gemm(A, B, C):
        a_desc, b_desc = A.tma_desc(), B.tma_desc()
        (pc,) = ptx.global_ptrs(C)
        ring = Ring(cfg)
        tid = reg.from_(ptx.special.tid.x(), u32)
        if cta_group == 2:
            first = reg.from_(ptx.special.clusterid.x(), u32)
            rank = reg.from_(ptx.special.cluster_ctarank(), u32)
        else:
            first, rank = reg.from_(ptx.special.ctaid.x(), u32), 0

        def schedule(body):
            """This CTA's tiles, M first: body(tile) for each."""
            for t in ptx.range_(first, total, groups):
                n_tile = t // m_tiles
                m0 = (t - n_tile * m_tiles) * (BM * cta_group)
                n0 = n_tile * bn
                row = m0 + rank * BM if cta_group == 2 else m0
                b_row = n0 + rank * cfg.b_rows if cta_group == 2 else n0
                body(Tile_(a_row=row, b_row=b_row, c_row=row, c_col=n0))

        run_roles(cfg, ring, tid, a_desc=a_desc, b_desc=b_desc, pc=pc, ldc=N,
                  schedule=schedule)
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
