"""The element-wise kernels around the Hopper flash attention backward
(examples/hopper/flash_attention_bwd.py): before its main kernel,
``preprocess`` -- per Q row Dsum = rowsum(dO * O) and -LSE * log2(e) into a
stats array, and zeroes the f32 dQ accumulator; after it, ``convert`` --
dQ = bf16(scale * accumulator).

Rows: the Q-shaped tensors (Q, O, dO, dQ) are (heads * seq, D) (heads =
batch * heads_q); the accumulator and the stats give each head seq_pad =
seq rounded up to 64 rows (whole 64-row Q blocks of the main kernel), the
padding rows' stats 0. Stats: (acc_rows / 64, 128) f32, each 64-row
block's 64 negated log2-scaled LSEs then its 64 Dsums (one 512-byte TMA box
of the main kernel). The accumulator is row-major (acc_rows, D), or, for
the main kernel's bulk reduction ("chunked"), in 16 KB chunks: per 64-row
block D/64 chunks of 64 x 64 (one per 64 columns), each the wgmma
accumulator fragments of a warpgroup's 128 threads in 16-byte pieces (piece
c of thread t at float (c*128 + t)*4).

    python examples/hopper/flash_attention_bwd_rows.py [HEADS S D]   # prints the PTX
"""
from __future__ import annotations

import os
import sys
from dataclasses import dataclass

if __package__ in (None, ""):  # run as a script: make `examples` importable
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

import examples.common  # noqa: E402,F401  (makes pyptx importable)
from pyptx import Tile, kernel, ptx, reg  # noqa: E402
from pyptx.types import b32, bf16, f32, u32, u64  # noqa: E402

ARCH = "sm_90a"
BM = 64                    # Q rows of a block of the main kernel
STATS_COLS = 2 * BM        # a stats box: 64 -LSE*log2(e), then 64 Dsum
LOG2E = 1.4426950408889634


@dataclass(frozen=True)
class QRows:
    """The Q-shaped rows the kernels walk: `heads` (batch * heads_q) heads of
    `seq` rows of head_dim; scale: dQ's factor (the softmax scale); chunked:
    the accumulator's chunk layout (else row-major)."""
    heads: int
    seq: int
    head_dim: int
    scale: float = 1.0
    chunked: bool = True

    @property
    def rows(self):
        return self.heads * self.seq

    @property
    def seq_pad(self):
        """Rows per head of the accumulator and the stats: whole 64-row blocks."""
        return -(-self.seq // BM) * BM

    @property
    def acc_rows(self):
        return self.heads * self.seq_pad


# -- preprocess: Dsum = rowsum(dO * O), -LSE*log2(e), dQ accumulator = 0 -------------

def build_preprocess(cfg: QRows, arch: str = ARCH):
    """Kernel (O, dO, LSE) -> (stats, dq_accum): one CTA per 64 Q rows, D/8
    threads per row, each loading 8 bf16 of O and of dO (16 bytes)."""
    D, rows, acc_rows = cfg.head_dim, cfg.rows, cfg.acc_rows
    per_row = D // 8
    threads = BM * per_row

    @kernel(in_specs=(Tile(rows, D, bf16), Tile(rows, D, bf16), Tile(rows, f32)),
            out_specs=(Tile(acc_rows // BM, STATS_COLS, f32), Tile(acc_rows, D, f32)),
            grid=(acc_rows // BM, 1, 1), block=(threads, 1, 1), arch=arch)
    def attention_bwd_preprocess(O, dO, LSE, STATS, DQ_ACCUM):
        po, pdo, plse, pstats, pdq = ptx.global_ptrs(O, dO, LSE, STATS, DQ_ACCUM)
        tid = reg.from_(ptx.special.tid.x(), u32)
        block = reg.from_(ptx.special.ctaid.x(), u32)
        r = tid // per_row                           # the row within the block
        acc_row = block * BM + r
        tensor_row, within = tensor_row_of(cfg, acc_row)
        valid = None if within is None else within < cfg.seq
        row = reg.from_(tensor_row, u64)
        col = reg.from_((tid % per_row) * 8, u64)
        elem = row * D + col
        o = reg.array(b32, 4)
        do = reg.array(b32, 4)
        if valid is not None:     # the padding rows of a partial last block: zeros
            for x in list(o) + list(do):
                ptx.inst.mov.b32(x, 0)
        ptx.inst.ld.global_.nc.v4.b32(list(o), ptx.addr(po + elem * 2), pred=valid)
        ptx.inst.ld.global_.nc.v4.b32(list(do), ptx.addr(pdo + elem * 2), pred=valid)
        zero = reg.scalar(f32, init=0.0)
        dq = pdq + (reg.from_(acc_row, u64) * D + col) * 4
        ptx.inst.st.global_.v4.f32(ptx.addr(dq), [zero] * 4)
        ptx.inst.st.global_.v4.f32(ptx.addr(dq, 16), [zero] * 4)
        total = add_row_products(o, do)
        ptx.warp.reduce_sum(total, width=per_row)
        lse = reg.scalar(f32, init=0.0)
        first = (tid % per_row) == 0
        ptx.inst.ld.global_.nc.f32(lse, ptx.addr(plse + row * 4),
                                   pred=first if valid is None else first & valid)
        ptx.inst.mul.f32(lse, lse, -LOG2E)
        where = pstats + reg.from_(block * (STATS_COLS * 4) + r * 4, u64)
        ptx.inst.st.global_.f32(ptx.addr(where), lse, pred=first)
        ptx.inst.st.global_.f32(ptx.addr(where, BM * 4), total, pred=first)
        ptx.ret()

    return attention_bwd_preprocess


def add_row_products(o, do):
    """A new f32 register holding sum(o * do) over the 8 bf16 pairs of the
    b32 registers o and do (each bf16 widened by a shift or a mask)."""
    total = reg.scalar(f32, init=0.0)
    bits, x, y = reg.scalar(b32), reg.scalar(f32), reg.scalar(f32)
    for a, b in zip(o, do):
        for high in (False, True):               # the pair's two bf16 -> f32
            for src, dst in ((a, x), (b, y)):
                if high:
                    ptx.inst.and_.b32(bits, src, 0xFFFF0000)
                else:
                    ptx.inst.shl.b32(bits, src, 16)
                ptx.inst.mov.b32(dst, bits)
            ptx.inst.fma.rn.f32(total, x, y, total)
    return total


def tensor_row_of(cfg: QRows, acc_row):
    """(row of the Q-shaped tensors, row within its head) of accumulator
    row `acc_row` (a register); the row within the head (padding when >=
    seq) is None when seq is a multiple of 64: the rows are the same."""
    if cfg.seq_pad == cfg.seq:
        return acc_row, None
    head = acc_row // cfg.seq_pad
    within = acc_row - head * cfg.seq_pad
    return head * cfg.seq + within, within


# -- convert: dQ = bf16(scale * accumulator) ------------------------------------------

CONVERT_THREADS = 256


def build_convert(cfg: QRows, arch: str = ARCH):
    """Kernel dq_accum (f32) -> dQ (bf16) = scale * dq_accum: row-major
    (the "red" main kernel's), or in the "bulk" main kernel's chunk order."""
    if cfg.chunked:
        return build_convert_chunks(cfg, arch)
    D, rows, acc_rows = cfg.head_dim, cfg.rows, cfg.acc_rows
    count = acc_rows * D // 8
    per_row = D // 8

    @kernel(in_specs=(Tile(acc_rows, D, f32),), out_specs=(Tile(rows, D, bf16),),
            grid=(count // CONVERT_THREADS, 1, 1), block=(CONVERT_THREADS, 1, 1), arch=arch)
    def attention_bwd_convert(DQ_ACCUM, DQ):
        pacc, pdq = ptx.global_ptrs(DQ_ACCUM, DQ)
        i = reg.scalar(u32)
        ptx.fma(i, reg.from_(ptx.special.ctaid.x(), u32), CONVERT_THREADS,
                reg.from_(ptx.special.tid.x(), u32))
        index = reg.from_(i, u64)
        tensor_row, within = tensor_row_of(cfg, i // per_row)
        if within is not None:
            ptx.ret(pred=within >= cfg.seq)
        acc = reg.array(f32, 8)
        src = pacc + index * 32
        ptx.inst.ld.global_.nc.v4.f32(list(acc[0:4]), ptx.addr(src))
        ptx.inst.ld.global_.nc.v4.f32(list(acc[4:8]), ptx.addr(src, 16))
        packed = reg.array(b32, 4)
        for j in range(4):
            ptx.inst.mul.f32(acc[2 * j], acc[2 * j], cfg.scale)
            ptx.inst.mul.f32(acc[2 * j + 1], acc[2 * j + 1], cfg.scale)
            ptx.inst.cvt.rn.bf16x2.f32(packed[j], acc[2 * j + 1], acc[2 * j])
        out = index * 8 if within is None else reg.from_(tensor_row * D + (i % per_row) * 8,
                                                         u64)
        ptx.inst.st.global_.v4.b32(ptx.addr(pdq + out * 2), list(packed))
        ptx.ret()

    return attention_bwd_convert


def build_convert_chunks(cfg: QRows, arch: str = ARCH):
    """Kernel dq_accum -> dQ for the "bulk" layout: 64-row Q blocks of D/64
    chunks (64 x 64 f32, 16 KB, one per warpgroup's columns), each the
    accumulator fragments of a warpgroup's 128 threads in 16-byte pieces:
    piece c of thread t (registers 4c..4c+3) at float (c*128 + t)*4 -- what
    conflict-free st.shared.v4 writes. One thread per piece: rows
    16*warp + lane/4 (+8), columns 8c + 2*(lane%4) (+1)."""
    D, rows, acc_rows = cfg.head_dim, cfg.rows, cfg.acc_rows
    count = acc_rows * D // 4
    chunks_per_block = D // 64

    @kernel(in_specs=(Tile(acc_rows, D, f32),), out_specs=(Tile(rows, D, bf16),),
            grid=(count // CONVERT_THREADS, 1, 1), block=(CONVERT_THREADS, 1, 1), arch=arch)
    def attention_bwd_convert(DQ_ACCUM, DQ):
        pacc, pdq = ptx.global_ptrs(DQ_ACCUM, DQ)
        i = reg.scalar(u32)
        ptx.fma(i, reg.from_(ptx.special.ctaid.x(), u32), CONVERT_THREADS,
                reg.from_(ptx.special.tid.x(), u32))
        acc = reg.array(f32, 4)
        ptx.inst.ld.global_.nc.v4.f32(list(acc), ptx.addr(pacc + reg.from_(i, u64) * 16))
        t, c, chunk = i & 127, (i >> 7) & 7, i >> 10
        block, half = chunk // chunks_per_block, chunk % chunks_per_block
        lane = t & 31
        row, within = tensor_row_of(cfg, block * BM + ((t >> 5) << 4) + (lane >> 2))
        col = half * 64 + c * 8 + ((lane & 3) << 1)
        out = pdq + reg.from_(row * D + col, u64) * 2
        # rows r and r + 8 of one Q block; padding rows (r >= seq) are not stored
        preds = [None, None] if within is None else [within < cfg.seq,
                                                     (within + 8) < cfg.seq]
        packed = reg.array(b32, 2)
        for h in range(2):
            ptx.inst.mul.f32(acc[2 * h], acc[2 * h], cfg.scale)
            ptx.inst.mul.f32(acc[2 * h + 1], acc[2 * h + 1], cfg.scale)
            ptx.inst.cvt.rn.bf16x2.f32(packed[h], acc[2 * h + 1], acc[2 * h])
        ptx.inst.st.global_.b32(ptx.addr(out), packed[0], pred=preds[0])
        ptx.inst.st.global_.b32(ptx.addr(out, 8 * D * 2), packed[1], pred=preds[1])
        ptx.ret()

    return attention_bwd_convert


def reference(o, do, lse, rows: QRows):
    """(stats, dQ of an accumulator) in float64 torch: stats as the
    preprocess kernel writes them for (heads, seq, D) o, do and (heads,
    seq) lse; to_dq(acc) the convert kernel's map of a row-major padded
    accumulator (acc_rows, D)."""
    import torch
    H, S, D = rows.heads, rows.seq, rows.head_dim
    pad = rows.seq_pad - S
    dsum = (o.double() * do.double()).sum(-1)
    neg_lse = -lse.double() * LOG2E
    blocks = [torch.nn.functional.pad(x, (0, pad)).reshape(-1, BM) for x in (neg_lse, dsum)]
    stats = torch.cat(blocks, dim=1)

    def to_dq(acc):
        return (acc.double().reshape(H, rows.seq_pad, D)[:, :S] * rows.scale).reshape(H * S, D)
    return stats, to_dq


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    heads, S, D = (int(a) for a in argv[:3]) if len(argv) >= 3 else (4, 1000, 128)
    rows = QRows(heads, S, D, scale=D ** -0.5)
    for build in (build_preprocess, build_convert):
        print(build(rows).ptx(), end="")


if __name__ == "__main__":
    main()
