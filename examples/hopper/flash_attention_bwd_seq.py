"""The Hopper flash attention backward (examples/hopper/flash_attention_bwd.py)
for every case the forward (examples/hopper/flash_attention.py) takes:
Q and K/V lengths apart (cross-attention, a KV cache; causal aligned
bottom-right: query i sees keys j <= i + seq_k - seq_q, as FlashAttention),
a sliding window (left, right), the (batch, seq, heads, D) layout, and
packed variable-length batches (cu_seqlens_q / cu_seqlens_k, tensors
(total, heads, D), empty sequences allowed); grouped K/V heads in each.

The main kernel is the dense one's (its SharedTiles, and its Consumer's
five products and dQ reduction per Q block); what differs is where the
rows come from and which pairs are masked:

- one CTA per (128-row K/V block n of a sequence, K/V head, batch); with
  cu_seqlens a CTA whose block starts past its sequence's keys returns at
  once. Loads use the forward's per-sequence 5-D tensor maps
  (pyptx.pipeline.attention.sequence_tma_desc): a box past the end of a
  (batch, head) sequence is zero-filled; in a packed tensor it reads the
  next sequence's rows, which the mask removes.
- the CTA visits only the 64-row Q blocks whose rows see a key of its
  block (key_range's rule inverted: rows k0 - diag - right ..
  k_last - diag + left, diag = seq_k - seq_q); a block where some pair is
  outside the band (window or causal edge, Q rows past seq_q, keys past
  seq_k) takes the masked copy of the step (a uniform branch on two
  compares per block), the others the plain one. If no Q row sees the
  block, dK = dV = 0 are stored.
- dQ accumulates in f32 per (head, sequence) in whole 64-row blocks:
  dense, head bh at bh * seq_pad; packed, head h at h * total_pad +
  64 * floor((cu_seqlens_q[b] + 64 b) / 64) (FlashAttention-2's padded
  offsets: disjoint, so a sequence's partial last block never adds into
  its neighbour's rows). The preprocess (Dsum, -LSE*log2(e), zeroing) and
  convert (dQ = bf16(scale * accumulator)) kernels here walk one grid
  (Q block, head, batch) with the same offsets.

Measured on an H100 SXM (benchmarks/attention_bwd.py --features, D=128, 16
heads, 64k tokens, all three kernels): packed sequences of random lengths
1-8192 534 TFLOP/s (causal 516), 1.06-1.09x the dense backward at S=4096;
bshd at S=4096 533 (causal 475), 0.96-0.97x the dense bhsd kernel.

    python examples/hopper/flash_attention_bwd_seq.py [B H Hkv Sq Sk D [causal [left right]]]
"""
from __future__ import annotations

import os
import sys
from dataclasses import dataclass

if __package__ in (None, ""):  # run as a script: make `examples` importable
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

import examples.common  # noqa: E402,F401  (makes pyptx importable)
from pyptx import Tile, kernel, ptx, reg  # noqa: E402
from pyptx.pipeline import (TmaStore, consumer_role, launch_directives,  # noqa: E402
                            prefetch_descriptors, producer_role, store_direct,
                            warpgroup_ids)
from pyptx.pipeline.attention import (kernel_arguments, larger,  # noqa: E402
                                      sequence_tma_desc, smaller)
from pyptx.types import b32, bf16, f32, s32, u32, u64  # noqa: E402

from examples.hopper import flash_attention_bwd as dense  # noqa: E402
from examples.hopper.flash_attention_bwd import (BN, DQ_CHUNK_BYTES, WG_N,  # noqa: E402
                                                 AttentionShapeError, Config, Consumer,
                                                 SharedTiles)
from examples.hopper.flash_attention_bwd_rows import (BM, CONVERT_THREADS,  # noqa: E402
                                                      LOG2E, STATS_COLS, add_row_products)

ARCH = "sm_90a"
BIG = 0x7FFFFFFF
_HERE = os.path.dirname(os.path.abspath(__file__))


def _refuse(message):
    """AttentionShapeError at the first frame outside the backward's modules."""
    frame = sys._getframe(1)
    while frame is not None and os.path.basename(frame.f_code.co_filename).startswith(
            "flash_attention_bwd") and os.path.dirname(frame.f_code.co_filename) == _HERE:
        frame = frame.f_back
    where = (frame.f_code.co_filename, frame.f_lineno) if frame else ("", 0)
    raise AttentionShapeError(f"flash_attention_backward: {message}", *where, 0)


@dataclass(frozen=True)
class SeqConfig(Config):
    """A backward problem beyond the dense kernel's: seq is the Q length
    (packed: the longest sequence's, rounded up), seq_k the keys'; window
    (left, right), -1 unbounded; layout "bhsd" or "bshd"; varlen: packed
    (1, total, heads, D) tensors and cu_seqlens inputs."""
    seq_k: int = 0
    window: tuple = (-1, -1)
    layout: str = "bhsd"
    varlen: bool = False
    total_q: int = 0
    total_k: int = 0

    @property
    def keys(self):
        return self.seq_k or self.seq

    @property
    def key_window(self):
        """(left, right) with causal as right = 0."""
        left, right = self.window
        return (left, 0 if self.causal else right)

    @property
    def kv_blocks(self):
        return -(-self.keys // BN)

    @property
    def total_pad(self):
        """Packed: rows per head of the accumulator (each sequence starts on
        a 64-row block, at most one block of padding per sequence)."""
        return (self.total_q + self.batch * BM) // BM * BM

    @property
    def acc_rows(self):
        if self.varlen:
            return self.heads * self.total_pad
        return self.batch * self.heads * self.seq_pad

    @property
    def seq_pad(self):
        return self.q_blocks * BM

    @property
    def q_tail(self):
        """Whether a Q block may be partial (packed: any)."""
        return self.varlen or self.seq % BM != 0

    @property
    def kv_tail(self):
        return self.varlen or self.keys % BN != 0

    @property
    def seq_axis(self):
        return 2 if self.layout == "bhsd" and not self.varlen else 1

    def shapes(self):
        """(Q-shaped, K-shaped, LSE) shapes the kernels take."""
        B, H, Hk, S, Sk, D = (self.batch, self.heads, self.heads_kv, self.seq, self.keys,
                              self.head_dim)
        if self.varlen:
            return (1, self.total_q, H, D), (1, self.total_k, Hk, D), (H, self.total_q)
        if self.layout == "bshd":
            return (B, S, H, D), (B, Sk, Hk, D), (B, H, S)
        return (B, H, S, D), (B, Hk, Sk, D), (B, H, S)


def check_config(cfg: SeqConfig):
    try:
        dense.check_shape(cfg.batch, cfg.heads, cfg.heads_kv, cfg.seq, cfg.head_dim,
                          cfg.causal, cfg.stages, "bulk")
    except AttentionShapeError as e:     # located again at the caller's line
        _refuse(e.message.split(": ", 1)[1])
    if cfg.dq_reduce != "bulk":
        _refuse(f"dq_reduce={cfg.dq_reduce!r}: this kernel reduces dQ in bulk only (the "
                f"dense kernel also takes 'red')")
    if cfg.layout not in ("bhsd", "bshd"):
        _refuse(f"layout must be 'bhsd' or 'bshd', not {cfg.layout!r}")
    left, right = cfg.window
    if not all(type(w) is int and w >= -1 for w in (left, right)):
        _refuse(f"window must be (left, right), ints >= -1, not {cfg.window!r}")
    if cfg.varlen and not all(type(t) is int and t > 0 for t in (cfg.total_q, cfg.total_k)):
        _refuse("packed sequences need positive total_q and total_k")
    if cfg.acc_rows * cfg.head_dim >= 1 << 31 or \
            max(cfg.total_q, cfg.batch * cfg.seq) * cfg.heads * cfg.head_dim >= 1 << 31:
        _refuse("the problem does not fit the kernels' 32-bit element offsets (< 2**31)")


# -- where a sequence's rows are ----------------------------------------------------------

class Sequence:
    """Batch b's sequence: q_start, seq_q, k_start, seq_k in the tensors'
    sequence axis (s32 registers read from cu_seqlens when packed, else
    ints) and the row arithmetic of its tensors."""

    def __init__(self, cfg: SeqConfig, b, cu=()):
        self.cfg, self.b = cfg, b
        self.q_start, self.seq_q, self.k_start, self.seq_k = 0, cfg.seq, 0, cfg.keys
        if not cfg.varlen:
            return
        found = []
        for p in cu:
            at = p + reg.from_(b, u64) * 4
            start, end = reg.scalar(s32), reg.scalar(s32)
            ptx.inst.ld.global_.s32(start, ptx.addr(at))
            ptx.inst.ld.global_.s32(end, ptx.addr(at, 4))
            found.append((start, end - start))
        self.q_start, self.seq_q = found[0]
        if len(found) > 1:
            self.k_start, self.seq_k = found[1]

    def q_row(self, h, t):
        """Row (of D elements) of position t of head h in Q, O, dO, dQ."""
        cfg, H = self.cfg, self.cfg.heads
        if cfg.varlen:
            return (self.q_start + t) * H + h
        if cfg.layout == "bshd":
            return (self.b * cfg.seq + t) * H + h
        return (self.b * H + h) * cfg.seq + t

    def q_stride(self):
        """Rows between positions t and t + 1 of one head."""
        return self.cfg.heads if self.cfg.seq_axis == 1 else 1

    def kv_first_row(self, hk):
        """Row of position 0 of K/V head hk in K, V, dK, dV."""
        cfg, Hk = self.cfg, self.cfg.heads_kv
        if cfg.varlen:
            return self.k_start * Hk + hk
        if cfg.layout == "bshd":
            return self.b * (cfg.keys * Hk) + hk
        return (self.b * Hk + hk) * cfg.keys

    def lse_index(self, h, t):
        cfg = self.cfg
        if cfg.varlen:
            return h * cfg.total_q + self.q_start + t
        return (self.b * cfg.heads + h) * cfg.seq + t

    def acc_head(self, h):
        """First accumulator row of head h of this sequence."""
        cfg = self.cfg
        if cfg.varlen:
            return h * cfg.total_pad + ((self.q_start + self.b * BM) & ~(BM - 1))
        return (self.b * cfg.heads + h) * cfg.seq_pad

    def acc_head_stride(self):
        """Accumulator rows between heads h and h + 1."""
        return self.cfg.total_pad if self.cfg.varlen else self.cfg.seq_pad


def _ctaid():
    return tuple(reg.from_(r(), s32) for r in (ptx.special.ctaid.x, ptx.special.ctaid.y,
                                               ptx.special.ctaid.z))


def _u64(x):
    return reg.from_(x, u64) if not isinstance(x, int) else x


# -- preprocess and convert -----------------------------------------------------------------

def build_preprocess(cfg: SeqConfig, arch: str = ARCH):
    """Kernel (O, dO, LSE[, cu_seqlens_q]) -> (stats, dq_accum): one CTA per
    (64-row Q block, head, batch), D/8 threads per row (16 bytes of O and of
    dO each); stats and the zeroed accumulator block at the sequence's
    accumulator rows."""
    D, H = cfg.head_dim, cfg.heads
    per_row = D // 8
    q_shape, _, lse_shape = cfg.shapes()
    cu = (Tile(cfg.batch + 1, s32),) if cfg.varlen else ()

    def body(O, dO, LSE, STATS, DQ_ACCUM, cu_ptrs):
        po, pdo, plse, pstats, pdq = ptx.global_ptrs(O, dO, LSE, STATS, DQ_ACCUM)
        m, h, b = _ctaid()
        seq = Sequence(cfg, b, cu_ptrs)
        if cfg.varlen:
            ptx.ret(pred=(m << 6) >= seq.seq_q)      # the block is past the sequence
        tid = reg.from_(ptx.special.tid.x(), s32)
        r = tid >> (per_row.bit_length() - 1)
        t = (m << 6) + r
        valid = t < seq.seq_q if cfg.q_tail else None
        col = (tid & (per_row - 1)) << 3
        elem = _u64(seq.q_row(h, t)) * D + _u64(col)
        o, do = reg.array(b32, 4), reg.array(b32, 4)
        if valid is not None:     # the padding rows of a partial block: zeros
            for x in list(o) + list(do):
                ptx.inst.mov.b32(x, 0)
        ptx.inst.ld.global_.nc.v4.b32(list(o), ptx.addr(po + elem * 2), pred=valid)
        ptx.inst.ld.global_.nc.v4.b32(list(do), ptx.addr(pdo + elem * 2), pred=valid)
        block_row = seq.acc_head(h) + (m << 6)
        zero = reg.scalar(f32, init=0.0)
        dq = pdq + (_u64(block_row + r) * D + _u64(col)) * 4
        ptx.inst.st.global_.v4.f32(ptx.addr(dq), [zero] * 4)
        ptx.inst.st.global_.v4.f32(ptx.addr(dq, 16), [zero] * 4)
        total = add_row_products(o, do)
        ptx.warp.reduce_sum(total, width=per_row)
        lse = reg.scalar(f32, init=0.0)
        first = (tid & (per_row - 1)) == 0
        ptx.inst.ld.global_.nc.f32(lse, ptx.addr(plse + _u64(seq.lse_index(h, t)) * 4),
                                   pred=first if valid is None else first & valid)
        ptx.inst.mul.f32(lse, lse, -LOG2E)
        where = pstats + _u64((block_row >> 6) * (STATS_COLS * 4) + r * 4)
        ptx.inst.st.global_.f32(ptx.addr(where), lse, pred=first)
        ptx.inst.st.global_.f32(ptx.addr(where, BM * 4), total, pred=first)
        ptx.ret()

    launch = dict(out_specs=(Tile(cfg.acc_rows // BM, STATS_COLS, f32),
                             Tile(cfg.acc_rows, D, f32)),
                  in_specs=(Tile(*q_shape, bf16), Tile(*q_shape, bf16),
                            Tile(*lse_shape, f32)) + cu,
                  grid=(cfg.q_blocks, H, cfg.batch), block=(BM * per_row, 1, 1), arch=arch)
    if cfg.varlen:
        @kernel(**launch)
        def attention_bwd_varlen_preprocess(O, dO, LSE, CuSeqlensQ, STATS, DQ_ACCUM):
            body(O, dO, LSE, STATS, DQ_ACCUM, ptx.global_ptrs(CuSeqlensQ))
        return attention_bwd_varlen_preprocess

    @kernel(**launch)
    def attention_bwd_seq_preprocess(O, dO, LSE, STATS, DQ_ACCUM):
        body(O, dO, LSE, STATS, DQ_ACCUM, ())
    return attention_bwd_seq_preprocess


def build_convert(cfg: SeqConfig, arch: str = ARCH):
    """Kernel dq_accum[, cu_seqlens_q] -> dQ (Q-shaped bf16) = scale *
    accumulator, the accumulator in the main kernel's chunk order
    (flash_attention_bwd_rows.build_convert_chunks): D/16 CTAs of 256
    threads per (64-row Q block, head, batch), one 16-byte piece each."""
    D, H = cfg.head_dim, cfg.heads
    per_block = 16 * D // CONVERT_THREADS
    q_shape, _, _ = cfg.shapes()
    cu = (Tile(cfg.batch + 1, s32),) if cfg.varlen else ()

    def body(DQ_ACCUM, DQ, cu_ptrs):
        pacc, pdq = ptx.global_ptrs(DQ_ACCUM, DQ)
        x, h, b = _ctaid()
        m = x >> (per_block.bit_length() - 1)
        seq = Sequence(cfg, b, cu_ptrs)
        if cfg.varlen:
            ptx.ret(pred=(m << 6) >= seq.seq_q)
        i = ((x & (per_block - 1)) << 8) + reg.from_(ptx.special.tid.x(), s32)
        block_row = seq.acc_head(h) + (m << 6)
        acc = reg.array(f32, 4)
        src = pacc + _u64(block_row) * (D * 4) + _u64(i) * 16
        ptx.inst.ld.global_.nc.v4.f32(list(acc), ptx.addr(src))
        t, c, half = i & 127, (i >> 7) & 7, i >> 10
        lane = t & 31
        pos = (m << 6) + ((t >> 5) << 4) + (lane >> 2)
        col = half * 64 + c * 8 + ((lane & 3) << 1)
        out = pdq + (_u64(seq.q_row(h, pos)) * D + _u64(col)) * 2
        # rows pos and pos + 8; rows past the sequence are not stored
        preds = [None, None] if not cfg.q_tail else [pos < seq.seq_q, (pos + 8) < seq.seq_q]
        packed = reg.array(b32, 2)
        for k in range(2):
            ptx.inst.mul.f32(acc[2 * k], acc[2 * k], cfg.scale)
            ptx.inst.mul.f32(acc[2 * k + 1], acc[2 * k + 1], cfg.scale)
            ptx.inst.cvt.rn.bf16x2.f32(packed[k], acc[2 * k + 1], acc[2 * k])
        ptx.inst.st.global_.b32(ptx.addr(out), packed[0], pred=preds[0])
        ptx.inst.st.global_.b32(ptx.addr(out, 8 * seq.q_stride() * D * 2), packed[1],
                                pred=preds[1])
        ptx.ret()

    launch = dict(in_specs=(Tile(cfg.acc_rows, D, f32),) + cu,
                  out_specs=(Tile(*q_shape, bf16),),
                  grid=(cfg.q_blocks * per_block, H, cfg.batch),
                  block=(CONVERT_THREADS, 1, 1), arch=arch)
    if cfg.varlen:
        @kernel(**launch)
        def attention_bwd_varlen_convert(DQ_ACCUM, CuSeqlensQ, DQ):
            body(DQ_ACCUM, DQ, ptx.global_ptrs(CuSeqlensQ))
        return attention_bwd_varlen_convert

    @kernel(**launch)
    def attention_bwd_seq_convert(DQ_ACCUM, DQ):
        body(DQ_ACCUM, DQ, ())
    return attention_bwd_seq_convert


# -- the main kernel ------------------------------------------------------------------------

class Work:
    """This CTA's K/V block of a sequence and the Q blocks [m_lo, m_hi)
    whose rows see one of its keys (s32 registers, or ints where known at
    trace time); the masked-block test's bounds full_lo / full_hi. Made by
    every thread; with cu_seqlens a CTA past its sequence's keys returns."""

    def __init__(self, cfg: SeqConfig, cu):
        n, self.hk, self.b = _ctaid()
        self.cfg = cfg
        self.n = n
        self.seq = seq = Sequence(cfg, self.b, cu)
        self.k0 = n << 7                                   # first key of the block
        if cfg.varlen:
            ptx.ret(pred=self.k0 >= seq.seq_k)
        self.kv_row = self.k0 + seq.k_start if cfg.varlen else self.k0
        self.b_coord = 0 if cfg.varlen else self.b
        self.diag, self.m_lo, self.m_hi, self.full_lo, self.full_hi = block_bounds(
            self.k0, seq.seq_q, seq.seq_k, cfg.key_window, cfg.kv_tail, cfg.q_tail)

    def masked(self, m):
        """The predicate "block m has a pair outside the band", or None when
        no block has."""
        return block_masked(m << 6, self.full_lo, self.full_hi)

    def heads(self):
        """Yields (Q head, its first accumulator row) for the Q heads of
        this K/V head's group: inside a PTX loop, or once without grouping."""
        cfg, seq = self.cfg, self.seq
        group = cfg.group
        first = self.hk * group if group > 1 else self.hk
        acc0 = seq.acc_head(first)
        if group == 1:
            yield first, acc0
            return
        for g in ptx.range_(0, group, dtype=s32):
            yield first + g, acc0 + g * seq.acc_head_stride()

    def blocks(self):
        return ptx.range_(self.m_lo, self.m_hi, dtype=s32)


def block_bounds(k0, seq_q, seq_k, window, kv_tail, q_tail):
    """For the K/V block of keys k0..k0+127 of a sequence (registers or
    ints; the kernel's arithmetic, also run on ints by the tests): (diag,
    m_lo, m_hi, full_lo, full_hi). [m_lo, m_hi): the 64-row Q blocks with a
    row that sees one of its keys (row i sees key j when i + diag - left <=
    j <= i + diag + right, diag = seq_k - seq_q); block m needs no mask when
    64m >= full_lo and 64m <= full_hi (None: no such bound)."""
    left, right = window
    diag = _sub(seq_k, seq_q)
    k_last = k0 + (BN - 1)
    if kv_tail:
        k_last = smaller(k_last, seq_k - 1)
    lo = larger(_sub(k0, _add(diag, right)), 0) if right >= 0 else 0
    hi = seq_q - 1
    if left >= 0:
        hi = smaller(_sub(_add(k_last, left), diag), hi)
    m_lo, m_hi = lo >> 6, (hi + BM) >> 6      # s32 shr: floor, as Python's
    full_lo = _sub(k0 + (BN - 1), _add(diag, right)) if right >= 0 else None
    if kv_tail:   # a partial K/V block: every Q block masked
        full_lo = _select(k0 + BN > seq_k, BIG, -1 if full_lo is None else full_lo)
    full_hi = seq_q - BM if q_tail else None
    if left >= 0:
        edge = _sub(_add(k0, left), _add(diag, BM - 1))
        full_hi = edge if full_hi is None else smaller(edge, full_hi)
    return diag, m_lo, m_hi, full_lo, full_hi


def block_masked(first, full_lo, full_hi):
    """Whether the Q block of first row `first` takes the masked step (a
    predicate, a bool on ints), None when no block does."""
    tests = []
    if full_lo is not None:
        tests.append(first < full_lo)
    if full_hi is not None:
        tests.append(first > full_hi)
    if not tests:
        return None
    return tests[0] if len(tests) == 1 else tests[0] | tests[1]


def band_limits(j, i0, diag, seq_q, seq_k, window, kv_tail, q_tail):
    """(low, high) of key j against the queries i0 + c of a fragment row:
    the pair is masked where c < low or c > high (None: no such bound) --
    outside the band, j past seq_k or i past seq_q. Registers or ints."""
    left, right = window
    d = j - i0                                 # j - i + c
    low = _sub(d, _add(diag, right)) if right >= 0 else None
    if kv_tail:
        low = _select(j >= seq_k, BM, 0 if low is None else low)
    high = _sub(_add(d, left), diag) if left >= 0 else None
    if q_tail:
        past = seq_q - 1 - i0
        high = past if high is None else smaller(high, past)
    return low, high


def _add(a, b):
    """a + b for registers or ints; no instruction for a known 0."""
    if isinstance(a, int) and isinstance(b, int):
        return a + b
    if isinstance(b, int) and b == 0:
        return a
    if isinstance(a, int) and a == 0:
        return b
    return a + b if not isinstance(a, int) else b + a


def _sub(a, b):
    if isinstance(b, int) and b == 0:
        return a
    return a - b


def _select(pred, a, b):
    """selp.s32: a where pred, else b (a Python choice on a bool)."""
    if isinstance(pred, bool):
        return a if pred else b
    out = reg.scalar(s32)
    ptx.inst.selp.s32(out, a, b, pred)
    return out


class Producer:
    """One thread's TMA loads: K and V once, then per (Q head, Q block) the
    Q, dO and stats of a stage; 5-D boxes of the sequence tensor maps."""

    def __init__(self, cfg, tiles, descs):
        self.cfg, self.tiles = cfg, tiles
        self.q_desc, self.k_desc, self.v_desc, self.do_desc, self.stats_desc = descs
        self.ring = tiles.ring.producer()
        prefetch_descriptors(*descs)

    def run(self, work: Work):
        cfg, tiles, seq = self.cfg, self.tiles, work.seq
        kv_full = tiles.kv_bar[0]
        ptx.mbarrier.arrive_expect_tx(kv_full, 2 * cfg.kv_tile_bytes)
        for dst, desc in ((tiles.sK, self.k_desc), (tiles.sV, self.v_desc)):
            ptx.cp.async_.bulk.tensor_5d(dst=dst, src=desc,
                                         coord=(0, work.kv_row, 0, work.hk, work.b_coord),
                                         mbar=kv_full)
        for h, acc_head in work.heads():
            for m in work.blocks():
                q_row = (m << 6) + seq.q_start if cfg.varlen else m << 6
                stage, full = self.ring.acquire()
                full.arrive_expect_tx(cfg.stage_bytes)
                for dst, desc in ((tiles.sQ[stage], self.q_desc),
                                  (tiles.sdO[stage], self.do_desc)):
                    ptx.cp.async_.bulk.tensor_5d(dst=dst, src=desc,
                                                 coord=(0, q_row, 0, h, work.b_coord),
                                                 mbar=full)
                ptx.cp.async_.bulk.tensor_2d(dst=tiles.sStats[stage], src=self.stats_desc,
                                             coord=(0, (acc_head >> 6) + m), mbar=full)


class SeqConsumer(Consumer):
    """The dense kernel's consumer warpgroup over a sequence's Q blocks,
    with the band/tail mask."""

    def band_mask(self, work: Work, m):
        """The mask of Q block m: S^T (key j, query i) = -inf where j is
        outside i's band or past seq_k, or i past seq_q. Per row half two
        column limits (limits made in the masked step, not held in the
        loop): masked where column < low or column > high."""
        cfg, seq = self.cfg, work.seq
        row, col = self.frag

        def apply():
            j0 = work.k0 + self.consumer * WG_N + reg.from_(row, s32)   # key of half 0
            i0 = (m << 6) + reg.from_(col, s32)                        # query of column 0
            for h in range(2):
                j = j0 + 8 * h if h else j0
                low, high = band_limits(j, i0, work.diag, seq.seq_q, seq.seq_k,
                                        cfg.key_window, cfg.kv_tail, cfg.q_tail)
                for i in range(BM // 2):
                    if self._half(i) != h:
                        continue
                    if low is not None:
                        ptx.inst.mov.f32(self.s[i], dense.NEG_INF, pred=low > self._column(i))
                    if high is not None:
                        ptx.inst.mov.f32(self.s[i], dense.NEG_INF,
                                         pred=high < self._column(i))
        return apply

    def run(self, work: Work, DQ_ACCUM, dK, dV):
        cfg, seq = self.cfg, work.seq
        (pdq,) = ptx.global_ptrs(DQ_ACCUM)
        # the accumulator's chunk of this warpgroup (dense kernel's Consumer.run)
        self.dq_ptr = pdq + self.consumer * DQ_CHUNK_BYTES if cfg.split_dq_columns else pdq
        self.dq_chunk = reg.from_(self.tiles.sdQ, u32) + self.consumer * DQ_CHUNK_BYTES
        self.dq_smem = self.dq_chunk + self.lane128 * 16
        self.dq_store = TmaStore(self.frees, 3 + self.consumer, 128)
        for acc in (self.dv, self.dk):
            for i in range(len(acc)):
                ptx.inst.mov.f32(acc[i], 0.0)
        ptx.mbarrier.wait(self.tiles.kv_bar[0], 0)
        for _, acc_head in work.heads():
            for m in work.blocks():
                acc_row = acc_head + (m << 6)
                masked = work.masked(m)
                if masked is None:
                    self.step(None, acc_row, None)
                    continue
                with ptx.if_(masked):
                    self.step(None, acc_row, self.band_mask(work, m))
                with ptx.else_():
                    self.step(None, acc_row, None)
        self.dq_store.finish()
        for i in range(len(self.dk)):
            ptx.inst.mul.f32(self.dk[i], self.dk[i], cfg.scale)
        pdk, pdv = ptx.global_ptrs(dK, dV)
        first = _u64(seq.kv_first_row(work.hk)) * (2 * cfg.head_dim)
        ldc = cfg.head_dim if cfg.seq_axis == 2 else cfg.heads_kv * cfg.head_dim
        row0 = reg.from_(work.k0 + self.consumer * WG_N, u32)
        limit = reg.from_(seq.seq_k, u32) if cfg.kv_tail and cfg.varlen else \
            (cfg.keys if cfg.kv_tail else None)
        for acc, ptr in ((self.dk, pdk), (self.dv, pdv)):
            store_direct(acc, bf16, ptr + first, row0, 0, ldc, cfg.head_dim, limit,
                         frag=self.frag)


def build_main(cfg: SeqConfig, arch: str = ARCH):
    """Kernel (Q, K, V, dO, stats, dq_accum[, cu_seqlens_q, cu_seqlens_k]) ->
    (dK, dV) on the tensors of cfg.shapes(); adds into dq_accum."""
    D = cfg.head_dim
    q_shape, kv_shape, _ = cfg.shapes()
    stats_spec = Tile(cfg.acc_rows // BM, STATS_COLS, f32, tma_box=(1, STATS_COLS))
    cu = (Tile(cfg.batch + 1, s32), Tile(cfg.batch + 1, s32)) if cfg.varlen else ()
    q_spec, kv_spec = Tile(*q_shape, bf16), Tile(*kv_shape, bf16)

    def body(Q, K, V, dO, STATS, DQ_ACCUM, dK, dV, cu_ptrs):
        axis = cfg.seq_axis
        descs = (sequence_tma_desc(Q, rows=BM, seq_axis=axis),
                 sequence_tma_desc(K, rows=BN, seq_axis=axis),
                 sequence_tma_desc(V, rows=BN, seq_axis=axis),
                 sequence_tma_desc(dO, rows=BM, seq_axis=axis), STATS.tma_desc())
        work = Work(cfg, cu_ptrs)
        tiles = SharedTiles(cfg)
        tid, wg, lane128 = warpgroup_ids()
        tiles.init(tid == 0)
        with producer_role(wg, dense.PRODUCER_REGS):
            with ptx.if_(tid == 0):
                Producer(cfg, tiles, descs).run(work)
        with consumer_role(dense.CONSUMER_REGS):
            SeqConsumer(cfg, tiles, wg - 1, lane128).run(work, DQ_ACCUM, dK, dV)
        ptx.ret()

    launch = dict(in_specs=(q_spec, kv_spec, kv_spec, q_spec, stats_spec,
                            Tile(cfg.acc_rows, D, f32)) + cu,
                  out_specs=(kv_spec, kv_spec), grid=(cfg.kv_blocks, cfg.heads_kv, cfg.batch),
                  block=(dense.THREADS, 1, 1), arch=arch, raw_directives=launch_directives())
    if cfg.varlen:
        @kernel(**launch)
        def flash_attention_bwd_varlen(Q, K, V, dO, STATS, DQ_ACCUM, CuSeqlensQ, CuSeqlensK,
                                       dK, dV):
            body(Q, K, V, dO, STATS, DQ_ACCUM, dK, dV, ptx.global_ptrs(CuSeqlensQ, CuSeqlensK))
        fn = flash_attention_bwd_varlen
    else:
        @kernel(**launch)
        def flash_attention_bwd_seq(Q, K, V, dO, STATS, DQ_ACCUM, dK, dV):
            body(Q, K, V, dO, STATS, DQ_ACCUM, dK, dV, ())
        fn = flash_attention_bwd_seq
    fn.config = cfg
    return fn


# -- the entry point ----------------------------------------------------------------------

class Kernels:
    """The three kernels of one problem."""

    def __init__(self, cfg: SeqConfig, arch: str = ARCH):
        check_config(cfg)
        self.cfg = cfg
        self.preprocess = build_preprocess(cfg, arch)
        self.main = build_main(cfg, arch)
        self.convert = build_convert(cfg, arch)

    def __call__(self, q, k, v, o, do, lse, cu_q=None, cu_k=None, out=None):
        """torch tensors (out: three to write) or JAX arrays (eager or traced)."""
        cfg = self.cfg
        torch_side = type(q).__module__.startswith("torch")
        packed = (lambda x: x.reshape((1,) + tuple(x.shape))) if cfg.varlen \
            else (lambda x: x)
        cu_1, cu_2 = ((cu_q,), (cu_q, cu_k)) if cfg.varlen else ((), ())
        if out is None and cfg.varlen and torch_side:
            import torch     # rows after the last sequence: zero gradients
            out = (torch.zeros_like(q), torch.zeros_like(k), torch.zeros_like(v))
        stats, acc = self.preprocess(packed(o), packed(do), lse, *cu_1)
        into = {} if out is None else dict(out=(packed(out[1]), packed(out[2])))
        result = self.main(packed(q), packed(k), packed(v), packed(do), stats, acc, *cu_2,
                           **into)
        dk, dv = result[:2]
        if len(result) > 2:    # JAX: the accumulator it added into, as a new array
            acc = result[2]
        into = {} if out is None else dict(out=packed(out[0]))
        dq = self.convert(acc, *cu_1, **into)
        grads = tuple(x.reshape(y.shape) for x, y in zip((dq, dk, dv), (q, k, v)))
        if cfg.varlen and not torch_side:
            grads = tuple(_clear_after(g, c) for g, c in zip(grads, (cu_q, cu_k, cu_k)))
        return grads


def _clear_after(x, cu):
    """JAX: x (total, heads, D) with zeros in the rows after the last sequence."""
    import jax.numpy as jnp
    rows = jnp.arange(x.shape[0], dtype=cu.dtype)
    return jnp.where((rows < cu[-1])[:, None, None], x, jnp.zeros((), x.dtype))


_KERNELS: dict = {}


def kernels_for(cfg: SeqConfig, arch: str = ARCH):
    key = (cfg, arch)
    if key not in _KERNELS:
        _KERNELS[key] = Kernels(cfg, arch)
    return _KERNELS[key]


def config_of(q, k, v, *, causal, softmax_scale=None, window=(-1, -1), layout="bhsd",
              cu_seqlens_q=None, cu_seqlens_k=None, max_seqlen_q=None, max_seqlen_k=None,
              stages=2):
    """The SeqConfig of arrays as flash_attention takes them (packed: the
    lengths rounded up to 128, fewer rebuilds)."""
    args = kernel_arguments(q, k, v, causal=causal, softmax_scale=softmax_scale,
                            window=window, layout=layout, cu_seqlens_q=cu_seqlens_q,
                            cu_seqlens_k=cu_seqlens_k, max_seqlen_q=max_seqlen_q,
                            max_seqlen_k=max_seqlen_k, refuse=_refuse, bm=BN)
    seq_k = args["seq_k"]
    if args.get("varlen"):
        seq_k = max(-(-seq_k // BN) * BN, BN)
    scale = args["softmax_scale"]
    return SeqConfig(args["batch"], args["heads"], args["heads_kv"], args["seq"],
                     args["head_dim"], args["causal"],
                     None if scale is None else float(scale), stages, "bulk", seq_k,
                     tuple(args["window"]), args["layout"], bool(args.get("varlen")),
                     args.get("total_q", 0), args.get("total_k", 0))


def flash_attention_backward(q, k, v, o, do, lse, *, causal, softmax_scale=None,
                             window=(-1, -1), layout="bhsd", cu_seqlens_q=None,
                             cu_seqlens_k=None, max_seqlen_q=None, max_seqlen_k=None,
                             out=None, **options):
    """(dQ, dK, dV) for the arrays flash_attention (the forward) takes and
    its O and LSE: bf16 contiguous torch tensors or JAX arrays q, o, do and k, v in
    `layout` ((batch, heads, seq, D) or (batch, seq, heads, D)) or packed
    ((total, heads, D) with int32 cu_seqlens_q/k and max_seqlen_q/k); lse
    f32 (batch, heads, seq_q), packed (heads, total_q). Equal lengths of
    bhsd torch tensors without a window go to the dense kernels
    (flash_attention_bwd.py); the rest, and JAX arrays, to this module's.
    out: three torch tensors to write."""
    dense_case = (cu_seqlens_q is None and layout == "bhsd" and tuple(window) == (-1, -1)
                  and len(q.shape) == 4 and len(k.shape) == 4 and q.shape[2] == k.shape[2]
                  and type(q).__module__.startswith("torch"))
    if dense_case:
        return dense.flash_attention_backward(q, k, v, o, do, lse, causal=causal,
                                              softmax_scale=softmax_scale, out=out,
                                              **options)
    cfg = config_of(q, k, v, causal=causal, softmax_scale=softmax_scale, window=window,
                    layout=layout, cu_seqlens_q=cu_seqlens_q, cu_seqlens_k=cu_seqlens_k,
                    max_seqlen_q=max_seqlen_q, max_seqlen_k=max_seqlen_k, **options)
    return kernels_for(cfg)(q, k, v, o, do, lse, cu_seqlens_q, cu_seqlens_k, out)


def reference(q, k, v, do, causal=False, softmax_scale=None, window=(-1, -1)):
    """(dQ, dK, dV) in float64 torch for (batch, heads, seq_q, D) q, do and
    (batch, heads_kv, seq_k, D) k, v: the attention backward with the
    forward's key ranges (window, causal aligned bottom-right); a row that
    sees no key has no gradient."""
    import torch
    q64, k64, v64, do64 = (x.double() for x in (q, k, v, do))
    group = q.shape[1] // k.shape[1]
    k64, v64 = (x.repeat_interleave(group, 1) for x in (k64, v64))
    scale = softmax_scale if softmax_scale is not None else q.shape[-1] ** -0.5
    s = q64 @ k64.transpose(-1, -2) * scale
    sq, sk = s.shape[-2:]
    left, right = window[0], 0 if causal else window[1]
    i = torch.arange(sq, device=s.device)[:, None] + (sk - sq)
    j = torch.arange(sk, device=s.device)[None, :]
    seen = torch.ones(sq, sk, dtype=torch.bool, device=s.device)
    if right >= 0:
        seen &= j <= i + right
    if left >= 0:
        seen &= j >= i - left
    s = s.masked_fill(~seen, float("-inf"))
    lse = torch.logsumexp(s, -1, keepdim=True)
    p = torch.where(seen, torch.exp(s - lse), 0.0)
    dv = p.transpose(-1, -2) @ do64
    dp = do64 @ v64.transpose(-1, -2)
    ds = p * (dp - (p * dp).sum(-1, keepdim=True))
    dq = ds @ k64 * scale
    dk = ds.transpose(-1, -2) @ q64 * scale

    def group_sum(x):
        b, h, n, d = x.shape
        return x.reshape(b, h // group, group, n, d).sum(2)
    return dq, group_sum(dk), group_sum(dv)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    B, H, Hkv, Sq, Sk, D = (int(a) for a in argv[:6]) if len(argv) >= 6 else \
        (1, 4, 2, 1000, 333, 128)
    causal = len(argv) > 6 and argv[6].lower() in ("1", "causal", "true")
    window = (int(argv[7]), int(argv[8])) if len(argv) > 8 else (-1, -1)
    kern = kernels_for(SeqConfig(B, H, Hkv, Sq, D, causal, seq_k=Sk, window=window))
    for k in (kern.preprocess, kern.main, kern.convert):
        print(k.ptx(), end="")


if __name__ == "__main__":
    main()
