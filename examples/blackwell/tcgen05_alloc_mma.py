"""Blackwell (sm_100a) tcgen05 MMA of one 128 x N tile: D = A @ B_T^T.

    python examples/blackwell/tcgen05_alloc_mma.py [N K]    # prints the PTX (64 64)

Inputs A (128, K) and B_T (N, K), bf16 row-major (both K-major); output
D (128, N) f32 row-major. N is a multiple of 16 from 16 to 256, K a multiple
of 64. One CTA of 128 threads (4 warps):

1. Warp 0 allocates TMEM (``tcgen05.alloc``: the next power of two >= N
   columns, at least 32) into a shared-memory slot; thread 0 initialises an
   mbarrier.
2. All threads copy A and B_T into shared memory in the canonical K-major
   128-byte-swizzle layout: per 64-wide K tile, each row is 128 bytes (eight
   16-byte chunks), chunk c of row r stored at chunk c ^ (r % 8), 8-row
   groups 1024 bytes apart (the descriptor's stride byte offset).
3. ``fence.proxy.async`` (the tensor core reads shared memory through the
   async proxy), ``tcgen05.fence::before_thread_sync``, ``bar.sync``,
   ``tcgen05.fence::after_thread_sync``; everyone reads the TMEM address.
4. Thread 0 builds the shared memory descriptors (``ptx.tcgen05.descriptor``:
   constant fields in Python, 3 instructions for the runtime start address)
   and issues K / 16 ``tcgen05.mma.cta_group::1.kind::f16`` (M 128, N, K 16
   each; the first overwrites D, the rest accumulate), advancing A and B by
   32 bytes per step (+2 in the descriptor's start-address field), then
   ``tcgen05.commit`` to the mbarrier.
5. Everyone waits on the mbarrier (``mbarrier.try_wait.parity`` loop). Warp
   w owns TMEM lanes 32w..32w+31 = rows of D: ``tcgen05.ld.32x32b`` gives
   thread t row t, one column per register; ``tcgen05.wait::ld``; the rows
   go to global memory with ``st.global.v4.f32``.
6. After a barrier, warp 0 frees TMEM (``dealloc``, ``relinquish_alloc_permit``).
"""
from __future__ import annotations

import os
import sys

if __package__ in (None, ""):  # run as a script: make `examples` importable
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

import numpy as np  # noqa: E402

import examples.common  # noqa: E402,F401  (makes pyptx importable)
from pyptx import Tile, kernel, ptx, reg, smem  # noqa: E402
from pyptx.types import b32, bf16, f32, pred, u32, u64  # noqa: E402

ARCH = "sm_100a"
M = 128                  # rows of the tile (TMEM lanes)
THREADS = 128
K_TILE = 64              # bf16 per 128-byte swizzled row
K_MMA = 16               # K of one tcgen05.mma kind::f16
ROW_BYTES = K_TILE * 2
ATOM_BYTES = 8 * ROW_BYTES   # one 8-row swizzle atom: the stride byte offset


def check_shape(N: int, K: int):
    """Raises ValueError unless N and K fit the single-tile kernel."""
    if not isinstance(N, int) or N % 16 or not 16 <= N <= 256:
        raise ValueError(f"tcgen05_alloc_mma: N={N!r} must be a multiple of 16 from 16 to 256")
    if not isinstance(K, int) or K <= 0 or K % K_TILE:
        raise ValueError(f"tcgen05_alloc_mma: K={K!r} must be a positive multiple of {K_TILE}")


def tmem_columns(N: int) -> int:
    """TMEM columns to allocate: a power of two from 32 to 512, >= N."""
    return max(32, 1 << (N - 1).bit_length())


def build_tcgen05_alloc_mma(N: int = 64, K: int = 64, arch: str = ARCH):
    """Kernel tcgen05_alloc_mma(A[128, K] bf16, B_T[N, K] bf16) -> D[128, N] f32."""
    check_shape(N, K)
    k_tiles = K // K_TILE
    ncols = tmem_columns(N)

    @kernel(in_specs=(Tile(M, K, bf16), Tile(N, K, bf16)), out_specs=(Tile(M, N, f32),),
            grid=(1, 1, 1), block=(THREADS, 1, 1), arch=arch)
    def tcgen05_alloc_mma(A, B_T, D):
        pa, pb, pd = ptx.global_ptrs(A, B_T, D)
        sa = smem.alloc(bf16, (k_tiles, M, K_TILE), align=1024)
        sb = smem.alloc(bf16, (k_tiles, N, K_TILE), align=1024)
        slot = smem.alloc(b32, (1,))
        bar = smem.mbarrier(1)
        tid = reg.from_(ptx.special.tid.x(), u32)
        warp = tid >> 5

        with ptx.if_(tid == 0):
            ptx.inst.mbarrier.init.shared__cta.b64(ptx.addr(bar), 1)
            ptx.inst.fence.mbarrier_init.release.cluster()
        with ptx.if_(warp == 0):
            ptx.tcgen05.alloc(slot, ncols)

        # Thread t copies chunk t % 8 of rows t / 8 + 16 j; the chunk's swizzled
        # place depends on the row only through row % 8 = (t / 8) % 8.
        row, chunk = tid >> 3, tid & 7
        swizzled = (chunk ^ (row & 7)) << 4
        data = reg.array(b32, 4)
        for src, dst, rows in ((pa, sa, M), (pb, sb, N)):
            g = src + reg.from_(row * (K * 2) + (chunk << 4), u64)
            s = reg.from_(dst, u32) + row * ROW_BYTES + swizzled
            for t in range(k_tiles):
                for j in range(rows // 16):
                    ptx.inst.ld.global_.v4.b32(data, ptx.addr(g, j * 16 * K * 2 + t * ROW_BYTES))
                    ptx.inst.st.shared.v4.b32(
                        ptx.addr(s, t * rows * ROW_BYTES + j * 16 * ROW_BYTES), data)

        ptx.inst.fence.proxy.async_.shared__cta()
        ptx.tcgen05.fence_before_thread_sync()
        ptx.inst.bar.sync(0)
        ptx.tcgen05.fence_after_thread_sync()
        tmem = reg.scalar(b32)
        ptx.inst.ld.shared.b32(tmem, ptx.addr(slot))

        idesc = ptx.tcgen05.make_instr_desc_f16bf16_f32(m=M, n=N, ab_dtype="bf16")
        with ptx.if_(tid == 0):
            desc_a = ptx.tcgen05.descriptor(sa, stride_bytes=ATOM_BYTES, swizzle="128B")
            desc_b = ptx.tcgen05.descriptor(sb, stride_bytes=ATOM_BYTES, swizzle="128B")
            for t in range(k_tiles):
                for kk in range(K_TILE // K_MMA):
                    step = kk * K_MMA * 2           # bytes along the swizzled row
                    a = desc_a + ((t * M * ROW_BYTES + step) >> 4) if t or kk else desc_a
                    b = desc_b + ((t * N * ROW_BYTES + step) >> 4) if t or kk else desc_b
                    ptx.tcgen05.mma(tmem, a, b, idesc, kind="f16",
                                    enable_input_d=bool(t or kk))
            ptx.tcgen05.commit(bar)

        done = reg.scalar(pred)
        wait = ptx.label("wait_mma")
        ptx.inst.mbarrier.try_wait.parity.shared__cta.b64(done, ptx.addr(bar), 0)
        ptx.bra(wait, pred=~done)
        ptx.tcgen05.fence_after_thread_sync()

        # TMEM address: lane (bits 31-16) 32 * warp, column (bits 15-0) 0.
        taddr = tmem + (warp << 21)
        gd = pd + reg.from_(tid * (N * 4), u64)
        cols = min(N, 128)
        acc = reg.array(f32, cols)
        for c0 in range(0, N, cols):
            ptx.tcgen05.ld(acc, ptx.addr(taddr, c0), shape="32x32b", count=cols)
            ptx.tcgen05.wait_ld()
            for c in range(0, cols, 4):
                ptx.inst.st.global_.v4.f32(ptx.addr(gd, (c0 + c) * 4), acc[c:c + 4])

        ptx.tcgen05.fence_before_thread_sync()
        ptx.inst.bar.sync(0)
        with ptx.if_(warp == 0):
            ptx.tcgen05.dealloc(tmem, ncols)
            ptx.tcgen05.relinquish_alloc_permit()
        ptx.ret()

    return tcgen05_alloc_mma


def round_to_bf16(x) -> np.ndarray:
    """float32 values rounded to the nearest bf16 (ties to even), as float32."""
    bits = np.ascontiguousarray(x, np.float32).view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return bits.astype(np.uint32).view(np.float32)


def reference(A, B_T) -> np.ndarray:
    """D = A @ B_T.T in float64 (A, B_T: bf16-representable values)."""
    return np.asarray(A, np.float64) @ np.asarray(B_T, np.float64).T


def swizzled_offset(k_tile: int, rows: int, row: int, k: int) -> int:
    """Byte offset of element (row, k) of a K-major operand in the kernel's
    shared-memory image (128-byte swizzle): the layout the descriptors say."""
    chunk, within = (k % K_TILE) // 8, (k % 8) * 2
    return (k_tile * rows * ROW_BYTES + (row // 8) * ATOM_BYTES + (row % 8) * ROW_BYTES
            + ((chunk ^ (row % 8)) << 4) + within)


def run_on_gpu(N: int = 64, K: int = 64, seed: int = 0):
    """Launches the kernel through PyTorch (needs a Blackwell GPU); returns
    (max |D - reference|, max |reference|)."""
    import torch

    rng = np.random.default_rng(seed)
    a = round_to_bf16(rng.standard_normal((M, K), dtype=np.float32))
    b_t = round_to_bf16(rng.standard_normal((N, K), dtype=np.float32))
    out = build_tcgen05_alloc_mma(N, K)(torch.from_numpy(a).to("cuda", torch.bfloat16),
                                        torch.from_numpy(b_t).to("cuda", torch.bfloat16))
    ref = reference(a, b_t)
    return float(np.abs(out.cpu().numpy() - ref).max()), float(np.abs(ref).max())


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    N, K = (int(a) for a in argv[:2]) if len(argv) >= 2 else (64, 64)
    print(build_tcgen05_alloc_mma(N, K).ptx(), end="")


if __name__ == "__main__":
    main()
