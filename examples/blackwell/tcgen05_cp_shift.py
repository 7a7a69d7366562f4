"""Blackwell (sm_100a) shared memory -> Tensor Memory with tcgen05.cp, then
tcgen05.shift: Y = X with rows 0..30 moved down one row.

    python examples/blackwell/tcgen05_cp_shift.py [noshift]    # prints the PTX

X and Y are (128, 8) f32 row-major: one 256-bit row per TMEM lane. One CTA of
128 threads:

1. Warp 0 allocates 32 TMEM columns; thread 0 initialises an mbarrier.
2. Thread t copies row t of X (two 16-byte chunks) into shared memory in the
   canonical no-swizzle layout of 8-row x 16-byte core matrices: chunk c of
   row r at (r / 8) * 256 + c * 128 + (r % 8) * 16 -- leading byte offset
   128 (between the chunks of a row), stride byte offset 256 (between 8-row
   groups).
3. ``fence.proxy.async.shared::cta``, ``tcgen05.fence`` pair around
   ``bar.sync``; thread 0 builds the matrix descriptor
   (``ptx.tcgen05.descriptor(..., swizzle="NONE")``), issues
   ``tcgen05.cp.cta_group::1.128x256b`` (128 lanes x 256 bits into columns
   0..7) and ``tcgen05.commit`` to the mbarrier; everyone waits (phase 0).
4. Thread 0 issues ``tcgen05.shift.cta_group::1.down`` on lanes 0..31 (rows
   0..30 of that quarter move to 1..31) and commits; everyone waits
   (phase 1). Each wait ends with ``tcgen05.fence::after_thread_sync``.
5. Each thread reads its lane with ``tcgen05.ld.32x32b.x8`` and stores row t
   of Y.
6. Warp 0 frees TMEM.
"""
from __future__ import annotations

import os
import sys

if __package__ in (None, ""):  # run as a script: make `examples` importable
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

import numpy as np  # noqa: E402

import examples.common  # noqa: E402,F401  (makes pyptx importable)
from pyptx import Tile, kernel, ptx, reg, smem  # noqa: E402
from pyptx.types import b32, f32, pred, u32, u64  # noqa: E402

ARCH = "sm_100a"
ROWS, COLS = 128, 8          # 128 lanes x 256 bits
THREADS = 128
LBO, SBO = 128, 256          # the no-swizzle core-matrix layout (see the module doc)
SHIFT_LANES = 32             # tcgen05.shift moves rows within one 32-lane quarter


def smem_offset(row: int, chunk: int) -> int:
    """Byte offset of 16-byte chunk `chunk` of row `row` in shared memory."""
    return (row // 8) * SBO + chunk * LBO + (row % 8) * 16


def build_tcgen05_cp_shift(shift: bool = True, arch: str = ARCH):
    """Kernel tcgen05_cp_shift(X[128, 8] f32) -> Y[128, 8] f32 (see reference)."""

    @kernel(in_specs=(Tile(ROWS, COLS, f32),), out_specs=(Tile(ROWS, COLS, f32),),
            grid=(1, 1, 1), block=(THREADS, 1, 1), arch=arch)
    def tcgen05_cp_shift(X, Y):
        px, py = ptx.global_ptrs(X, Y)
        tile = smem.alloc(f32, (ROWS, COLS), align=256)
        slot = smem.alloc(b32, (1,))
        bar = smem.mbarrier(1)
        tid = reg.from_(ptx.special.tid.x(), u32)
        warp = tid >> 5
        with ptx.if_(tid == 0):
            ptx.inst.mbarrier.init.shared__cta.b64(ptx.addr(bar), 1)
            ptx.inst.fence.mbarrier_init.release.cluster()
        with ptx.if_(warp == 0):
            ptx.tcgen05.alloc(slot, 32)

        row_off = reg.from_(tid * (COLS * 4), u64)
        gx, gy = px + row_off, py + row_off
        chunk = reg.array(b32, 4)
        dst = reg.from_(tile, u32) + (tid >> 3) * SBO + ((tid & 7) << 4)
        for c in range(2):
            ptx.inst.ld.global_.v4.b32(chunk, ptx.addr(gx, 16 * c))
            ptx.inst.st.shared.v4.b32(ptx.addr(dst, c * LBO), chunk)

        ptx.inst.fence.proxy.async_.shared__cta()
        ptx.tcgen05.fence_before_thread_sync()
        ptx.inst.bar.sync(0)
        ptx.tcgen05.fence_after_thread_sync()
        tmem = reg.scalar(b32)
        ptx.inst.ld.shared.b32(tmem, ptx.addr(slot))

        done = reg.scalar(pred)

        def wait(phase):
            """Spin until the mbarrier completes `phase`; then order later tcgen05 ops."""
            again = ptx.label(f"wait_phase{phase}")
            ptx.inst.mbarrier.try_wait.parity.shared__cta.b64(done, ptx.addr(bar), phase)
            ptx.bra(again, pred=~done)
            ptx.tcgen05.fence_after_thread_sync()

        with ptx.if_(tid == 0):
            desc = ptx.tcgen05.descriptor(tile, leading_bytes=LBO, stride_bytes=SBO,
                                          swizzle="NONE")
            ptx.tcgen05.cp(tmem, desc, size="128x256b")
            ptx.tcgen05.commit(bar)
        wait(0)
        if shift:
            with ptx.if_(tid == 0):
                ptx.tcgen05.shift(tmem)
                ptx.tcgen05.commit(bar)
            wait(1)

        y = reg.array(f32, COLS)
        ptx.tcgen05.ld(y, tmem + (warp << 21), shape="32x32b", count=COLS)
        ptx.tcgen05.wait_ld()
        ptx.inst.st.global_.v4.f32(ptx.addr(gy), y[:4])
        ptx.inst.st.global_.v4.f32(ptx.addr(gy, 16), y[4:])

        ptx.tcgen05.fence_before_thread_sync()
        ptx.inst.bar.sync(0)
        with ptx.if_(warp == 0):
            ptx.tcgen05.dealloc(tmem, 32)
            ptx.tcgen05.relinquish_alloc_permit()
        ptx.ret()

    return tcgen05_cp_shift


def reference(X, shift: bool = True) -> np.ndarray:
    """Y = X, and with the shift rows 1..31 = X rows 0..30. Row 0 after a
    shift is not defined by the ISA's description: NaN here (compare with
    a NaN-skipping check)."""
    y = np.array(X, np.float32, copy=True)
    if shift:
        y[1:SHIFT_LANES] = np.asarray(X, np.float32)[0:SHIFT_LANES - 1]
        y[0] = np.nan
    return y


def smem_image(X) -> np.ndarray:
    """The shared-memory bytes the kernel writes (as f32 words), by smem_offset."""
    x = np.asarray(X, np.float32)
    image = np.zeros(ROWS * COLS, np.float32)
    for r in range(ROWS):
        for c in range(2):
            start = smem_offset(r, c) // 4
            image[start:start + 4] = x[r, 4 * c:4 * c + 4]
    return image


def run_on_gpu(shift: bool = True, seed: int = 0):
    """Launches the kernel through PyTorch (needs a Blackwell GPU); returns
    max |Y - reference| over the defined rows."""
    import torch

    x = np.random.default_rng(seed).standard_normal((ROWS, COLS), dtype=np.float32)
    out = build_tcgen05_cp_shift(shift)(torch.from_numpy(x).cuda()).cpu().numpy()
    ref = reference(x, shift)
    keep = ~np.isnan(ref)
    return float(np.abs(out[keep] - ref[keep]).max())


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    print(build_tcgen05_cp_shift(shift="noshift" not in argv).ptx(), end="")


if __name__ == "__main__":
    main()
