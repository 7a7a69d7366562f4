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
from ..types import b16, b32, e4m3, f32, u32, u64

WG_M = 64      # rows of a warpgroup's wgmma accumulator


def fragment_row_col(lane128):
    """(row, column) of a thread's first accumulator element in its
    warpgroup's 64 x N tile: row 16*warp + lane/4, column 2*(lane%4)."""
    lane = lane128 & 31
    row = ((lane128 >> 5) << 4) + (lane >> 2)
    col = (lane & 3) << 1
    return row, col


def fragment_guards(frag, row0, col0, n, row_limit=None, col_limit=None, grow=None,
                    blocks=None):
    """The predicates of a 64 x n fragment's element pairs: guards[j][half]
    for the pair in 8-column group j, row + 8 * half (None: always in).
    row_limit / col_limit: the first row / column past the matrix (a
    register or an int; None: no limit). Columns come in pairs, so an even
    col_limit guards both. grow: row0 + the fragment row, if the caller has
    it. blocks: only these groups' predicates are emitted (others None)."""
    row, col = frag
    rows = [None, None]
    if row_limit is not None:
        grow = row0 + row if grow is None else grow
        rows = [grow < row_limit, (grow + 8) < row_limit]
    wanted = range(n // 8) if blocks is None else blocks
    guards = [None] * (n // 8)
    for j in wanted:
        if col_limit is None:
            guards[j] = rows
            continue
        inside = (col0 + col + 8 * j) < col_limit
        guards[j] = [inside if r is None else r & inside for r in rows]
    return guards


def store_direct(acc, out_dtype, pc, row0, col0, ldc, n, row_limit=None, frag=None,
                 col_limit=None):
    """Stores a 64 x n f32 fragment to global memory at (row0, col0) of a
    row-major matrix with ldc columns: st.global.v2.f32 (f32), cvt to
    bf16x2 + st.global.b32 (bf16) or cvt.satfinite to e4m3x2 +
    st.global.b16 (e4m3), two rows per 8-column group. With
    row_limit, rows >= row_limit are not written; with col_limit, columns
    >= col_limit (an even number). frag: fragment_row_col's registers."""
    row, col = frag
    grow = row0 + row
    esize = {f32: 4, e4m3: 1}.get(out_dtype, 2)
    row_start = grow * ldc
    known_zero = isinstance(col0, int) and col0 == 0   # no add of a known 0
    offset = reg.from_(row_start + (col if known_zero else col0 + col), u32)
    ptr = pc + reg.from_(offset, u64) * esize    # 64-bit: C may pass 4 GiB
    guards = fragment_guards(frag, row0, col0, n, row_limit, col_limit, grow)
    packed = None if out_dtype == f32 else reg.scalar(b16 if out_dtype == e4m3 else b32)
    for j in range(n // 8):
        for half in range(2):
            lo, hi = acc[4 * j + 2 * half], acc[4 * j + 2 * half + 1]
            where = ptx.addr(ptr, esize * (8 * half * ldc + 8 * j))
            if out_dtype == f32:
                ptx.inst.st.global_.v2.f32(where, [lo, hi], pred=guards[j][half])
            elif out_dtype == e4m3:
                # saturating (|x| > 448 -> 448), NaN stays NaN; a goes high
                ptx.inst.cvt.rn.satfinite.e4m3x2.f32(packed, hi, lo)
                ptx.inst.st.global_.b16(where, packed, pred=guards[j][half])
            else:
                # cvt.rn.bf16x2.f32 d, a, b puts a in the high half
                ptx.inst.cvt.rn.bf16x2.f32(packed, hi, lo)
                ptx.inst.st.global_.b32(where, packed, pred=guards[j][half])


ACTIVATIONS = ("gelu", "silu")
GELU_K = 0.7978845608028654        # sqrt(2 / pi)
GELU_C = 0.044715


def swizzled_block_rows(tile_base, lane128, rows_before=0):
    """The ``stmatrix`` / ``ldmatrix`` ``.x4`` row address of this thread for
    each of the 4 16-column blocks of a 64-column stripe, in a tile of
    128-byte rows with the 128B swizzle (16-byte chunk ^= row % 8) whose
    first row (of the warpgroup's 64) is rows_before (an int or a register,
    a multiple of 8) rows past tile_base (0: the offsets within the tile). Lanes 8i..8i+7 give matrix i's rows, the matrices
    (rows 0-7 | 8-15) x (cols 0-7 | 8-15) of a 16 x 16 block: register i
    of the pair then holds the accumulator elements of matrix i (see
    TmaStoreEpilogue.store)."""
    lane = lane128 & 31
    r8 = lane & 7
    row = ((lane128 >> 5) << 4) + r8 + (((lane >> 3) & 1) << 3)
    if not (isinstance(rows_before, int) and rows_before == 0):
        row = row + rows_before
    hi = lane >> 4                       # second 8 columns
    row_base = row * 128 if isinstance(tile_base, int) and tile_base == 0 \
        else tile_base + row * 128
    addrs = []
    for q in range(4):                   # the 16-column block's place in a stripe
        chunk = hi + 2 * q if q else hi
        addrs.append(row_base + ((chunk ^ r8) << 4))
    return addrs


class FusedEpilogue:
    """``act(acc + bias) + residual`` on a warpgroup's 64 x n f32 wgmma
    fragment, in registers, before any store (each part is emitted only
    when the kernel is built with it). bias: a pointer to N bf16 (one per
    column); activation: None, "gelu" (the tanh form) or "silu"; residual:
    a pointer to an M x N bf16 matrix with ldr columns. row_limit /
    col_limit (registers or ints, None: none) guard the loads of partial
    tiles. bf16 pairs are loaded as one b32 and widened by shifts (a bf16
    is the high half of an f32); the activations use ``tanh.approx.f32``
    on h = x / 2 (GELU: h + h tanh(h (2k + 8k 0.044715 h^2)), k = sqrt(2 /
    pi); SiLU: x sigmoid(x) = h + h tanh(h)). With a bias, h is one fma
    of the accumulator and the halved bias (two muls a pair of columns,
    for four accumulators), in place of an add and a mul each.

    Without an activation the sum is linear: preload(acc, ...) writes bias +
    residual into the accumulator before the main loop (whose first wgmma
    then accumulates onto it, scale-d 1), and apply() has nothing left to
    do. That moves the loads off the tile's tail, where nothing hides them
    in a single wave, to its start, where they overlap the ring filling
    (cooperative) or the other warpgroup's main loop (ping-pong)."""

    def __init__(self, *, bias=None, activation=None, residual=None, ldr=0,
                 row_limit=None, col_limit=None):
        if activation not in (None,) + ACTIVATIONS:
            raise ValueError(f"epilogue activation must be one of None, "
                             f"{', '.join(ACTIVATIONS)}; not {activation!r}")
        self.bias, self.activation, self.residual, self.ldr = bias, activation, residual, ldr
        self.row_limit, self.col_limit = row_limit, col_limit
        self.word = reg.scalar(b32) if bias is not None or residual is not None else None
        self.lo, self.hi = ((reg.scalar(f32), reg.scalar(f32)) if self.word is not None
                            else (None, None))
        self.t = reg.scalar(f32) if activation else None
        self.preload_emitted = False        # (trace time) preload() has run

    def __bool__(self):
        return self.bias is not None or self.residual is not None or bool(self.activation)

    @property
    def preloads(self) -> bool:
        """Whether preload() takes the whole epilogue (no activation)."""
        return not self.activation and (self.bias is not None or self.residual is not None)

    def _load_pair(self, where, guard, half=False):
        """The bf16 pair at `where` into self.lo / self.hi (0 when guarded
        off); half: each halved (exact)."""
        if guard is not None:
            ptx.inst.mov.b32(self.word, 0)
        ptx.inst.ld.global_.b32(self.word, where, pred=guard)
        ptx.inst.shl.b32(self.lo, self.word, 16)
        ptx.inst.and_.b32(self.hi, self.word, -65536)        # 0xffff0000
        if half:
            ptx.inst.mul.f32(self.lo, self.lo, 0.5)
            ptx.inst.mul.f32(self.hi, self.hi, 0.5)

    def _add_pair(self, acc, i):
        ptx.inst.add.f32(acc[i], acc[i], self.lo)
        ptx.inst.add.f32(acc[i + 1], acc[i + 1], self.hi)

    def _activate_half(self, h):
        """h = x / 2 -> act(x), in place."""
        t = self.t
        if self.activation == "gelu":                        # tanh(k (x + c x^3))
            ptx.inst.mul.f32(t, h, h)
            ptx.inst.fma.rn.f32(t, t, 8 * GELU_K * GELU_C, 2 * GELU_K)
            ptx.inst.mul.f32(t, t, h)
            ptx.inst.tanh.approx.f32(t, t)
        else:
            ptx.inst.tanh.approx.f32(t, h)                   # silu: tanh(x / 2)
        ptx.inst.fma.rn.f32(h, h, t, h)                      # x/2 (1 + tanh)

    def _set_pair(self, acc, i):
        ptx.inst.mov.f32(acc[i], self.lo)
        ptx.inst.mov.f32(acc[i + 1], self.hi)

    def _half_sum_pair(self, acc, i):
        """acc = (acc + bias) / 2, the pair already halved."""
        ptx.inst.fma.rn.f32(acc[i], acc[i], 0.5, self.lo)
        ptx.inst.fma.rn.f32(acc[i + 1], acc[i + 1], 0.5, self.hi)

    def _add_bias(self, acc, blocks, col0, col, combine, half=False):
        pbias = self.bias + reg.from_(reg.from_(col0 + col, u32), u64) * 2
        for j in blocks:
            self._load_pair(ptx.addr(pbias, 16 * j), self._col_guard(col0, col, j), half)
            combine(acc, 4 * j)
            combine(acc, 4 * j + 2)

    def _add_residual(self, acc, blocks, row0, col0, frag, combine, n):
        row, col = frag
        guards = fragment_guards(frag, row0, col0, n, self.row_limit, self.col_limit,
                                 blocks=blocks)
        offset = reg.from_((row0 + row) * self.ldr + (col0 + col), u32)
        pres = self.residual + reg.from_(offset, u64) * 2
        for j in blocks:
            for half in range(2):
                self._load_pair(ptx.addr(pres, 2 * (8 * half * self.ldr + 8 * j)),
                                guards[j][half])
                combine(acc, 4 * j + 2 * half)

    def preload(self, acc, n, row0, col0, frag):
        """acc = bias + residual for the fragment (only when self.preloads):
        the main loop's first wgmma must then accumulate (scale-d 1). Rows
        and columns past the limits start at 0."""
        assert self.preloads
        self.preload_emitted = True
        row, col = frag
        blocks = range(n // 8)
        if self.bias is not None:
            self._add_bias(acc, blocks, col0, col, self._set_pair)
        if self.residual is not None:
            combine = self._add_pair if self.bias is not None else self._set_pair
            self._add_residual(acc, blocks, row0, col0, frag, combine, n)

    def apply(self, acc, n, row0, col0, frag, cols=None):
        """The fragment of columns col0.. (n of them) and rows row0..
        (nothing when preload() has done it). cols=(c0, c1): only the
        tile's columns c0..c1 - 1 (multiples of 8), so that a chunked store
        can interleave them with its chunks."""
        if self.preload_emitted:
            return
        row, col = frag
        c0, c1 = cols or (0, n)
        blocks = range(c0 // 8, c1 // 8)
        if self.activation:
            if self.bias is not None:
                self._add_bias(acc, blocks, col0, col, self._half_sum_pair, half=True)
            for i in range(c0 // 2, c1 // 2):
                if self.bias is None:
                    ptx.inst.mul.f32(acc[i], acc[i], 0.5)
                self._activate_half(acc[i])
        elif self.bias is not None:
            self._add_bias(acc, blocks, col0, col, self._add_pair)
        if self.residual is not None:
            self._add_residual(acc, blocks, row0, col0, frag, self._add_pair, n)

    def _col_guard(self, col0, col, j):
        if self.col_limit is None:
            return None
        return (col0 + col + 8 * j) < self.col_limit


class SmemResidual:
    """A residual tile that TMA loads into shared memory while the main loop
    runs and the epilogue adds from there (instead of per-thread global
    loads). `tile`: a (bn / 64, BM, 64) bf16 allocation with 128B swizzle
    (the box of a rank-3 descriptor (64, BM, bn / 64) of R); `ring`: a
    one-stage Ring whose empty barrier takes one arrival per consumer warp.

    The producer thread calls start_producer(producer) before its loop and
    passes load_hooks(tile) to TmaProducer.load_tile: the tile is loaded
    once a lap of its k tiles is issued (the acquire waits for the previous
    tile's epilogue to free the buffer, when the ring is full anyway);
    each consumer thread calls start_consumer(consumer, lane128) before its
    loop and add(consumer, acc, n) in the epilogue: wait for the tile, per
    16-column block one ``ldmatrix.x4`` (the accumulator's fragment layout,
    as TmaStoreEpilogue's stmatrix), widen and add; then each warp frees
    the buffer (lane 0 arrives). RingResidual has the same interface."""

    def __init__(self, tile, ring, r_desc, *, rows: int, cols: int):
        self.tile, self.ring, self.r_desc = tile, ring, r_desc
        self.rows, self.cols = rows, cols

    def start_producer(self, producer):
        self.producer = self.ring.producer()

    def load_hooks(self, tile):
        """TmaProducer.load_tile's hooks for `tile` (a GemmTile)."""
        return {"after_first_lap": lambda: self.load(tile.a_row, tile.c_col)}

    def load(self, row, col):
        _, full = self.producer.acquire()
        full.arrive_expect_tx(self.rows * self.cols * 2)
        ptx.cp.async_.bulk.tensor_3d(dst=self.tile, src=self.r_desc, coord=(0, row, col >> 6),
                                     mbar=full)

    def start_consumer(self, consumer, lane128):
        self.consumer_end = self.ring.consumer()
        self.addrs = swizzled_block_rows(reg.from_(self.tile, u32), lane128,
                                         rows_before=consumer * WG_M)
        self.words = [reg.scalar(b32) for _ in range(4)]
        self.lo, self.hi = reg.scalar(f32), reg.scalar(f32)
        self.warp_leader = (lane128 & 31) == 0

    def add(self, consumer, acc, n):
        stage = self.consumer_end.wait()
        add_swizzled_stripes(acc, n, self.words, self.lo, self.hi,
                             lambda stripe, q: ptx.addr(self.addrs[q],
                                                        stripe * self.rows * 128))
        self.consumer_end.release(stage, pred=self.warp_leader)


def add_swizzled_stripes(acc, n, words, lo, hi, address):
    """acc += the bf16 tile whose 64-column stripes (128B-swizzled, the
    fragment's rows) are in shared memory: per 16-column block one
    ``ldmatrix.x4`` from address(stripe, q) (q: the block in its stripe; the
    accumulator's fragment layout, as TmaStoreEpilogue's stmatrix), then
    each word widened (shl, and) and added. words: 4 b32, lo/hi: 2 f32."""
    for jj in range(n // 16):
        stripe, q = divmod(jj, 4)
        ptx.ldmatrix(dst=words, src=address(stripe, q), layout="x4")
        for m, word in enumerate(words):            # acc[8jj + 2m], +1: word's low, high
            ptx.inst.shl.b32(lo, word, 16)
            ptx.inst.and_.b32(hi, word, -65536)
            ptx.inst.add.f32(acc[8 * jj + 2 * m], acc[8 * jj + 2 * m], lo)
            ptx.inst.add.f32(acc[8 * jj + 2 * m + 1], acc[8 * jj + 2 * m + 1], hi)


class RingResidual:
    """A residual tile carried by the main ring, with no shared memory of
    its own: after a tile's last k tile the producer thread loads its
    bn / 64 stripes (64 columns x `rows`, one 128B-swizzled TMA box each,
    r_desc a rank-2 descriptor with that box) into the ring's next stages
    -- a stage's A buffer takes one stripe, its B buffer bn / 128 (bn 256:
    two stages) -- so that they land while the consumers finish the last k
    tiles. After the main loop each consumer warpgroup waits for those
    stages, adds the stripes (add_swizzled_stripes), meets at its named
    barrier (every warp has read them) and frees them as it frees a k
    tile. The ring's stages then count k_tiles + len(slots) per tile on
    both sides. sA, sB: the ring's A and B buffers ((stages, ...) shared
    allocations), a_bytes / b_bytes a stage's bytes of each.

    Measured on an H100 (1024 x 4096 x 4096 + bias + residual, one wave):
    50.6 us against 54.6 preloaded into the accumulator and 53.1 from a
    shared-memory tile of its own (SmemResidual, which costs the ring a
    stage); an L2 prefetch of the tile (at the tile's start, or 4-32 k
    tiles before its end) made it slower, not faster."""

    STRIPE_COLS = 64

    def __init__(self, r_desc, sA, sB, *, a_bytes: int, b_bytes: int, rows: int, bn: int):
        self.r_desc, self.sA, self.sB = r_desc, sA, sB
        self.a_bytes, self.b_bytes, self.rows = a_bytes, b_bytes, rows
        self.stripe_bytes = rows * self.STRIPE_COLS * 2
        self.slots = self.stripe_slots(bn, a_bytes, b_bytes, self.stripe_bytes)

    @staticmethod
    def stripe_slots(bn, a_bytes, b_bytes, stripe_bytes):
        """Per ring stage used, its stripes' places: ("A" | "B", byte offset)."""
        places = [("A", 0)] + [("B", o) for o in range(0, b_bytes - stripe_bytes + 1,
                                                         stripe_bytes)]
        assert a_bytes == stripe_bytes and bn % 64 == 0
        stripes = bn // 64
        slots = []
        while stripes > 0:
            slots.append(places[:stripes])
            stripes -= len(slots[-1])
        return slots

    def _stripe_address(self, which, stage, offset, sA, sB):
        base = sA + stage * self.a_bytes if which == "A" else sB + stage * self.b_bytes
        return base + offset if offset else base

    def start_producer(self, producer):
        """Once, in the producer thread: the TmaProducer whose ring it shares."""
        self.producer_ring = producer.ring

    def load_hooks(self, tile):
        """TmaProducer.load_tile's hooks for `tile` (a GemmTile)."""
        return {"after_k_loop": lambda: self.load(tile.a_row, tile.c_col)}

    def load(self, row, col):
        """The producer thread's loads of the tile at (row, col) of R."""
        sA, sB = reg.from_(self.sA, u32), reg.from_(self.sB, u32)
        stripe = 0
        for places in self.slots:
            stage, full = self.producer_ring.acquire()
            full.arrive_expect_tx(len(places) * self.stripe_bytes)
            for which, offset in places:
                ptx.cp.async_.bulk.tensor_2d(
                    dst=self._stripe_address(which, stage, offset, sA, sB), src=self.r_desc,
                    coord=(col + self.STRIPE_COLS * stripe if stripe else col, row), mbar=full)
                stripe += 1

    def start_consumer(self, consumer, lane128):
        """Once per consumer thread, before its loop: its ldmatrix row
        offsets within a stripe, the registers of add()."""
        self.offsets = swizzled_block_rows(0, lane128, rows_before=consumer * WG_M)
        self.bar_id = consumer + 1                  # the warpgroup's named barrier
        self.words = [reg.scalar(b32) for _ in range(4)]
        self.lo, self.hi = reg.scalar(f32), reg.scalar(f32)

    def add(self, consumer, acc, n):
        """After consumer's main loop (a WgmmaConsumer): acc += the tile."""
        stages = [consumer.ring.wait() for _ in self.slots]
        sA, sB = reg.from_(self.sA, u32), reg.from_(self.sB, u32)
        bases = [self._stripe_address(which, stage, offset, sA, sB)
                 for stage, places in zip(stages, self.slots) for which, offset in places]
        add_swizzled_stripes(acc, n, self.words, self.lo, self.hi,
                             lambda stripe, q: ptx.addr(bases[stripe] + self.offsets[q]))
        ptx.bar.sync(self.bar_id, 128)
        for stage in stages:
            consumer.release_stage(stage)


class Fp8Output:
    """The scaling half of an e4m3 output (store_direct with out_dtype e4m3
    writes the bytes): apply() folds the fragment's largest |x| into the
    global amax and divides the fragment by the output scale, so that
    C ~= e4m3 * scale (the input scales' convention). p_scale: one f32,
    read each tile (``rcp.rn``); p_amax: one f32 the caller zeroed, raised
    with ``red.global.max.u32`` on the bits (a non-negative f32's bits
    order as the value; NaN's are above inf's, so a NaN shows). Per 64 x n
    fragment: n / 2 ``abs`` + ``max.NaN`` (predicated on the row / column
    guards: rows past M hold act(bias), not outputs) + ``mul``, one
    ``redux.sync`` per warp and one ``red`` from its lane 0."""

    def __init__(self, p_scale, p_amax, lane128, *, row_limit=None, col_limit=None):
        self.p_scale, self.p_amax = p_scale, p_amax
        self.row_limit, self.col_limit = row_limit, col_limit
        self.leader = (lane128 & 31) == 0
        self.inv, self.peak, self.t = reg.scalar(f32), reg.scalar(f32), reg.scalar(f32)
        self.bits = reg.scalar(u32)

    def apply(self, acc, n, row0, col0, frag):
        ptx.inst.ld.global_.f32(self.inv, ptx.addr(self.p_scale))
        ptx.inst.rcp.rn.f32(self.inv, self.inv)
        ptx.inst.mov.f32(self.peak, 0.0)
        guards = fragment_guards(frag, row0, col0, n, self.row_limit, self.col_limit)
        for i in range(n // 2):                  # acc[4j + 2h + c]: group j, row half h
            ptx.inst.abs.f32(self.t, acc[i])
            ptx.inst.max.NaN.f32(self.peak, self.peak, self.t, pred=guards[i >> 2][(i >> 1) & 1])
            ptx.inst.mul.f32(acc[i], acc[i], self.inv)
        ptx.inst.mov.b32(self.bits, self.peak)
        ptx.inst.redux.sync.max.u32(self.bits, self.bits, 0xFFFFFFFF)
        ptx.inst.red.global_.max.u32(ptx.addr(self.p_amax), self.bits, pred=self.leader)


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
    last store completes before the CTA exits.

    stripes=True: c_desc is a rank-2 descriptor with a 64 x 64 box, and
    each 64-column stripe of a chunk is a store of its own at (column,
    row): for a C whose rows are not whole stripes (N % 64 != 0), where
    the store of the last stripe is clipped at C's bound by the TMA unit
    (a rank-3 box cannot end mid-stripe)."""

    def __init__(self, tile, c_desc, consumer, lane128, *, bn: int, chunk_cols: int,
                 stripes: bool = False):
        self.c_desc, self.bn, self.chunk_cols = c_desc, bn, chunk_cols
        self.stripes = stripes
        # named barriers 1, 2: one per warpgroup
        self.tma = TmaStore(lane128 == 0, consumer + 1, 128)
        tile_bytes = WG_M * chunk_cols * 2
        self.base = reg.from_(tile, u32) + consumer * tile_bytes
        self.slice = tile[consumer]
        self.addrs = swizzled_block_rows(self.base, lane128)
        self.pack = [reg.scalar(b32) for _ in range(4)]

    def store(self, acc, row0, col0, before_chunk=None):
        """The 64 x bn accumulator `acc` to rows row0.., columns col0.. of C.
        before_chunk(c0, c1): emitted before each chunk (the tile's columns
        c0..c1 - 1) waits for the previous chunk's store to have read the
        slice, so that work on the chunk's columns overlaps that read."""
        blocks = self.chunk_cols // 16           # 16-column blocks per chunk
        for chunk in range(self.bn // self.chunk_cols):
            if before_chunk is not None:
                before_chunk(chunk * self.chunk_cols, (chunk + 1) * self.chunk_cols)
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
                if not self.stripes:
                    ptx.cp.async_.bulk.tensor_3d.store(dst=self.c_desc, src=self.slice,
                                                       coord=(0, row0, col >> 6))
                    return
                for s in range(self.chunk_cols // 64):
                    src = self.slice if s == 0 else ptx.addr(self.base, s * WG_M * 128)
                    ptx.cp.async_.bulk.tensor_2d.store(
                        dst=self.c_desc, src=src, coord=(col if s == 0 else col + 64 * s, row0))
            self.tma.end(issue)

    def finish(self):
        self.tma.finish()
