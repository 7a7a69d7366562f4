"""Ampere (sm_80) bf16 GEMM with a cp.async ring of shared-memory stages:
C = A @ B_T^T, f32 accumulation.

    python examples/ampere/gemm_pipelined.py [M N K [STAGES]]   # prints the PTX

Inputs A (M, K) and B_T (N, K), both bf16 row-major (K contiguous for both
operands, as mma.sync's row.col form wants); output C (M, N) f32 row-major.
M and N must be multiples of 128, K of 32.

One CTA computes a 128 x 128 tile of C with 4 warps (2 x 2), each warp a
64 x 64 sub-tile: 4 x 8 mma.sync.m16n8k16 per 16-wide K step, 128 f32
accumulators per thread. The K loop walks 32-wide K tiles through a ring of
STAGES shared-memory stages (2 to 8; default 3):

* the prologue issues tiles 0 .. STAGES-2, one cp.async group each;
* iteration kt waits until tile kt has landed (``cp.async.wait_group
  STAGES-2``, then ``bar.sync`` for every thread's part), issues the copy of
  tile kt+STAGES-1 into the stage that tile kt-1 used (every warp is past
  the barrier, so done reading it), and computes on tile kt while up to
  STAGES-1 tiles are in flight. One barrier per K tile; every iteration
  commits a group (an empty one past the end) so the count stays exact.
* cp.async.cg moves 16 bytes per thread and copy (8 per thread per tile).
  Each stage holds 128 rows of 64 bytes for A and for B_T; the 16-byte chunk
  c of row r is stored at chunk c ^ ((r >> 1) & 3), so the 8 rows one
  ldmatrix phase reads, and the 8 chunks one phase of a warp's copies
  writes, fall in 8 different 16-byte bank groups (no conflicts).
* ldmatrix.x4 loads an m16n8k16 A fragment (16 rows x 16 K) in one
  instruction, and B fragments for two 8-column blocks (B_T rows are the
  mma's B columns, so no transpose is needed).
* The epilogue writes each thread's accumulator pairs with st.global.v2.f32.

Measured on an H100 with 3 stages: 306-363 TFLOP/s from 2048^3 to 4096^3;
gemm_highperf.py adds fragment double buffering and the CTA order.
"""
from __future__ import annotations

import os
import sys

if __package__ in (None, ""):  # run as a script: make `examples` importable
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

import examples.common  # noqa: E402,F401  (makes pyptx importable)
from examples.ampere.gemm import check_shape, reference, round_to_bf16  # noqa: E402,F401
from pyptx import Tile, kernel, ptx, reg, smem  # noqa: E402
from pyptx.types import b32, bf16, f32, u32, u64  # noqa: E402

ARCH = "sm_80"
BM, BN, BK = 128, 128, 32        # CTA tile
WARP_M, WARP_N = 64, 64          # warp tile (2 x 2 warps)
THREADS = 128
STAGES = 3
ROW_BYTES = BK * 2               # one shared-memory row: 32 bf16 = 4 chunks of 16 bytes
STAGE_BYTES = BM * ROW_BYTES     # one stage of A (and of B_T: BN == BM)
COPY_ROWS = THREADS * 16 // ROW_BYTES  # rows one cp.async sweep of the CTA covers (32)
M_FRAGS, N_FRAGS = WARP_M // 16, WARP_N // 8  # 4 x 8 mma tiles per warp


def build_gemm(M: int, N: int, K: int, stages: int = STAGES, arch: str = ARCH):
    """Kernel gemm_pipelined(A[M, K] bf16, B_T[N, K] bf16) -> C[M, N] f32 =
    A @ B_T.T, with `stages` shared-memory stages (2 to 8)."""
    check_shape("gemm_pipelined", M, N, K, (BM, BN, BK))
    if isinstance(stages, bool) or not isinstance(stages, int) or not 2 <= stages <= 8:
        raise ValueError(f"gemm_pipelined: stages={stages!r} must be an int from 2 to 8")
    k_tiles = K // BK
    ring_bytes = stages * STAGE_BYTES

    @kernel(in_specs=(Tile(M, K, bf16), Tile(N, K, bf16)), out_specs=(Tile(M, N, f32),),
            grid=(N // BN, M // BM, 1), block=(THREADS, 1, 1), arch=arch)
    def gemm_pipelined(A, B_T, C):
        pa, pb, pc = ptx.global_ptrs(A, B_T, C)
        sa = smem.alloc(bf16, (stages, BM, BK))
        sb = smem.alloc(bf16, (stages, BN, BK))
        tid = reg.from_(ptx.special.tid.x(), u32)
        lane, warp = tid & 31, tid >> 5
        m0 = reg.from_(ptx.special.ctaid.y(), u32) * BM
        n0 = reg.from_(ptx.special.ctaid.x(), u32) * BN

        # Copies: thread t moves 16-byte chunk t%4 of rows t/4 + 32i (i < 4) of
        # each tile, to its swizzled place (rows r and r + 32i share r's swizzle).
        copy_row, copy_chunk = tid >> 2, tid & 3
        ga = pa + reg.from_(m0 + copy_row, u64) * (K * 2) + (copy_chunk << 4)
        gb = pb + reg.from_(n0 + copy_row, u64) * (K * 2) + (copy_chunk << 4)
        store_off = copy_row * ROW_BYTES + ((copy_chunk ^ ((tid >> 3) & 3)) << 4)
        sa_base, sb_base = reg.from_(sa, u32), reg.from_(sb, u32)
        wa, wb = sa_base + store_off, sb_base + store_off

        def load_tile(dst_a, dst_b, offset=0, k_offset=0, pred=None):
            """One tile, from ga/gb + k_offset bytes to dst_a/dst_b + offset
            (this thread's shared addresses), as one cp.async group."""
            for dst, src in ((dst_a, ga), (dst_b, gb)):
                for i in range(BM // COPY_ROWS):
                    ptx.cp.async_.cg(ptx.addr(dst, offset + i * COPY_ROWS * ROW_BYTES),
                                     ptx.addr(src, k_offset + i * COPY_ROWS * K * 2), 16,
                                     pred=pred)
            ptx.cp.async_.commit_group()

        def advance(offset):
            """offset += one stage, back to 0 past the last."""
            offset += STAGE_BYTES
            ptx.selp(offset, 0, offset, offset == ring_bytes)

        # ldmatrix row addresses, per 16-wide K step ks (the swizzle makes the
        # chunk a XOR, so each step gets its own register). A: lanes 0-15 give
        # rows 0-15 at K chunk 0, lanes 16-31 the same rows at chunk 1. B_T:
        # lanes 0-7 rows 0-7 chunk 0, 8-15 rows 0-7 chunk 1, 16-23 rows 8-15
        # chunk 0, 24-31 rows 8-15 chunk 1. (r >> 1) & 3 is (lane >> 1) & 3.
        swz = (lane >> 1) & 3
        a_row = (warp >> 1) * (WARP_M * ROW_BYTES) + (lane & 15) * ROW_BYTES
        a_chunk = (lane >> 4) ^ swz
        b_row = (warp & 1) * (WARP_N * ROW_BYTES) + ((lane & 7) + ((lane >> 4) << 3)) * ROW_BYTES
        b_chunk = ((lane >> 3) & 1) ^ swz
        a_rows, b_rows = sa_base + a_row, sb_base + b_row
        a_read = [a_rows + ((a_chunk ^ (2 * ks) if ks else a_chunk) << 4)
                  for ks in range(BK // 16)]
        b_read = [b_rows + ((b_chunk ^ (2 * ks) if ks else b_chunk) << 4)
                  for ks in range(BK // 16)]

        acc = [[reg.array(f32, 4) for _ in range(N_FRAGS)] for _ in range(M_FRAGS)]
        for row in acc:
            for frag in row:
                for r in frag:
                    ptx.mov(r, 0.0)
        a_frag = [reg.array(b32, 4) for _ in range(M_FRAGS)]
        b_frag = [reg.array(b32, 4) for _ in range(N_FRAGS // 2)]

        for s in range(stages - 1):            # tiles 0 .. stages-2 (empty groups past K)
            if s < k_tiles:
                load_tile(wa, wb, s * STAGE_BYTES, s * BK * 2)
            else:
                ptx.cp.async_.commit_group()
        ga += (stages - 1) * BK * 2
        gb += (stages - 1) * BK * 2
        read = reg.scalar(u32, init=0)                          # stage of tile kt
        write = reg.scalar(u32, init=(stages - 1) * STAGE_BYTES)  # stage of tile kt+stages-1
        for kt in ptx.range_(0, k_tiles):
            ptx.cp.async_.wait_group(stages - 2)   # tile kt has landed (this thread's part)
            ptx.bar.sync(0)                     # ... and every thread's; tile kt-1 is read
            load_tile(wa + write, wb + write, pred=kt < max(k_tiles - (stages - 1), 0))
            advance(write)
            ga += BK * 2
            gb += BK * 2
            for ks in range(BK // 16):
                ra, rb = a_read[ks] + read, b_read[ks] + read
                for mi in range(M_FRAGS):
                    ptx.ldmatrix(dst=a_frag[mi], src=ptx.addr(ra, mi * 16 * ROW_BYTES))
                for nj in range(N_FRAGS // 2):
                    ptx.ldmatrix(dst=b_frag[nj], src=ptx.addr(rb, nj * 16 * ROW_BYTES))
                for mi in range(M_FRAGS):
                    for ni in range(N_FRAGS):
                        pair = b_frag[ni // 2]
                        ptx.mma.sync(shape=(16, 8, 16), dtype_d=f32, dtype_a=bf16,
                                     dtype_b=bf16, dtype_c=f32, d=acc[mi][ni],
                                     a=a_frag[mi], b=[pair[2 * (ni % 2)], pair[2 * (ni % 2) + 1]],
                                     c=acc[mi][ni])
            advance(read)

        # Epilogue: d[0], d[1] are row lane/4, columns 2*(lane%4) and +1 of an
        # m16n8 tile; d[2], d[3] the same columns 8 rows down.
        c_row = m0 + (warp >> 1) * WARP_M + (lane >> 2)
        c_col = n0 + (warp & 1) * WARP_N + ((lane & 3) << 1)
        gc = pc + reg.from_(c_row, u64) * (N * 4) + (c_col << 2)
        for mi in range(M_FRAGS):
            for ni in range(N_FRAGS):
                d = acc[mi][ni]
                top = (mi * 16 * N + ni * 8) * 4
                ptx.inst.st.global_.v2.f32(ptx.addr(gc, top), [d[0], d[1]])
                ptx.inst.st.global_.v2.f32(ptx.addr(gc, top + 8 * N * 4), [d[2], d[3]])
        ptx.ret()

    return gemm_pipelined


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    M, N, K = (int(a) for a in argv[:3]) if len(argv) >= 3 else (256, 256, 64)
    stages = int(argv[3]) if len(argv) >= 4 else STAGES
    print(build_gemm(M, N, K, stages).ptx(), end="")


if __name__ == "__main__":
    main()
