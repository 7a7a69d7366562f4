"""Blackwell (sm_100a) Tensor Memory round trip: Y = 2 * X through TMEM.

    python examples/blackwell/tcgen05_ld_st.py [C]    # prints the PTX (C = 32)

X and Y are (128, C) f32 row-major, C a power of two from 32 to 128. One CTA
of 128 threads (4 warps; warp w may only touch TMEM lanes 32w..32w+31):

1. Warp 0 allocates C TMEM columns into a shared-memory slot; a
   ``tcgen05.fence`` pair around ``bar.sync`` publishes the address.
2. Thread t loads row t of X and writes it to TMEM lane t, columns 0..C-1,
   with one ``tcgen05.st.sync.aligned.32x32b.x{C}``; ``tcgen05.wait::st``.
3. It reads the lane back with ``tcgen05.ld.sync.aligned.32x32b.x{C}`` into
   other registers, ``tcgen05.wait::ld``, doubles them and stores row t of Y.
4. ``tcgen05.fence::before_thread_sync`` + ``bar.sync``; warp 0 frees TMEM.
"""
from __future__ import annotations

import os
import sys

if __package__ in (None, ""):  # run as a script: make `examples` importable
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

import numpy as np  # noqa: E402

import examples.common  # noqa: E402,F401  (makes pyptx importable)
from pyptx import Tile, kernel, ptx, reg, smem  # noqa: E402
from pyptx.types import b32, f32, u32, u64  # noqa: E402

ARCH = "sm_100a"
ROWS = 128
THREADS = 128


def build_tcgen05_ld_st(C: int = 32, arch: str = ARCH):
    """Kernel tcgen05_ld_st(X[128, C] f32) -> Y[128, C] f32 = 2 * X."""
    if C not in (32, 64, 128):
        raise ValueError(f"tcgen05_ld_st: C={C!r} must be 32, 64 or 128 (TMEM columns, "
                         f"one tcgen05.ld/st of at most 128 registers)")

    @kernel(in_specs=(Tile(ROWS, C, f32),), out_specs=(Tile(ROWS, C, f32),),
            grid=(1, 1, 1), block=(THREADS, 1, 1), arch=arch)
    def tcgen05_ld_st(X, Y):
        px, py = ptx.global_ptrs(X, Y)
        slot = smem.alloc(b32, (1,))
        tid = reg.from_(ptx.special.tid.x(), u32)
        warp = tid >> 5
        with ptx.if_(warp == 0):
            ptx.tcgen05.alloc(slot, C)
        ptx.tcgen05.fence_before_thread_sync()
        ptx.inst.bar.sync(0)
        ptx.tcgen05.fence_after_thread_sync()
        tmem = reg.scalar(b32)
        ptx.inst.ld.shared.b32(tmem, ptx.addr(slot))
        lane_addr = tmem + (warp << 21)            # lane 32 * warp (bits 31-16), column 0

        row_off = reg.from_(tid * (C * 4), u64)
        gx, gy = px + row_off, py + row_off
        x = reg.array(f32, C)
        for c in range(0, C, 4):
            ptx.inst.ld.global_.v4.f32(x[c:c + 4], ptx.addr(gx, c * 4))
        ptx.tcgen05.st(lane_addr, x, shape="32x32b", count=C)
        ptx.tcgen05.wait_st()

        y = reg.array(f32, C)
        ptx.tcgen05.ld(y, lane_addr, shape="32x32b", count=C)
        ptx.tcgen05.wait_ld()
        for c in range(0, C, 4):
            for v in y[c:c + 4]:
                ptx.inst.add.f32(v, v, v)
            ptx.inst.st.global_.v4.f32(ptx.addr(gy, c * 4), y[c:c + 4])

        ptx.tcgen05.fence_before_thread_sync()
        ptx.inst.bar.sync(0)
        with ptx.if_(warp == 0):
            ptx.tcgen05.dealloc(tmem, C)
            ptx.tcgen05.relinquish_alloc_permit()
        ptx.ret()

    return tcgen05_ld_st


def reference(X) -> np.ndarray:
    """Y = 2 * X (exact in f32)."""
    return 2 * np.asarray(X, np.float32)


def run_on_gpu(C: int = 32, seed: int = 0):
    """Launches the kernel through PyTorch (needs a Blackwell GPU); returns
    max |Y - reference|."""
    import torch

    x = np.random.default_rng(seed).standard_normal((ROWS, C), dtype=np.float32)
    out = build_tcgen05_ld_st(C)(torch.from_numpy(x).cuda())
    return float(np.abs(out.cpu().numpy() - reference(x)).max())


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    C = int(argv[0]) if argv else 32
    print(build_tcgen05_ld_st(C).ptx(), end="")


if __name__ == "__main__":
    main()
