"""Kernels for test_debugkit_gpu.py, launched in a subprocess of their own
(``python debugkit_kernels.py printf|hang``) so the test reads the
process's stdout and survives the trap. Each prints what the test checks."""
import os
import sys

import torch

from pyptx import Tile, debugkit, kernel, ptx, reg, smem
from pyptx.types import f32, u32


@kernel(arch="sm_90a", debug=True, in_specs=(Tile(64, u32),), out_specs=(Tile(64, u32),),
        grid=(2, 1, 1), block=(4, 1, 1))
def shout(X, Y):
    """Each thread prints its value X[tid] + 100 and tid / 2 as a float;
    Y[0] = 1 from thread 0 of CTA 0 (the launch ran)."""
    px, py = ptx.global_ptrs(X, Y)
    tid = reg.from_(ptx.special.tid.x(), u32)
    offset = reg.scalar(u32)
    ptx.inst.shl.b32(offset, tid, 2)
    address = reg.scalar(px.dtype)
    ptx.inst.cvt.u64.u32(address, offset)
    ptx.inst.add.u64(address, address, px)
    value = reg.scalar(u32)
    ptx.inst.ld.global_.u32(value, ptx.addr(address))
    ptx.inst.add.u32(value, value, 100)
    half = reg.scalar(f32)
    ptx.inst.cvt.rn.f32.u32(half, tid)
    ptx.inst.mul.f32(half, half, 0.5)
    debugkit.printf("value=%u half=%f\n", value, half)
    ptx.inst.st.global_.u32(ptx.addr(py), 1)
    ptx.ret()


@kernel(arch="sm_90a", debug=True, in_specs=(Tile(64, u32),), out_specs=(Tile(64, u32),),
        grid=(1, 1, 1), block=(32, 1, 1))
def hang(X, Y):
    """Waits on a barrier that expects two arrivals and gets one: without
    the debug build it would spin for ever."""
    bars = smem.mbarrier(1)
    ptx.mbarrier.init(bars[0], 2)
    ptx.bar.sync(0)
    tid = reg.from_(ptx.special.tid.x(), u32)
    first = reg.pred()
    ptx.inst.setp.eq.u32(first, tid, 0)
    ptx.mbarrier.arrive(bars[0], pred=first)
    ptx.mbarrier.wait(bars[0], 0)   # <- the broken wait
    ptx.ret()


def main(which):
    x = torch.arange(64, dtype=torch.int32, device="cuda")
    if which == "printf":
        y = shout(x)
        torch.cuda.synchronize()
        print(f"LAUNCHED {int(y[0])}", flush=True)
    elif which == "hang":
        print(f"LINE {_line_of('# <- the broken wait')}", flush=True)
        hang(x)
        torch.cuda.synchronize()
        print("FINISHED", flush=True)


def _line_of(marker):
    with open(__file__) as f:
        return next(n for n, text in enumerate(f, 1)
                    if marker in text and "_line_of" not in text)


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "python"))
    main(sys.argv[1])
