"""Epilogues. TmaStore is the TMA-store half any epilogue can use
(registers -> shared tile, then ``fence.proxy.async`` -> one thread's TMA
store -> bulk wait before the tile is reused); the Blackwell epilogue of
tcgen05_gemm uses it. For a Hopper wgmma accumulator (a warpgroup's 64 x N
f32 fragment): TmaStoreEpilogue (bf16 via ``stmatrix`` into a swizzled
tile, then TmaStore) and store_direct (registers -> global memory,
optionally predicated on a row limit).
"""
from __future__ import annotations

from .. import ptx, reg
from ..types import b32, f32, u32, u64

WG_M = 64      # rows of a warpgroup's wgmma accumulator


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
    row_limit, rows >= row_limit are not written. frag: fragment_row_col's
    registers."""
    row, col = frag
    grow = row0 + row
    esize = 4 if out_dtype == f32 else 2
    row_start = grow * ldc
    known_zero = isinstance(col0, int) and col0 == 0   # no add of a known 0
    offset = reg.from_(row_start + (col if known_zero else col0 + col), u32)
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


class TmaStore:
    """The TMA-store half of an epilogue, for threads that write a shared
    tile and store it with one thread's TMA: begin() before writing the tile
    (the leader waits until the previous store has read it,
    ``cp.async.bulk.wait_group.read 0``; then the threads meet at named
    barrier `bar_id`), end(issue) after (``fence.proxy.async`` so the
    async proxy sees the writes, the barrier again, then the leader calls
    issue() -- the ``cp.async.bulk.tensor`` store -- and commits the bulk
    group), finish() before the CTA exits (the leader waits for every
    store)."""

    def __init__(self, leader, bar_id, threads: int):
        self.leader, self.bar_id, self.threads = leader, bar_id, threads

    def begin(self):
        with ptx.if_(self.leader):
            ptx.cp.async_.bulk.wait_group(0, read=True)
        ptx.bar.sync(self.bar_id, self.threads)

    def end(self, issue):
        ptx.fence.proxy_async_shared_cta()
        ptx.bar.sync(self.bar_id, self.threads)
        with ptx.if_(self.leader):
            issue()
            ptx.cp.async_.bulk.commit_group()

    def finish(self):
        with ptx.if_(self.leader):
            ptx.cp.async_.bulk.wait_group(0)


class TmaStoreEpilogue:
    """bf16 TMA-store epilogue of consumer warpgroup `consumer`, for a tile
    of `bn` columns in chunks of `chunk_cols`: stmatrix into its 64 x
    chunk_cols slice of `tile` (a (consumers, 64, chunk_cols) bf16 shared
    allocation with 128B swizzle: 64-column stripes, the layout of a rank-3
    TMA box (0, row, col / 64)), fence.proxy.async, then one thread issues
    the TMA store and commits the bulk group. Before a chunk overwrites the
    slice, that thread waits until the previous store has read it
    (``cp.async.bulk.wait_group.read 0``) and the warpgroup meets at its
    named barrier (consumer + 1, 128 threads): a TmaStore. finish(): the
    last store completes before the CTA exits."""

    def __init__(self, tile, c_desc, consumer, lane128, *, bn: int, chunk_cols: int):
        self.c_desc, self.bn, self.chunk_cols = c_desc, bn, chunk_cols
        # named barriers 1, 2: one per warpgroup
        self.tma = TmaStore(lane128 == 0, consumer + 1, 128)
        tile_bytes = WG_M * chunk_cols * 2
        self.base = reg.from_(tile, u32) + consumer * tile_bytes
        self.slice = tile[consumer]
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
        """The 64 x bn accumulator `acc` to rows row0.., columns col0.. of C."""
        blocks = self.chunk_cols // 16           # 16-column blocks per chunk
        for chunk in range(self.bn // self.chunk_cols):
            self.tma.begin()
            for b in range(blocks):
                jj = chunk * blocks + b
                for m in range(4):
                    ptx.inst.cvt.rn.bf16x2.f32(self.pack[m], acc[8 * jj + 2 * m + 1],
                                               acc[8 * jj + 2 * m])
                stripe = b // 4
                ptx.stmatrix(smem=ptx.addr(self.addrs[b % 4], stripe * WG_M * 128),
                             regs=self.pack, layout="x4")

            def issue(chunk=chunk):
                col = col0 if chunk == 0 else col0 + chunk * self.chunk_cols
                ptx.cp.async_.bulk.tensor_3d.store(dst=self.c_desc, src=self.slice,
                                                   coord=(0, row0, col >> 6))
            self.tma.end(issue)

    def finish(self):
        self.tma.finish()
