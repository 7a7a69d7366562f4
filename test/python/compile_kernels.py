"""Kernels for the Kernel.compile tests (test_compile.py, and on the GPU
test/gpu/test_compile_gpu.py): one that spills, one that uses local memory
without spilling."""
from pyptx import Tile, kernel, ptx, reg
from pyptx.types import f32, u32

LIVE = 96  # values kept live across a barrier by the spilling kernel


@kernel(arch="sm_90a", in_specs=(Tile(LIVE + 1, f32),), out_specs=(Tile(1, f32),),  # <- spilling
        block=(32, 1, 1), grid=(1, 1, 1), raw_directives=[("maxnreg", (24,))])
def spilling(X, Y):
    """96 volatile loads, a barrier, then a scale loaded after it: all 96
    values are live at once, under .maxnreg 24."""
    px, py = ptx.global_ptrs(X, Y)
    x = reg.array(f32, LIVE)
    for i in range(LIVE):
        ptx.inst.ld.volatile.global_.f32(x[i], ptx.addr(px, 4 * i))
    ptx.inst.bar.sync(0)
    scale = reg.scalar(f32)
    ptx.inst.ld.volatile.global_.f32(scale, ptx.addr(px, 4 * LIVE))
    acc = reg.scalar(f32)
    ptx.mov(acc, 0.0)
    for i in reversed(range(LIVE)):
        ptx.fma(acc, x[i], scale, acc)
    ptx.st(ptx.addr(py), acc)
    ptx.ret()


@kernel(arch="sm_90a", in_specs=(Tile(64, u32),), out_specs=(Tile(64, u32),),
        block=(64, 1, 1), grid=(1, 1, 1))
def local_array(X, Y):
    """A .local array indexed by values read at run time: local memory
    without spills."""
    px, py = ptx.global_ptrs(X, Y)
    ptx.var("local", u32, "scratch", size=64, align=4)
    tid = reg.from_(ptx.special.tid.x(), u32)
    offset = reg.scalar(u32)
    ptx.inst.shl.b32(offset, tid, 2)
    mine = reg.scalar(u32)
    ptx.inst.ld.global_.u32(mine, ptx.addr(px))
    ptx.inst.and_.b32(mine, mine, 63)
    ptx.inst.shl.b32(mine, mine, 2)
    base = reg.scalar(u32)
    ptx.inst.mov.u32(base, "scratch")
    ptx.inst.add.u32(mine, mine, base)
    ptx.inst.st.local.u32(ptx.addr(mine), tid)
    ptx.inst.add.u32(offset, offset, base)
    value = reg.scalar(u32)
    ptx.inst.ld.local.u32(value, ptx.addr(offset))
    ptx.st(ptx.addr(py), value)
    ptx.ret()
