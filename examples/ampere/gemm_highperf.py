"""Ampere (sm_80) high-performance bf16 GEMM on mma.sync: C = A @ B_T^T,
f32 accumulation, f32 or bf16 out.

    python examples/ampere/gemm_highperf.py [M N K [CONFIG]]  # prints the PTX

Inputs A (M, K) and B_T (N, K), both bf16 row-major (K contiguous for both
operands, as mma.sync's row.col form wants). The default configuration
(``CONFIGS["128x128"]``) is the CUTLASS SM80 shape: a 128 x 128 x 32 CTA
tile, 4 warps (2 x 2) of 64 x 64 each, a 4-stage cp.async ring.
``CONFIGS["128x256"]`` has 8 warps (2 x 4) on a 128 x 256 tile, the same
64 x 64 per warp, so each byte brought into shared memory feeds more mmas.
M must be a multiple of the CTA tile's rows, N of its columns, K of its
depth (32 or 64).

What makes it fast, step by step:

* cp.async.cg ring of STAGES stages (16-byte copies, L2 only); the
  prologue issues tiles 0 .. STAGES-2, each K tile issues tile
  kt+STAGES-1, and ``cp.async.wait_group STAGES-2`` + ``bar.sync`` before
  the last 16-wide K step hand the next stage over: one barrier per K tile,
  up to STAGES-1 tiles in flight. Every K tile commits a group (empty past
  the end), so the count stays exact.
* Register-fragment double buffering: while the mmas of K step ks run on
  one set of fragment registers, the ldmatrix.x4 of step ks+1 (the next
  tile's first step at the end of a tile) fill the other.
* ldmatrix.x4 loads one m16n8k16 A fragment (16 rows x 16 K), or the B
  fragments of two 8-column blocks (B_T rows are the mma's B columns: no
  transpose needed).
* XOR swizzle: the 16-byte chunk c of tile row r is stored at chunk
  c ^ ((r >> s) & (C - 1)) (C chunks per row, s = log2(8 / C)), so the 8
  rows an ldmatrix phase reads and the 8 chunks a phase of cp.async writes
  fall in 8 different 16-byte bank groups: no bank conflicts either way.
* mma order serpentine over the N fragments (odd M rows walk N backwards),
  so consecutive mmas share an operand.
* Grouped CTA order: a 1-D grid walked GROUP_M tile rows at a time, column
  by column, so the CTAs in flight share A rows and B columns in L2.
* Epilogue straight from registers: per m16n8 tile two st.global.v2.f32
  (a quad of lanes writes one 32-byte sector per row), or for bf16 out two
  cvt.rn.bf16x2.f32 + st.global.b32.

Measured on an H100 (sm_90 code from this sm_80 PTX; benchmarks/NOTES.md,
benchmarks/ampere_gemm.py): 428 TFLOP/s at 4096^3 with the default
128x128 tile, 445-475 with the larger configurations (128x256_k64: 475
at 4096^3, 490 at 8192^3), against cuBLAS's ~740 (wgmma).

The layout functions (swizzle, copy and ldmatrix offsets, tile order) work
on Python ints as well as registers: the kernel calls them with registers,
test_ampere_gemm_highperf.py with ints to check the data flow on the CPU.
"""
from __future__ import annotations

import os
import sys
from dataclasses import dataclass

if __package__ in (None, ""):  # run as a script: make `examples` importable
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

import examples.common  # noqa: E402,F401  (makes pyptx importable)
from examples.ampere.gemm import check_shape, reference, round_to_bf16  # noqa: E402,F401
from pyptx import Tile, kernel, ptx, reg, smem  # noqa: E402
from pyptx.types import b32, bf16, f32, u32, u64  # noqa: E402

ARCH = "sm_80"


@dataclass(frozen=True)
class Config:
    """One tiling of the kernel."""
    bm: int = 128                  # CTA tile rows (M)
    bn: int = 128                  # CTA tile columns (N)
    bk: int = 32                   # K tile: 32 or 64
    warps_m: int = 2               # warps along M
    warps_n: int = 2               # warps along N
    stages: int = 4                # shared-memory ring depth
    group_m: int = 8               # tile rows per group of the CTA order

    threads = property(lambda self: 32 * self.warps_m * self.warps_n)
    warp_m = property(lambda self: self.bm // self.warps_m)
    warp_n = property(lambda self: self.bn // self.warps_n)
    m_frags = property(lambda self: self.warp_m // 16)     # m16 tiles per warp
    n_frags = property(lambda self: self.warp_n // 8)      # n8 tiles per warp
    k_steps = property(lambda self: self.bk // 16)         # mma K steps per K tile
    chunks = property(lambda self: self.bk // 8)           # 16-byte chunks per row
    row_bytes = property(lambda self: self.bk * 2)
    stage_bytes = property(lambda self: (self.bm + self.bn) * self.row_bytes)  # A rows, then B
    copy_rows = property(lambda self: self.threads // self.chunks)  # rows per CTA sweep

    def check(self):
        """ValueError naming the field unless the tiling is one the kernel
        implements."""
        def need(ok, field, why):
            if not ok:
                raise ValueError(f"gemm_highperf: {field}={getattr(self, field)!r} {why} "
                                 f"(config {self})")
        for field in ("bm", "bn", "bk", "warps_m", "warps_n", "stages", "group_m"):
            value = getattr(self, field)
            need(isinstance(value, int) and not isinstance(value, bool) and value > 0,
                 field, "must be a positive int")
        need(self.bk in (32, 64), "bk", "must be 32 or 64")
        for field in ("warps_m", "warps_n", "group_m"):
            need(_is_pow2(getattr(self, field)), field, "must be a power of two")
        need(self.threads <= 256, "warps_m", "times warps_n must be at most 8 warps")
        need(self.bm % (16 * self.warps_m) == 0, "bm", "must be a multiple of 16 * warps_m")
        need(self.bn % (16 * self.warps_n) == 0, "bn", "must be a multiple of 16 * warps_n")
        need(self.warp_m * self.warp_n <= 64 * 64, "bm",
             "/ warps_m x bn / warps_n must be at most 64 x 64 (the accumulators of a larger "
             "warp tile do not fit in 255 registers)")
        for field in ("bm", "bn"):
            need(getattr(self, field) % self.copy_rows == 0, field,
                 f"must be a multiple of {self.copy_rows} (the rows one cp.async sweep of "
                 f"the CTA copies)")
        need(2 <= self.stages <= 8, "stages", "must be from 2 to 8")
        need(self.stages * self.stage_bytes <= 227 * 1024, "stages",
             f"stages of {self.stage_bytes} bytes pass the 227 KiB a CTA may have")
        return self


CONFIGS = {
    "128x128": Config(),                                            # 4 warps, 64 KiB
    "128x256": Config(bn=256, warps_n=4),                           # 8 warps, 96 KiB
    "128x128_k64": Config(bk=64, stages=3),                         # 4 warps, 96 KiB
    "128x256_k64": Config(bn=256, bk=64, warps_n=4, stages=3),      # 8 warps, 144 KiB
}


def _is_pow2(n):
    return n > 0 and n & (n - 1) == 0


def _log2(n):
    return n.bit_length() - 1


# -- layout (Python ints or registers) ---------------------------------------------

def swizzled_chunk(cfg: Config, row, chunk):
    """The 16-byte chunk of shared-memory row `row` that holds K chunk
    `chunk` of that tile row: chunk ^ ((row >> s) & (C - 1)), C chunks per
    row and s = log2(8 / C). Any 8 consecutive rows (the 8 rows of an
    ldmatrix phase) at one chunk, or 8 / C rows at all C chunks (a phase of
    copies), then land in 8 different 16-byte bank groups."""
    shift = _log2(8 // cfg.chunks)
    return chunk ^ (((row >> shift) if shift else row) & (cfg.chunks - 1))


def copy_layout(cfg: Config, tid):
    """(row, chunk, offset): thread tid copies 16-byte K chunk `chunk` of tile
    rows row + i * cfg.copy_rows (i = 0, 1, ...) to shared byte offset
    offset + i * cfg.copy_rows * cfg.row_bytes of its operand's region.
    copy_rows is a multiple of 8, so the swizzle of every row is row's."""
    row, chunk = tid >> _log2(cfg.chunks), tid & (cfg.chunks - 1)
    return row, chunk, row * cfg.row_bytes + (swizzled_chunk(cfg, row, chunk) << 4)


def a_fragment_offset(cfg: Config, warp_row, lane, ks):
    """Shared byte offset (in the A region) of lane's row address for the
    ldmatrix.x4 of A fragment 0 of warp row warp_row, K step ks: lanes 0-15
    give rows 0-15 at K chunk 2ks, lanes 16-31 the same rows at chunk 2ks+1
    (matrices a0..a3 of m16n8k16). Fragment mi is mi * 16 rows further."""
    row = warp_row * cfg.warp_m + (lane & 15)
    chunk = (lane >> 4) + 2 * ks if ks else lane >> 4
    return row * cfg.row_bytes + (swizzled_chunk(cfg, row, chunk) << 4)


def b_fragment_offset(cfg: Config, warp_col, lane, ks):
    """Shared byte offset (in the B region) of lane's row address for the
    ldmatrix.x4 of B fragment pair 0 of warp column warp_col, K step ks:
    lanes 0-7 rows 0-7 chunk 2ks, 8-15 rows 0-7 chunk 2ks+1, 16-23 rows
    8-15 chunk 2ks, 24-31 rows 8-15 chunk 2ks+1, i.e. b[0], b[1] of N
    fragment 2j, then of 2j+1. Pair j is j * 16 rows further."""
    row = warp_col * cfg.warp_n + (lane & 7) + ((lane >> 4) << 3)
    chunk = ((lane >> 3) & 1) + 2 * ks if ks else (lane >> 3) & 1
    return row * cfg.row_bytes + (swizzled_chunk(cfg, row, chunk) << 4)


def accumulator_coords(cfg: Config, warp_row, warp_col, lane):
    """(row, column) in the CTA tile of d[0] of lane's accumulator of m16n8
    tile (0, 0): d[0], d[1] are that row, columns +0 and +1; d[2], d[3] the
    same 8 rows down. Tile (mi, ni) is mi * 16 rows and ni * 8 columns on."""
    return (warp_row * cfg.warp_m + (lane >> 2),
            warp_col * cfg.warp_n + ((lane & 3) << 1))


def group_rows(cfg: Config, m_tiles: int) -> int:
    """Tile rows per group of the CTA order: the largest power of two up to
    cfg.group_m that divides m_tiles (so every group is full)."""
    g = cfg.group_m
    while m_tiles % g:
        g //= 2
    return g


def tile_of(cfg: Config, bid, m_tiles: int, n_tiles: int):
    """(m_tile, n_tile) that CTA bid computes: groups of group_rows() tile
    rows, each walked column by column."""
    g = group_rows(cfg, m_tiles)
    group, local = bid // (g * n_tiles), bid % (g * n_tiles)
    return group * g + (local & (g - 1)), local >> _log2(g)


# -- the kernel ----------------------------------------------------------------------

def build_gemm(M: int, N: int, K: int, config: Config | str = "128x128", *,
               out_dtype=f32, arch: str = ARCH):
    """Kernel gemm_highperf(A[M, K] bf16, B_T[N, K] bf16) -> C[M, N] =
    A @ B_T.T, C f32 (default) or bf16. config: a Config or a name in
    CONFIGS."""
    if isinstance(config, str):
        if config not in CONFIGS:
            raise ValueError(f"gemm_highperf: config={config!r} is not one of "
                             f"{', '.join(CONFIGS)} (or pass a Config)")
        config = CONFIGS[config]
    cfg = config.check()
    if out_dtype not in (f32, bf16):
        raise ValueError(f"gemm_highperf: out_dtype={out_dtype} must be f32 or bf16")
    check_shape("gemm_highperf", M, N, K, (cfg.bm, cfg.bn, cfg.bk))
    m_tiles, n_tiles, k_tiles = M // cfg.bm, N // cfg.bn, K // cfg.bk
    S, KS = cfg.stages, cfg.k_steps
    a_region = cfg.bm * cfg.row_bytes      # B's rows follow A's in each stage
    ring_bytes = S * cfg.stage_bytes

    @kernel(in_specs=(Tile(M, K, bf16), Tile(N, K, bf16)), out_specs=(Tile(M, N, out_dtype),),
            grid=(m_tiles * n_tiles, 1, 1), block=(cfg.threads, 1, 1), arch=arch)
    def gemm_highperf(A, B_T, C):
        pa, pb, pc = ptx.global_ptrs(A, B_T, C)
        ring = smem.alloc(bf16, (S, cfg.bm + cfg.bn, cfg.bk))
        base = reg.from_(ring, u32)
        tid = reg.from_(ptx.special.tid.x(), u32)
        lane, warp = tid & 31, tid >> 5
        warp_row, warp_col = warp >> _log2(cfg.warps_n), warp & (cfg.warps_n - 1)
        m_tile, n_tile = tile_of(cfg, reg.from_(ptx.special.ctaid.x(), u32), m_tiles, n_tiles)
        m0, n0 = m_tile * cfg.bm, n_tile * cfg.bn

        # Copies: this thread's first global address and shared offset per operand.
        row, chunk, copy_off = copy_layout(cfg, tid)
        ga = pa + reg.from_(m0 + row, u64) * (K * 2) + (chunk << 4)
        gb = pb + reg.from_(n0 + row, u64) * (K * 2) + (chunk << 4)
        wa = base + copy_off

        def load_tile(dst, offset=0, k_offset=0, pred=None):
            """Tile (ga/gb + k_offset bytes) to the stage at dst + offset, one group."""
            for src, rows, region in ((ga, cfg.bm, 0), (gb, cfg.bn, a_region)):
                for i in range(rows // cfg.copy_rows):
                    ptx.cp.async_.cg(
                        ptx.addr(dst, offset + region + i * cfg.copy_rows * cfg.row_bytes),
                        ptx.addr(src, k_offset + i * cfg.copy_rows * K * 2), 16, pred=pred)
            ptx.cp.async_.commit_group()

        def advance(offset):
            """offset += one stage, back to 0 past the last."""
            offset += cfg.stage_bytes
            ptx.selp(offset, 0, offset, offset == ring_bytes)

        # ldmatrix row addresses per K step (the swizzle is a XOR on the
        # chunk, so each step has its own); fragment mi / pair j are immediates.
        a_read = [base + a_fragment_offset(cfg, warp_row, lane, ks) for ks in range(KS)]
        b_read = [base + a_region + b_fragment_offset(cfg, warp_col, lane, ks)
                  for ks in range(KS)]
        frag_a = [[reg.array(b32, 4) for _ in range(cfg.m_frags)] for _ in range(2)]
        frag_b = [[reg.array(b32, 4) for _ in range(cfg.n_frags // 2)] for _ in range(2)]

        def load_fragments(buf, ks, stage):
            ra, rb = a_read[ks] + stage, b_read[ks] + stage
            for mi in range(cfg.m_frags):
                ptx.ldmatrix(dst=frag_a[buf][mi], src=ptx.addr(ra, mi * 16 * cfg.row_bytes))
            for j in range(cfg.n_frags // 2):
                ptx.ldmatrix(dst=frag_b[buf][j], src=ptx.addr(rb, j * 16 * cfg.row_bytes))

        acc = [[reg.array(f32, 4) for _ in range(cfg.n_frags)] for _ in range(cfg.m_frags)]

        def mmas(buf):
            for mi in range(cfg.m_frags):
                order = range(cfg.n_frags)
                for ni in (reversed(order) if mi & 1 else order):
                    pair = frag_b[buf][ni // 2]
                    ptx.mma.sync(shape=(16, 8, 16), dtype_d=f32, dtype_a=bf16, dtype_b=bf16,
                                 dtype_c=f32, d=acc[mi][ni], a=frag_a[buf][mi],
                                 b=[pair[2 * (ni & 1)], pair[2 * (ni & 1) + 1]],
                                 c=acc[mi][ni])

        for s in range(S - 1):                 # tiles 0 .. S-2 (empty groups past K)
            if s < k_tiles:
                load_tile(wa, s * cfg.stage_bytes, s * cfg.bk * 2)
            else:
                ptx.cp.async_.commit_group()
        for row_acc in acc:
            for frag in row_acc:
                for r in frag:
                    ptx.mov(r, 0.0)
        ga += (S - 1) * cfg.bk * 2
        gb += (S - 1) * cfg.bk * 2
        read = reg.scalar(u32, init=0)                        # stage of tile kt
        write = reg.scalar(u32, init=(S - 1) * cfg.stage_bytes)  # stage of tile kt+S-1
        ptx.cp.async_.wait_group(S - 2)        # tile 0 has landed
        ptx.bar.sync(0)
        load_fragments(0, 0, read)

        for kt in ptx.range_(0, k_tiles):
            for ks in range(KS):
                if ks == KS - 1:
                    # Tile kt+1 has landed, and every warp has read its last
                    # fragments of tile kt-1's stage, which the copies refill.
                    ptx.cp.async_.wait_group(S - 2)
                    ptx.bar.sync(0)
                    advance(read)
                load_fragments((ks + 1) % 2, (ks + 1) % KS, read)
                if ks == 0:
                    load_tile(wa + write, pred=kt < max(k_tiles - (S - 1), 0))
                    advance(write)
                    ga += cfg.bk * 2
                    gb += cfg.bk * 2
                mmas(ks % 2)

        # Epilogue: each pair (d[0], d[1]), (d[2], d[3]) to its row of C.
        c_row, c_col = accumulator_coords(cfg, warp_row, warp_col, lane)
        c_row, c_col = m0 + c_row, n0 + c_col
        size = out_dtype.bits // 8
        gc = pc + reg.from_(c_row, u64) * (N * size) + reg.from_(c_col * size, u64)
        packed = reg.array(b32, 2) if out_dtype == bf16 else None
        for mi in range(cfg.m_frags):
            for ni in range(cfg.n_frags):
                d = acc[mi][ni]
                top = (mi * 16 * N + ni * 8) * size
                for half, (lo, hi) in enumerate(((d[0], d[1]), (d[2], d[3]))):
                    at = ptx.addr(gc, top + half * 8 * N * size)
                    if packed is None:
                        ptx.inst.st.global_.v2.f32(at, [lo, hi])
                    else:
                        # cvt.rn.bf16x2.f32 d, a, b puts a in the upper half
                        ptx.inst.cvt.rn.bf16x2.f32(packed[half], hi, lo)
                        ptx.inst.st.global_.b32(at, packed[half])
        ptx.ret()

    return gemm_highperf


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    M, N, K = (int(a) for a in argv[:3]) if len(argv) >= 3 else (256, 256, 128)
    config = argv[3] if len(argv) >= 4 else "128x128"
    print(build_gemm(M, N, K, config).ptx(), end="")


if __name__ == "__main__":
    main()
