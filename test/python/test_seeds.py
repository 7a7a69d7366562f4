"""The seeds' examples, as written in the docs."""
import re

from pyptx import Tile, kernel, ptx, reg
from pyptx.types import f32, u32

WARP_SIZE = 32


def build_rms_norm(B: int, N: int, eps: float = 1e-6):
    items_per_thread = N // WARP_SIZE

    @kernel(
        in_specs=(Tile(B, N, f32), Tile(N, f32)),
        out_specs=(Tile(B, N, f32),),
        grid=(B, 1, 1),
        block=(WARP_SIZE, 1, 1),
        arch="sm_90a",
    )
    def rms_norm(X, W, Y):
        px, pw, py = ptx.global_ptrs(X, W, Y)
        row = reg.from_(ptx.special.ctaid.x(), u32)
        row_byte_off = row * (N * 4)
        px += row_byte_off
        py += row_byte_off

        tid = reg.from_(ptx.special.tid.x(), u32)
        sum_sq = reg.scalar(f32, init=0.0)
        x_vals = reg.array(f32, items_per_thread)

        for i in range(items_per_thread):
            idx = tid + i * WARP_SIZE
            ptr = px + idx * 4
            ptx.inst.ld.global_.f32(x_vals[i], ptx.addr(ptr))
            ptx.inst.fma.rn.f32(sum_sq, x_vals[i], x_vals[i], sum_sq)

        ptx.warp.reduce_sum(sum_sq)
        mean_sq = reg.scalar(f32)
        inv_n = reg.scalar(f32, init=1.0 / N)
        eps_reg = reg.scalar(f32, init=eps)
        rstd = reg.scalar(f32)
        ptx.inst.mul.f32(mean_sq, sum_sq, inv_n)
        ptx.inst.add.f32(mean_sq, mean_sq, eps_reg)
        ptx.inst.rsqrt.approx.f32(rstd, mean_sq)

        for i in range(items_per_thread):
            idx = tid + i * WARP_SIZE
            off = idx * 4
            w_val = reg.scalar(f32)
            y_val = reg.scalar(f32)
            ptx.inst.ld.global_.f32(w_val, ptx.addr(pw + off))
            ptx.inst.mul.f32(y_val, x_vals[i], rstd)
            ptx.inst.mul.f32(y_val, y_val, w_val)
            ptx.inst.st.global_.f32(ptx.addr(py + off), y_val)
        ptx.ret()

    return rms_norm


@kernel(arch="sm_90a")
def tiny():
    tid = reg.from_(ptx.special.tid.x(), u32)
    x = tid + 1
    ptx.inst.mov.u32(tid, x)
    ptx.ret()


def body(text):
    """The instruction and label lines of a PTX text (no declarations), stripped."""
    start = text.index("{")
    return [l.strip() for l in text[start:].splitlines()
            if l.strip() and not l.strip().startswith((".", "{", "}"))]


def test_tiny_ptx():
    text = tiny.ptx()
    assert text.startswith(".version 8.0\n.target sm_90a\n.address_size 64\n")
    assert ".visible .entry tiny()" in text
    assert body(text) == [
        "mov.u32 %r0, %tid.x;",
        "add.u32 %r1, %r0, 1;",
        "mov.u32 %r0, %r1;",
        "ret;",
    ]


def test_tiny_assembles(assemble):
    assemble(tiny.ptx())


def test_rms_norm_ptxas_accepts(assemble):
    text = build_rms_norm(16, 512).ptx()
    assemble(text, "sm_90a")
    # Parameters in order, named after the Python parameters.
    assert re.search(r"\.entry rms_norm\(\s*\.param \.u64 X,\s*\.param \.u64 W,"
                     r"\s*\.param \.u64 Y\s*\)", text), text
    lines = body(text)
    assert sum(l.startswith("ld.param.u64") for l in lines) == 3
    assert sum(l.startswith("cvta.to.global.u64") for l in lines) == 3
    assert sum(l.startswith("shfl.sync.bfly.b32") for l in lines) == 5
    assert sum(l.startswith("ld.global.f32") for l in lines) == 2 * 512 // 32
    assert sum(l.startswith("st.global.f32") for l in lines) == 512 // 32
    assert any(l.startswith("rsqrt.approx.f32") for l in lines)
    assert "mov.f32 %f0, 0f00000000;" in lines  # sum_sq init=0.0
    assert lines[-1] == "ret;"


def test_rms_norm_launch_config():
    m = build_rms_norm(4, 64).module()
    assert m.grid == (4, 1, 1) and m.block == (32, 1, 1)
    assert "pyptx.func" in m.mlir and "test_seeds.py" in m.mlir
