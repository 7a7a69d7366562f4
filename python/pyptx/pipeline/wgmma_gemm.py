"""The main loop of a warp-specialised Hopper (sm_90a) bf16 GEMM, built on
the ring, roles and epilogues of this package: a producer thread loads
128 x 64 A tiles and bn x 64 B tiles by TMA (128B swizzle; B K-major or
MN-major; with a 2-CTA cluster along M each CTA loads half of the B tile
and multicasts it), two consumer warpgroups run ``wgmma m64n{bn}k16`` on
their 64-row halves, keep one wgmma group in flight and free each stage as
soon as the wgmmas that read it are done (in every CTA of the cluster).

``run_roles`` is the whole warp-specialised body given a schedule
(``schedule(body)`` calls body(GemmTile) per tile) and a store callback;
examples/hopper/gemm.py and grouped_gemm.py are built on it. With
``Config.pingpong`` the consumers instead own alternate whole tiles and
take turns (PingPongConsumer, run_pingpong_consumers).
"""
from __future__ import annotations

from dataclasses import dataclass

from .. import ptx, reg, smem
from ..types import bf16, f32, u32
from .epilogue import WG_M, TmaStoreEpilogue, fragment_row_col
from .ring import Ring, init_rings
from .roles import PingPong, consumer_role, prefetch_descriptors, producer_role

BM, BN, BK = 128, 256, 64          # CTA tile; each consumer warpgroup owns 64 rows
THREADS = 384                      # producer warpgroup + two consumer warpgroups
CONSUMERS = 2


@dataclass
class Config:
    """The shape of one persistent warp-specialised GEMM kernel."""
    bn: int = BN                   # CTA tile columns (= the wgmma N)
    stages: int = 4
    cluster: int = 1               # CTAs along M sharing (multicasting) B
    b_major: str = "K"             # "K": B is (N, K); "MN": B is (K, N)
    out_dtype: object = bf16
    epilogue: str = "direct"       # "direct" (registers -> global) or "tma"
    k_tiles: int = 1               # K // BK
    epi_cols: int = BN             # columns per TMA-store chunk of the epilogue
    a_rows: int = BM               # rows of an A box (fewer when M < BM)
    b_cols: int = 0                # B columns (N) loaded per stage, all CTAs (0: bn)
    ab_dtype: object = bf16        # A and B elements: bf16, or e4m3 (K-major B only)
    pingpong: bool = False         # each consumer owns whole tiles (PingPongConsumer)
    residual_smem: bool = False    # a BM x bn bf16 residual tile in shared memory (SmemResidual)

    @property
    def bk(self):
        """K elements of a k tile: one 128-byte swizzled row (64 bf16, 128 fp8)."""
        return 128 // (self.ab_dtype.bits // 8)

    @property
    def mma_k(self):
        """K of one wgmma (32 bytes of a K-major row): 16 for bf16, 32 for fp8."""
        return 32 // (self.ab_dtype.bits // 8)

    @property
    def a_bytes(self):
        return BM * BK * 2

    @property
    def b_bytes(self):
        return self.bn * BK * 2

    @property
    def stage_tx(self):
        """Bytes of one CTA's stage (A + the whole B tile)."""
        return self.a_bytes + self.b_bytes

    @property
    def load_tx(self):
        """Bytes the loads of one stage bring (less than stage_tx when a box
        is cut to a matrix smaller than the tile: M < BM, or N < bn with a
        K-major B; a box past the edge is zero-filled and counts whole)."""
        return self.a_rows * BK * 2 + (self.b_cols or self.bn) * BK * 2

    @property
    def b_part(self):
        """B columns (N) each CTA of the cluster loads and multicasts."""
        return self.bn // self.cluster


def smem_bytes(cfg: Config) -> int:
    """Dynamic shared memory the kernel asks for (tiles, epilogue, barriers)."""
    total = cfg.stages * cfg.stage_tx + 2 * 8 * cfg.stages
    if cfg.epilogue == "tma":
        total += CONSUMERS * WG_M * cfg.epi_cols * 2
    if cfg.residual_smem:
        total += BM * cfg.bn * 2 + 2 * 8
    return total + 1024


class GemmTiles:
    """The A and B stages, the epilogue tile (TMA epilogue) and the ring's
    barriers, allocated in the trace."""

    def __init__(self, cfg: Config):
        self.cfg = cfg
        self.sA = smem.wgmma_tile(cfg.ab_dtype, (cfg.stages, BM, cfg.bk), major="K")
        if cfg.b_major == "K":
            self.sB = smem.wgmma_tile(cfg.ab_dtype, (cfg.stages, cfg.bn, cfg.bk), major="K")
        else:
            self.sB = smem.wgmma_tile(bf16, (cfg.stages, BK, cfg.bn), major="MN")
        self.sC = None
        if cfg.epilogue == "tma":
            self.sC = smem.alloc(bf16, (CONSUMERS, WG_M, cfg.epi_cols), swizzle="128B",
                                 align=1024)
        # one empty arrival per consumer warpgroup of every CTA that reads the
        # stage (ping-pong: one warpgroup reads it)
        readers = 1 if cfg.pingpong else CONSUMERS
        self.ring = Ring(cfg.stages, empty_arrivals=readers * cfg.cluster)
        self.sR = self.r_ring = None
        if cfg.residual_smem:
            # the stripes of a rank-3 box (64, BM, bn / 64); freed by each
            # consumer warp once it has read its rows
            self.sR = smem.alloc(bf16, (cfg.bn // 64, BM, 64), swizzle="128B", align=1024)
            self.r_ring = Ring(1, empty_arrivals=CONSUMERS * 4)

    def init(self, leader):
        """Thread `leader` initialises the barriers; then every thread of the
        CTA (and of the cluster) synchronises."""
        rings = [self.ring] + ([self.r_ring] if self.r_ring is not None else [])
        init_rings(leader, rings, cluster=self.cfg.cluster > 1)


class GemmTile:
    """One output tile of a schedule (registers or ints): A row; B row (an N
    index of a K-major B); B column and k_row (the K row added to each k
    tile's row) of an MN-major B; C row and column; row_limit: rows at or
    past it are not stored (None: all); full: a predicate, true when no row
    of the tile is past row_limit. k0: the first K element of the tile's K
    range (split-K), added to the K coordinate of A and B."""

    def __init__(self, a_row, b_row=0, b_col=0, c_row=None, c_col=0, row_limit=None,
                 full=None, k_row=0, k0=0):
        self.a_row, self.b_row, self.b_col, self.k_row = a_row, b_row, b_col, k_row
        self.k0 = k0
        self.c_row = a_row if c_row is None else c_row
        self.c_col, self.row_limit, self.full = c_col, row_limit, full


def _b_coord(cfg, b_desc_rank, k_elem, b_row, b_col):
    """TMA coordinates (innermost first) of a B box: K-major B (N, K) at row
    b_row (an N index); MN-major B (K, N) at row k (+ b_row) and column b_col."""
    if cfg.b_major == "K":
        return (k_elem, b_row)
    if b_desc_rank == 3:
        return (0, k_elem, b_col >> 6)
    return (b_col, k_elem)


class TmaProducer:
    """One thread's TMA loads into the ring (call from a single thread).
    b_box_cols: the columns of one B load of an MN-major B (64 with a rank-2
    descriptor, the CTA's whole part with a rank-3 one); a CTA's part of
    the B tile is cfg.b_part // b_box_cols loads."""

    def __init__(self, cfg, tiles, barriers, a_desc, b_desc, b_rank, cta_rank=None,
                 b_box_cols=None):
        self.cfg, self.tiles = cfg, tiles
        self.a_desc, self.b_desc, self.b_rank = a_desc, b_desc, b_rank
        self.b_box_cols = b_box_cols or cfg.b_part
        self.ring = tiles.ring.producer(barriers)
        self.sB_base = reg.from_(tiles.sB, u32)
        self.b_offset, self.b_shift = 0, 0
        if cfg.cluster > 1:
            # this CTA's part of the B tile: rows (K-major) or 64-column
            # stripes (MN-major) cfg.b_part * rank on
            self.b_offset = cta_rank * (cfg.b_part * BK * 2)
            self.b_shift = cta_rank * cfg.b_part

    def load_tile(self, t: GemmTile, after_first_lap=None, after_k_loop=None):
        """Loads the K tiles of one output tile. after_first_lap(): emitted
        once the first `stages` k tiles (or all, if fewer) are issued;
        after_k_loop(): once all are."""
        cfg = self.cfg
        a_row, b_row, b_col, k_row = t.a_row, t.b_row, t.b_col, t.k_row
        load = getattr(ptx.cp.async_.bulk, f"tensor_{self.b_rank}d")
        multicast = {} if cfg.cluster == 1 else {"multicast_mask": (1 << cfg.cluster) - 1}
        if cfg.b_major == "K":
            b_row = b_row + self.b_shift if cfg.cluster > 1 else b_row
        elif cfg.cluster > 1:
            b_col = b_col + self.b_shift
        for k in ptx.range_(0, cfg.k_tiles):
            stage, full = self.ring.acquire()
            full.arrive_expect_tx(cfg.load_tx)
            k_elem = k * cfg.bk if isinstance(t.k0, int) and t.k0 == 0 else k * cfg.bk + t.k0
            ptx.cp.async_.bulk.tensor_2d(dst=self.tiles.sA[stage], src=self.a_desc,
                                         coord=(k_elem, a_row), mbar=full)
            kb = k_elem if isinstance(k_row, int) and k_row == 0 else k_elem + k_row
            if cfg.cluster == 1 and self.b_box_cols == cfg.b_part:
                dst = self.tiles.sB[stage]
            else:
                dst = self.sB_base + stage * cfg.b_bytes
                if cfg.cluster > 1:
                    dst = dst + self.b_offset
            for i in range(cfg.b_part // self.b_box_cols):
                col = b_col if i == 0 else b_col + i * self.b_box_cols
                where = dst if i == 0 else ptx.addr(dst, i * BK * self.b_box_cols * 2)
                load(dst=where, src=self.b_desc, coord=_b_coord(cfg, self.b_rank, kb, b_row, col),
                     mbar=full, **multicast)
            if after_first_lap is not None and cfg.k_tiles > cfg.stages:
                with ptx.if_(k == cfg.stages - 1):
                    after_first_lap()
        if after_first_lap is not None and cfg.k_tiles <= cfg.stages:
            after_first_lap()
        if after_k_loop is not None:
            after_k_loop()


def wgmma_descriptor(address, layout):
    """``ptx.wgmma.make_descriptor`` of a shared tile at `address` with the
    tile's gmma_layout."""
    return ptx.wgmma.make_descriptor(
        address, leading_byte_offset=layout.leading_byte_offset,
        stride_byte_offset=layout.stride_byte_offset, swizzle=layout.swizzle_code)


class WgmmaConsumer:
    """A consumer warpgroup's k-loop: wgmma on its 64 rows of the tile."""

    def __init__(self, cfg, tiles, barriers, consumer, lane128):
        self.cfg, self.tiles = cfg, tiles
        self.lane128 = lane128
        self.ring = tiles.ring.consumer(barriers)
        self.prev = reg.scalar(u32, init=0)
        self.acc = reg.wgmma_frag(m=WG_M, n=cfg.bn, dtype=f32)
        self.mma_acc = self.acc          # what the wgmmas write (a subclass may split them)
        self.a_base = self._a_base(tiles, consumer)
        # (in a cluster these addresses carry the CTA's rank above bit 23;
        # make_descriptor keeps only the 14-bit start-address field of them)
        self.b_base = reg.from_(tiles.sB, u32)
        self.a_layout = tiles.sA.gmma_layout
        self.b_layout = tiles.sB.gmma_layout
        # one k16 step: 32 bytes along a K-major line, 16 lines of an MN-major tile
        self.b_step = 32 if cfg.b_major == "K" else 16 * self.b_layout.line_bytes
        self.signal = lane128 < cfg.cluster      # threads that free a stage
        # True: the accumulator holds a start value (run_roles' preload), so
        # the first wgmma of a tile accumulates onto it instead of zeroing
        self.preloaded = False

    @staticmethod
    def _a_base(tiles, consumer):
        # this warpgroup's 64 rows of each A stage start 64 * 128 bytes in
        return reg.from_(tiles.sA, u32) + consumer * (WG_M * BK * 2)

    def _stage_operands(self):
        """Waits for the next full stage; its A and B descriptors, fenced."""
        cfg = self.cfg
        stage = self.ring.wait()
        a = wgmma_descriptor(self.a_base + stage * cfg.a_bytes, self.a_layout)
        b = wgmma_descriptor(self.b_base + stage * cfg.b_bytes, self.b_layout)
        ptx.wgmma.fence()
        return stage, a, b

    def _k_tile(self, first):
        cfg = self.cfg
        stage, a, b = self._stage_operands()
        for j in range(cfg.bk // cfg.mma_k):
            ptx.wgmma.mma_async(shape=(WG_M, cfg.bn, cfg.mma_k), dtype_d=f32,
                                dtype_a=cfg.ab_dtype, dtype_b=cfg.ab_dtype, d=self.mma_acc,
                                a=a, b=b,
                                scale_d=self._scale_d(first, j),
                                trans_b=0 if cfg.b_major == "K" else 1,
                                a_k_offset=32 * j, b_k_offset=self.b_step * j)
        ptx.wgmma.commit_group()
        return stage

    def _scale_d(self, first, j):
        """wgmma's scale-d: 0 (D = A B) only for a tile's first wgmma, and
        not when the accumulator was preloaded."""
        return not (first and j == 0 and not self.preloaded)

    def release_stage(self, stage):
        """Frees `stage` in every CTA of the cluster: lane i of the warpgroup
        arrives on the empty barrier of CTA i (one arrival per warpgroup)."""
        cta = None if self.cfg.cluster == 1 else self.lane128
        self.ring.release(stage, pred=self.signal, cta=cta)

    def mainloop(self, tile=None):
        """All K tiles of one output tile (a GemmTile, for subclasses that
        need it) into self.acc; every stage is freed."""
        self.issue_all()
        self.drain()

    def issue_all(self):
        """Every k tile's wgmmas issued; the last k tile's still in flight."""
        stage = self._k_tile(first=True)
        ptx.inst.mov.u32(self.prev, stage)
        for _ in ptx.range_(1, self.cfg.k_tiles):
            stage = self._k_tile(first=False)
            ptx.wgmma.wait_group(1)          # the previous k tile's wgmmas are done
            self.release_stage(self.prev)
            ptx.inst.mov.u32(self.prev, stage)

    def drain(self):
        """Waits for the last k tile's wgmmas and frees its stage."""
        ptx.wgmma.wait_group(0)
        self.release_stage(self.prev)


class PingPongConsumer(WgmmaConsumer):
    """A consumer warpgroup that owns whole 128 x bn tiles (the ping-pong
    schedule): two ``wgmma m64n{bn}k16`` per k16 step, one per 64-row half
    of the A stage, into two accumulators (halves[0], halves[1]); self.acc
    is halves[0] until the epilogue points it at a half. The ring holds
    both consumers' k tiles in tile order: skip() steps over the other
    consumer's tile."""

    def __init__(self, cfg, tiles, barriers, consumer, lane128):
        super().__init__(cfg, tiles, barriers, consumer, lane128)
        self.halves = [self.acc, reg.wgmma_frag(m=WG_M, n=cfg.bn, dtype=f32)]

    @staticmethod
    def _a_base(tiles, consumer):
        return reg.from_(tiles.sA, u32)                  # both halves of each A stage

    def _k_tile(self, first):
        cfg = self.cfg
        stage, a, b = self._stage_operands()
        for j in range(cfg.bk // cfg.mma_k):
            for half, acc in enumerate(self.halves):
                ptx.wgmma.mma_async(shape=(WG_M, cfg.bn, cfg.mma_k), dtype_d=f32,
                                    dtype_a=cfg.ab_dtype, dtype_b=cfg.ab_dtype, d=acc,
                                    a=a, b=b, scale_d=self._scale_d(first, j),
                                    trans_b=0 if cfg.b_major == "K" else 1,
                                    a_k_offset=half * WG_M * BK * 2 + 32 * j,
                                    b_k_offset=self.b_step * j)
        ptx.wgmma.commit_group()
        return stage

    def skip(self, k_tiles: int):
        """Moves the ring cursor past k_tiles stages without waiting (the
        other consumer's tile): the next stage and its lap's phase, from the
        trace-time k_tiles % stages and (k_tiles // stages) % 2."""
        state, n = self.ring.state, self.cfg.stages
        laps, steps = divmod(k_tiles, n)
        cursor, phase = state.cursor, state.phase
        wrap = cursor == n                                  # as PipelineState.advance
        ptx.inst.selp.u32(cursor, 0, cursor, wrap)
        ptx.inst.xor.b32(phase, phase, 1, pred=wrap)
        if steps:
            ptx.inst.add.u32(cursor, cursor, steps)
            past = cursor >= n
            ptx.inst.sub.u32(cursor, cursor, n, pred=past)
            ptx.inst.xor.b32(phase, phase, 1, pred=past)
        if laps % 2:
            ptx.inst.xor.b32(phase, phase, 1)


def run_roles(cfg, tiles, tid, wg, lane128, *, a_desc, b_desc, b_rank, c_desc, schedule,
              store, b_box_cols=None, prefetch=True, c_stripes=False, before_load=None,
              consumer_class=None, preload=None, residual=None):
    """The warp-specialised body: warpgroup 0 lowers its registers and its
    first thread loads every tile of `schedule` into the ring; warpgroups 1
    and 2 raise theirs, run the k-loop of each tile and call
    store(consumer, tile, row0, frag, tma_epilogue) for their 64 rows. With a
    cluster, every thread meets at a cluster barrier before leaving. prefetch:
    the producer thread first prefetches the TMA descriptors
    (``prefetch.tensormap``), so the first loads do not wait for them.
    c_stripes: the TMA epilogue stores 64-column stripes through a rank-2
    c_desc (TmaStoreEpilogue's stripes). before_load(tile): emitted by the
    producer thread before each tile's loads (an L2 prefetch of what the
    tile's epilogue reads, for one). consumer_class: the consumer's class
    (default WgmmaConsumer; same constructor arguments). preload(consumer,
    tile, row0, frag): writes the start value of consumer.acc (its 64 rows
    from row0) before each tile's main loop, which then accumulates onto it.
    residual: an epilogue.RingResidual (the producer loads each tile's
    residual into the ring after its k tiles) or SmemResidual (into a
    buffer of its own after the tile's first lap of k tiles); cooperative
    schedule; store adds it (residual.add).

    cfg.pingpong: the ping-pong schedule (run_pingpong_consumers): each
    consumer warpgroup owns every other tile of `schedule`, whole, and
    store is called once per 64-row half (consumer.acc set to that half)."""
    barriers = tiles.ring.barriers()
    with producer_role(wg):
        with ptx.if_(tid == 0):
            if prefetch:
                prefetch_descriptors(a_desc, b_desc, c_desc,
                                     residual.r_desc if residual is not None else None)
            rank = reg.from_(ptx.special.cluster_ctarank(), u32) if cfg.cluster > 1 else None
            producer = TmaProducer(cfg, tiles, barriers, a_desc, b_desc, b_rank, rank,
                                   b_box_cols)
            if residual is not None:
                residual.start_producer(producer)

            def load(t):
                if before_load is not None:
                    before_load(t)
                producer.load_tile(t, **(residual.load_hooks(t) if residual is not None
                                         else {}))
            schedule(load)
    with consumer_role():
        consumer_id = wg - 1
        if cfg.pingpong and consumer_class is None:
            consumer_class = PingPongConsumer
        consumer = (consumer_class or WgmmaConsumer)(cfg, tiles, barriers, consumer_id, lane128)
        frag = fragment_row_col(lane128)
        tma_out = TmaStoreEpilogue(tiles.sC, c_desc, consumer_id, lane128, bn=cfg.bn,
                                   chunk_cols=cfg.epi_cols, stripes=c_stripes) \
            if tiles.sC is not None else None

        consumer.preloaded = preload is not None
        if residual is not None and cfg.pingpong:
            raise ValueError("run_roles: a shared-memory residual needs the cooperative "
                             "schedule (both warpgroups read each tile's)")
        if residual is not None:
            residual.start_consumer(consumer_id, lane128)
        if cfg.pingpong:
            def half_call(fn):
                return lambda t, h: fn(consumer, t, t.c_row + WG_M if h else t.c_row, frag)
            run_pingpong_consumers(cfg, consumer, consumer_id, schedule,
                                   lambda t, h: store(consumer, t,
                                                      t.c_row + WG_M if h else t.c_row, frag,
                                                      tma_out),
                                   preload_half=half_call(preload) if preload else None)
        else:
            def tile(t):
                if preload is not None:
                    preload(consumer, t, t.c_row + consumer_id * WG_M, frag)
                consumer.mainloop(t)
                store(consumer, t, t.c_row + consumer_id * WG_M, frag, tma_out)
            schedule(tile)
        if tma_out is not None:
            tma_out.finish()
    if cfg.cluster > 1:
        # no CTA may leave while its peer can still write its shared memory
        ptx.cluster.sync()


PINGPONG_BARRIERS = (3, 4)         # named barriers of the turns (1, 2: the TMA epilogue's)


def run_pingpong_consumers(cfg, consumer, consumer_id, schedule, store_half,
                           preload_half=None):
    """The ping-pong schedule of two PingPongConsumers (CUTLASS's
    KernelTmaWarpSpecializedPingpong): both walk every tile of `schedule`;
    tile i is consumer i % 2's, the other skips its k tiles in the ring.
    The main loops take turns on an ordered pair of named barriers
    (roles.PingPong): a consumer takes its turn, issues its tile's wgmmas,
    gives the turn to the other (whose wgmmas then queue behind its last
    ones) and, while the other's main loop runs, waits for its own and
    runs the epilogue: store_half(tile, half) for halves 0 and 1. Taking the
    turn before the first ring wait matters: a consumer whose turn it is
    waits on stages of a lap whose previous lap has completed, so the
    phase parity cannot alias an older lap. After the last tile the
    consumer whose turn would be next takes it, so that no barrier is left
    half-arrived. preload_half(tile, half): like store_half, before the
    consumer waits for its turn (so it overlaps the other's main loop)."""
    turns = PingPong(consumer_id, ids=PINGPONG_BARRIERS)
    turn = reg.scalar(u32, init=0)          # whose tile comes next
    turns.start()

    def tile(t):
        with ptx.if_(turn == consumer_id):
            if preload_half is not None:
                for half, acc in enumerate(consumer.halves):
                    consumer.acc = acc
                    preload_half(t, half)
            turns.take()
            consumer.issue_all()
            turns.give()
            consumer.drain()
            for half, acc in enumerate(consumer.halves):
                consumer.acc = acc
                store_half(t, half)
        with ptx.else_():
            consumer.skip(cfg.k_tiles)
        ptx.inst.xor.b32(turn, turn, 1)
    schedule(tile)
    with ptx.if_(turn == consumer_id):
        turns.take()
