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
that sees no key gets O = 0 and LSE = +inf. Packed sequences share one
sequence dimension, so a tile's last key block may hold the next
sequence's rows: masked for S, and zeroed in shared memory for V by a
producer warp before P V reads them (0 * Inf would be NaN). Partial
blocks known at trace time cost less (the consumers, in
_flash_attention_consumer.py): the key tail's softmax and P V run only
its columns, and a warpgroup whose rows all lie past the end only frees
the stages.

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

import examples.common  # noqa: E402,F401  (makes pyptx importable)
import pyptx  # noqa: E402
from pyptx import Tile, kernel, ptx, reg, smem  # noqa: E402
from pyptx.pipeline import (AttentionScheduler, Ring, consumer_role,  # noqa: E402
                            init_rings, launch_directives, prefetch_descriptors,
                            producer_role)
from pyptx.pipeline.attention import (SequenceMask, SequenceWork,  # noqa: E402
                                      kernel_arguments, sequence_tma_desc)
# reference(q, k, v, causal, softmax_scale=, window=): the float64 maths (NumPy)
from pyptx.pipeline.attention import reference  # noqa: E402,F401
from pyptx.pipeline.roles import CONSUMER_REGS, PRODUCER_REGS  # noqa: E402,F401
from pyptx.errors import KernelError  # noqa: E402
from pyptx.specs import Layout  # noqa: E402
from pyptx.types import bf16, f32, s32, u32, u64  # noqa: E402

from examples.hopper._flash_attention_consumer import (BM, BN, LOG2E, WG_M,  # noqa: E402,F401
                                                       Consumer)

ARCH = "sm_90a"
THREADS = 384              # producer warpgroup + two consumer warpgroups
HEAD_DIMS = (64, 128)
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
    def first_keys(self):
        """The keys of every tile's first block when they are fewer than BN and
        known at trace time (fixed lengths, no window: the key tail), else None."""
        tail = self.keys % BN
        if not self.general or self.varlen or self.key_window != (-1, -1) or not tail:
            return None
        return tail

    @property
    def may_idle(self):
        """Whether a consumer warpgroup's 64 rows may all lie past the end of
        the sequence (it then only drains the rings)."""
        return self.general and (self.varlen or 0 < self.seq % BM <= WG_M)

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
        # packed sequences: the bytes of the first V block (the key tail) are in
        self.v_tail = smem.mbarrier(1) if cfg.varlen else None

    def init(self, leader):
        """Thread `leader` initialises the barriers; then the CTA meets."""
        def q_barriers():
            ptx.mbarrier.init(self.q_bar[0], 1)
            if self.q_empty is not None:
                ptx.mbarrier.init(self.q_empty[0], 2)
            if self.v_tail is not None:
                ptx.mbarrier.init(self.v_tail[0], 1)
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
        block j+1) for j going down, then V of block 0. Packed sequences:
        V of the last block right after Q, completing on v_tail (for
        zero_v_tail), then (K, V) of block j going down."""
        self.work = work
        row = reg.from_(work.kv_row + (work.n_blocks - 1) * BN, u32)
        self._load("k", row)
        self._load_q(work.q_row)
        if self.cfg.varlen:
            stage, _ = self.v.acquire()     # the tile's first V stage: 0
            tail = self.tiles.v_tail[0]
            ptx.mbarrier.arrive_expect_tx(tail, self.cfg.tile_bytes)
            self._copy(self.tiles.sV[stage], self.v_desc, row, tail, "kv")
            for _ in ptx.range_(0, work.n_blocks - 1):
                ptx.inst.sub.u32(row, row, BN)
                self._load("k", row)
                self._load("v", row)
            return
        for _ in ptx.range_(0, work.n_blocks - 1):
            ptx.inst.sub.u32(row, row, BN)
            self._load("k", row)
            self._load("v", row + BN)
        self._load("v", row)


def zero_v_tail(cfg, tiles, work, lane):
    """Packed sequences: the first V block of a tile (the last key block)
    may run into the next sequence, whose rows the mask sets to P = 0; but
    0 * Inf is NaN in P V, so one producer warp zeroes those rows in shared
    memory (whole 128-byte lines of each 64-column panel, 16 bytes a lane)
    once the block is in, fences them for the tensor cores and only then
    completes the stage's full barrier."""
    keep = reg.from_(work.seq_k, s32) - (work.n_hi - 1) * BN    # rows in the sequence
    first_chunk = reg.from_(keep.min(BN), u32) * 8 + lane       # 8 chunks a line
    base = reg.from_(tiles.sV, u32)                             # stage 0
    zero = reg.scalar(u32, init=0)
    ptx.mbarrier.wait(tiles.v_tail[0], 0)
    for chunk in ptx.range_(first_chunk, BN * 8, 32):
        at = base + chunk * 16
        for panel in range(cfg.head_dim // 64):
            ptx.inst.st.shared.v4.b32(ptx.addr(at, panel * BN * 128), [zero] * 4)
    ptx.inst.fence.proxy.async_.shared__cta()
    ptx.inst.bar.warp.sync(-1)
    ptx.mbarrier.arrive(tiles.v_ring.full[0], pred=lane == 0)


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
            if cfg.varlen:
                warp1 = (tid >> 5) == 1
                with ptx.if_(warp1 if nonempty is None else warp1 & nonempty):
                    zero_v_tail(cfg, tiles, work, tid & 31)
        with consumer_role():
            consumer = Consumer(cfg, tiles, wg - 1, tid & 127)
            row0 = work.m0 + consumer.consumer * WG_M
            mask = SequenceMask(work, consumer.frag, row0, tail=cfg.tail,
                                column=Consumer._column, half=Consumer._half) \
                if cfg.masked else None
            consumer.turns.start()

            def compute_and_store():
                if nonempty is None:
                    consumer.tile(work, mask, cfg.first_keys)
                else:
                    with ptx.if_(nonempty):
                        consumer.tile(work, mask, cfg.first_keys)
                    with ptx.else_():
                        consumer.empty_tile()
                # this (batch, head)'s first O element and LSE entry
                if cfg.varlen:
                    first = work.q_start * H + work.h
                    lse_base = work.h * cfg.total_q + work.q_start
                elif cfg.layout == "bshd":
                    first, lse_base = work.b * (cfg.seq * H) + work.h, work.bh * cfg.seq
                else:
                    first, lse_base = work.bh * cfg.seq, work.bh * cfg.seq
                po_slice = po + reg.from_(first, u64) * (2 * D)
                consumer.sequence_epilogue(work, po_slice, ldc, plse, lse_base)

            if cfg.may_idle:     # rows all past the end: only free the stages
                idle = row0 >= work.seq_q
                with ptx.if_(idle if nonempty is None else idle & nonempty):
                    consumer.drain(work)
                with ptx.else_():
                    compute_and_store()
            else:
                compute_and_store()
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
