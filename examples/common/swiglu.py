"""SwiGLU gating: y = silu(g) * u, silu(g) = g / (1 + exp(-g)).

Elementwise over B x F, so it is not tied to rows: each thread handles one
16-byte vector (4 floats) of the flattened tensors -- v4 loads of g and u,
exp(-g) = ex2(g * -log2(e)), rcp.approx of 1 + exp(-g), v4 store -- and the
grid covers B*F/4 vectors, 256 threads per CTA (threads past the end return).
"""
from __future__ import annotations

import os
import sys

if __package__ in (None, ""):  # run as a script: make `examples` importable
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

import examples.common  # noqa: E402,F401  (makes pyptx importable)
import numpy as np  # noqa: E402

from pyptx import Tile, kernel, ptx, reg  # noqa: E402
from pyptx.types import f32, u32, u64  # noqa: E402

from examples.common._rows import LOG2E, WARP  # noqa: E402

VEC = 4


def build_swiglu(B: int, F: int, arch: str = "sm_90a", threads: int = 256):
    """Kernel swiglu(G[B, F], U[B, F]) -> Y[B, F], f32."""
    if F <= 0 or F % WARP:
        raise ValueError(f"F must be a positive multiple of {WARP}, not {F}")
    if threads % WARP or not 32 <= threads <= 1024:
        raise ValueError(f"threads must be a multiple of 32 in 32..1024, not {threads}")
    vectors = B * F // VEC
    if vectors >= 1 << 32:
        raise ValueError("B*F too large for 32-bit vector indices")
    ctas = -(-vectors // threads)

    @kernel(in_specs=(Tile(B, F, f32), Tile(B, F, f32)), out_specs=(Tile(B, F, f32),),
            grid=(ctas, 1, 1), block=(threads, 1, 1), arch=arch)
    def swiglu(G, U, Y):
        pg, pu, py = ptx.global_ptrs(G, U, Y)
        tid = reg.from_(ptx.special.tid.x(), u32)
        cta = reg.from_(ptx.special.ctaid.x(), u32)
        i = reg.scalar(u32)
        ptx.fma(i, cta, threads, tid)         # mad.lo.u32: global vector index
        if vectors % threads:
            ptx.ret(pred=i >= vectors)
        off = reg.scalar(u64)
        ptx.inst.mul.wide.u32(off, i, VEC * 4)
        pg += off
        pu += off
        py += off
        g = reg.array(f32, VEC)
        u = reg.array(f32, VEC)
        ptx.ld(g, ptx.addr(pg), space="global.nc")
        ptx.ld(u, ptx.addr(pu), space="global.nc")
        e = reg.array(f32, VEC)
        for gv, uv, ev in zip(g, u, e):
            ptx.mul(ev, gv, -LOG2E)
            ptx.inst.ex2.approx.ftz.f32(ev, ev)   # exp(-g)
            ptx.add(ev, ev, 1.0)
            ptx.inst.rcp.approx.ftz.f32(ev, ev)   # sigmoid(g)
            ptx.mul(ev, ev, gv)
            ptx.mul(ev, ev, uv)
        ptx.st(ptx.addr(py), e)
        ptx.ret()

    return swiglu


def reference(gate, up):
    g = np.asarray(gate, np.float32)
    u = np.asarray(up, np.float32)
    with np.errstate(over="ignore"):
        return (g / (np.float32(1) + np.exp(-g)) * u).astype(np.float32)


if __name__ == "__main__":
    print(build_swiglu(16, 1024).ptx(), end="")
