"""Tile schedulers: which output tiles a CTA computes, in which order.
Each calls body(...) once per tile inside a ``ptx.range_`` loop; every role
of a warp-specialised kernel runs the same schedule, so producer and
consumers agree on the tile sequence without talking.

- :class:`GroupedScheduler`: persistent, grouped ("swizzled") order for a
  GEMM: groups of `group` tile rows walked column by column, so the tiles
  in flight share A rows and B columns in L2; with a cluster along M, the
  CTAs of a cluster take vertically adjacent tiles.
- :class:`MFirstScheduler`: persistent, M first (consecutive CTAs share a
  B tile), for a CTA or a CTA pair (Blackwell's 2-SM MMA).
- :class:`AttentionScheduler`: one (batch*head, Q block) per CTA or
  persistent; the heaviest Q blocks (under a causal mask: the last ones)
  first; causal: only the K/V blocks up to the diagonal.
- :class:`ExpertScheduler`: grouped GEMM with variable rows per expert
  (MoE): per-expert tile counts and prefix sums built in shared memory,
  then a tile index maps to (expert, m tile, n tile).
"""
from __future__ import annotations

from .. import ptx, reg, smem
from ..types import u32, u64


def tile_order(m_tiles: int, n_tiles: int, group: int):
    """The (m, n) tile of each schedule index t in GroupedScheduler's order
    (Python mirror of the kernel's arithmetic, for tests)."""
    out = []
    for t in range(m_tiles * n_tiles):
        g, local = divmod(t, group * n_tiles)
        out.append((g * group + local % group, local // group))
    return out


def group_rows(rows: int, largest: int = 8) -> int:
    """The largest of largest, 8, 4, 2, 1 that divides `rows`."""
    return next(g for g in (largest, 8, 4, 2, 1) if g <= largest and rows % g == 0)


def cluster_ids(cluster: int):
    """(first tile index, rank in the cluster) registers: %clusterid.x and
    %cluster_ctarank for a cluster, else %ctaid.x and the int 0."""
    if cluster > 1:
        return (reg.from_(ptx.special.clusterid.x(), u32),
                reg.from_(ptx.special.cluster_ctarank(), u32))
    return reg.from_(ptx.special.ctaid.x(), u32), 0


def _quotient_rest(x, d: int):
    """(x // d, x - (x // d) * d) for a register or int x and an int d; with
    d == 1, (x, 0) with no instruction."""
    if d == 1:
        return x, 0
    q = x // d
    return q, x - q * d


class GroupedScheduler:
    """m_rows x n_tiles tiles of bm x bn (m_rows counts rows of cluster
    tiles: a cluster of `cluster` CTAs along M computes cluster x bm rows),
    walked by `ctas` CTAs (clusters) from %ctaid.x (%clusterid.x) with
    stride `ctas`, in groups of `group` rows. body(m0, n0): this CTA's
    first row and column. splits > 1 (split-K): every tile comes `splits`
    times, the whole grouped order once per split, and body(m0, n0, split)."""

    def __init__(self, m_rows: int, n_tiles: int, *, bm: int, bn: int, group: int,
                 ctas: int, cluster: int = 1, splits: int = 1):
        self.m_rows, self.n_tiles, self.bm, self.bn = m_rows, n_tiles, bm, bn
        self.group, self.ctas, self.cluster = group, ctas, cluster
        self.total = m_rows * n_tiles
        self.splits = splits

    def __call__(self, body):
        group, n_tiles, cluster = self.group, self.n_tiles, self.cluster
        cid, rank = cluster_ids(cluster)
        for t in ptx.range_(cid, self.total * self.splits, self.ctas):
            split = None
            if self.splits > 1:
                split, t = _quotient_rest(t, self.total)
            g, local = _quotient_rest(t, group * n_tiles)
            if group == 1:
                mc, n_index = g, local
            else:
                mc = g * group + local % group
                n_index = local // group
            n0 = n_index * self.bn
            m0 = (mc * cluster + rank) * self.bm if cluster > 1 else mc * self.bm
            if split is None:
                body(m0, n0)
            else:
                body(m0, n0, split)


class MFirstScheduler:
    """m_tiles x n_tiles tiles of (bm * cluster) rows, M first, walked by
    `ctas` CTAs (or CTA pairs) with stride `ctas`. body(m0, n0, rank): the
    tile's first row and column, the CTA's rank in its cluster (0 or a
    register)."""

    def __init__(self, m_tiles: int, n_tiles: int, *, bm: int, bn: int, ctas: int,
                 cluster: int = 1):
        self.m_tiles, self.bm, self.bn, self.ctas, self.cluster = m_tiles, bm, bn, ctas, cluster
        self.total = m_tiles * n_tiles
        # made once, here: every role's loop shares them
        self.first, self.rank = cluster_ids(cluster)

    def __call__(self, body):
        for t in ptx.range_(self.first, self.total, self.ctas):
            n_tile = t // self.m_tiles
            m0 = (t - n_tile * self.m_tiles) * (self.bm * self.cluster)
            body(m0, n_tile * self.bn, self.rank)


class AttentionWork:
    """One attention tile's registers: its first Q row, its (batch, head)'s
    first K/V row and the number of K/V blocks it visits."""

    def __init__(self, seq, bm, bn, causal, bh, m_block):
        self.kv_row = bh * seq
        self.q_row = self.kv_row + m_block * bm
        # causal: the blocks up to the diagonal (bm == bn)
        self.n_blocks = m_block + 1 if causal else seq // bn


class AttentionScheduler:
    """(batch*head, Q block) tiles of `seq` rows in blocks of bm (K/V blocks
    of bn). One CTA per tile: grid (m_blocks, batch*heads), the last Q
    blocks first (under a causal mask they have the most work).
    Persistent: tile t = ctaid.x, ctaid.x + ctas, ...; tile t is Q block
    m_blocks-1 - t % m_blocks of (batch, head) t // m_blocks, so the CTAs
    running together share K and V in L2. body(AttentionWork)."""

    def __init__(self, *, seq: int, bm: int, bn: int, causal: bool, tiles: int,
                 persistent: bool, ctas: int):
        self.seq, self.bm, self.bn, self.causal = seq, bm, bn, causal
        self.m_blocks = seq // bm
        self.tiles, self.persistent, self.ctas = tiles, persistent, ctas

    def _work(self, bh, m_block):
        return AttentionWork(self.seq, self.bm, self.bn, self.causal, bh, m_block)

    def __call__(self, body):
        cta = reg.from_(ptx.special.ctaid.x(), u32)
        if not self.persistent:
            body(self._work(reg.from_(ptx.special.ctaid.y(), u32), (self.m_blocks - 1) - cta))
            return
        for t in ptx.range_(cta, self.tiles, self.ctas):
            bh = t // self.m_blocks
            body(self._work(bh, (self.m_blocks - 1) - (t - bh * self.m_blocks)))


class ExpertTile:
    """A tile of ExpertScheduler: expert, first row (registers), n0 (column);
    row_end (the expert's row end) is loaded from shared memory on first
    use."""

    def __init__(self, schedule, expert, row, n0):
        self._schedule, self.expert, self.row, self.n0 = schedule, expert, row, n0
        self._row_end = None

    @property
    def row_end(self):
        if self._row_end is None:
            self._row_end = self._schedule.s_end[self.expert, ]
        return self._row_end


class ExpertScheduler:
    """Grouped GEMM tiles for G experts with variable rows: expert g owns
    rows offs[g-1]..offs[g] (offs: G cumulative int32 row ends in global
    memory) and ceil(rows / bm) x n_tiles tiles. Allocates per expert its
    first row, row end and first tile index (G + 1 entries, the total
    last) in shared memory: 4 * (3G + 1) bytes."""

    def __init__(self, G: int, n_tiles: int, *, bm: int, bn: int):
        self.G, self.n_tiles, self.bm, self.bn = G, n_tiles, bm, bn
        self.s_start = smem.alloc(u32, G, name="expert_start")
        self.s_end = smem.alloc(u32, G, name="expert_end")
        self.s_first = smem.alloc(u32, G + 1, name="expert_first_tile")

    @staticmethod
    def smem_bytes(G: int) -> int:
        """Its shared memory, with room for alignment."""
        return 4 * (3 * G + 1) + 16

    def build(self, tid, p_offs, *, count_first: bool = True):
        """One thread per expert (tid < G) reads its row range and stores its
        tile count; a prefix sum (thread g adds counts 0..g) turns them into
        first tiles. Two ``bar.sync 0`` inside; the caller's next CTA
        barrier publishes the result. count_first: compute the tile count
        before storing the row range (else after: the same instructions in
        another order)."""
        G, s_start, s_end, s_first = self.G, self.s_start, self.s_end, self.s_first
        with ptx.if_(tid < G):
            end = reg.scalar(u32)
            ptx.inst.ld.global_.u32(end, ptx.addr(p_offs + reg.from_(tid, u64) * 4))
            start = reg.scalar(u32, init=0)
            with ptx.if_(tid > 0):
                ptx.inst.ld.global_.u32(start, ptx.addr(p_offs + reg.from_(tid, u64) * 4, -4))
            rows = reg.from_(end, u32) - start
            count = self._count(rows) if count_first else None
            s_start[tid, ] = start
            s_end[tid, ] = end
            s_first[tid + 1, ] = count if count_first else self._count(rows)
        with ptx.if_(tid == 0):
            s_first[0, ] = 0
        ptx.bar.sync(0)
        prefix = reg.scalar(u32, init=0)
        with ptx.if_(tid < G):
            for i in ptx.range_(0, tid + 1):
                prefix += s_first[i + 1, ]
        ptx.bar.sync(0)
        with ptx.if_(tid < G):
            s_first[tid + 1, ] = prefix

    def _count(self, rows):
        shift = self.bm.bit_length() - 1          # bm is a power of two
        tiles = (rows + (self.bm - 1)) >> shift
        return tiles if self.n_tiles == 1 else tiles * self.n_tiles  # no mul by 1

    def __call__(self, body, *, ctas: int):
        """body(ExpertTile) for tiles ctaid.x, ctaid.x + ctas, ...; the expert
        of a tile is found by a short search from the previous tile's."""
        total = self.s_first[self.G, ]
        expert = reg.scalar(u32, init=0)
        first = reg.from_(ptx.special.ctaid.x(), u32)
        for t in ptx.range_(first, total, ctas):
            with ptx.loop() as search:   # the expert whose tiles hold t
                nxt = self.s_first[expert + 1, ]
                search.break_(pred=t < nxt)
                expert += 1
            local = t - self.s_first[expert, ]
            m_tile = local // self.n_tiles
            first = m_tile if self.n_tiles == 1 else m_tile * self.n_tiles  # no mul by 1
            n0 = (local - first) * self.bn
            row = self.s_start[expert, ] + m_tile * self.bm
            body(ExpertTile(self, expert, row, n0))


def expert_tiles(offs, N: int, bm: int, bn: int):
    """Python mirror of ExpertScheduler: (expert, first row, row end, column)
    of every tile, in tile-index order."""
    tiles, start = [], 0
    for g, end in enumerate(int(o) for o in offs):
        for m in range(-(-(end - start) // bm)):
            for n in range(N // bn):
                tiles.append((g, start + m * bm, end, n * bn))
        start = end
    return tiles
