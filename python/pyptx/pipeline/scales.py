"""Dequantisation scales of an FP8 GEMM, applied to a warpgroup's 64 x n f32
wgmma accumulator (C = (sa * A) (sb * B)^T for e4m3 A (M, K) and B (N, K)):

- :class:`TensorScales` -- one f32 for A and one for B (read from device
  memory, so a CUDA graph replays with new values), their product
  multiplied into the accumulator in the epilogue;
- :class:`RowScales` -- one f32 per row of A (M,) and per row of B (N,):
  in the epilogue, accumulator element (r, c) times sa[r] * sb[c];
- :class:`BlockScaledConsumer` -- DeepGEMM's fine-grained scales: A's
  per 1 x 128 block (M, ceil(K/128)) and B's per 128 x 128 block
  (ceil(N/128), ceil(K/128)). The scale changes along K, so it cannot
  wait for the epilogue: each 128-wide k tile's wgmmas write a partial
  accumulator from zero, and once they are done the consumer promotes it,
  ``acc += partial * (sa[row, k] * sb[n / 128, k])`` in f32 registers.
  (FP8 wgmma sums in a reduced-precision accumulator inside the tensor
  core; restarting it every 128 of K is what keeps DeepGEMM accurate.)

A thread's accumulator elements are rows row0 + r and row0 + r + 8 (r =
16 * warp + lane / 4) and columns col0 + 2 * (lane % 4) + 8 j (+1): the
layout fragment_row_col describes.
"""
from __future__ import annotations

from .. import ptx, reg
from ..types import f32, u32, u64
from .epilogue import WG_M
from .wgmma_gemm import WgmmaConsumer

BLOCK = 128                      # K (and B's N) extent of one block scale


def _load_f32(ptr):
    value = reg.scalar(f32)
    ptx.inst.ld.global_.f32(value, ptx.addr(ptr))
    return value


def _row_pointer(base, row, row_stride_bytes):
    """base + row * row_stride_bytes (a u64 register)."""
    return base + reg.from_(row, u64) * row_stride_bytes


def _clamped(row, last):
    """min(row, last): a row past the matrix reads the last row's scale (its
    outputs are not stored) instead of memory past the array."""
    if last is None:
        return row
    out = reg.scalar(u32)
    ptx.inst.min.u32(out, row, last)
    return out


class TensorScales:
    """Per-tensor scales: pointers to one f32 each for A and B. apply()
    loads both (2 ``ld.global.f32``, L1-resident after the first tile),
    multiplies them and the accumulator by the product (n / 2 ``mul``)."""

    def __init__(self, p_sa, p_sb):
        self.p_sa, self.p_sb = p_sa, p_sb

    def apply(self, acc, n, row0, col0, frag):
        s = _load_f32(self.p_sa)
        ptx.inst.mul.f32(s, s, _load_f32(self.p_sb))
        for i in range(n // 2):
            ptx.inst.mul.f32(acc[i], acc[i], s)


class RowScales:
    """Row-wise scales: sa, M f32 (one per row of A); sb, N f32 (one per row
    of B = column of C). apply() loads the thread's two sa (rows clamped to
    M - 1 when last_row is given) and its n / 4 sb pairs (one
    ``ld.global.v2.f32`` each, guarded by col_limit when given) and
    multiplies each element by sa[row] and sb[col] (n / 2 ``mul`` each)."""

    def __init__(self, p_sa, p_sb, *, last_row=None, col_limit=None):
        self.p_sa, self.p_sb = p_sa, p_sb
        self.last_row, self.col_limit = last_row, col_limit
        self.pair = [reg.scalar(f32), reg.scalar(f32)]

    def apply(self, acc, n, row0, col0, frag):
        row, col = frag
        grow = row0 + row
        r0 = _clamped(grow, self.last_row)
        r1 = _clamped(grow + 8, self.last_row)
        sa = [_load_f32(_row_pointer(self.p_sa, r, 4)) for r in (r0, r1)]
        cols = col if isinstance(col0, int) and col0 == 0 else col0 + col
        p_cols = _row_pointer(self.p_sb, cols, 4)
        for j in range(n // 8):
            guard = None
            if self.col_limit is not None:
                guard = (cols + 8 * j) < self.col_limit
                for x in self.pair:
                    ptx.inst.mov.f32(x, 0.0)
            ptx.inst.ld.global_.v2.f32(self.pair, ptx.addr(p_cols, 32 * j), pred=guard)
            for h in range(2):                   # acc[4j + 2h + c]: row h, column c
                for c in range(2):
                    i = 4 * j + 2 * h + c
                    ptx.inst.mul.f32(acc[i], acc[i], sa[h])
                    ptx.inst.mul.f32(acc[i], acc[i], self.pair[c])


class BlockScales:
    """Where a block-scaled kernel finds its scales: p_sa, A's (M, k_blocks)
    f32 row-major; p_sb, B's (ceil(N / 128), k_blocks); last_row: M - 1 when
    the last row tile passes M (rows past it read row M - 1's scales);
    last_block: ceil(N / 128) - 1 when a tile's columns can pass the last
    B block (columns past it read its scale; they are not stored)."""

    def __init__(self, p_sa, p_sb, k_blocks: int, *, last_row=None, last_block=None):
        self.p_sa, self.p_sb, self.k_blocks = p_sa, p_sb, k_blocks
        self.last_row, self.last_block = last_row, last_block


class BlockScaledConsumer(WgmmaConsumer):
    """A consumer warpgroup's k-loop with DeepGEMM's block scales (see the
    module doc): the wgmmas of each 128-wide k tile write a partial
    accumulator from zero; the thread loads its scales for that k block (sa
    of its two rows, sb of the tile's 128 columns: 3 ``ld.global.f32``,
    issued before the wgmma wait so their latency hides behind it), waits,
    frees the stage and promotes: ``fma acc = partial * s + acc`` (s = sa *
    sb of the element's row: 2 ``mul`` and n / 2 ``fma`` per k tile; acc
    starts at zero).

    chunk: k tiles per run of overlapped promotion. Within a run two
    partials take turns, so that k tile k's wgmmas run while tile k-1's
    partial is promoted (``wgmma.wait_group 1``); a run ends with nothing
    in flight (``wait_group 0``), so that the loop over runs has no wgmma
    in flight at its back edge (ptxas serialises every wgmma of a loop
    that carries one, warning C7514). chunk=1: one partial, every k tile
    waited for before its promotion (DeepGEMM's order). The tile must be
    128 columns wide at a multiple of 128 (one B block); a GemmTile's b_row
    is its first row of B, a_row its first of A.

    The tile is 128 columns wide (one B block), or 64 or 192 with chunk 1
    (the accumulator and one partial are what the registers hold): its
    columns are then 64-column segments, each inside one B block (tiles
    start at multiples of 64), each with its own B scale."""

    def __init__(self, cfg, tiles, barriers, consumer, lane128, *, scales: BlockScales,
                 chunk: int = 8):
        if not isinstance(chunk, int) or chunk < 1:
            raise ValueError(f"block-scaled wgmma: chunk must be a positive int, not {chunk!r}")
        widths = (BLOCK,) if chunk > 1 else (64, BLOCK, 192)
        if cfg.bk != BLOCK or cfg.bn not in widths:
            raise ValueError(f"block-scaled wgmma: k tiles must be {BLOCK} wide (one scale "
                             f"block) and tiles {' or '.join(map(str, widths))} columns with "
                             f"chunk {chunk}; got bk={cfg.bk} bn={cfg.bn}")
        super().__init__(cfg, tiles, barriers, consumer, lane128)
        self.scales, self.consumer, self.chunk = scales, consumer, chunk
        self.partials = [reg.wgmma_frag(m=WG_M, n=cfg.bn, dtype=f32)
                         for _ in range(2 if chunk > 1 else 1)]
        lane = lane128 & 31
        self.row = ((lane128 >> 5) << 4) + (lane >> 2)
        self.sa = [reg.scalar(f32), reg.scalar(f32)]
        # one B scale per block a tile can touch: a 128-column tile at a
        # multiple of 128 one, otherwise one per 64-column segment
        self.seg_cols = BLOCK if cfg.bn % BLOCK == 0 else 64
        self.sb = [reg.scalar(f32) for _ in range(cfg.bn // self.seg_cols)]
        self.s = [[reg.scalar(f32) for _ in self.sb] for _ in range(2)]

    def _pointers(self, tile):
        """The u64 addresses of the k-block-0 scales of the thread's rows and
        of the B block of each of the tile's segments."""
        sc = self.scales
        grow = tile.a_row + self.consumer * WG_M + self.row
        stride = 4 * sc.k_blocks
        pa = [_row_pointer(sc.p_sa, _clamped(r, sc.last_row), stride)
              for r in (grow, grow + 8)]
        cols = [tile.b_row] + [tile.b_row + self.seg_cols * i for i in range(1, len(self.sb))]
        pb = [_row_pointer(sc.p_sb, _clamped(c >> 7, sc.last_block), stride) for c in cols]
        return pa, pb

    def _issue(self, partial):
        """One k tile's wgmmas into `partial`, from zero; returns its stage."""
        self.mma_acc = partial
        return self._k_tile(first=True)

    def _load_scales(self, pa, pb):
        for x, p in zip(self.sa + self.sb, pa + pb):
            ptx.inst.ld.global_.f32(x, ptx.addr(p))
        for p in pa + pb:
            ptx.inst.add.u64(p, p, 4)                     # the next k block's scales

    def _promote(self, partial):
        for s_row, a in zip(self.s, self.sa):
            for s, b in zip(s_row, self.sb):
                ptx.inst.mul.f32(s, a, b)
        groups = self.seg_cols // 8                       # 8-column groups per segment
        for i in range(self.cfg.bn // 2):                 # acc[4j + 2h + c]: group j, row h
            s = self.s[(i >> 1) & 1][(i >> 2) // groups]
            ptx.inst.fma.rn.f32(self.acc[i], partial[i], s, self.acc[i])

    def _run(self, count, pa, pb):
        """`count` k tiles, each promoted while the next one's wgmmas run;
        nothing in flight before or after."""
        ptx.inst.mov.u32(self.prev, self._issue(self.partials[0]))
        for k in range(1, count):
            stage = self._issue(self.partials[k % 2])
            self._load_scales(pa, pb)                     # tile k-1's
            ptx.wgmma.wait_group(1)                       # tile k-1 is done
            self.release_stage(self.prev)
            ptx.inst.mov.u32(self.prev, stage)
            self._promote(self.partials[(k - 1) % 2])
        self._load_scales(pa, pb)
        ptx.wgmma.wait_group(0)
        self.release_stage(self.prev)
        self._promote(self.partials[(count - 1) % 2])

    def mainloop(self, tile=None):
        pa, pb = self._pointers(tile)
        for i in range(self.cfg.bn // 2):
            ptx.inst.mov.f32(self.acc[i], 0.0)
        runs, rest = divmod(self.cfg.k_tiles, self.chunk)
        if runs == 1:
            self._run(self.chunk, pa, pb)
        elif runs > 1:
            for _ in ptx.range_(0, runs):
                self._run(self.chunk, pa, pb)
        if rest:
            self._run(rest, pa, pb)
