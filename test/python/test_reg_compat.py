"""pyptx.reg and pyptx.types in the original pyptx's API (docs/api/reg.md,
types.md): Reg.name, RegArray members, wgmma_frag, alloc, the unsigned
instructions of bit-typed operators, special registers in operators."""
import inspect

import pytest

from conftest import line_of
from pyptx import KernelError, kernel, ptx, reg
from pyptx import types as T
from pyptx.errors import PyptxError
from pyptx.types import b32, b64, f16, f16x2, f32, pred, s32, u32, u64
from test_seeds import body


def trace(fn, arch="sm_90a"):
    return kernel(arch=arch)(fn).ptx()


# -- bit-typed registers ----------------------------------------------------------

def test_bit_typed_operators_emit_unsigned_arithmetic_first_and_cached_use(assemble):
    def k():
        a, b = reg.scalar(b32), reg.scalar(b32)
        x = a + 1          # checked path
        y = a + 1          # Module.binary's cached opcode
        z = a + b
        w = a + b          # cached, register operand
        a - 2; a * b; a // b; a % 3; a.max(b); a.min(4)
        a & 0xF; a | b; a ^ b; a << 2; a >> 1
        a < b; a == 1
        a += 5
        a += 5             # cached in place
        ptx.ret()

    text = trace(k)
    assemble(text)
    assert body(text) == [
        "add.u32 %b2, %b0, 1;", "add.u32 %b3, %b0, 1;",
        "add.u32 %b4, %b0, %b1;", "add.u32 %b5, %b0, %b1;",
        "sub.u32 %b6, %b0, 2;", "mul.lo.u32 %b7, %b0, %b1;", "div.u32 %b8, %b0, %b1;",
        "rem.u32 %b9, %b0, 3;", "max.u32 %b10, %b0, %b1;", "min.u32 %b11, %b0, 4;",
        "and.b32 %b12, %b0, 15;", "or.b32 %b13, %b0, %b1;", "xor.b32 %b14, %b0, %b1;",
        "shl.b32 %b15, %b0, 2;", "shr.u32 %b16, %b0, 1;",
        "setp.lt.u32 %p0, %b0, %b1;", "setp.eq.b32 %p1, %b0, 1;",
        "add.u32 %b0, %b0, 5;", "add.u32 %b0, %b0, 5;",
        "ret;"]


def test_b64_pointer_plus_b32_offset_widens_as_unsigned(assemble):
    def k():
        p, off = reg.scalar(b64), reg.scalar(b32)
        q = p + off
        q2 = p + off       # the cached widening plan
        p -= off
        reg.from_(off, u64)                # cvt has no .b32: converts as u32
        ptx.ret()

    text = trace(k)
    assemble(text)
    assert body(text) == [
        "cvt.u64.u32 %rd0, %b0;", "add.u64 %bd1, %bd0, %rd0;",
        "cvt.u64.u32 %rd1, %b0;", "add.u64 %bd2, %bd0, %rd1;",
        "cvt.u64.u32 %rd2, %b0;", "sub.u64 %bd0, %bd0, %rd2;",
        "cvt.u64.u32 %rd3, %b0;", "ret;"]


# -- special registers ----------------------------------------------------------------

def test_operators_on_special_registers_copy_them_first(assemble):
    def k():
        tid = ptx.special.tid.x()
        n = reg.scalar(u32)
        a = tid + 1
        p = tid < 32
        q = 5 < tid            # reflected: tid > 5
        b = n * ptx.special.ntid.x()
        c = tid >> 5
        ptx.ret()

    text = trace(k)
    assemble(text)
    assert body(text) == [
        "mov.u32 %r1, %tid.x;", "add.u32 %r2, %r1, 1;",
        "mov.u32 %r3, %tid.x;", "setp.lt.u32 %p0, %r3, 32;",
        "mov.u32 %r4, %tid.x;", "setp.gt.u32 %p1, %r4, 5;",
        "mov.u32 %r5, %ntid.x;", "mul.lo.u32 %r6, %r0, %r5;",
        "mov.u32 %r7, %tid.x;", "shr.u32 %r8, %r7, 5;",
        "ret;"]


def test_special_registers_are_read_only():
    def k():
        tid = ptx.special.tid.x()
        tid += 1

    with pytest.raises(TypeError, match="read-only special register"):
        trace(k)


def test_reg_constructor_names_special_registers():
    seen = {}

    def k():
        r = reg.Reg("%ctaid.y", u32)
        seen["r"] = (r.name, r.dtype, isinstance(r, reg.Reg))
        ptx.inst.mov.u32(reg.scalar(u32), r)
        with pytest.raises(PyptxError, match="reg.scalar"):
            reg.Reg("%r0", u32)
        ptx.ret()

    assert body(trace(k)) == ["mov.u32 %r0, %ctaid.y;", "ret;"]
    assert seen["r"] == ("%ctaid.y", u32, True)
    assert list(inspect.signature(reg.Reg).parameters) == ["name", "dtype"]


# -- Reg.name -------------------------------------------------------------------------

def test_reg_name_is_the_printed_register():
    names = {}

    def k():
        a = reg.scalar(u32)
        b = a + 1                    # made by the native fast path
        f = reg.array(f32, 3)
        p = a < 3
        names.update(a=a.name, b=b.name, f2=f[2].name, p=p.name,
                     tid=ptx.special.tid.x().name)
        ptx.inst.add.f32(f[2], f[2], 1.0)
        ptx.ret()

    text = trace(k)
    assert names == {"a": "%r0", "b": "%r1", "f2": "%f2", "p": "%p0", "tid": "%tid.x"}
    assert "add.f32 %f2, %f2, 0f3F800000;" in body(text)


# -- RegArray ----------------------------------------------------------------------------

def test_regarray_members():
    got = {}

    def k():
        reg.scalar(f32)
        acc = reg.array(f32, 4)
        got["regs_list"] = acc.regs == list(acc) and len(acc.regs) == 4
        copy = acc.regs()
        copy.pop()
        got["copy"] = len(acc) == 4 and isinstance(copy, list)
        got["count"] = acc.count
        got["base"] = acc.base
        got["hw"] = acc.hw_order(reverse=True) == list(reversed(list(acc)))
        got["hw_plain"] = acc.hw_order() == list(acc)
        got["names"] = [r.name for r in acc]
        got["wrap"] = reg.RegArray(acc.regs, f32).count
        ptx.ret()

    trace(k)
    assert got == {"regs_list": True, "copy": True, "count": 4, "base": "%f", "hw": True,
                   "hw_plain": True, "names": ["%f1", "%f2", "%f3", "%f4"], "wrap": 4}
    # On the class, regs is the documented method regs(self).
    assert list(inspect.signature(reg.RegArray.regs).parameters) == ["self"]
    assert list(inspect.signature(reg.RegArray).parameters) == ["base", "count", "dtype"]


def test_regarray_setitem_writes_the_register_with_one_mov(assemble):
    def k():
        r = reg.array(u32, 3)
        bits = reg.scalar(b32)
        with ptx.loop("again", pred=r[0] < 10):
            r[1] = r[0] + r[2]       # add into a new register, then mov
            r[2] = 7
            r[0] = bits              # another type of the width: mov.b32
            r[2] = r[2]              # itself: nothing
        ptx.ret()

    text = trace(k)
    assemble(text)
    assert body(text) == [
        "setp.lt.u32 %p0, %r0, 10;",
        "again:",
        "add.u32 %r3, %r0, %r2;", "mov.u32 %r1, %r3;",
        "mov.u32 %r2, 7;",
        "mov.b32 %r0, %b0;",
        "@%p0 bra again;",
        "ret;"]


def test_regarray_setitem_rejects_a_value_of_another_width():
    def k():
        r = reg.array(u32, 2)
        r[0] = reg.scalar(u64)  # <- narrow

    with pytest.raises(TypeError, match=r"does not fit a u32 register; convert it"):
        trace(k)


def test_regarray_by_name_is_refused():
    def k():
        reg.RegArray("%r", 4, u32)

    with pytest.raises(PyptxError, match="reg.array"):
        trace(k)


# -- allocation ---------------------------------------------------------------------------

def test_wgmma_frag_sizes():
    got = {}

    def k():
        for dtype in (f32, s32, f16, f16x2):
            frag = reg.wgmma_frag(m=64, n=256, dtype=dtype)
            got[dtype.name] = (len(frag), frag.dtype.name)
        got["named"] = len(reg.wgmma_frag(m=64, n=8, dtype=f32, name="acc"))
        ptx.ret()

    trace(k)
    assert got == {"f32": (128, "f32"), "s32": (128, "s32"), "f16": (64, "f16x2"),
                   "f16x2": (64, "f16x2"), "named": 4}


def test_wgmma_frag_errors_at_the_line():
    def bad_type():
        reg.wgmma_frag(m=64, n=64, dtype=u32)  # <- frag-type

    def bad_shape():
        reg.wgmma_frag(m=64, n=3, dtype=f32)  # <- frag-shape

    with pytest.raises(KernelError, match="wgmma accumulates in f32, s32 or f16, not u32") as e:
        trace(bad_type)
    assert e.value.line == line_of(__file__, "<- frag-type")
    with pytest.raises(KernelError, match=r"m=64 n=3 is no wgmma accumulator shape") as e:
        trace(bad_shape)
    assert e.value.line == line_of(__file__, "<- frag-shape")


def test_alloc_scalar_name_and_from(assemble):
    def k():
        a = reg.alloc(u32)
        arr = reg.alloc_array(f32, 2)
        s = reg.scalar(f32, init=1.5, name="%tmp")
        v = reg.array(u32, 2, name="%v")
        t = reg.from_(src=ptx.special.laneid(), dtype=u32)
        ptx.inst.add.u32(a, t, v[1])
        ptx.inst.add.f32(arr[0], arr[1], s)
        ptx.ret()

    text = trace(k)
    assemble(text)
    assert body(text) == ["mov.f32 %f2, 0f3FC00000;", "mov.u32 %r3, %laneid;",
                          "add.u32 %r0, %r3, %r2;", "add.f32 %f0, %f1, %f2;", "ret;"]
    with pytest.raises(ValueError, match="count must be > 0"):
        trace(lambda: reg.alloc_array(f32, 0))


def test_int_register_or_predicate_is_the_pipe_operand(assemble):
    def k():
        lane, elected = reg.scalar(b32), reg.scalar(pred)
        ptx.inst.elect.sync(lane | elected, -1)
        p, q = reg.scalar(pred), reg.scalar(pred)
        r = p | q                         # two predicates: or.pred
        ptx.ret()

    text = trace(k)
    assemble(text)
    assert body(text) == ["elect.sync %b0|%p0, -1;", "or.pred %p3, %p1, %p2;", "ret;"]
    assert reg.PipeRef is __import__("pyptx._operands", fromlist=["Pipe"]).Pipe


# -- types -----------------------------------------------------------------------------------

def test_ptxtype_constructor_and_from_name():
    t = T.PtxType("u32", 32)
    assert (t.name, t.bits, t.kind, t.reg_type, t.ptx) == ("u32", 32, "u", "u32", ".u32")
    assert T.PtxType("b16", 16).kind == "b"
    assert T.PtxType("bf16", 16).kind == "f"
    assert T.PtxType("pred", 1).kind == "pred"
    assert T.PtxType("bf16", 16, "f", "b16").reg_type == "b16"
    assert T.from_name("f32") is T.f32
    assert T.from_name(".bf16x2") is T.bf16x2
    with pytest.raises(ValueError, match="unknown PTX type name 'q32'"):
        T.from_name("q32")
