"""The consumer warpgroups of the Hopper flash attention forward
(examples/hopper/flash_attention.py): per K/V block the two products on the
tensor cores and the online softmax between them, then O / l and LSE.

A warpgroup owns 64 Q rows. Per block j: S = Q K_j^T (wgmma m64n128k16,
both operands in shared memory), O += P_{j+1} V_{j+1} (wgmma m64nDk16, P in
registers as bf16 pairs) issued behind it, the softmax of S_j while P V
runs. Partial blocks known at trace time cost less: for a key block with
t < 128 keys (the sequence's tail) the softmax reads only the first N/2
registers of S (N = t rounded up to 16: the registers of columns 0..N-1)
and P V runs N/16 k-steps. (S itself stays 128 columns wide: a 16-column
S made ptxas serialize every wgmma of the kernel, C7511.) A warpgroup whose 64 rows all lie past the
sequence's end computes nothing: it takes its turns and frees each stage
(drain), so the other warpgroup's products run alone.
"""
from __future__ import annotations

from pyptx import ptx, reg
from pyptx.pipeline import PingPong, fragment_row_col, store_direct
from pyptx.pipeline.attention import SequenceMask
from pyptx.pipeline.wgmma_gemm import wgmma_descriptor
from pyptx.types import b32, bf16, f32, u32, u64

BM = 128                   # Q rows per CTA: two consumer warpgroups of 64
BN = 128                   # K/V rows per block
WG_M = 64
K_STEP = 16                # keys per wgmma k-step of P V
LOG2E = 1.4426950408889634
LN2 = 0.6931471805599453
NEG_INF = float("-inf")


def block_columns(keys):
    """The columns a key block of `keys` keys (an int; None: a full block)
    computes: keys rounded up to a k-step."""
    return BN if keys is None else min(BN, -(-keys // K_STEP) * K_STEP)


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

    def issue_pv(self, stage, n=BN):
        """O += P V over the block's first n keys in k16 steps: 16 lines of V
        (2048 bytes) and registers 4kk..4kk+3 of P."""
        layout = self.tiles.sV.gmma_layout
        v_desc = wgmma_descriptor(self.v_base + stage * self.cfg.tile_bytes, layout)
        ptx.wgmma.fence()
        for kk in range(n // K_STEP):
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

    def softmax(self, first, safe=None, n=BN):
        """P = ex2(S*scale - m) in place in S, with m the running row max
        (scaled); alpha = ex2(m_old - m_new); l = l*alpha + rowsum(P).
        Masked kernels: a row with no key yet has m = -inf; its exponents
        are then taken against 0 (P = 0, alpha = 0), never -inf - -inf.
        n < BN: the block's first n columns only (the first block of a tile)."""
        scale = self.cfg.scale_log2
        safe = self.cfg.masked if safe is None else safe
        s = self.s
        for h in range(2):
            mine = [s[i] for i in range(n // 2) if self._half(i) == h]
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

    def pack_p(self, n=BN):
        """P (f32 in S) as bf16 pairs: register 4kk+j of P holds columns
        16kk + 8(j//2) + 2(lane%4) + {0, 1} of row half j%2 -- the accumulator's
        registers 8kk+2j, 8kk+2j+1 (cvt puts its first source in the high half).
        n < BN: the first n columns."""
        for j in range(n // 4):
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

    def _mask_first(self, mask, n):
        if isinstance(mask, SequenceMask):
            mask.apply(self.s, BN, regs=n // 2)
        elif mask is not None:
            self.mask_diagonal(mask)

    def tile(self, work, limits, first_keys=None):
        """Every K/V block of a tile, last first: the first one peeled (S and
        softmax only), then per block S_j, P_{j+1} V_{j+1} and softmax_j,
        then the last P V. limits: the causal mask of the first (diagonal)
        block, a SequenceMask (every block, where it crosses a bound), or
        None. first_keys: the keys of every tile's first block when known
        at trace time and fewer than BN (the key tail; its softmax and P V
        then run block_columns(first_keys) columns)."""
        n_blocks = work.n_blocks
        n = block_columns(first_keys)
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
        self._mask_first(limits, n)
        self.softmax(first=True, n=n)
        self.pack_p(n)

        # a SequenceMask masks the blocks that cross a bound (a uniform branch
        # in the step; a mask-free copy of the step measured no faster); with
        # first_keys the first block is the only one that crosses one
        mask = (lambda: limits.apply(self.s, BN)) \
            if isinstance(limits, SequenceMask) and first_keys is None else None
        if n < BN:
            assert isinstance(n_blocks, int), "first_keys needs a block count known at trace time"
            if n_blocks > 1:             # the narrow first block's P V: peeled
                self._block(mask, safe=self.cfg.masked, pv_keys=n)
                n_blocks, n = n_blocks - 1, BN
        if not isinstance(n_blocks, int) or n_blocks > 1:
            for _ in ptx.range_(0, n_blocks - 1):
                self._block(mask, safe=self.cfg.masked)

        if self.cfg.persistent:      # the tile's last S is done: Q may be replaced
            ptx.mbarrier.arrive(self.tiles.q_empty[0], pred=self.frees)
        self.rescale_o()
        v_stage = self.v.wait()
        self.issue_pv(v_stage, n)
        ptx.wgmma.wait_group(0)
        self.free(self.v, v_stage)

    def drain(self, work):
        """The tile of a warpgroup whose rows all lie past the sequence's
        end: its turns and a free of each K/V stage once loaded, in
        tile()'s order, and no product."""
        k_stage = self.k.wait()
        self.turns.take()
        self.turns.give()
        self.free(self.k, k_stage)
        for _ in ptx.range_(0, work.n_blocks - 1):
            k_stage = self.k.wait()
            self.turns.take()
            v_stage = self.v.wait()
            self.turns.give()
            self.free(self.k, k_stage)
            self.free(self.v, v_stage)
        self.free(self.v, self.v.wait())

    def _block(self, mask, safe, pv_keys=BN):
        """One step of the block loop: S_j = Q K_j^T and O += P_{j+1} V_{j+1}
        issued (P V over the first pv_keys keys), the softmax of S_j while
        P V runs (mask() first, if any)."""
        k_stage = self.k.wait()
        self.turns.take()
        self.issue_qk(k_stage)
        self.rescale_o()                  # while S is computed
        v_stage = self.v.wait()
        self.issue_pv(v_stage, pv_keys)
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
