"""Hopper (sm_90a) flash attention forward, FlashAttention-3 style.

O = softmax(Q K^T / sqrt(D)) V for bf16 Q, K, V of shape (batch, heads,
seq, D), D = 64 or 128, causal or not; f32 softmax statistics; also the
log-sum-exp of each row, LSE = log(sum_j exp(q.k_j / sqrt(D))) (f32,
(batch, heads, seq)), which a backward pass needs.

One CTA computes a 128-row block of Q for one (batch, head); its 384
threads are three warpgroups:

- warpgroup 0 is the producer: it lowers its register budget
  (``setmaxnreg.dec``) and one thread issues the TMA loads: the Q block
  once, then the K and V blocks (128 x D, 128B swizzle) into two rings of
  STAGES shared-memory stages, each stage with a ``full`` mbarrier (bytes
  in) and an ``empty`` one (both consumers done). K blocks go in the order
  the consumers use them, last block first; K of block j is loaded before
  V of block j+1, the order they are needed in.
- warpgroups 1 and 2 are consumers (``setmaxnreg.inc``), each owning 64
  rows of the Q block. Per K/V block j (FlashAttention-3's intra-warpgroup
  overlap): issue S = Q K_j^T (wgmma m64n128k16, A and B from shared
  memory) and O += P_{j+1} V_{j+1} (wgmma m64nDk16 with P in registers:
  the S fragment converted to bf16 pairs is the A-register fragment), wait
  for S only (``wgmma.wait_group 1``), run the online softmax on S while
  the P V product is still running, then wait for it. The softmax works on
  pre-scaled logits: p = ex2(s * log2(e)/sqrt(D) - m), one FFMA and one
  ``ex2.approx`` per element; the row max is combined over the four lanes
  of a row with two ``shfl.sync.bfly``; O is rescaled by ex2(m_old - m_new)
  before the next P V; row sums stay per thread until the end.
- inter-warpgroup ping-pong: each consumer issues its wgmmas between
  ``bar.sync`` on its own named barrier and ``bar.arrive`` on the other's
  (ids 1, 2; 256 threads), so one warpgroup's softmax runs while the
  other's GEMMs keep the tensor cores busy.

Causal: a CTA visits only the K blocks at or before its diagonal (the
heaviest Q blocks are launched first), and masks (compare + predicated
mov of -inf) only the diagonal block, the first one it visits.

Options: ``persistent=True`` runs min(tiles, SMs) CTAs that walk the
tiles (the producer loads the next tile's first K block while the
consumers finish; Q waits on an ``empty`` barrier), ``stages`` (K/V ring
depth), ``pingpong=False``. Measured on an H100 (benchmarks/NOTES.md): the
default (one CTA per tile) at B=16, H=16, S=4096 runs 453 / 644 TFLOP/s
(D=64 / 128), 1.4-1.8x sdpa's flash backend and 0.95-1.09x its cuDNN one;
the persistent schedule was 9-15% slower on causal shapes (static tile
striding loses the hardware's dynamic CTA dispatch), so it is not the
default.

seq must be a multiple of 128 (BM = BN = 128); other shapes are refused
with ``AttentionShapeError`` (a ValueError) at the caller's line.

    python examples/hopper/flash_attention.py [B H S D [causal]]   # prints the PTX
"""
from __future__ import annotations

import math
import os
import sys
from dataclasses import dataclass

if __package__ in (None, ""):  # run as a script: make `examples` importable
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

import numpy as np  # noqa: E402

import examples.common  # noqa: E402,F401  (makes pyptx importable)
from pyptx import Tile, kernel, ptx, reg, smem  # noqa: E402
from pyptx.pipeline import (AttentionScheduler, PingPong, Ring, consumer_role,  # noqa: E402
                            fragment_row_col, init_rings, launch_directives,
                            prefetch_descriptors, producer_role, store_direct)
from pyptx.pipeline.roles import CONSUMER_REGS, PRODUCER_REGS  # noqa: E402,F401
from pyptx.pipeline.wgmma_gemm import wgmma_descriptor  # noqa: E402
from pyptx.errors import KernelError  # noqa: E402
from pyptx.specs import Layout  # noqa: E402
from pyptx.types import b32, bf16, f32, s32, u32, u64  # noqa: E402

ARCH = "sm_90a"
BM = 128                   # Q rows per CTA: two consumer warpgroups of 64
BN = 128                   # K/V rows per block
WG_M = 64
THREADS = 384              # producer warpgroup + two consumer warpgroups
HEAD_DIMS = (64, 128)
LOG2E = 1.4426950408889634
LN2 = 0.6931471805599453
NEG_INF = float("-inf")
NUM_SMS = 132              # H100 SXM / H200


class AttentionShapeError(KernelError, ValueError):
    """A shape the kernel does not support, located at the caller's line."""


def _caller_line():
    """(file, line) of the innermost frame outside this module."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename == __file__:
        frame = frame.f_back
    return (frame.f_code.co_filename, frame.f_lineno) if frame else ("", 0)


def _refuse(message):
    file, line = _caller_line()
    raise AttentionShapeError(f"flash_attention: {message}", file, line, 0)


@dataclass(frozen=True)
class Config:
    """One attention kernel: the problem and the tiling knobs."""
    batch: int
    heads: int
    seq: int
    head_dim: int
    causal: bool = False
    stages: int = 2            # depth of each of the K and V rings
    pingpong: bool = True      # named-barrier turns between the consumer warpgroups
    persistent: bool = False   # one CTA per SM walking the tiles (else one per tile)
    num_sms: int = NUM_SMS

    @property
    def tiles(self):
        """(batch*head, 128-row Q block) work items."""
        return self.batch * self.heads * self.m_blocks

    @property
    def ctas(self):
        return min(self.tiles, self.num_sms) if self.persistent else self.tiles

    @property
    def rows(self):
        """Rows of the (batch*heads*seq, D) views of Q, K, V and O."""
        return self.batch * self.heads * self.seq

    @property
    def m_blocks(self):
        return self.seq // BM

    @property
    def tile_bytes(self):
        """Bytes of one K or V block (BN x D bf16)."""
        return BN * self.head_dim * 2

    @property
    def scale_log2(self):
        """log2(e) / sqrt(D): turns a logit into the exponent of ex2."""
        return LOG2E / math.sqrt(self.head_dim)

    def smem_bytes(self):
        return BM * self.head_dim * 2 + 2 * self.stages * self.tile_bytes \
            + 8 * (2 + 4 * self.stages) + 1024


def check_shape(batch, heads, seq, head_dim, causal=False, stages=2):
    """Raises AttentionShapeError, naming the parameter, for a shape or option
    the kernel does not handle."""
    for name, value in (("batch", batch), ("heads", heads), ("seq", seq),
                        ("head_dim", head_dim), ("stages", stages)):
        if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
            _refuse(f"{name} must be a positive int, not {value!r}")
    if head_dim not in HEAD_DIMS:
        _refuse(f"head_dim={head_dim} is not supported; the kernel is built for head_dim "
                f"64 or 128")
    if seq % BM:
        _refuse(f"seq={seq} is not a multiple of the {BM}-row tile (pad the sequence to "
                f"{-(-seq // BM) * BM}, or use a masked kernel)")
    if causal not in (True, False):
        _refuse(f"causal must be True or False, not {causal!r}")
    if batch * heads * seq * head_dim >= 1 << 31:
        _refuse(f"batch*heads*seq*head_dim = {batch * heads * seq * head_dim} elements "
                f"does not fit the kernel's 32-bit element offsets (< 2**31)")
    if batch * heads > 65535:
        _refuse(f"batch*heads = {batch * heads} CTA rows exceed the grid's y limit (65535)")
    if stages not in (2, 3, 4):
        _refuse(f"stages={stages} must be 2, 3 or 4")
    cfg = Config(batch, heads, seq, head_dim, causal, stages)
    if cfg.smem_bytes() > 227 * 1024:
        _refuse(f"stages={stages} with head_dim={head_dim} needs {cfg.smem_bytes()} bytes "
                f"of shared memory; a CTA has 227 KiB")


# -- shared memory --------------------------------------------------------------------

class SharedTiles:
    """The Q block, the K and V rings and their barriers."""

    def __init__(self, cfg: Config):
        D = cfg.head_dim
        self.cfg = cfg
        # K-major 128B-swizzled panels of 64 columns: what a rank-3 TMA box writes
        self.sQ = smem.wgmma_tile(bf16, (BM, D), major="K")
        self.sK = smem.wgmma_tile(bf16, (cfg.stages, BN, D), major="K")
        # V is [keys, D] row-major: the B operand of P V is MN-major (N = D contiguous)
        self.sV = smem.wgmma_tile(bf16, (cfg.stages, BN, D), major="MN")
        self.q_bar = smem.mbarrier(1)
        # persistent: both consumers are done with Q (the next tile's may load)
        self.q_empty = smem.mbarrier(1) if cfg.persistent else None
        # full: the producer's arrive + bytes; empty: one arrive per consumer
        self.k_ring = Ring(cfg.stages, empty_arrivals=2)
        self.v_ring = Ring(cfg.stages, empty_arrivals=2)

    def init(self, leader):
        """Thread `leader` initialises the barriers; then the CTA meets."""
        def q_barriers():
            ptx.mbarrier.init(self.q_bar[0], 1)
            if self.q_empty is not None:
                ptx.mbarrier.init(self.q_empty[0], 2)
        init_rings(leader, [self.k_ring, self.v_ring], extra=q_barriers)


# -- the producer -----------------------------------------------------------------------

class Producer:
    """One thread's TMA loads, per tile: K of the tile's first block, Q (once
    the consumers are done with the previous tile's), then K and V blocks
    in the consumers' order."""

    def __init__(self, cfg, tiles, descs):
        self.cfg, self.tiles = cfg, tiles
        self.q_desc, self.k_desc, self.v_desc = descs
        self.k = tiles.k_ring.producer(bind=False)
        self.v = tiles.v_ring.producer(bind=False)
        self.q_phase = reg.scalar(u32, init=1) if cfg.persistent else None
        self.k.bind()
        self.v.bind()
        prefetch_descriptors(*descs)

    def _load(self, kind, row):
        ring, tile, desc = ((self.k, self.tiles.sK, self.k_desc) if kind == "k"
                            else (self.v, self.tiles.sV, self.v_desc))
        stage, full = ring.acquire()
        full.arrive_expect_tx(self.cfg.tile_bytes)
        ptx.cp.async_.bulk.tensor_3d(dst=tile[stage], src=desc, coord=(0, row, 0), mbar=full)

    def _load_q(self, q_row):
        if self.q_phase is not None:
            ptx.mbarrier.wait(self.tiles.q_empty[0], self.q_phase)
            self.q_phase ^= 1
        q_full = self.tiles.q_bar[0]
        ptx.mbarrier.arrive_expect_tx(q_full, BM * self.cfg.head_dim * 2)
        ptx.cp.async_.bulk.tensor_3d(dst=self.tiles.sQ[0], src=self.q_desc,
                                     coord=(0, q_row, 0), mbar=q_full)

    def tile(self, work):
        """K of the last block (the first used), Q, then (K of block j, V of
        block j+1) for j going down, then V of block 0."""
        row = reg.from_(work.kv_row + (work.n_blocks - 1) * BN, u32)
        self._load("k", row)
        self._load_q(work.q_row)
        for _ in ptx.range_(0, work.n_blocks - 1):
            ptx.inst.sub.u32(row, row, BN)
            self._load("k", row)
            self._load("v", row + BN)
        self._load("v", row)


# -- the consumers ------------------------------------------------------------------------

class Consumer:
    """A consumer warpgroup: its 64 Q rows against every K/V block."""

    def __init__(self, cfg, tiles, consumer, lane128):
        D = cfg.head_dim
        self.cfg, self.tiles, self.D = cfg, tiles, D
        self.s = reg.wgmma_frag(m=WG_M, n=BN, dtype=f32)     # scores, then P in f32
        self.o = reg.wgmma_frag(m=WG_M, n=D, dtype=f32)
        self.p = reg.array(b32, BN // 4)                     # P as bf16 pairs: wgmma's A
        self.m = [reg.scalar(f32) for _ in range(2)]         # running max (scaled), per half
        self.l = [reg.scalar(f32) for _ in range(2)]         # this thread's part of the row sum
        self.alpha = [reg.scalar(f32) for _ in range(2)]     # O's rescale factor
        self.k = tiles.k_ring.consumer(bind=False)
        self.v = tiles.v_ring.consumer(bind=False)
        self.k.bind()
        self.v.bind()
        self.frees = lane128 == 0                            # one arrival per warpgroup
        self.q_phase = reg.scalar(u32, init=0) if cfg.persistent else 0
        # this warpgroup's 64 rows start 64 lines into each 128-line Q panel
        q_addr = reg.from_(tiles.sQ, u32) + consumer * (WG_M * 128)
        self.q_desc = wgmma_descriptor(q_addr, tiles.sQ.gmma_layout)
        self.k_base = reg.from_(tiles.sK, u32)
        self.v_base = reg.from_(tiles.sV, u32)
        self.turns = PingPong(consumer, enabled=cfg.pingpong)
        self.frag = fragment_row_col(lane128)
        self.consumer = consumer

    # -- the two products -------------------------------------------------------------
    def free(self, ring, stage):
        ring.release(stage, pred=self.frees)

    def issue_qk(self, stage):
        """S = Q K^T over D in k16 steps; a step's 32 bytes lie in panel kk // 4."""
        tiles = self.tiles
        k_desc = wgmma_descriptor(self.k_base + stage * self.cfg.tile_bytes,
                                  tiles.sK.gmma_layout)
        ptx.wgmma.fence()
        for kk in range(self.D // 16):
            within = (kk % 4) * 32
            ptx.wgmma.mma_async(shape=(WG_M, BN, 16), dtype_d=f32, dtype_a=bf16,
                                dtype_b=bf16, d=self.s, a=self.q_desc, b=k_desc,
                                scale_d=kk > 0, a_k_offset=(kk // 4) * BM * 128 + within,
                                b_k_offset=(kk // 4) * BN * 128 + within)
        ptx.wgmma.commit_group()

    def issue_pv(self, stage):
        """O += P V over the block's keys in k16 steps: 16 lines of V (2048 bytes)
        and registers 4kk..4kk+3 of P."""
        layout = self.tiles.sV.gmma_layout
        v_desc = wgmma_descriptor(self.v_base + stage * self.cfg.tile_bytes, layout)
        ptx.wgmma.fence()
        for kk in range(BN // 16):
            ptx.wgmma.mma_async(shape=(WG_M, self.D, 16), dtype_d=f32, dtype_a=bf16,
                                dtype_b=bf16, d=self.o, a=self.p[4 * kk:4 * kk + 4],
                                b=v_desc, scale_d=True, trans_b=1,
                                b_k_offset=kk * 16 * layout.line_bytes)
        ptx.wgmma.commit_group()

    # -- softmax ----------------------------------------------------------------------------
    @staticmethod
    def _half(i):
        """Which of the thread's two rows register i of a fragment is in."""
        return (i >> 1) & 1

    @staticmethod
    def _column(i):
        """Register i's column, less the thread's 2*(lane%4)."""
        return 8 * (i >> 2) + (i & 1)

    @staticmethod
    def _tree(values, op):
        """Combines registers pairwise (a tree: short dependency chains)."""
        values = list(values)
        while len(values) > 1:
            nxt = [op(values[i], values[i + 1]) for i in range(0, len(values) - 1, 2)]
            if len(values) % 2:
                nxt.append(values[-1])
            values = nxt
        return values[0]

    def mask_diagonal(self, limits):
        """Causal mask of the diagonal block: -inf where column > row."""
        for i in range(BN // 2):
            over = limits[self._half(i)] < self._column(i)
            ptx.inst.mov.f32(self.s[i], NEG_INF, pred=over)

    def softmax(self, first):
        """P = ex2(S*scale - m) in place in S, with m the running row max
        (scaled); alpha = ex2(m_old - m_new); l = l*alpha + rowsum(P)."""
        scale = self.cfg.scale_log2
        s = self.s
        for h in range(2):
            mine = [s[i] for i in range(BN // 2) if self._half(i) == h]
            row_max = self._tree(mine, lambda a, b: a.max(b))
            ptx.warp.reduce_max(row_max, width=4)
            scaled = row_max * scale
            if first:
                ptx.inst.mov.f32(self.m[h], scaled)
                ptx.inst.mov.f32(self.alpha[h], 1.0)
            else:
                ptx.inst.max.f32(scaled, scaled, self.m[h])
                ptx.inst.sub.f32(self.alpha[h], self.m[h], scaled)
                ptx.inst.ex2.approx.ftz.f32(self.alpha[h], self.alpha[h])
                ptx.inst.mov.f32(self.m[h], scaled)
            neg = -scaled
            for x in mine:
                ptx.inst.fma.rn.ftz.f32(x, x, scale, neg)
                ptx.inst.ex2.approx.ftz.f32(x, x)
            row_sum = self._tree(mine, lambda a, b: a + b)
            if first:
                ptx.inst.mov.f32(self.l[h], row_sum)
            else:
                ptx.inst.fma.rn.f32(self.l[h], self.l[h], self.alpha[h], row_sum)

    def pack_p(self):
        """P (f32 in S) as bf16 pairs: register 4kk+j of P holds columns
        16kk + 8(j//2) + 2(lane%4) + {0, 1} of row half j%2 -- the accumulator's
        registers 8kk+2j, 8kk+2j+1 (cvt puts its first source in the high half)."""
        for j in range(BN // 4):
            ptx.inst.cvt.rn.bf16x2.f32(self.p[j], self.s[2 * j + 1], self.s[2 * j])

    def rescale_o(self):
        for i in range(self.D // 2):
            ptx.inst.mul.f32(self.o[i], self.o[i], self.alpha[self._half(i)])

    # -- the block loop ----------------------------------------------------------------------
    def tile(self, work, limits):
        """Every K/V block of a tile, last first: the first one peeled (S and
        softmax only), then per block S_j, P_{j+1} V_{j+1} and softmax_j,
        then the last P V. limits: the causal mask of the first (diagonal)
        block, or None."""
        n_blocks = work.n_blocks
        for i in range(self.D // 2):
            ptx.inst.mov.f32(self.o[i], 0.0)
        ptx.mbarrier.wait(self.tiles.q_bar[0], self.q_phase)
        if self.cfg.persistent:
            self.q_phase ^= 1

        k_stage = self.k.wait()
        self.turns.take()
        self.issue_qk(k_stage)
        self.turns.give()
        ptx.wgmma.wait_group(0)
        self.free(self.k, k_stage)
        if limits is not None:
            self.mask_diagonal(limits)
        self.softmax(first=True)
        self.pack_p()

        for _ in ptx.range_(0, n_blocks - 1):
            k_stage = self.k.wait()
            self.turns.take()
            self.issue_qk(k_stage)
            self.rescale_o()                  # while S is computed
            v_stage = self.v.wait()
            self.issue_pv(v_stage)
            self.turns.give()
            ptx.wgmma.wait_group(1)           # S is done; P V still runs
            self.free(self.k, k_stage)
            self.softmax(first=False)
            ptx.wgmma.wait_group(0)
            self.free(self.v, v_stage)
            self.pack_p()

        if self.cfg.persistent:      # the tile's last S is done: Q may be replaced
            ptx.mbarrier.arrive(self.tiles.q_empty[0], pred=self.frees)
        self.rescale_o()
        v_stage = self.v.wait()
        self.issue_pv(v_stage)
        ptx.wgmma.wait_group(0)
        self.free(self.v, v_stage)

    def epilogue(self, po, plse, q_row):
        """O / l to bf16, and LSE = (m + log2 l) * ln 2 (natural log of the
        unscaled logits' exp sum) from the first lane of each row."""
        row, _ = self.frag
        row0 = q_row + self.consumer * WG_M
        lse = []
        for h in range(2):
            ptx.warp.reduce_sum(self.l[h], width=4)
            inv = reg.scalar(f32)
            ptx.inst.rcp.approx.ftz.f32(inv, self.l[h])
            for i in range(self.D // 2):
                if self._half(i) == h:
                    ptx.inst.mul.f32(self.o[i], self.o[i], inv)
            log_l = reg.scalar(f32)
            ptx.inst.lg2.approx.ftz.f32(log_l, self.l[h])
            lse.append((log_l + self.m[h]) * LN2)
        store_direct(self.o, bf16, po, row0, 0, self.D, self.D, frag=self.frag)
        grow = reg.from_(row0 + row, u64)
        where = plse + grow * 4
        first_lane = (self.frag[1]) == 0     # column 2*(lane%4) == 0
        ptx.inst.st.global_.f32(ptx.addr(where), lse[0], pred=first_lane)
        ptx.inst.st.global_.f32(ptx.addr(where, 8 * 4), lse[1], pred=first_lane)


# -- the kernel -----------------------------------------------------------------------------

def build_flash_attention(batch: int, heads: int, seq: int, head_dim: int,
                          causal: bool = False, *, stages: int = 2, pingpong: bool = True,
                          persistent: bool = False, num_sms: int = NUM_SMS,
                          arch: str = ARCH):
    """The kernel for Q, K, V given as (batch*heads*seq, head_dim) bf16 views
    (row-major (batch, heads, seq, head_dim) tensors reshaped) -> O (same
    shape, bf16) and LSE (batch*heads*seq, f32). ``flash_attention`` does the
    reshapes. stages: depth of the K and V rings; pingpong: the named-barrier
    turns between the two consumer warpgroups; persistent: min(tiles,
    num_sms) CTAs walk the tiles (the producer loads the next tile's first
    blocks while the consumers finish the current one)."""
    check_shape(batch, heads, seq, head_dim, causal, stages)
    if not isinstance(num_sms, int) or num_sms < 1:
        _refuse(f"num_sms must be a positive int, not {num_sms!r}")
    cfg = Config(batch, heads, seq, head_dim, bool(causal), stages, bool(pingpong),
                 bool(persistent), num_sms)
    D, rows = head_dim, cfg.rows
    box = dict(layout=Layout.TMA_128B, tma_rank=3)
    q_spec = Tile(rows, D, bf16, tma_box=(BM, D), **box)
    kv_spec = Tile(rows, D, bf16, tma_box=(BN, D), **box)
    grid = (cfg.ctas, 1, 1) if persistent else (cfg.m_blocks, batch * heads, 1)

    @kernel(in_specs=(q_spec, kv_spec, kv_spec), out_specs=(Tile(rows, D, bf16),
                                                            Tile(rows, f32)),
            grid=grid, block=(THREADS, 1, 1), arch=arch, raw_directives=launch_directives())
    def flash_attention_fwd(Q, K, V, O, LSE):
        descs = (Q.tma_desc(), K.tma_desc(), V.tma_desc())
        po, plse = ptx.global_ptrs(O, LSE)
        tiles = SharedTiles(cfg)
        tid = reg.from_(ptx.special.tid.x(), u32)
        wg = tid >> 7
        tiles.init(tid == 0)
        schedule = AttentionScheduler(seq=seq, bm=BM, bn=BN, causal=cfg.causal,
                                      tiles=cfg.tiles, persistent=cfg.persistent,
                                      ctas=cfg.ctas)
        with producer_role(wg):
            with ptx.if_(tid == 0):
                producer = Producer(cfg, tiles, descs)
                schedule(producer.tile)
        with consumer_role():
            consumer = Consumer(cfg, tiles, wg - 1, tid & 127)
            limits = None
            if causal:
                # the diagonal block: column c of row r is masked when c > r, i.e.
                # when the register's column offset exceeds row - 2*(lane%4)
                row, col = consumer.frag
                base = reg.from_(row + consumer.consumer * WG_M - col, s32)
                limits = [base, base + 8]
            consumer.turns.start()

            def tile(work):
                consumer.tile(work, limits)
                consumer.epilogue(po, plse, work.q_row)
            schedule(tile)
            consumer.turns.finish()
        ptx.ret()

    flash_attention_fwd.config = cfg
    return flash_attention_fwd


_KERNELS: dict = {}


def flash_attention(q, k, v, causal: bool = False, **options):
    """(O, LSE) for q, k, v of shape (batch, heads, seq, head_dim), bf16,
    contiguous, PyTorch tensors (eager, torch.compile, CUDA graphs) or JAX
    arrays: O has q's shape, LSE is (batch, heads, seq) f32. The kernel is
    built once per shape and options (see build_flash_attention)."""
    if tuple(k.shape) != tuple(q.shape) or tuple(v.shape) != tuple(q.shape):
        _refuse(f"q, k and v must have one shape (batch, heads, seq, head_dim); got "
                f"{tuple(q.shape)}, {tuple(k.shape)}, {tuple(v.shape)}")
    if len(q.shape) != 4:
        _refuse(f"q must be (batch, heads, seq, head_dim), got shape {tuple(q.shape)}")
    B, H, S, D = (int(n) for n in q.shape)
    key = (B, H, S, D, bool(causal), tuple(sorted(options.items())))
    kern = _KERNELS.get(key)
    if kern is None:
        kern = _KERNELS[key] = build_flash_attention(B, H, S, D, causal, **options)
    return run(kern, q, k, v)


def run(kern, q, k, v):
    """Launches a kernel of build_flash_attention on (batch, heads, seq, D)
    arrays: the reshapes around the call (torch.compile traces this)."""
    B, H, S, D = q.shape
    o, lse = kern(q.reshape(B * H * S, D), k.reshape(B * H * S, D), v.reshape(B * H * S, D))
    return o.reshape(B, H, S, D), lse.reshape(B, H, S)


def reference(q, k, v, causal: bool = False):
    """(O, LSE) in float64 NumPy for (batch, heads, seq, D) arrays (any float
    type): O = softmax(Q K^T / sqrt(D)) V, LSE = log sum_j exp(Q K^T / sqrt(D))."""
    q64, k64, v64 = (np.asarray(x, dtype=np.float64) for x in (q, k, v))
    s = q64 @ np.swapaxes(k64, -1, -2) / math.sqrt(q64.shape[-1])
    if causal:
        n = s.shape[-1]
        s = np.where(np.tril(np.ones((n, n), dtype=bool)), s, -np.inf)
    m = s.max(axis=-1, keepdims=True)
    e = np.exp(s - m)
    total = e.sum(axis=-1, keepdims=True)
    return (e / total) @ v64, (m + np.log(total))[..., 0]


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    B, H, S, D = (int(a) for a in argv[:4]) if len(argv) >= 4 else (1, 2, 512, 128)
    causal = len(argv) > 4 and argv[4].lower() in ("1", "causal", "true")
    print(build_flash_attention(B, H, S, D, causal).ptx(), end="")


if __name__ == "__main__":
    main()
