"""Register operators: one instruction each, types and mixed widths."""
import pytest

from pyptx import kernel, ptx, reg
from pyptx.types import f32, f64, s32, u32, u64
from test_seeds import body


def trace(fn, arch="sm_90a"):
    return body(kernel(arch=arch)(fn).ptx())


def test_integer_operators_one_instruction_each():
    def k():
        a = reg.scalar(u32)
        b = reg.scalar(u32)
        a + b; a - 3; a * 4; a // b; a % 8; a & 0xF; a | b; a ^ b; a << 2; a >> 1
        1 - a
        ptx.ret()

    assert trace(k) == [
        "add.u32 %r2, %r0, %r1;", "sub.u32 %r3, %r0, 3;", "mul.lo.u32 %r4, %r0, 4;",
        "div.u32 %r5, %r0, %r1;", "rem.u32 %r6, %r0, 8;", "and.b32 %r7, %r0, 15;",
        "or.b32 %r8, %r0, %r1;", "xor.b32 %r9, %r0, %r1;", "shl.b32 %r10, %r0, 2;",
        "shr.u32 %r11, %r0, 1;", "sub.u32 %r12, 1, %r0;", "ret;"]


def test_in_place_reuses_the_destination():
    def k():
        a = reg.scalar(s32)
        a += 5
        a >>= 1
        a *= a
        ptx.ret()

    assert trace(k) == ["add.s32 %s0, %s0, 5;", "shr.s32 %s0, %s0, 1;",
                        "mul.lo.s32 %s0, %s0, %s0;", "ret;"]


def test_mixed_width_widens_with_cvt_then_operates_wide():
    def k():
        p = reg.scalar(u64)
        off = reg.scalar(u32)
        p += off
        q = off + p
        ptx.ret()

    assert trace(k) == ["cvt.u64.u32 %rd1, %r0;", "add.u64 %rd0, %rd0, %rd1;",
                        "cvt.u64.u32 %rd2, %r0;", "add.u64 %rd3, %rd2, %rd0;", "ret;"]


def test_in_place_cannot_narrow():
    def k():
        off = reg.scalar(u32)
        off += reg.scalar(u64)

    with pytest.raises(TypeError, match="narrow"):
        trace(k)


def test_comparisons_make_predicates_and_float_immediates():
    def k():
        x = reg.scalar(f32, init=1.0)
        d = reg.scalar(f64, init=0.5)
        p = x < 2
        q = d >= 0.25
        y = x * 0.5
        ptx.ret()

    assert trace(k) == ["mov.f32 %f0, 0f3F800000;", "mov.f64 %fd0, 0d3FE0000000000000;",
                        "setp.lt.f32 %p0, %f0, 0f40000000;",
                        "setp.ge.f64 %p1, %fd0, 0d3FD0000000000000;",
                        "mul.f32 %f1, %f0, 0f3F000000;", "ret;"]


def test_float_errors():
    def floordiv():
        reg.scalar(f32) // 2

    def shift():
        reg.scalar(f32) << 1

    with pytest.raises(TypeError, match="integer"):
        trace(floordiv)
    with pytest.raises(TypeError, match="integer"):
        trace(shift)


def test_from_converts_or_moves():
    def k():
        t = ptx.special.tid.x()
        a = reg.from_(t, u64)
        b = reg.from_(t, f32)
        c = reg.from_(b, s32)
        ptx.ret()

    # ptxas takes a special register in a plain cvt, not in a rounding one:
    # that one copies it first.
    assert trace(k) == ["cvt.u64.u32 %rd0, %tid.x;", "mov.u32 %r0, %tid.x;",
                        "cvt.rn.f32.u32 %f0, %r0;", "cvt.rzi.s32.f32 %s0, %f0;", "ret;"]


def test_array_and_predicate_ops():
    def k():
        regs = reg.array(u32, 3)
        p = regs[0] == regs[1]
        q = regs[2] != 0
        r = p & q
        s = p ^ q
        ptx.ret()

    assert len(trace(k)) == 5
    assert trace(k)[2:4] == ["and.pred %p2, %p0, %p1;", "xor.pred %p3, %p0, %p1;"]


def test_warp_reductions(assemble):
    @kernel(arch="sm_90a")
    def k():
        v = reg.scalar(u32, init=1)
        ptx.warp.reduce_max(v, width=8)
        f = reg.scalar(f32, init=1.0)
        ptx.warp.reduce_min(f)
        ptx.ret()

    text = k.ptx()
    assemble(text)
    lines = body(text)
    # width 8: offsets 4, 2, 1 and the segment mask (32-8)<<8 | 31 = 6175
    assert [l for l in lines if "shfl" in l][:3] == [
        "shfl.sync.bfly.b32 %r1, %r0, 4, 6175, -1;",
        "shfl.sync.bfly.b32 %r1, %r0, 2, 6175, -1;",
        "shfl.sync.bfly.b32 %r1, %r0, 1, 6175, -1;"]
    assert lines.count("max.u32 %r0, %r0, %r1;") == 3
    assert lines.count("min.f32 %f0, %f0, %f1;") == 5


def test_inst_operands_read_natively():
    # ptx.inst's fast path reads registers and [r+off] addresses in C++;
    # every other operand goes through the Python conversion.
    def k():
        p = reg.scalar(u64)
        x = reg.scalar(f32)
        ptx.inst.ld.global_.f32(x, ptx.addr(p, -8))
        ptx.inst.st.global_.f32(ptx.addr(p, 16), x)
        ptx.inst.st.global_.v2.f32(ptx.addr(p), [x, x])
        ptx.inst.mov.f32(x, 1.5)
        lane = reg.scalar(u32)
        ptx.inst.mov.u32(lane, ptx.special.laneid())  # ptxas: no special register in mov.f32
        ptx.ret()

    assert trace(k) == [
        "ld.global.f32 %f0, [%rd0+-8];", "st.global.f32 [%rd0+16], %f0;",
        "st.global.v2.f32 [%rd0], {%f0, %f0};", "mov.f32 %f0, 0f3FC00000;",
        "mov.u32 %r0, %laneid;", "ret;"]


def test_register_of_another_trace_is_refused():
    kept = []

    def first():
        kept.append(reg.scalar(u32))
        ptx.ret()

    kernel(arch="sm_90a")(first).ptx()

    def second():
        r = reg.scalar(u32)
        ptx.inst.mov.u32(r, kept[0])

    with pytest.raises(ValueError, match="another kernel trace"):
        kernel(arch="sm_90a")(second).ptx()


def test_native_operator_results_are_full_registers():
    # Module.binary makes the result Reg itself; it must be the same as one
    # Python makes: usable again, typed, of this trace.
    from pyptx.reg import Reg
    seen = {}

    def k():
        a = reg.scalar(u32)
        b = a + 1          # checked in Python, then cached
        c = a + 2          # made natively
        d = c * b
        d += c
        seen.update(b=b, c=c, d=d)
        ptx.inst.mov.u32(a, d)
        ptx.ret()

    assert trace(k) == ["add.u32 %r1, %r0, 1;", "add.u32 %r2, %r0, 2;",
                        "mul.lo.u32 %r3, %r2, %r1;", "add.u32 %r3, %r3, %r2;",
                        "mov.u32 %r0, %r3;", "ret;"]
    c = seen["c"]
    assert type(c) is Reg and c.dtype is u32 and c.special is None
    assert c.ctx is seen["b"].ctx and repr(c) == "Reg(#2, u32)"
