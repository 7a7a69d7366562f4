"""Hopper (sm_90a) flash attention forward, FlashAttention-3 style.

O = softmax(Q K^T * scale) V for bf16 Q, K, V, D = 64 or 128, scale =
1/sqrt(D) unless softmax_scale says otherwise; f32 softmax statistics; also
LSE = log(sum_j exp(q.k_j * scale)) per row (f32, (batch, heads, seq)),
which a backward pass needs.

One CTA computes a 128-row block of Q for one (batch, head); its 384
threads are three warpgroups:

- warpgroup 0 is the producer (``setmaxnreg.dec``): one thread issues the
  TMA loads, the Q block once, then the K and V blocks (128 x D, 128B
  swizzle) into two rings of STAGES stages, each stage with a ``full``
  mbarrier (bytes in) and an ``empty`` one (both consumers done); K blocks
  last first, K of block j before V of block j+1, the order of use.
- warpgroups 1 and 2 are consumers (``setmaxnreg.inc``), 64 Q rows each.
  Per K/V block j (FlashAttention-3's intra-warpgroup overlap): issue
  S = Q K_j^T (wgmma m64n128k16 from shared memory) and O += P_{j+1}
  V_{j+1} (wgmma m64nDk16, P in registers: the S fragment as bf16 pairs),
  wait for S only (``wgmma.wait_group 1``), run the online softmax on S
  while P V runs, then wait for it. p = ex2(s * scale*log2(e) - m): one
  FFMA and one ``ex2.approx`` per element; row maxes over the row's four
  lanes with two ``shfl.sync.bfly``; O rescaled by ex2(m_old - m_new).
- inter-warpgroup ping-pong: each consumer issues its wgmmas between
  ``bar.sync`` on its own named barrier and ``bar.arrive`` on the other's,
  so one warpgroup's softmax runs under the other's GEMMs.

Causal: a CTA visits only the K blocks up to its diagonal (the heaviest Q
blocks launch first) and masks (compare + predicated mov of -inf) only
blocks that cross it.

Beyond equal, 128-multiple lengths of (batch, heads, seq, D) tensors the
general kernel (pyptx.pipeline.attention) takes: any lengths, Q and K/V
lengths apart (causal then aligned bottom-right: query i sees keys
j <= i + seq_k - seq_q, as FlashAttention); K/V with heads_kv heads
dividing Q's (grouped/multi-query, no copy: the K/V box's head coordinate
is head // group); the (batch, seq, heads, D) layout; a sliding window
(left, right) (key blocks wholly outside are skipped); packed sequences
(cu_seqlens). Its tensor maps are 5-D with the sequence as a dimension of
its own, so tail boxes are zero-filled per (batch, head); key blocks that
cross a bound are masked, rows past a sequence's end are not stored; a row
that sees no key gets O = 0 and LSE = +inf.

Options: ``persistent=True`` (the basic kernel) runs min(tiles, SMs) CTAs
that walk the tiles, ``stages`` (ring depth), ``pingpong=False``. Measured
on an H100 (benchmarks/NOTES.md): at B=16, H=16, S=4096 the default runs
453 / 644 TFLOP/s (D=64 / 128), 1.4-1.8x sdpa's flash backend and
0.95-1.09x its cuDNN one; persistent was 9-15% slower on causal shapes.
Unsupported shapes raise ``AttentionShapeError`` (a ValueError) at the
caller's line.

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
import pyptx  # noqa: E402
from pyptx import Tile, kernel, ptx, reg, smem  # noqa: E402
from pyptx.pipeline import (AttentionScheduler, PingPong, Ring, consumer_role,  # noqa: E402
                            fragment_row_col, init_rings, launch_directives,
                            prefetch_descriptors, producer_role, store_direct)
from pyptx.pipeline.attention import (SequenceMask, SequenceWork,  # noqa: E402
                                      kernel_arguments, sequence_tma_desc)
# reference(q, k, v, causal, softmax_scale=, window=): the float64 maths (NumPy)
from pyptx.pipeline.attention import reference  # noqa: E402,F401
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


_PYPTX_DIR = os.path.dirname(os.path.abspath(pyptx.__file__))


def _caller_line():
    """(file, line) of the innermost frame outside this module and pyptx."""
    frame = sys._getframe(1)
    while frame is not None and (frame.f_code.co_filename == __file__ or
                                 frame.f_code.co_filename.startswith(_PYPTX_DIR)):
        frame = frame.f_back
    return (frame.f_code.co_filename, frame.f_lineno) if frame else ("", 0)


def _refuse(message):
    file, line = _caller_line()
    raise AttentionShapeError(f"flash_attention: {message}", file, line, 0)


@dataclass(frozen=True)
class Config:
    """One attention kernel: the problem and the tiling knobs. seq is the
    query length (varlen: the longest sequence's); heads_kv, seq_k: 0 for
    heads, seq."""
    batch: int
    heads: int
    seq: int
    head_dim: int
    causal: bool = False
    stages: int = 2            # depth of each of the K and V rings
    pingpong: bool = True      # named-barrier turns between the consumer warpgroups
    persistent: bool = False   # one CTA per SM walking the tiles (else one per tile)
    num_sms: int = NUM_SMS
    heads_kv: int = 0
    seq_k: int = 0
    softmax_scale: float | None = None
    window: tuple = (-1, -1)   # (left, right) keys around the diagonal; -1: unbounded
    layout: str = "bhsd"       # or "bshd"; varlen tensors are (total, heads, D)
    varlen: bool = False       # cu_seqlens_q/k inputs: packed sequences
    total_q: int = 0           # varlen: rows of the packed Q and K/V tensors
    total_k: int = 0

    @property
    def kv_heads(self):
        return self.heads_kv or self.heads

    @property
    def keys(self):
        return self.seq_k or self.seq

    @property
    def general(self):
        """Anything beyond equal, 128-multiple lengths of (batch, heads, seq,
        D) tensors with as many K/V heads: per-sequence tensor maps, masks."""
        return (self.layout != "bhsd" or self.varlen or self.kv_heads != self.heads
                or self.keys != self.seq or self.seq % BM != 0
                or tuple(self.window) != (-1, -1))

    @property
    def key_window(self):
        """(left, right) with causal as right = 0."""
        left, right = self.window
        return (left, 0 if self.causal else right)

    @property
    def tail(self):
        """Whether a key block may run past the keys (masked there); causal
        rows never see past their diagonal, which ends at the last key."""
        return (self.varlen or self.keys % BN != 0) and self.key_window[1] != 0

    @property
    def masked(self):
        return self.general and (self.tail or self.key_window != (-1, -1))

    @property
    def may_be_empty(self):
        """Whether a tile may see no key at all (it then writes O = 0, LSE = +inf)."""
        return self.general and (self.varlen or (self.seq > self.keys
                                                 and self.key_window[1] >= 0))

    @property
    def tiles(self):    # (batch*head, 128-row Q block) work items
        return self.batch * self.heads * self.m_blocks

    @property
    def ctas(self):
        return min(self.tiles, self.num_sms) if self.persistent else self.tiles

    @property
    def rows(self):     # of the (batch*heads*seq, D) views of Q, K, V and O
        return self.batch * self.heads * self.seq

    @property
    def m_blocks(self):
        return -(-self.seq // BM)

    @property
    def tile_bytes(self):   # one K or V block (BN x D bf16)
        return BN * self.head_dim * 2

    @property
    def scale_log2(self):
        """log2(e) * softmax_scale (1/sqrt(D) by default): turns a logit into
        the exponent of ex2."""
        if self.softmax_scale is None:
            return LOG2E / math.sqrt(self.head_dim)
        return LOG2E * self.softmax_scale

    def smem_bytes(self):
        return BM * self.head_dim * 2 + 2 * self.stages * self.tile_bytes \
            + 8 * (2 + 4 * self.stages) + 1024


def check_shape(batch, heads, seq, head_dim, causal=False, stages=2, *, heads_kv=None,
                seq_k=None, softmax_scale=None, window=(-1, -1), layout="bhsd",
                varlen=False, total_q=0, total_k=0):
    """Raises AttentionShapeError, naming the parameter, for a shape or option
    the kernel does not handle."""
    heads_kv = heads if heads_kv is None else heads_kv
    seq_k = seq if seq_k is None else seq_k
    for name, value in dict(batch=batch, heads=heads, seq=seq, head_dim=head_dim,
                            stages=stages, heads_kv=heads_kv, seq_k=seq_k).items():
        if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
            _refuse(f"{name} must be a positive int, not {value!r}")
    if head_dim not in HEAD_DIMS:
        _refuse(f"head_dim={head_dim} is not supported; the kernel is built for head_dim "
                f"64 or 128")
    if heads % heads_kv:
        _refuse(f"heads={heads} is not a multiple of heads_kv={heads_kv} (grouped-query "
                f"attention shares each K/V head among heads/heads_kv query heads)")
    if causal not in (True, False):
        _refuse(f"causal must be True or False, not {causal!r}")
    if softmax_scale is not None and (type(softmax_scale) not in (int, float)
                                      or not 0 < softmax_scale < math.inf):
        _refuse(f"softmax_scale must be a positive finite number, not {softmax_scale!r}")
    if (not isinstance(window, (tuple, list)) or len(window) != 2
            or not all(isinstance(w, int) and not isinstance(w, bool) and w >= -1
                       for w in window)):
        _refuse(f"window must be (left, right), ints >= -1 (-1: unbounded), not {window!r}")
    if layout not in ("bhsd", "bshd"):
        _refuse(f"layout must be 'bhsd' or 'bshd', not {layout!r}")
    rows_q, rows_k = (total_q, total_k) if varlen else (batch * seq, batch * seq_k)
    for rows, h in ((rows_q, heads), (rows_k, heads_kv)):
        if rows * h * head_dim >= 1 << 31:
            _refuse(f"{rows * h * head_dim} elements in one tensor do not fit the kernel's "
                    f"32-bit element offsets (< 2**31)")
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
        self.work = None
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
        self._copy(tile[stage], desc, row, full, "kv")

    def _copy(self, dst, desc, row, full, kind):
        """One TMA box of rows row..: rank 3 on the flat (rows, D) view, or
        rank 5 on the sequence tensor map (head and batch coordinates)."""
        if not self.cfg.general:
            ptx.cp.async_.bulk.tensor_3d(dst=dst, src=desc, coord=(0, row, 0), mbar=full)
            return
        w = self.work
        head, batch = (w.h, w.b) if kind == "q" else (w.hk, w.b)
        if self.cfg.varlen:
            batch = 0
        ptx.cp.async_.bulk.tensor_5d(dst=dst, src=desc, coord=(0, row, 0, head, batch),
                                     mbar=full)

    def _load_q(self, q_row):
        if self.q_phase is not None:
            ptx.mbarrier.wait(self.tiles.q_empty[0], self.q_phase)
            self.q_phase ^= 1
        q_full = self.tiles.q_bar[0]
        ptx.mbarrier.arrive_expect_tx(q_full, BM * self.cfg.head_dim * 2)
        self._copy(self.tiles.sQ[0], self.q_desc, q_row, q_full, "q")

    def tile(self, work):
        """K of the last block (the first used), Q, then (K of block j, V of
        block j+1) for j going down, then V of block 0."""
        self.work = work
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

    def softmax(self, first, safe=None):
        """P = ex2(S*scale - m) in place in S, with m the running row max
        (scaled); alpha = ex2(m_old - m_new); l = l*alpha + rowsum(P).
        Masked kernels: a row with no key yet has m = -inf; its exponents
        are then taken against 0 (P = 0, alpha = 0), never -inf - -inf."""
        scale = self.cfg.scale_log2
        safe = self.cfg.masked if safe is None else safe
        s = self.s
        for h in range(2):
            mine = [s[i] for i in range(BN // 2) if self._half(i) == h]
            row_max = self._tree(mine, lambda a, b: a.max(b))
            ptx.warp.reduce_max(row_max, width=4)
            scaled = row_max * scale
            if not first:
                ptx.inst.max.f32(scaled, scaled, self.m[h])
            offset = scaled
            if safe:
                offset = reg.scalar(f32)
                ptx.inst.selp.f32(offset, 0.0, scaled, scaled == NEG_INF)
            if first:
                ptx.inst.mov.f32(self.m[h], scaled)
                ptx.inst.mov.f32(self.alpha[h], 1.0)
            else:
                ptx.inst.sub.f32(self.alpha[h], self.m[h], offset)
                ptx.inst.ex2.approx.ftz.f32(self.alpha[h], self.alpha[h])
                ptx.inst.mov.f32(self.m[h], scaled)
            neg = -offset
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
    def empty_tile(self):
        """A tile that sees no key: O = 0, l = 0, m = -inf (the epilogue
        writes O = 0 and LSE = +inf)."""
        for i in range(self.D // 2):
            ptx.inst.mov.f32(self.o[i], 0.0)
        for h in range(2):
            ptx.inst.mov.f32(self.l[h], 0.0)
            ptx.inst.mov.f32(self.m[h], NEG_INF)

    def _mask_first(self, mask):
        if isinstance(mask, SequenceMask):
            mask.apply(self.s, BN)
        elif mask is not None:
            self.mask_diagonal(mask)

    def tile(self, work, limits):
        """Every K/V block of a tile, last first: the first one peeled (S and
        softmax only), then per block S_j, P_{j+1} V_{j+1} and softmax_j,
        then the last P V. limits: the causal mask of the first (diagonal)
        block, a SequenceMask (every block, where it crosses a bound), or
        None."""
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
        self._mask_first(limits)
        self.softmax(first=True)
        self.pack_p()

        # a SequenceMask masks the blocks that cross a bound (a uniform branch
        # in the step; a mask-free copy of the step measured no faster)
        mask = (lambda: limits.apply(self.s, BN)) if isinstance(limits, SequenceMask) else None
        for _ in ptx.range_(0, n_blocks - 1):
            self._block(mask, safe=self.cfg.masked)

        if self.cfg.persistent:      # the tile's last S is done: Q may be replaced
            ptx.mbarrier.arrive(self.tiles.q_empty[0], pred=self.frees)
        self.rescale_o()
        v_stage = self.v.wait()
        self.issue_pv(v_stage)
        ptx.wgmma.wait_group(0)
        self.free(self.v, v_stage)

    def _block(self, mask, safe):
        """One step of the block loop: S_j = Q K_j^T and O += P_{j+1} V_{j+1}
        issued, the softmax of S_j while P V runs (mask() first, if any)."""
        k_stage = self.k.wait()
        self.turns.take()
        self.issue_qk(k_stage)
        self.rescale_o()                  # while S is computed
        v_stage = self.v.wait()
        self.issue_pv(v_stage)
        self.turns.give()
        ptx.wgmma.wait_group(1)           # S is done; P V still runs
        self.free(self.k, k_stage)
        if mask is not None:
            mask()
        self.softmax(first=False, safe=safe)
        ptx.wgmma.wait_group(0)
        self.free(self.v, v_stage)
        self.pack_p()

    def _normalise(self):
        """O /= l and LSE = (m + log2 l) * ln 2 (natural log of the unscaled
        logits' exp sum) per row half; masked kernels: a row with no key
        (l = 0) keeps O = 0 and gets LSE = +inf, as FlashAttention writes."""
        lse = []
        for h in range(2):
            ptx.warp.reduce_sum(self.l[h], width=4)
            inv = reg.scalar(f32)
            ptx.inst.rcp.approx.ftz.f32(inv, self.l[h])
            empty = None
            if self.cfg.masked:
                empty = self.l[h] == 0.0
                ptx.inst.selp.f32(inv, 0.0, inv, empty)
            for i in range(self.D // 2):
                if self._half(i) == h:
                    ptx.inst.mul.f32(self.o[i], self.o[i], inv)
            log_l = reg.scalar(f32)
            ptx.inst.lg2.approx.ftz.f32(log_l, self.l[h])
            value = (log_l + self.m[h]) * LN2
            if empty is not None:
                ptx.inst.selp.f32(value, float("inf"), value, empty)
            lse.append(value)
        return lse

    def epilogue(self, po, plse, q_row):
        """O / l to bf16, and LSE from the first lane of each row."""
        row, _ = self.frag
        row0 = q_row + self.consumer * WG_M
        lse = self._normalise()
        store_direct(self.o, bf16, po, row0, 0, self.D, self.D, frag=self.frag)
        grow = reg.from_(row0 + row, u64)
        where = plse + grow * 4
        first_lane = (self.frag[1]) == 0     # column 2*(lane%4) == 0
        ptx.inst.st.global_.f32(ptx.addr(where), lse[0], pred=first_lane)
        ptx.inst.st.global_.f32(ptx.addr(where, 8 * 4), lse[1], pred=first_lane)

    def sequence_epilogue(self, work, po, ldc, plse, lse_base):
        """The general kernel's epilogue: rows m0.. of the sequence whose O
        starts at po (ldc elements a row) and whose LSE starts at element
        lse_base of plse; rows past the sequence are not written."""
        row, _ = self.frag
        row0 = work.m0 + self.consumer * WG_M
        lse = self._normalise()
        limit = None if isinstance(work.seq_q, int) and work.seq_q % BM == 0 else work.seq_q
        store_direct(self.o, bf16, po, row0, 0, ldc, self.D, row_limit=limit,
                     frag=self.frag)
        grow = row0 + row
        where = plse + reg.from_(grow + lse_base, u64) * 4
        first_lane = (self.frag[1]) == 0
        for h in range(2):
            ok = first_lane if limit is None else first_lane & ((grow + 8 * h) < limit)
            ptx.inst.st.global_.f32(ptx.addr(where, 8 * 4 * h), lse[h], pred=ok)


# -- the kernel -----------------------------------------------------------------------------

def build_flash_attention(batch: int, heads: int, seq: int, head_dim: int,
                          causal: bool = False, *, stages: int = 2, pingpong: bool = True,
                          persistent: bool = False, num_sms: int = NUM_SMS,
                          arch: str = ARCH, heads_kv: int | None = None,
                          seq_k: int | None = None, softmax_scale: float | None = None,
                          window=(-1, -1), layout: str = "bhsd", varlen: bool = False,
                          total_q: int = 0, total_k: int = 0):
    """The basic kernel takes Q, K, V as (batch*heads*seq, head_dim) bf16
    views of (batch, heads, seq, head_dim) tensors -> O (same shape, bf16)
    and LSE (batch*heads*seq, f32); stages: ring depth; pingpong: the
    consumers' turns; persistent: min(tiles, num_sms) CTAs walk the tiles.
    The general kernel (any option after arch) takes tensor_shapes(config):
    Q "bhsd" (batch, heads, seq, D) or "bshd" (batch, seq, heads, D), K/V
    with heads_kv heads and seq_k keys; varlen: Q (1, total_q, heads, D),
    K/V (1, total_k, heads_kv, D), then int32 cu_seqlens_q/k (batch+1
    offsets), seq = the longest sequence; LSE (heads, total_q).
    ``run`` does the reshapes."""
    check_shape(batch, heads, seq, head_dim, causal, stages, heads_kv=heads_kv, seq_k=seq_k,
                softmax_scale=softmax_scale, window=window, layout=layout,
                varlen=bool(varlen), total_q=total_q, total_k=total_k)
    if not isinstance(num_sms, int) or num_sms < 1:
        _refuse(f"num_sms must be a positive int, not {num_sms!r}")
    if varlen and not all(isinstance(t, int) and t > 0 for t in (total_q, total_k)):
        _refuse(f"varlen needs total_q and total_k (positive ints), not {total_q!r}, "
                f"{total_k!r}")
    cfg = Config(batch, heads, seq, head_dim, bool(causal), stages, bool(pingpong),
                 bool(persistent), num_sms, heads_kv or 0, seq_k or 0,
                 None if softmax_scale is None else float(softmax_scale), tuple(window),
                 layout, bool(varlen), total_q if varlen else 0, total_k if varlen else 0)
    if cfg.general:
        if persistent:
            _refuse("persistent=True takes equal, 128-multiple lengths of bhsd tensors with "
                    "as many K/V heads as Q heads, and no window")
        return _build_general(cfg, arch)
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


def tensor_shapes(cfg):
    """(Q, K/V, LSE) shapes the general kernel takes and returns."""
    B, H, Hk, S, Sk, D = cfg.batch, cfg.heads, cfg.kv_heads, cfg.seq, cfg.keys, cfg.head_dim
    if cfg.varlen:
        return (1, cfg.total_q, H, D), (1, cfg.total_k, Hk, D), (H, cfg.total_q)
    if cfg.layout == "bshd":
        return (B, S, H, D), (B, Sk, Hk, D), (B, H, S)
    return (B, H, S, D), (B, Hk, Sk, D), (B, H, S)


def _build_general(cfg, arch):
    """The kernel for any length, GQA, a window, the bshd layout or packed
    sequences: per-sequence 5-D tensor maps, masks where a key block
    crosses a bound of its rows, O and LSE stored row by row below the
    sequence's end."""
    D, H = cfg.head_dim, cfg.heads
    q_shape, kv_shape, lse_shape = tensor_shapes(cfg)
    seq_axis = 2 if cfg.layout == "bhsd" and not cfg.varlen else 1
    ldc = D if seq_axis == 2 else H * D
    cu = (Tile(cfg.batch + 1, s32), Tile(cfg.batch + 1, s32)) if cfg.varlen else ()
    in_specs = (Tile(*q_shape, bf16), Tile(*kv_shape, bf16), Tile(*kv_shape, bf16)) + cu
    out_specs = (Tile(*q_shape, bf16), Tile(*lse_shape, f32))
    grid = (cfg.m_blocks, cfg.batch * H, 1)

    def body(Q, K, V, O, LSE, cu_seqlens):
        descs = tuple(sequence_tma_desc(x, rows=BM, seq_axis=seq_axis) for x in (Q, K, V))
        po, plse = ptx.global_ptrs(O, LSE)
        work = SequenceWork(q_blocks=cfg.m_blocks, bm=BM, bn=BN, heads=H,
                            group=H // cfg.kv_heads, seq_q=cfg.seq, seq_k=cfg.keys,
                            window=cfg.key_window, cu_seqlens=cu_seqlens)
        tiles = SharedTiles(cfg)
        tid = reg.from_(ptx.special.tid.x(), u32)
        wg = tid >> 7
        tiles.init(tid == 0)
        nonempty = work.n_blocks_signed > 0 if cfg.may_be_empty else None
        with producer_role(wg):
            with ptx.if_(tid == 0 if nonempty is None else (tid == 0) & nonempty):
                Producer(cfg, tiles, descs).tile(work)
        with consumer_role():
            consumer = Consumer(cfg, tiles, wg - 1, tid & 127)
            row0 = work.m0 + consumer.consumer * WG_M
            mask = SequenceMask(work, consumer.frag, row0, tail=cfg.tail,
                                column=Consumer._column, half=Consumer._half) \
                if cfg.masked else None
            consumer.turns.start()
            if nonempty is None:
                consumer.tile(work, mask)
            else:
                with ptx.if_(nonempty):
                    consumer.tile(work, mask)
                with ptx.else_():
                    consumer.empty_tile()
            # this (batch, head)'s first O element and LSE entry
            if cfg.varlen:
                first, lse_base = work.q_start * H + work.h, work.h * cfg.total_q + work.q_start
            elif cfg.layout == "bshd":
                first, lse_base = work.b * (cfg.seq * H) + work.h, work.bh * cfg.seq
            else:
                first, lse_base = work.bh * cfg.seq, work.bh * cfg.seq
            po_slice = po + reg.from_(first, u64) * (2 * D)
            consumer.sequence_epilogue(work, po_slice, ldc, plse, lse_base)
            consumer.turns.finish()
        ptx.ret()

    launch = dict(in_specs=in_specs, out_specs=out_specs, grid=grid, block=(THREADS, 1, 1),
                  arch=arch, raw_directives=launch_directives())
    if cfg.varlen:
        @kernel(**launch)
        def flash_attention_varlen(Q, K, V, CuSeqlensQ, CuSeqlensK, O, LSE):
            body(Q, K, V, O, LSE, ptx.global_ptrs(CuSeqlensQ, CuSeqlensK))
        fn = flash_attention_varlen
    else:
        @kernel(**launch)
        def flash_attention_seq(Q, K, V, O, LSE):
            body(Q, K, V, O, LSE, None)
        fn = flash_attention_seq
    fn.config = cfg
    return fn


_KERNELS: dict = {}


def flash_attention(q, k, v, causal: bool = False, *, softmax_scale=None, window=(-1, -1),
                    layout: str = "bhsd", cu_seqlens_q=None, cu_seqlens_k=None,
                    max_seqlen_q=None, max_seqlen_k=None, **options):
    """(O, LSE) for bf16, contiguous q, k, v (PyTorch tensors or JAX arrays):
    layout "bhsd" (batch, heads, seq, D) or "bshd" (batch, seq, heads, D);
    k and v may have fewer heads and another length; packed: q (total_q,
    heads, D), k and v (total_k, heads_kv, D), cu_seqlens_q/k (int32,
    batch+1 offsets), max_seqlen_q/k. LSE: (batch, heads, seq_q) f32,
    packed (heads, total_q). The kernel is built once per shape and options."""
    args = kernel_arguments(q, k, v, causal=causal, softmax_scale=softmax_scale,
                            window=window, layout=layout, cu_seqlens_q=cu_seqlens_q,
                            cu_seqlens_k=cu_seqlens_k, max_seqlen_q=max_seqlen_q,
                            max_seqlen_k=max_seqlen_k, refuse=_refuse, bm=BM)
    args.update(options)
    key = tuple(sorted((n, repr(x)) for n, x in args.items()))
    kern = _KERNELS.get(key)
    if kern is None:
        kern = _KERNELS[key] = build_flash_attention(**args)
    return run(kern, q, k, v, cu_seqlens_q, cu_seqlens_k)


def run(kern, q, k, v, cu_seqlens_q=None, cu_seqlens_k=None):
    """Launches a kernel of build_flash_attention on the arrays
    flash_attention takes: the reshapes around the call (torch.compile
    traces this)."""
    if not kern.config.general:
        B, H, S, D = q.shape
        o, lse = kern(q.reshape(B * H * S, D), k.reshape(B * H * S, D),
                      v.reshape(B * H * S, D))
        return o.reshape(B, H, S, D), lse.reshape(B, H, S)
    if kern.config.varlen:
        o, lse = kern(q.reshape((1,) + tuple(q.shape)), k.reshape((1,) + tuple(k.shape)),
                      v.reshape((1,) + tuple(v.shape)), cu_seqlens_q, cu_seqlens_k)
        return o.reshape(q.shape), lse
    return kern(q, k, v)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    B, H, S, D = (int(a) for a in argv[:4]) if len(argv) >= 4 else (1, 2, 512, 128)
    causal = len(argv) > 4 and argv[4].lower() in ("1", "causal", "true")
    print(build_flash_attention(B, H, S, D, causal).ptx(), end="")


if __name__ == "__main__":
    main()
