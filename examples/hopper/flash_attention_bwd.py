"""Hopper (sm_90a) flash attention backward, FlashAttention-2/3 style.

Given Q, K, V, the forward's output O and log-sum-exp LSE (natural log, f32),
and dO, the gradients of O = softmax(scale * Q K^T) V:

    P  = exp(scale * Q K^T - LSE)           (recomputed, never stored)
    dV = P^T dO
    dP = dO V^T
    dS = P * (dP - Dsum),   Dsum = rowsum(dO * O)
    dQ = scale * dS K,      dK = scale * dS^T Q

bf16 Q, K, V, O, dO of shape (batch, heads, seq, D), D = 64 or 128, causal
or not; K and V may have fewer heads than Q (grouped-query attention:
heads_kv divides heads_q, Q head h uses K/V head h // (heads_q / heads_kv)).

Three kernels: ``preprocess`` (Dsum = rowsum(dO * O), -LSE * log2(e), the
f32 dQ accumulator zeroed) and ``convert`` (dQ = bf16(scale * accumulator))
are in examples/hopper/flash_attention_bwd_rows.py; the main kernel here:

- one CTA per (128-row K/V block, K/V head, batch), 384 threads. Warpgroup
  0 is the producer (``setmaxnreg.dec`` to 24): one thread loads the K and
  V blocks once, then for every Q head of the group and every 64-row Q
  block (causal: those at or below the diagonal) the Q block, the dO block
  and the block's stats (512 bytes) into a ring of shared-memory stages
  (TMA, 128B swizzle).
- warpgroups 1 and 2 (``setmaxnreg.inc`` to 240) each own 64 rows of the
  K/V block; per Q block, with wgmma: S^T = K Q^T and dP^T = V dO^T
  (m64n64, A and B from shared memory), P^T = ex2(S^T * scale * log2(e) -
  LSE * log2(e)) (transposed products put the Q rows in columns, so the
  accumulator fragment of P^T, packed to bf16, is the A fragment of the
  next product), dV += P^T dO (m64nD, A in registers, B = dO read
  N-major), dS^T = P^T * (dP^T - Dsum), dK += dS^T Q; dV and dK stay in
  registers over the whole loop. dS^T goes to shared memory (stmatrix, two
  buffers) for dQ_block = dS K (A = dS^T read M-major, B = K read
  N-major). D = 128: the two warpgroups split dQ's 128 columns (each needs
  the other's dS^T rows: a 256-thread named barrier); D = 64: each takes
  its own 64 K rows' part. The f32 partial dQ (64 x 64 per warpgroup)
  goes to shared memory (st.shared.v4, fragment order) and one thread adds
  it into the global accumulator with ``cp.reduce.async.bulk .add.f32``
  (16 KB); ``dq_reduce="red"`` adds from registers with
  ``red.global.add.v2.f32`` instead (measured 20-30% slower).
- causal: the two Q blocks on the diagonal are masked (peeled steps), the
  blocks above it skipped. Any seq: the last Q block and the last K/V
  block may be partial; their rows past seq (the next head's rows, or
  TMA's zeros) are masked to -inf in S^T in a masked copy of the step that
  the loop takes for those blocks (and the diagonal's); dK/dV stores stop
  at seq; the accumulator and stats pad each head to whole 64-row blocks.
  The causal mask is aligned top-left (Q and K/V have one length;
  flash_attention_bwd_seq.py takes unequal lengths, windows, the bshd
  layout and packed sequences).
- grouped-query attention: the CTA of K/V head h loops over its group's Q
  heads, dK and dV summed in registers over the group (no atomics); dQ per
  Q head as above.

Measured on an H100 SXM (benchmarks/attention_bwd.py, B*S = 64k tokens, 16
heads, backward of all three kernels): D = 128, S = 4k-16k: 533-571
TFLOP/s (causal 473-556), 1.75-1.81x sdpa's flash backend and 1.01-1.10x
its cuDNN one; D = 64: 381-412 (causal 354-412), 1.37-1.51x flash,
0.88-0.95x cuDNN.

    python examples/hopper/flash_attention_bwd.py [B H S D [causal]]   # prints the PTX
"""
from __future__ import annotations

import math
import os
import sys
from dataclasses import dataclass

if __package__ in (None, ""):  # run as a script: make `examples` importable
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

import examples.common  # noqa: E402,F401  (makes pyptx importable)
from pyptx import Tile, kernel, ptx, reg, smem  # noqa: E402
from pyptx.hw.wgmma_layout import tile_layout  # noqa: E402
from pyptx.pipeline import (Ring, TmaStore, consumer_role, fragment_row_col,  # noqa: E402
                            init_rings, launch_directives, prefetch_descriptors,
                            producer_role, store_direct, warpgroup_ids)
from pyptx.pipeline.wgmma_gemm import wgmma_descriptor  # noqa: E402
from pyptx.errors import KernelError  # noqa: E402
from pyptx.specs import Layout  # noqa: E402
from pyptx.types import b32, bf16, f32, s32, u32, u64  # noqa: E402

from examples.hopper.flash_attention_bwd_rows import (BM, LOG2E, STATS_COLS, QRows,  # noqa: E402
                                                      build_convert, build_preprocess)

ARCH = "sm_90a"
BN = 128                   # K/V rows per CTA: two consumer warpgroups of 64
WG_N = 64                  # K/V rows of one consumer warpgroup
THREADS = 384
HEAD_DIMS = (64, 128)
NEG_INF = float("-inf")
PRODUCER_REGS, CONSUMER_REGS = 24, 240    # 128*24 + 256*240 <= 64K
LINE = 128                 # bytes of a 128B-swizzled line (64 bf16)
DQ_CHUNK_BYTES = BM * 64 * 4   # a warpgroup's 64 x 64 f32 part of dQ


class AttentionShapeError(KernelError, ValueError):
    """A shape the kernel does not support, located at the caller's line."""


def _caller_line():
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename == __file__:
        frame = frame.f_back
    return (frame.f_code.co_filename, frame.f_lineno) if frame else ("", 0)


def _refuse(message):
    file, line = _caller_line()
    raise AttentionShapeError(f"flash_attention_backward: {message}", file, line, 0)


@dataclass(frozen=True)
class Config:
    """One backward problem and its tiling knobs."""
    batch: int
    heads: int                 # Q heads
    heads_kv: int
    seq: int
    head_dim: int
    causal: bool = False
    softmax_scale: float | None = None
    stages: int = 2            # depth of the Q/dO/stats ring
    dq_reduce: str = "bulk"    # "bulk": smem + cp.reduce.async.bulk; "red": red.global.add

    @property
    def scale(self):
        return self.softmax_scale if self.softmax_scale is not None \
            else 1.0 / math.sqrt(self.head_dim)

    @property
    def group(self):
        """Q heads per K/V head."""
        return self.heads // self.heads_kv

    @property
    def rows(self):
        """Rows of the (batch*heads*seq, D) views of Q, O, dO, dQ."""
        return self.batch * self.heads * self.seq

    @property
    def kv_rows(self):
        return self.batch * self.heads_kv * self.seq

    @property
    def tma_rows(self):
        """Rows of the main kernel's Q, dO views: at least a TMA box (a
        smaller problem is copied into zero-padded tensors)."""
        return max(self.rows, BN)

    @property
    def tma_kv_rows(self):
        return max(self.kv_rows, BN)

    @property
    def q_blocks(self):
        """64-row Q blocks per head (the last one partial when seq % 64)."""
        return -(-self.seq // BM)

    @property
    def kv_blocks(self):
        """128-row K/V blocks per head: the grid's x."""
        return -(-self.seq // BN)

    def q_rows(self):
        """The Q-shaped rows of the preprocess and convert kernels."""
        return QRows(self.batch * self.heads, self.seq, self.head_dim, self.scale,
                     chunked=self.dq_reduce == "bulk")

    @property
    def seq_pad(self):
        """Rows per head of the dQ accumulator and the stats: whole Q blocks."""
        return self.q_rows().seq_pad

    @property
    def acc_rows(self):
        """Rows of the f32 dQ accumulator (batch*heads*seq_pad)."""
        return self.q_rows().acc_rows

    @property
    def q_tail(self):
        """Valid rows of the last Q block when it is partial, else 0."""
        return self.seq % BM

    @property
    def kv_tail(self):
        """Valid rows of the last K/V block when it is partial, else 0."""
        return self.seq % BN

    @property
    def q_tile_bytes(self):
        return BM * self.head_dim * 2

    @property
    def kv_tile_bytes(self):
        return BN * self.head_dim * 2

    @property
    def stage_bytes(self):
        """Transaction bytes of one stage: Q, dO and the stats box."""
        return 2 * self.q_tile_bytes + STATS_COLS * 4

    @property
    def split_dq_columns(self):
        """D = 128: each warpgroup computes 64 of dQ's columns over all 128
        K rows; D = 64: each computes all columns over its own 64 K rows."""
        return self.head_dim == 128

    def smem_bytes(self):
        dq = 2 * DQ_CHUNK_BYTES if self.dq_reduce == "bulk" else 0
        return 2 * self.kv_tile_bytes + self.stages * self.stage_bytes \
            + 2 * BN * BM * 2 + dq + 8 * (1 + 2 * self.stages) + 1024


def check_shape(batch, heads, heads_kv, seq, head_dim, causal=False, stages=2,
                dq_reduce="bulk"):
    """Raises AttentionShapeError, naming the parameter, for a shape the
    kernels do not handle."""
    for name, value in (("batch", batch), ("heads", heads), ("heads_kv", heads_kv),
                        ("seq", seq), ("head_dim", head_dim), ("stages", stages)):
        if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
            _refuse(f"{name} must be a positive int, not {value!r}")
    if heads % heads_kv:
        _refuse(f"heads_q={heads} is not a multiple of heads_kv={heads_kv}")
    if head_dim not in HEAD_DIMS:
        _refuse(f"head_dim={head_dim} is not supported; the kernels are built for "
                f"head_dim 64 or 128")
    if causal not in (True, False):
        _refuse(f"causal must be True or False, not {causal!r}")
    if batch * heads * seq * head_dim >= 1 << 31:
        _refuse(f"batch*heads*seq*head_dim = {batch * heads * seq * head_dim} elements "
                f"does not fit the kernels' 32-bit element offsets (< 2**31)")
    if batch > 65535 or heads_kv > 65535:
        _refuse("batch and heads_kv must be at most 65535 (grid limits)")
    if stages not in (2, 3):
        _refuse(f"stages={stages} must be 2 or 3")
    if dq_reduce not in ("bulk", "red"):
        _refuse(f"dq_reduce={dq_reduce!r} must be 'bulk' or 'red'")
    cfg = Config(batch, heads, heads_kv, seq, head_dim, causal, None, stages, dq_reduce)
    if cfg.smem_bytes() > 227 * 1024:
        _refuse(f"stages={stages} with head_dim={head_dim} needs {cfg.smem_bytes()} bytes "
                f"of shared memory; a CTA has 227 KiB")


# -- 2. the main kernel ----------------------------------------------------------------

class SharedTiles:
    """K and V (resident), the ring of Q / dO / stats stages, dS^T (two
    buffers) and the barriers."""

    def __init__(self, cfg: Config):
        D = cfg.head_dim
        self.cfg = cfg
        # K-major 128B-swizzled panels of 64 columns, as a rank-3 TMA box writes
        self.sK = smem.wgmma_tile(bf16, (BN, D), major="K")
        self.sV = smem.wgmma_tile(bf16, (BN, D), major="K")
        self.sQ = smem.wgmma_tile(bf16, (cfg.stages, BM, D), major="K")
        self.sdO = smem.wgmma_tile(bf16, (cfg.stages, BM, D), major="K")
        self.sStats = smem.alloc(f32, (cfg.stages, STATS_COLS), align=128)
        # dS^T: 128 K rows x 64 Q columns, one 128-byte line per K row; read
        # as the M-major A operand of dQ = dS K
        self.sdS = smem.wgmma_tile(bf16, (2, BN, BM), major="MN")
        # "bulk": each consumer's 64 x 64 f32 dQ part, reduced into global memory
        self.sdQ = smem.alloc(f32, (2, DQ_CHUNK_BYTES // 4), align=128) \
            if cfg.dq_reduce == "bulk" else None
        self.kv_bar = smem.mbarrier(1)
        self.ring = Ring(cfg.stages, empty_arrivals=2)

    def init(self, leader):
        init_rings(leader, [self.ring], extra=lambda: ptx.mbarrier.init(self.kv_bar[0], 1))


class Work:
    """This CTA's registers: its K/V block n and rows, the first Q row of
    the first head of its group (in the Q-shaped tensors and in the
    accumulator, whose heads have seq_pad rows) and the first Q block it
    visits."""

    def __init__(self, cfg: Config):
        self.n = reg.from_(ptx.special.ctaid.x(), u32)
        h_kv = reg.from_(ptx.special.ctaid.y(), u32)
        b = reg.from_(ptx.special.ctaid.z(), u32)
        S = cfg.seq
        self.kv_head_row = (b * cfg.heads_kv + h_kv) * S
        self.kv_row = self.kv_head_row + self.n * BN
        # Q head h_kv*G + g of batch b starts at row (b*H + h_kv*G + g) * S
        first_head = b * cfg.heads + h_kv * cfg.group
        self.q_head0 = first_head * S
        self.acc_head0 = self.q_head0 if cfg.seq_pad == S else first_head * cfg.seq_pad
        # causal: Q blocks from the diagonal (64-row block 2n) on
        self.first_block = self.n * (BN // BM) if cfg.causal else 0


def heads(cfg, work):
    """Yields (first Q row, first accumulator row) of each Q head of the
    CTA's group: inside a PTX loop over the group, or once (no loop)
    without grouping."""
    if cfg.group == 1:
        yield work.q_head0, work.acc_head0
        return
    for g in ptx.range_(0, cfg.group):
        q_row = work.q_head0 + g * cfg.seq
        yield q_row, (q_row if cfg.seq_pad == cfg.seq else work.acc_head0 + g * cfg.seq_pad)


class Producer:
    """One thread's TMA loads: K and V once, then per Q block its stage."""

    def __init__(self, cfg, tiles, descs):
        self.cfg, self.tiles = cfg, tiles
        self.q_desc, self.k_desc, self.v_desc, self.do_desc, self.stats_desc = descs
        self.ring = tiles.ring.producer()
        prefetch_descriptors(*descs)

    def run(self, work):
        cfg, tiles = self.cfg, self.tiles
        kv_full = tiles.kv_bar[0]
        ptx.mbarrier.arrive_expect_tx(kv_full, 2 * cfg.kv_tile_bytes)
        ptx.cp.async_.bulk.tensor_3d(dst=tiles.sK, src=self.k_desc, coord=(0, work.kv_row, 0),
                                     mbar=kv_full)
        ptx.cp.async_.bulk.tensor_3d(dst=tiles.sV, src=self.v_desc, coord=(0, work.kv_row, 0),
                                     mbar=kv_full)
        for head_row, acc_head in heads(cfg, work):
            for m in ptx.range_(work.first_block, cfg.q_blocks):
                q_row = head_row + m * BM
                stage, full = self.ring.acquire()
                full.arrive_expect_tx(cfg.stage_bytes)
                ptx.cp.async_.bulk.tensor_3d(dst=tiles.sQ[stage], src=self.q_desc,
                                             coord=(0, q_row, 0), mbar=full)
                ptx.cp.async_.bulk.tensor_3d(dst=tiles.sdO[stage], src=self.do_desc,
                                             coord=(0, q_row, 0), mbar=full)
                stats_row = (q_row >> 6) if cfg.seq_pad == cfg.seq else (acc_head >> 6) + m
                ptx.cp.async_.bulk.tensor_2d(dst=tiles.sStats[stage], src=self.stats_desc,
                                             coord=(0, stats_row), mbar=full)


class Consumer:
    """A consumer warpgroup: its 64 K/V rows against every Q block."""

    def __init__(self, cfg, tiles, consumer, lane128):
        D = cfg.head_dim
        self.cfg, self.tiles, self.D, self.consumer = cfg, tiles, D, consumer
        self.s = reg.wgmma_frag(m=WG_N, n=BM, dtype=f32)       # S^T, then P^T (f32)
        self.dp = reg.wgmma_frag(m=WG_N, n=BM, dtype=f32)      # dP^T, then dS^T
        self.dv = reg.wgmma_frag(m=WG_N, n=D, dtype=f32)
        self.dk = reg.wgmma_frag(m=WG_N, n=D, dtype=f32)
        self.dq = reg.wgmma_frag(m=BM, n=64, dtype=f32)        # 64 columns of dQ
        self.p = reg.array(b32, BM // 4)                       # P^T as bf16 pairs
        self.ds = reg.array(b32, BM // 4)                      # dS^T as bf16 pairs
        self.pair = reg.array(f32, 2)                          # stats of two columns
        self.ring = tiles.ring.consumer()
        self.frees = lane128 == 0
        self.lane128 = lane128
        self.frag = fragment_row_col(lane128)
        # layouts: K/V (A, K-major) and Q/dO (B, K-major) for S^T and dP^T;
        # Q/dO read N-major (B of dV and dK); dS^T M-major (A of dQ); K
        # N-major (B of dQ)
        self.kv_layout = tiles.sK.gmma_layout
        self.q_layout = tiles.sQ.gmma_layout
        self.q_mn_layout = tile_layout(bf16, (BM, D), "MN")
        self.ds_layout = tiles.sdS.gmma_layout
        self.k_mn_layout = tile_layout(bf16, (BN, D), "MN")
        wg_lines = consumer * (WG_N * LINE)                   # this warpgroup's 64 K rows
        self.k_desc = wgmma_descriptor(reg.from_(tiles.sK, u32) + wg_lines, self.kv_layout)
        self.v_desc = wgmma_descriptor(reg.from_(tiles.sV, u32) + wg_lines, self.kv_layout)
        if cfg.split_dq_columns:      # 64-column panel `consumer` of K, all 128 rows
            k_mn = reg.from_(tiles.sK, u32) + consumer * (BN * LINE)
            ds_first = 0
        else:                         # K's rows and dS^T's rows of this warpgroup
            k_mn = reg.from_(tiles.sK, u32) + wg_lines
            ds_first = wg_lines
        self.k_mn_desc = wgmma_descriptor(k_mn, self.k_mn_layout)
        self.q_base = reg.from_(tiles.sQ, u32)
        self.do_base = reg.from_(tiles.sdO, u32)
        self.ds_base = reg.from_(tiles.sdS, u32) + ds_first
        self.ds_buf = reg.scalar(u32, init=0)                 # 0 or BN*LINE: the dS^T buffer
        lane = lane128 & 31
        self.stats_base = reg.from_(tiles.sStats, u32) + (lane & 3) * 8
        self.stmatrix_row, self.stmatrix_chunk = self._stmatrix_address(
            reg.from_(tiles.sdS, u32) + wg_lines, lane128)
        self.dq_ptr = None
        self.dq_steps = (BN if cfg.split_dq_columns else WG_N) // 16
        self.bar_id, self.bar_threads = ((1, 256) if cfg.split_dq_columns
                                         else (1 + consumer, 128))

    @staticmethod
    def _stmatrix_address(base, lane128):
        """(line address, swizzled 16-byte chunk of the first block) of this
        lane's stmatrix.x4 rows in a 64 x 64 bf16 tile with 128-byte lines
        and 128B swizzle (chunk index XOR line % 8): lanes 8i..8i+7 give
        matrix i's rows, matrices (rows 0-7 | 8-15) x (columns 0-7 | 8-15) of
        a warp's 16 x 16 block. Block b's chunk is 2b + hi, swizzled
        (2b + hi) ^ r8 = chunk ^ 2b."""
        lane = lane128 & 31
        r8 = lane & 7
        row = ((lane128 >> 5) << 4) + r8 + (((lane >> 3) & 1) << 3)
        return base + row * LINE, (lane >> 4) ^ r8

    # -- fragment geometry ----------------------------------------------------------------
    @staticmethod
    def _half(i):
        return (i >> 1) & 1

    @staticmethod
    def _column(i):
        """Register i's column, less the thread's 2*(lane%4)."""
        return 8 * (i >> 2) + (i & 1)

    def by_column(self, stats, which, each):
        """each(i, value) for the 32 fragment registers i, value the stats
        (which = 0: -LSE*log2(e), 1: Dsum) of register i's column: registers
        4j..4j+3 are in columns 8j + 2*(lane%4) + {0, 1}, loaded as a pair
        just before use (not 16 registers held)."""
        for j in range(BM // 8):
            ptx.inst.ld.shared.v2.f32(list(self.pair), ptx.addr(stats, which * BM * 4 + 32 * j))
            for i in range(4 * j, 4 * j + 4):
                each(i, self.pair[i & 1])

    # -- the products -----------------------------------------------------------------------
    def issue_transposed(self, acc, a_desc, b_desc):
        """acc = A B^T over D: (this warpgroup's 64 K or V rows) x (64 Q or dO rows)."""
        ptx.wgmma.fence()
        for kk in range(self.D // 16):
            within = (kk % 4) * 32
            ptx.wgmma.mma_async(shape=(WG_N, BM, 16), dtype_d=f32, dtype_a=bf16, dtype_b=bf16,
                                d=acc, a=a_desc, b=b_desc, scale_d=kk > 0,
                                a_k_offset=(kk // 4) * BN * LINE + within,
                                b_k_offset=(kk // 4) * BM * LINE + within)
        ptx.wgmma.commit_group()

    def issue_accumulate(self, acc, a_regs, b_desc):
        """acc += A B over the block's 64 Q rows: A in registers (bf16 pairs),
        B = the stage's Q or dO tile read N-major (16 lines per k16 step)."""
        ptx.wgmma.fence()
        for kk in range(BM // 16):
            ptx.wgmma.mma_async(shape=(WG_N, self.D, 16), dtype_d=f32, dtype_a=bf16,
                                dtype_b=bf16, d=acc, a=a_regs[4 * kk:4 * kk + 4], b=b_desc,
                                scale_d=True, trans_b=1, b_k_offset=kk * 16 * LINE)
        ptx.wgmma.commit_group()

    def issue_dq(self, ds_desc):
        """dQ (64 Q rows x 64 columns) = dS K over 128 (or this warpgroup's
        64) K rows: A = dS^T M-major, B = K N-major."""
        ptx.wgmma.fence()
        for kk in range(self.dq_steps):
            ptx.wgmma.mma_async(shape=(BM, 64, 16), dtype_d=f32, dtype_a=bf16, dtype_b=bf16,
                                d=self.dq, a=ds_desc, b=self.k_mn_desc, scale_d=kk > 0,
                                trans_a=1, trans_b=1, a_k_offset=kk * 16 * LINE,
                                b_k_offset=kk * 16 * LINE)
        ptx.wgmma.commit_group()

    @staticmethod
    def pack(dst, src):
        """f32 fragment -> bf16 pairs: register j holds src[2j] (low) and
        src[2j+1] (high), wgmma's A-register fragment."""
        for j in range(len(dst)):
            ptx.inst.cvt.rn.bf16x2.f32(dst[j], src[2 * j + 1], src[2 * j])

    def mask_before(self, limits):
        """Causal: S^T (K row r, Q column c) = -inf where the Q row is before
        the K row, i.e. where the column offset < limits[half]."""
        for i in range(BM // 2):
            before = limits[self._half(i)] > self._column(i)
            ptx.inst.mov.f32(self.s[i], NEG_INF, pred=before)

    def tail_mask(self, work, m):
        """The mask of Q block m of a sequence with a partial block: the
        causal one (if causal), Q columns at or past seq, K rows at or past
        seq (their K and V are the next head's rows, or TMA's zeros)."""
        cfg = self.cfg
        row, col = self.frag

        def apply():
            k_row = work.n * BN + self.consumer * WG_N + row     # within the head
            if cfg.causal:
                base = reg.from_(k_row - col - m * BM, s32)
                self.mask_before([base, base + 8])
            if cfg.q_tail:
                limit = reg.from_(cfg.seq - m * BM - col, s32)   # first column offset past seq
                for i in range(BM // 2):
                    ptx.inst.mov.f32(self.s[i], NEG_INF, pred=limit <= self._column(i))
            if cfg.kv_tail:
                for h in range(2):
                    past = (k_row + 8 * h) >= cfg.seq
                    for i in range(BM // 2):
                        if self._half(i) == h:
                            ptx.inst.mov.f32(self.s[i], NEG_INF, pred=past)
        return apply

    def step(self, q_row, acc_row, mask):
        """One Q block (rows q_row.. of Q and dO, acc_row.. of the dQ
        accumulator): the five products and dQ's reduction; mask: None or a
        function that masks S^T."""
        cfg, tiles = self.cfg, self.tiles
        stage = self.ring.wait()
        q_addr = self.q_base + stage * cfg.q_tile_bytes
        do_addr = self.do_base + stage * cfg.q_tile_bytes
        self.issue_transposed(self.s, self.k_desc, wgmma_descriptor(q_addr, self.q_layout))
        self.issue_transposed(self.dp, self.v_desc, wgmma_descriptor(do_addr, self.q_layout))
        ptx.wgmma.wait_group(1)                        # S^T is in
        if mask is not None:
            mask()
        scale_log2 = cfg.scale * LOG2E
        stats = self.stats_base + stage * (STATS_COLS * 4)

        def softmax(i, neg_lse):
            ptx.inst.fma.rn.ftz.f32(self.s[i], self.s[i], scale_log2, neg_lse)
            ptx.inst.ex2.approx.ftz.f32(self.s[i], self.s[i])
        self.by_column(stats, 0, softmax)
        self.pack(self.p, self.s)
        self.issue_accumulate(self.dv, self.p, wgmma_descriptor(do_addr, self.q_mn_layout))
        ptx.wgmma.wait_group(1)                        # dP^T is in
        def d_softmax(i, dsum):
            ptx.inst.sub.f32(self.dp[i], self.dp[i], dsum)
            ptx.inst.mul.f32(self.dp[i], self.dp[i], self.s[i])
        self.by_column(stats, 1, d_softmax)
        self.pack(self.ds, self.dp)
        self.issue_accumulate(self.dk, self.ds, wgmma_descriptor(q_addr, self.q_mn_layout))
        if cfg.dq_reduce == "bulk":
            # the last step's dQ reduce has read its chunk (long since); the
            # barrier below orders this before any thread rewrites it
            with ptx.if_(self.frees):
                ptx.cp.async_.bulk.wait_group(0, read=True)
        # dS^T to shared memory for dQ (the other buffer than the last step's)
        line = self.stmatrix_row + self.ds_buf
        for b in range(BM // 16):
            chunk = self.stmatrix_chunk ^ (2 * b) if b else self.stmatrix_chunk
            ptx.stmatrix(smem=line + (chunk << 4), regs=list(self.ds[4 * b:4 * b + 4]),
                         layout="x4")
        ptx.fence.proxy_async_shared_cta()
        ptx.bar.sync(self.bar_id, self.bar_threads)
        self.issue_dq(wgmma_descriptor(self.ds_base + self.ds_buf, self.ds_layout))
        ptx.inst.xor.b32(self.ds_buf, self.ds_buf, BN * LINE)
        ptx.wgmma.wait_group(0)
        self.ring.release(stage, pred=self.frees)
        if self.cfg.dq_reduce == "bulk":
            self.reduce_dq(acc_row)
        else:
            self.add_dq(acc_row)

    def reduce_dq(self, acc_row):
        """The 64 x 64 partial dQ into this warpgroup's shared chunk (16-byte
        pieces in fragment order: conflict-free st.shared.v4), then one
        thread's cp.reduce.async.bulk .add.f32 of the 16 KB into the
        accumulator's chunk of this Q block (TmaStore.end; the wait for the
        last reduce to have read the chunk came before the dS^T barrier)."""
        for c in range(8):
            ptx.inst.st.shared.v4.f32(ptx.addr(self.dq_smem, c * 128 * 16),
                                      list(self.dq[4 * c:4 * c + 4]))

        def issue():
            chunk = self.dq_ptr + reg.from_(acc_row * self.D, u64) * 4
            ptx.inst.cp.reduce.async_.bulk.global_.shared__cta.bulk_group.add.f32(
                ptx.addr(chunk), ptx.addr(self.dq_chunk), DQ_CHUNK_BYTES)
        self.dq_store.end(issue)

    def add_dq(self, acc_row):
        """red.global.add.v2.f32 of the 64 x 64 partial dQ into the
        (row-major) accumulator."""
        where = self.dq_ptr + reg.from_(acc_row * self.D, u64) * 4
        for j in range(64 // 8):
            for half in range(2):
                pair = [self.dq[4 * j + 2 * half], self.dq[4 * j + 2 * half + 1]]
                ptx.inst.red.global_.add.v2.f32(
                    ptx.addr(where, 4 * (8 * half * self.D + 8 * j)), pair)

    def causal_limits(self, d):
        """The mask limits of the d-th Q block from the diagonal (d = 0, 1):
        K row 64w + row + 8h, Q column c of that block (its first Q row is
        64d after the K block's first row) is masked when 64d + c < 64w +
        row + 8h, c = col + offset. Made per block: not live in the loop."""
        row, col = self.frag
        base = reg.from_(row + self.consumer * WG_N - col, s32)
        return [base + (8 * h - BM * d) for h in range(2)]

    def run(self, work, DQ_ACCUM, dK, dV):
        cfg = self.cfg
        (pdq,) = ptx.global_ptrs(DQ_ACCUM)
        if cfg.dq_reduce == "bulk":
            # the accumulator's chunk of this warpgroup (D = 128: its 64
            # columns; D = 64: both add into the block's one chunk)
            self.dq_ptr = pdq + self.consumer * DQ_CHUNK_BYTES if cfg.split_dq_columns \
                else pdq
            self.dq_chunk = reg.from_(self.tiles.sdQ, u32) + self.consumer * DQ_CHUNK_BYTES
            self.dq_smem = self.dq_chunk + self.lane128 * 16
            self.dq_store = TmaStore(self.frees, 3 + self.consumer, 128)
        else:
            # this thread's first dQ element in the f32 accumulator (row-major)
            row, col = self.frag
            dq_col = col + self.consumer * 64 if cfg.split_dq_columns else col
            self.dq_ptr = pdq + reg.from_(row * self.D + dq_col, u64) * 4
        for acc in (self.dv, self.dk):
            for i in range(len(acc)):
                ptx.inst.mov.f32(acc[i], 0.0)
        ptx.mbarrier.wait(self.tiles.kv_bar[0], 0)
        for head_row, acc_head in heads(cfg, work):
            first = work.first_block
            if cfg.q_tail or cfg.kv_tail:
                # a runtime choice per block: masked (the diagonal's two, the
                # last Q block, every block of the last K/V block) or not
                for m in ptx.range_(first, cfg.q_blocks):
                    special = None
                    if cfg.causal:
                        special = m < first + 2
                    if cfg.q_tail:
                        special = (m == cfg.q_blocks - 1) if special is None \
                            else special | (m == cfg.q_blocks - 1)
                    if cfg.kv_tail:
                        special = (work.n == cfg.kv_blocks - 1) if special is None \
                            else special | (work.n == cfg.kv_blocks - 1)
                    q_row, acc_row = head_row + m * BM, acc_head + m * BM
                    with ptx.if_(special):
                        self.step(q_row, acc_row, self.tail_mask(work, m))
                    with ptx.else_():
                        self.step(q_row, acc_row, None)
                continue
            if cfg.causal:
                for d in range(2):
                    self.step(head_row + (first + d) * BM, acc_head + (first + d) * BM,
                              lambda d=d: self.mask_before(self.causal_limits(d)))
                first = first + 2
            for m in ptx.range_(first, cfg.q_blocks):
                self.step(head_row + m * BM, acc_head + m * BM, None)
        if cfg.dq_reduce == "bulk":
            self.dq_store.finish()
        # dK = scale * dS^T Q; dV as accumulated
        for i in range(len(self.dk)):
            ptx.inst.mul.f32(self.dk[i], self.dk[i], cfg.scale)
        # the pointers and the CTA's rows again: not held in registers over the loop
        pdk, pdv = ptx.global_ptrs(dK, dV)
        again = Work(cfg)
        row0 = again.kv_row + self.consumer * WG_N
        limit = again.kv_head_row + cfg.seq if cfg.kv_tail else None   # the head's last row
        store_direct(self.dk, bf16, pdk, row0, 0, self.D, self.D, limit, frag=self.frag)
        store_direct(self.dv, bf16, pdv, row0, 0, self.D, self.D, limit, frag=self.frag)


def build_main(cfg: Config, arch: str = ARCH):
    """Kernel (Q, K, V, dO, stats, dq_accum) -> (dK, dV); adds into dq_accum."""
    D = cfg.head_dim
    box = dict(layout=Layout.TMA_128B, tma_rank=3)
    q_spec = Tile(cfg.tma_rows, D, bf16, tma_box=(BM, D), **box)
    kv_spec = Tile(cfg.tma_kv_rows, D, bf16, tma_box=(BN, D), **box)
    stats_spec = Tile(cfg.acc_rows // BM, STATS_COLS, f32, tma_box=(1, STATS_COLS))
    grid = (cfg.kv_blocks, cfg.heads_kv, cfg.batch)

    @kernel(in_specs=(q_spec, kv_spec, kv_spec, q_spec, stats_spec, Tile(cfg.acc_rows, D, f32)),
            out_specs=(Tile(cfg.tma_kv_rows, D, bf16), Tile(cfg.tma_kv_rows, D, bf16)),
            grid=grid, block=(THREADS, 1, 1), arch=arch, raw_directives=launch_directives())
    def flash_attention_bwd(Q, K, V, dO, STATS, DQ_ACCUM, dK, dV):
        descs = (Q.tma_desc(), K.tma_desc(), V.tma_desc(), dO.tma_desc(), STATS.tma_desc())
        tiles = SharedTiles(cfg)
        tid, wg, lane128 = warpgroup_ids()
        tiles.init(tid == 0)
        work = Work(cfg)
        with producer_role(wg, PRODUCER_REGS):
            with ptx.if_(tid == 0):
                Producer(cfg, tiles, descs).run(work)
        with consumer_role(CONSUMER_REGS):
            Consumer(cfg, tiles, wg - 1, lane128).run(work, DQ_ACCUM, dK, dV)
        ptx.ret()

    flash_attention_bwd.config = cfg
    return flash_attention_bwd


# -- the entry point ----------------------------------------------------------------------

class Kernels:
    """The three kernels of one backward problem."""

    def __init__(self, cfg: Config, arch: str = ARCH):
        self.cfg = cfg
        self.preprocess = build_preprocess(cfg.q_rows(), arch)
        self.main = build_main(cfg, arch)
        self.convert = build_convert(cfg.q_rows(), arch)

    def __call__(self, q, k, v, o, do, lse, out=None):
        cfg = self.cfg
        B, H, Hkv, S, D = cfg.batch, cfg.heads, cfg.heads_kv, cfg.seq, cfg.head_dim
        rows, kv_rows = cfg.rows, cfg.kv_rows
        stats, dq_accum = self.preprocess(o.reshape(rows, D), do.reshape(rows, D),
                                          lse.reshape(rows))
        views = [x.reshape(n, D) for x, n in ((q, rows), (k, kv_rows), (v, kv_rows),
                                              (do, rows))]
        padded = cfg.tma_rows > rows or cfg.tma_kv_rows > kv_rows
        if padded:   # fewer rows than a TMA box: copies with zero rows after them
            import torch
            views = [torch.nn.functional.pad(x, (0, 0, 0, n - x.shape[0])) for x, n in
                     zip(views, (cfg.tma_rows, cfg.tma_kv_rows, cfg.tma_kv_rows, cfg.tma_rows))]
        main_out = None if out is None or padded else (out[1].view(kv_rows, D),
                                                       out[2].view(kv_rows, D))
        dk, dv = self.main(*views, stats, dq_accum, out=main_out)
        if padded:
            dk, dv = dk[:kv_rows], dv[:kv_rows]
            if out is not None:
                out[1].view(kv_rows, D).copy_(dk)
                out[2].view(kv_rows, D).copy_(dv)
                dk, dv = out[1], out[2]
        convert_out = None if out is None else out[0].view(rows, D)
        dq = self.convert(dq_accum, out=convert_out)
        return dq.reshape(B, H, S, D), dk.reshape(B, Hkv, S, D), dv.reshape(B, Hkv, S, D)


_KERNELS: dict = {}


def kernels_for(batch, heads, heads_kv, seq, head_dim, causal=False, softmax_scale=None,
                stages=2, dq_reduce="bulk", arch=ARCH):
    """The (cached) Kernels of one problem; shapes are checked first.
    stages: depth of the Q/dO ring; dq_reduce: how dQ is accumulated
    ("bulk": a shared chunk and cp.reduce.async.bulk per Q block, "red":
    red.global.add.v2.f32 from registers)."""
    check_shape(batch, heads, heads_kv, seq, head_dim, causal, stages, dq_reduce)
    cfg = Config(batch, heads, heads_kv, seq, head_dim, bool(causal),
                 None if softmax_scale is None else float(softmax_scale), stages, dq_reduce)
    key = (cfg, arch)
    if key not in _KERNELS:
        _KERNELS[key] = Kernels(cfg, arch)
    return _KERNELS[key]


def flash_attention_backward(q, k, v, o, do, lse, *, causal, softmax_scale=None, out=None,
                             **options):
    """(dQ, dK, dV) of attention for q, o, do (batch, heads, seq, D) and k, v
    (batch, heads_kv, seq, D), bf16 contiguous torch tensors, and lse
    (batch, heads, seq) f32 (the forward's natural-log log-sum-exp of
    softmax_scale * q k^T). softmax_scale: 1/sqrt(D) when None. out: three
    tensors (dq, dk, dv) to write instead of new ones. options: stages,
    dq_reduce (see kernels_for)."""
    if len(q.shape) != 4 or len(k.shape) != 4:
        _refuse(f"q and k must be (batch, heads, seq, head_dim), got {tuple(q.shape)}, "
                f"{tuple(k.shape)}")
    B, H, S, D = (int(n) for n in q.shape)
    Hkv = int(k.shape[1])
    for name, t, shape in (("k", k, (B, Hkv, S, D)), ("v", v, (B, Hkv, S, D)),
                           ("o", o, (B, H, S, D)), ("do", do, (B, H, S, D)),
                           ("lse", lse, (B, H, S))):
        if tuple(t.shape) != shape:
            _refuse(f"{name} must have shape {shape}, got {tuple(t.shape)}")
    if out is not None and len(out) != 3:
        _refuse("out must be three tensors (dq, dk, dv)")
    kern = kernels_for(B, H, Hkv, S, D, causal, softmax_scale, **options)
    return kern(q, k, v, o, do, lse, out)


def reference(q, k, v, do, causal=False, softmax_scale=None):
    """(dQ, dK, dV) in float64 torch for (batch, heads, seq, D) tensors; K, V
    with heads_kv heads are repeated over each group of heads // heads_kv Q
    heads and their gradients summed over it. The standard attention
    backward, written out (no autograd)."""
    import torch
    q64, k64, v64, do64 = (x.double() for x in (q, k, v, do))
    group = q.shape[1] // k.shape[1]
    k64 = k64.repeat_interleave(group, dim=1)
    v64 = v64.repeat_interleave(group, dim=1)
    scale = softmax_scale if softmax_scale is not None else 1.0 / math.sqrt(q.shape[-1])
    s = q64 @ k64.transpose(-1, -2) * scale
    if causal:
        n = s.shape[-1]
        mask = torch.ones(n, n, dtype=torch.bool, device=s.device).tril()
        s = s.masked_fill(~mask, float("-inf"))
    p = torch.softmax(s, dim=-1)
    dv = p.transpose(-1, -2) @ do64
    dp = do64 @ v64.transpose(-1, -2)
    dsum = (p * dp).sum(-1, keepdim=True)          # = rowsum(dO * O)
    ds = p * (dp - dsum)
    dq = ds @ k64 * scale
    dk = ds.transpose(-1, -2) @ q64 * scale

    def group_sum(x):
        b, h, s_, d = x.shape
        return x.reshape(b, h // group, group, s_, d).sum(2)
    return dq, group_sum(dk), group_sum(dv)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    B, H, S, D = (int(a) for a in argv[:4]) if len(argv) >= 4 else (1, 2, 512, 128)
    causal = len(argv) > 4 and argv[4].lower() in ("1", "causal", "true")
    kern = kernels_for(B, H, H, S, D, causal)
    for k in (kern.preprocess, kern.main, kern.convert):
        print(k.ptx(), end="")


if __name__ == "__main__":
    main()
