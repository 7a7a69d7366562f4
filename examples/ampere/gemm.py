"""Ampere (sm_80) bf16 GEMM, the smallest form: one warp, one
``mma.sync.aligned.m16n8k16``, no shared memory. C = A @ B_T^T, f32
accumulation.

    python examples/ampere/gemm.py [M N K]     # prints the PTX (64 64 64)

Inputs A (M, K) and B_T (N, K), both bf16 row-major (B transposed, so K is
contiguous for both operands, as mma.sync's row.col form wants); output
C (M, N) f32 row-major. M must be a multiple of 16, N of 8, K of 16.

Each CTA is one warp and computes one 16 x 8 tile of C. Per 16-wide K step
every lane loads its fragments straight from global memory, one 4-byte
``ld.global`` per register (a register holds two adjacent bf16 along K),
and the warp issues one mma. With groupID g = lane / 4 and t = lane % 4:

    a[0] = A[g,   2t:2t+2]   a[1] = A[g+8, 2t:2t+2]
    a[2] = A[g, 2t+8:2t+10]  a[3] = A[g+8, 2t+8:2t+10]
    b[0] = B_T[g, 2t:2t+2]   b[1] = B_T[g, 2t+8:2t+10]
    d[0], d[1] = C[g, 2t], C[g, 2t+1]     d[2], d[3] = the same, row g+8

The epilogue stores each (d[0], d[1]) and (d[2], d[3]) pair with one
``st.global.v2.f32``. This is the tensor-core path with nothing else: no
reuse of loaded data between warps and one global-load round trip per
mma, so it is bound by load latency (19 TFLOP/s at 2048^3 on an H100);
see gemm_pipelined.py (shared-memory staging) and gemm_highperf.py.

round_to_bf16 and reference serve the other two Ampere GEMMs too.
"""
from __future__ import annotations

import os
import sys

if __package__ in (None, ""):  # run as a script: make `examples` importable
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

import numpy as np  # noqa: E402

import examples.common  # noqa: E402,F401  (makes pyptx importable)
from pyptx import Tile, kernel, ptx, reg  # noqa: E402
from pyptx.types import b32, bf16, f32, u32, u64  # noqa: E402

ARCH = "sm_80"
BM, BN, BK = 16, 8, 16           # one mma.sync m16n8k16 per K step
THREADS = 32                     # one warp


def check_shape(name: str, M: int, N: int, K: int, tile: tuple):
    """Raises ValueError unless (M, N, K) are positive multiples of `tile`;
    `name` is the kernel's, for the message."""
    for dim, value, step in zip("MNK", (M, N, K), tile):
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0 or value % step:
            raise ValueError(f"{name}: {dim}={value!r} must be a positive multiple of {step} "
                             f"(the tile is {' x '.join(map(str, tile))}); pad the operands")


def build_gemm(M: int, N: int, K: int, arch: str = ARCH):
    """Kernel gemm(A[M, K] bf16, B_T[N, K] bf16) -> C[M, N] f32 = A @ B_T.T,
    one warp per 16 x 8 tile of C."""
    check_shape("gemm", M, N, K, (BM, BN, BK))

    @kernel(in_specs=(Tile(M, K, bf16), Tile(N, K, bf16)), out_specs=(Tile(M, N, f32),),
            grid=(N // BN, M // BM, 1), block=(THREADS, 1, 1), arch=arch)
    def gemm(A, B_T, C):
        pa, pb, pc = ptx.global_ptrs(A, B_T, C)
        lane = reg.from_(ptx.special.tid.x(), u32)
        group, pair = lane >> 2, (lane & 3) << 1        # g and 2t
        m0 = reg.from_(ptx.special.ctaid.y(), u32) * BM
        n0 = reg.from_(ptx.special.ctaid.x(), u32) * BN
        row = m0 + group                                  # A's and C's row g
        # Byte addresses of A[row, 2t] and B_T[n0 + g, 2t]; rows g+8 are 8*K*2 on.
        k_bytes = reg.from_(pair << 1, u64)
        ga = pa + reg.from_(row, u64) * (K * 2) + k_bytes
        gb = pb + reg.from_(n0 + group, u64) * (K * 2) + k_bytes

        acc = reg.array(f32, 4)
        for r in acc:
            ptx.mov(r, 0.0)
        a, b = reg.array(b32, 4), reg.array(b32, 2)
        for _ in ptx.range_(0, K // BK):
            for i, (down, right) in enumerate(((0, 0), (8, 0), (0, 8), (8, 8))):
                ptx.inst.ld.global_.b32(a[i], ptx.addr(ga, down * K * 2 + right * 2))
            ptx.inst.ld.global_.b32(b[0], ptx.addr(gb))
            ptx.inst.ld.global_.b32(b[1], ptx.addr(gb, 16))
            ptx.mma.sync(shape=(16, 8, 16), dtype_d=f32, dtype_a=bf16, dtype_b=bf16,
                         dtype_c=f32, d=acc, a=a, b=b, c=acc)
            ga += BK * 2
            gb += BK * 2

        # C[row, n0 + 2t] and the next column; then the same 8 rows down.
        gc = pc + reg.from_(row, u64) * (N * 4) + reg.from_((n0 + pair) << 2, u64)
        ptx.inst.st.global_.v2.f32(ptx.addr(gc), [acc[0], acc[1]])
        ptx.inst.st.global_.v2.f32(ptx.addr(gc, 8 * N * 4), [acc[2], acc[3]])
        ptx.ret()

    return gemm


def round_to_bf16(x) -> np.ndarray:
    """float32 values rounded to the nearest bf16 (ties to even), as float32:
    inputs whose bf16 copies are exact."""
    bits = np.ascontiguousarray(x, np.float32).view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return bits.astype(np.uint32).view(np.float32)


def reference(A, B_T) -> np.ndarray:
    """C = A @ B_T.T in float64 (A, B_T: arrays of bf16-representable values)."""
    return np.asarray(A, np.float64) @ np.asarray(B_T, np.float64).T


def run_on_gpu(M: int = 256, N: int = 256, K: int = 256, seed: int = 0, build=None):
    """Launches build(M, N, K) (default: this file's build_gemm; any of the
    Ampere GEMMs' build_gemm) through PyTorch on random bf16 inputs; returns
    (max |C - reference|, max |reference|)."""
    import torch

    rng = np.random.default_rng(seed)
    a = round_to_bf16(rng.standard_normal((M, K), dtype=np.float32))
    b_t = round_to_bf16(rng.standard_normal((N, K), dtype=np.float32))
    kernel_ = (build or build_gemm)(M, N, K)
    out = kernel_(torch.from_numpy(a).to("cuda", torch.bfloat16),
                  torch.from_numpy(b_t).to("cuda", torch.bfloat16))
    ref = reference(a, b_t)
    return float(np.abs(out.float().cpu().numpy() - ref).max()), float(np.abs(ref).max())


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    M, N, K = (int(a) for a in argv[:3]) if len(argv) >= 3 else (64, 64, 64)
    print(build_gemm(M, N, K).ptx(), end="")


if __name__ == "__main__":
    main()
