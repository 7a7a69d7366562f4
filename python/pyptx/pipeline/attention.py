"""What attention kernels (a forward, its backward) share beyond the ring
and the roles: a TMA descriptor whose bounds are those of each (batch,
head) sequence, and the key range a block of query rows sees.

The sequence tensor map describes a (batch, seq, heads, D) ("bshd") or
(batch, heads, seq, D) ("bhsd") tensor as the 5-D box
(64 columns, rows, D/64 panels, 1 head, 1 batch), innermost first: one
load writes the same 128B-swizzled panels as the rank-3 form of a
(rows, D) tile, but the sequence is its own dimension, so a box that runs
past a sequence's end is zero-filled there (not read from the next head
or batch). A packed (total, heads, D) tensor is the bshd form with one
batch: its sequences are row ranges of one long sequence.

    desc = sequence_tma_desc(Q, rows=128, seq_axis=1)     # Q: (B, S, H, D)
    ptx.cp.async_.bulk.tensor_5d(dst=tile, src=desc, coord=(0, row, 0, head, batch),
                                 mbar=full)

Key ranges (FlashAttention's conventions): query i of a sequence of Lq
rows sees key j of Lk keys when 0 <= j < Lk and
i + Lk - Lq - left <= j <= i + Lk - Lq + right (left/right = -1: that side
unbounded); causal is right = 0, aligned bottom-right when Lq != Lk.
"""
from __future__ import annotations

import math

from ..specs import MAX_BOX, TmaDescriptor

PANEL = 64     # bf16 columns of a 128-byte swizzle line


class SequenceTensorMap(TmaDescriptor):
    """A TmaDescriptor of a (batch, A1, A2, D) row-major tensor whose
    sequence axis is `seq_axis` (1: bshd, 2: bhsd) as the 5-D box
    (PANEL, rows, D/PANEL, 1, 1) innermost first."""

    __slots__ = ("seq_axis",)

    def __init__(self, tensor, dtype, rows, head_dim, seq_axis):
        super().__init__(tensor, None, dtype, (1, 1, head_dim // PANEL, rows, PANEL), "128B")
        self.seq_axis = seq_axis

    def geometry(self, shape):
        batch, a1, a2, d = (int(n) for n in shape)
        e = max(self.dtype.bits // 8, 1)
        seq, heads = (a1, a2) if self.seq_axis == 1 else (a2, a1)
        seq_stride, head_stride = (a2 * d, d) if self.seq_axis == 1 else (d, a2 * d)
        dims = [PANEL, seq, d // PANEL, heads, batch]
        strides = [seq_stride * e, PANEL * e, head_stride * e, a1 * a2 * d * e]
        return dims, strides, list(reversed(self.box))


def sequence_tma_desc(spec, *, rows: int, seq_axis: int):
    """The u64 register holding the descriptor of kernel tensor `spec`
    (a 4-D TensorSpec, D a multiple of 64, 2-byte elements) as a
    SequenceTensorMap with boxes of `rows` rows; a kernel parameter encoded
    at each launch like ``TensorSpec.tma_desc``'s (2 instructions the first
    time, then the same register)."""
    from .. import reg
    from .. import types as T
    from .._inst import emit, fail
    from .._trace import get_ctx

    shape = spec.shape
    if shape is None or len(shape) != 4 or seq_axis not in (1, 2):
        fail(f"sequence_tma_desc: {spec.name} must be a 4-D tensor (batch, seq, heads, D) "
             f"or (batch, heads, seq, D); got shape {shape}")
    head_dim = shape[3]
    if not isinstance(head_dim, int) or head_dim % PANEL or spec.dtype.bits != 16:
        fail(f"sequence_tma_desc: {spec.name} needs 2-byte elements and D a multiple of "
             f"{PANEL}; got {spec.dtype}, D={head_dim}")
    if not 1 <= rows <= MAX_BOX:
        fail(f"sequence_tma_desc: rows={rows} must be 1..{MAX_BOX}")
    ctx = get_ctx()
    key = ("sequence", spec.name, rows, seq_axis)
    found = ctx.tma_regs.get(key)
    if found is not None:
        return found
    d = SequenceTensorMap(spec.name, spec.dtype, rows, head_dim, seq_axis)
    d.param = f"{spec.name}_tmap{len(ctx.tma_descs)}"
    ctx.add_param(d.param, "b8", 64, 128)
    ctx.tma_descs.append(d)
    address = reg.scalar(T.u64)
    emit("mov.u64", address, d.param)
    generic = reg.scalar(T.u64)
    emit("cvta.param.u64", generic, address)
    ctx.tma_regs[key] = generic
    ctx.units.setdefault("tma_desc", {})[generic.id] = d
    return generic


def key_range(q_first: int, q_last: int, seq_q: int, seq_k: int, window=(-1, -1)):
    """[lo, hi): the keys that rows q_first..q_last (inclusive, < seq_q) of a
    sequence see, with window (left, right) as in the module docstring
    (causal: right = 0). Python mirror of what the kernels compute in
    registers; empty when hi <= lo."""
    left, right = window
    diag = seq_k - seq_q
    hi = seq_k if right < 0 else min(seq_k, q_last + diag + right + 1)
    lo = 0 if left < 0 else max(0, q_first + diag - left)
    return lo, hi


def visible(i: int, j: int, seq_q: int, seq_k: int, window=(-1, -1)) -> bool:
    """Whether query i sees key j (the module docstring's rule)."""
    left, right = window
    diag = seq_k - seq_q
    return 0 <= j < seq_k and (left < 0 or j >= i + diag - left) and \
        (right < 0 or j <= i + diag + right)


def smaller(a, b):
    """min of two ints or registers: computed here when both are ints, else
    one min instruction."""
    if isinstance(a, int) and isinstance(b, int):
        return min(a, b)
    return a.min(b) if not isinstance(a, int) else b.min(a)


def larger(a, b):
    """max of two ints or registers: computed here when both are ints, else
    one max instruction."""
    if isinstance(a, int) and isinstance(b, int):
        return max(a, b)
    return a.max(b) if not isinstance(a, int) else b.max(a)


def _signed(x):
    """An int stays an int; a register becomes s32 (a ``mov`` when it is u32)."""
    from .. import reg
    from ..types import s32
    return x if isinstance(x, int) or x.dtype == s32 else reg.from_(x, s32)


class SequenceWork:
    """One (Q block, batch, head) tile of a grid (q_blocks, batch*heads),
    the last Q blocks first: its registers (or ints where they are known at
    trace time), made by every thread.

    - b, h, hk: batch, query head, key/value head (h // group);
    - q_start, k_start, seq_q, seq_k: where the sequence's rows start in
      the tensor's sequence axis and how many there are (varlen: read from
      cu_seqlens, else 0 and the static lengths); m0: the block's first row
      within the sequence; diag = seq_k - seq_q;
    - n_lo, n_hi: the key blocks [n_lo, n_hi) the block's rows see
      (s32; ``n_blocks`` = n_hi - n_lo may be <= 0: no key);
    - q_row = q_start + m0, kv_row = k_start + n_lo * bn: the TMA rows of Q
      and of the first key block.

    With cu_seqlens (varlen: pointers to batch+1 int32 offsets), a CTA
    whose block starts past its sequence returns at once (``ret``).
    window: (left, right), right = 0 for causal (see key_range)."""

    def __init__(self, *, q_blocks, bm, bn, heads, group, seq_q, seq_k, window,
                 cu_seqlens=None):
        from .. import ptx, reg
        from ..types import u32, u64
        self.bm, self.bn, self.window = bm, bn, window
        bh = reg.from_(ptx.special.ctaid.y(), u32)
        cta = reg.from_(ptx.special.ctaid.x(), u32)
        self.b = bh // heads
        self.h = bh - self.b * heads
        self.hk = self.h // group if group > 1 else self.h
        self.bh = bh
        self.m0 = ((q_blocks - 1) - cta) * bm
        if cu_seqlens is None:
            self.q_start, self.k_start, self.seq_q, self.seq_k = 0, 0, seq_q, seq_k
            self.last_row = self.m0 + (bm - 1) if seq_q % bm == 0 else \
                (self.m0 + (bm - 1)).min(seq_q - 1)
        else:
            starts = []
            for p in cu_seqlens:
                at = p + reg.from_(self.b, u64) * 4
                start, end = reg.scalar(u32), reg.scalar(u32)
                ptx.inst.ld.global_.u32(start, ptx.addr(at))
                ptx.inst.ld.global_.u32(end, ptx.addr(at, 4))
                starts.append((start, end - start))
            (self.q_start, self.seq_q), (self.k_start, self.seq_k) = starts
            ptx.ret(pred=self.m0 >= self.seq_q)      # the block is past the sequence
            self.last_row = (self.m0 + (bm - 1)).min(self.seq_q - 1)
        left, right = window
        self.diag = _signed(self.seq_k) - _signed(self.seq_q) \
            if not (isinstance(self.seq_k, int) and isinstance(self.seq_q, int)) \
            else self.seq_k - self.seq_q
        m0, last = _signed(self.m0), _signed(self.last_row)
        hi = self.seq_k if right < 0 else smaller(_signed(self.seq_k),
                                               last + self.diag + (right + 1))
        lo = 0 if left < 0 else larger(m0 + self.diag - left, 0)
        shift = bn.bit_length() - 1
        self.n_hi = (hi + (bn - 1)) >> shift if not isinstance(hi, int) else -(-hi // bn)
        self.n_lo = lo >> shift if not isinstance(lo, int) else lo // bn
        self.n_blocks_signed = self.n_hi - self.n_lo
        self.n_blocks = self.n_blocks_signed if isinstance(self.n_blocks_signed, int) \
            else reg.from_(self.n_blocks_signed, u32)
        self.q_row = self.m0 + self.q_start if not isinstance(self.q_start, int) or \
            self.q_start else self.m0
        n_lo_rows = self.n_lo * bn if isinstance(self.n_lo, int) else \
            reg.from_(self.n_lo << shift, u32)
        self.kv_row = n_lo_rows + self.k_start if not isinstance(self.k_start, int) \
            or self.k_start else n_lo_rows


class SequenceMask:
    """The -inf mask of a consumer warpgroup's 64 x bn score fragment for one
    key block, where the block crosses a bound of its rows' key ranges:
    the window/causal edges and, with `tail`, the sequence's end. Made
    once per tile (limits per half row); apply(blk) per block: a uniform
    branch around the compares (two setp per bound: does the block cross
    an edge of the warpgroup's rows?), then per score a ``setp`` and a
    predicated ``mov`` of -inf per bound.

    frag: fragment_row_col's (row, col); row0: the warpgroup's first row in
    the sequence (register); column(i)/half(i): a fragment register's
    column offset (less col) and row half."""

    def __init__(self, work, frag, row0, *, tail, column, half, rows=64, regs=64):
        from .. import reg
        from ..types import s32
        left, right = work.window
        self.work, self.tail, self.column, self.half, self.regs = work, tail, column, \
            half, regs
        self.left, self.right = left, right
        row, col = frag
        # row index - column base + diag: the diagonal key of this thread's row
        base = reg.from_(row0 + row - col, s32) + work.diag
        self.base = [base, base + 8]
        self.tail_lim = _signed(work.seq_k) - 1 - reg.from_(col, s32) if tail else None
        # the block-level test: the warpgroup's rows' tightest edges
        first = _signed(row0) + work.diag
        last_row = smaller(_signed(row0) + (rows - 1), _signed(work.seq_q) - 1)
        self.min_hi = None
        if right >= 0:
            self.min_hi = first + right
            if tail:
                self.min_hi = smaller(self.min_hi, _signed(work.seq_k) - 1)
        elif tail:
            self.min_hi = _signed(work.seq_k) - 1
        self.max_lo = last_row + work.diag - left if left >= 0 else None
        self.blk = reg.from_(work.n_hi - 1, s32) if not isinstance(work.n_hi, int) \
            else reg.scalar(s32, init=work.n_hi - 1)

    def crosses(self, bn):
        """The predicate: the current block (blk) crosses a bound of the
        warpgroup's rows (two setp at most, and an or)."""
        self.start = self.blk * bn
        crosses = []
        if self.min_hi is not None:
            crosses.append(self.start > self.min_hi - (bn - 1))
        if self.max_lo is not None:
            crosses.append(self.start < self.max_lo)
        return crosses[0] if len(crosses) == 1 else crosses[0] | crosses[1]

    def mask(self, scores, regs=None):
        """-inf where a score's key is outside its row's range (the block of
        the last crosses()); regs: the first registers only (default all)."""
        from .. import ptx
        start = self.start
        regs = self.regs if regs is None else regs
        for h in range(2):
            hi = None
            if self.right >= 0:
                hi = self.base[h] + self.right - start
                if self.tail:
                    hi = hi.min(self.tail_lim - start)
            elif self.tail:
                hi = self.tail_lim - start
            lo = self.base[h] - self.left - start if self.left >= 0 else None
            for i in range(regs):
                if self.half(i) != h:
                    continue
                if hi is not None:
                    ptx.inst.mov.f32(scores[i], float("-inf"), pred=hi < self.column(i))
                if lo is not None:
                    ptx.inst.mov.f32(scores[i], float("-inf"), pred=lo > self.column(i))

    def step(self):
        """On to the next block (the one before)."""
        self.blk -= 1

    def apply(self, scores, bn, regs=None):
        """Masks `scores` (its first `regs` registers, default all) for the
        current block where it crosses a bound (a uniform branch), then
        steps to the next block."""
        from .. import ptx
        with ptx.if_(self.crosses(bn)):
            self.mask(scores, regs)
        self.step()


def reference(q, k, v, causal: bool = False, *, softmax_scale=None, window=(-1, -1)):
    """(O, LSE) in float64 NumPy for (batch, heads, seq, D) q and (batch,
    heads_kv, seq_k, D) k, v (any float arrays; heads_kv divides heads):
    O = softmax(Q K^T * scale) V, LSE = log sum_j exp(Q K^T * scale), scale
    1/sqrt(D) by default, keys outside the window (causal: right = 0,
    aligned bottom-right) masked; a row with no key: O = 0, LSE = +inf."""
    import numpy as np
    q64, k64, v64 = (np.asarray(x, dtype=np.float64) for x in (q, k, v))
    group = q64.shape[1] // k64.shape[1]
    k64, v64 = np.repeat(k64, group, axis=1), np.repeat(v64, group, axis=1)
    scale = 1 / math.sqrt(q64.shape[-1]) if softmax_scale is None else softmax_scale
    s = q64 @ np.swapaxes(k64, -1, -2) * scale
    left, right = window[0], 0 if causal else window[1]
    i = np.arange(s.shape[-2])[:, None] + (s.shape[-1] - s.shape[-2])
    j = np.arange(s.shape[-1])[None, :]
    seen = np.ones(s.shape[-2:], dtype=bool)
    if right >= 0:
        seen &= j <= i + right
    if left >= 0:
        seen &= j >= i - left
    s = np.where(seen, s, -np.inf)
    m = s.max(axis=-1, keepdims=True)
    empty = ~np.isfinite(m)
    m = np.where(empty, 0.0, m)
    e = np.exp(s - m)
    total = e.sum(axis=-1, keepdims=True)
    o = np.where(empty, 0.0, e / np.where(empty, 1.0, total)) @ v64
    with np.errstate(divide="ignore"):
        lse = np.where(empty, np.inf, m + np.log(total))
    return o, lse[..., 0]


def kernel_arguments(q, k, v, *, causal, softmax_scale, window, layout, cu_seqlens_q,
                     cu_seqlens_k, max_seqlen_q, max_seqlen_k, refuse, bm=128):
    """The keyword arguments of an attention kernel builder (batch, heads,
    seq, head_dim, causal, heads_kv, seq_k, softmax_scale, window, layout
    and, packed, varlen, total_q, total_k) for arrays of the shapes
    flash_attention takes; refuse(message) raises for shapes that do not
    fit together. Packed: seq is max_seqlen_q rounded up to bm rows (the
    grid; fewer rebuilds)."""
    cu_q, cu_k, max_q, max_k, _refuse = (cu_seqlens_q, cu_seqlens_k, max_seqlen_q,
                                         max_seqlen_k, refuse)
    if tuple(k.shape) != tuple(v.shape):
        _refuse(f"k and v must have one shape; got {tuple(k.shape)}, {tuple(v.shape)}")
    varlen = cu_q is not None or cu_k is not None
    rank = 3 if varlen else 4
    if len(q.shape) != rank or len(k.shape) != rank:
        want = "(total, heads, head_dim) with cu_seqlens" if varlen else \
            "(batch, heads, seq, head_dim)" if layout == "bhsd" else \
            "(batch, seq, heads, head_dim)"
        _refuse(f"q, k and v must be {want}; got {tuple(q.shape)}, {tuple(k.shape)}")
    extra = dict(softmax_scale=softmax_scale, window=tuple(window), layout=layout)
    if varlen:
        if cu_q is None or cu_k is None or max_q is None or max_k is None:
            _refuse("packed sequences need cu_seqlens_q, cu_seqlens_k, max_seqlen_q and "
                    "max_seqlen_k")
        if tuple(cu_q.shape) != tuple(cu_k.shape) or len(cu_q.shape) != 1 \
                or cu_q.shape[0] < 2:
            _refuse(f"cu_seqlens_q and cu_seqlens_k must both be (batch+1,); got "
                    f"{tuple(cu_q.shape)}, {tuple(cu_k.shape)}")
        (tq, h, d), (tk, hk, dk) = q.shape, k.shape
        batch = int(cu_q.shape[0]) - 1
        # the grid's Q blocks: max_seqlen_q rounded up to 128 rows (fewer rebuilds)
        seq = max(-(-int(max_q) // bm) * bm, bm)
        extra.update(varlen=True, total_q=int(tq), total_k=int(tk), layout="bhsd")
        seq_k = max(int(max_k), 1)
    else:
        if layout == "bshd":
            (batch, seq, h, d), (_, seq_k, hk, dk) = q.shape, k.shape
        else:
            (batch, h, seq, d), (_, hk, seq_k, dk) = q.shape, k.shape
        if int(k.shape[0]) != int(batch):
            _refuse(f"q and k must have one batch; got {tuple(q.shape)}, {tuple(k.shape)}")
    if int(dk) != int(d):
        _refuse(f"q and k must have one head_dim; got {int(d)} and {int(dk)}")
    return dict(batch=int(batch), heads=int(h), seq=int(seq), head_dim=int(d),
                causal=bool(causal), heads_kv=int(hk), seq_k=int(seq_k), **extra)
