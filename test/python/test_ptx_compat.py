"""pyptx.ptx in the original pyptx's API (docs/api/ptx.md): the type-first
typed wrappers, param / cvta / sreg, ptx.inst's return value and string
immediates, pipe chains, named loops, kloop, expr, addr -- each one's exact
PTX, and ptxas assembling kernels that use them. Our own forms keep working
beside them."""
import inspect

import pytest

from conftest import line_of
from pyptx import KernelError, kernel, ptx, reg, smem
from pyptx.types import b32, b64, f32, f64, pred, s32, u32, u64
from test_seeds import body


def trace(fn, arch="sm_90a", **kw):
    return kernel(arch=arch, **kw)(fn).ptx()


# -- typed wrappers, the original's (dtype, dst, ...) form ---------------------------------

ARCHS = ("sm_80", "sm_90a", "sm_100a")


@pytest.mark.parametrize("arch", ARCHS)
def test_arithmetic_wrappers_exact_ptx(assemble, arch):
    def k():
        a, b, c = reg.scalar(u32), reg.scalar(u32), reg.scalar(u32)
        w = reg.scalar(u64)
        f, g = reg.scalar(f32), reg.scalar(f32)
        bb, s, p = reg.scalar(b32), reg.scalar(s32), reg.scalar(pred)
        ptx.mov(u32, a, 7)
        ptx.mov(b32, bb, a)
        ptx.add(u32, a, b, c)
        ptx.add(b32, bb, bb, 1)                  # .b32 adds as .u32
        ptx.add(f32, f, f, 1.0, pred=p)
        ptx.sub(s32, s, s, 2)
        ptx.mul(u32, a, b, c)                    # integers default to .lo
        ptx.mul(u32, w, b, c, mode="wide")
        ptx.mul(u32, a, b, c, mode="hi")
        ptx.mul(f32, f, f, g)
        ptx.mad(s32, s, s, s, s)
        ptx.mad(f32, f, f, g, f)                 # floats: mad.rn
        d = ptx.mad(a, b, 3)                     # expression form: a new register
        e = ptx.mad(a, 4, w, mode="wide")        # ... twice as wide for .wide
        ptx.shl(b32, bb, bb, 2)
        ptx.shl(u32, a, a, 2)                    # shl is .bN
        ptx.shr(u32, a, a, 2)
        ptx.shr(s32, s, s, 1)
        ptx.and_(b32, bb, bb, 0xFF)
        ptx.or_(u32, a, a, b)                    # bitwise ops are .bN
        ptx.xor_(pred, p, p, p)
        ptx.not_(b32, bb, bb, pred=~p)
        assert (d.dtype, e.dtype) == (u32, u64)
        ptx.ret()

    text = trace(k, arch)
    assemble(text, arch)
    assert body(text) == [
        "mov.u32 %r0, 7;", "mov.b32 %b0, %r0;",
        "add.u32 %r0, %r1, %r2;", "add.u32 %b0, %b0, 1;",
        "@%p0 add.f32 %f0, %f0, 0f3F800000;", "sub.s32 %s0, %s0, 2;",
        "mul.lo.u32 %r0, %r1, %r2;", "mul.wide.u32 %rd0, %r1, %r2;",
        "mul.hi.u32 %r0, %r1, %r2;", "mul.f32 %f0, %f0, %f1;",
        "mad.lo.s32 %s0, %s0, %s0, %s0;", "mad.rn.f32 %f0, %f0, %f1, %f0;",
        "mad.lo.u32 %r3, %r0, %r1, 3;", "mad.wide.u32 %rd1, %r0, 4, %rd0;",
        "shl.b32 %b0, %b0, 2;", "shl.b32 %r0, %r0, 2;",
        "shr.u32 %r0, %r0, 2;", "shr.s32 %s0, %s0, 1;",
        "and.b32 %b0, %b0, 255;", "or.b32 %r0, %r0, %r1;", "xor.pred %p0, %p0, %p0;",
        "@!%p0 not.b32 %b0, %b0;",
        "ret;"]


@pytest.mark.parametrize("arch", ARCHS)
def test_compare_select_convert_wrappers_exact_ptx(assemble, arch):
    def k():
        a, b, c = reg.scalar(u32), reg.scalar(u32), reg.scalar(u32)
        f, g = reg.scalar(f32), reg.scalar(f32)
        bb, s, p = reg.scalar(b32), reg.scalar(s32), reg.scalar(pred)
        w, d = reg.scalar(u64), reg.scalar(f64)
        out = ptx.setp("lt", s32, p, s, 0)
        ptx.setp("ge", b32, p, bb, 3, pred_negate=~p)   # ordered .b32 compares .u32
        ptx.setp("ne", b32, p, bb, 0)
        ptx.selp(u32, a, b, c, p)
        ptx.selp("f32", f, 1.0, 0.0, p, pred=p)
        ptx.cvt(f32, s32, f, s)                  # int -> float: .rn by default
        ptx.cvt(s32, f32, s, f)                  # float -> int: .rzi by default
        ptx.cvt(s32, f32, s, f, rounding="rni")
        ptx.cvt(f32, f32, f, g, ftz=True, sat=True)
        ptx.cvt(f32, f64, f, d)                  # narrowing: .rn
        ptx.cvt(f64, f32, d, f)                  # widening: exact
        ptx.cvt(u64, u32, w, a, pred=~p)
        assert out is p
        ptx.ret()

    text = trace(k, arch)
    assemble(text, arch)
    assert body(text) == [
        "setp.lt.s32 %p0, %s0, 0;", "@!%p0 setp.ge.u32 %p0, %b0, 3;",
        "setp.ne.b32 %p0, %b0, 0;",
        "selp.u32 %r0, %r1, %r2, %p0;", "@%p0 selp.f32 %f0, 0f3F800000, 0f00000000, %p0;",
        "cvt.rn.f32.s32 %f0, %s0;", "cvt.rzi.s32.f32 %s0, %f0;",
        "cvt.rni.s32.f32 %s0, %f0;", "cvt.ftz.sat.f32.f32 %f0, %f1;",
        "cvt.rn.f32.f64 %f0, %fd0;", "cvt.f64.f32 %fd0, %f0;",
        "@!%p0 cvt.u64.u32 %rd0, %r0;",
        "ret;"]


@pytest.mark.parametrize("arch", ARCHS)
def test_memory_wrappers_exact_ptx(assemble, arch):
    def k(X):
        px, = ptx.global_ptrs(X)
        f, g = reg.scalar(f32), reg.scalar(f32)
        v = reg.array(f32, 4)
        p = reg.scalar(pred)
        buf = smem.alloc(f32, (64,))
        ptx.ld(f32, f, px)
        ptx.ld(f32, g, ptx.addr(px, 16), cache="ca")
        ptx.ld(f32, [f, g], px)                  # a list: .v2
        ptx.ld(f32, v, px, cache="cs")           # a RegArray of 4: .v4
        ptx.ld(f32, f, buf, space="shared")
        ptx.ld(f32, f, px, space="generic")      # no state space
        ptx.st(f32, px, f, cache="wb", pred=p)
        ptx.st(f32, ptx.addr(px, 8), [f, g])
        ptx.st(f32, ptx.addr(buf, 4), f, space="shared__cta")
        ptx.ret()

    text = kernel(arch=arch)(k).ptx()
    assemble(text, arch)
    assert body(text)[2:] == [
        "ld.global.f32 %f0, [%rd1];", "ld.global.ca.f32 %f1, [%rd1+16];",
        "ld.global.v2.f32 {%f0, %f1}, [%rd1];",
        "ld.global.cs.v4.f32 {%f2, %f3, %f4, %f5}, [%rd1];",
        "ld.shared.f32 %f0, [smem_0];", "ld.f32 %f0, [%rd1];",
        "@%p0 st.global.wb.f32 [%rd1], %f0;", "st.global.v2.f32 [%rd1+8], {%f0, %f1};",
        "st.shared::cta.f32 [smem_0+4], %f0;",
        "ret;"]


def test_our_forms_keep_working_beside_the_original(assemble):
    def k(X):
        px, = ptx.global_ptrs(X)
        a, b = reg.scalar(f32), reg.scalar(f32)
        n, bits = reg.scalar(u32), reg.scalar(b32)
        p = reg.scalar(pred)
        ptx.mov(a, 1.0)
        ptx.add(bits, bits, 1)                   # b32 destination: add.u32
        ptx.mul(n, n, 3)
        ptx.max(a, a, b)
        ptx.min(u32, n, n, 9)                    # ours-only names take the type first too
        ptx.ld(a, px, "global.nc")               # space positionally
        q = ptx.setp("gt", a, b)
        ptx.setp("lt", n, 4, p)                  # into an existing predicate
        ptx.selp(a, a, b, q, p)                  # guard positionally
        ptx.cvt(n, a, "rni")
        ptx.cvt(a, n, rnd="rz")
        ptx.st(px, a, "global", pred=q)
        ptx.and_(bits, bits, 7)
        ptx.ret()

    text = kernel(arch="sm_90a")(k).ptx()
    assemble(text)
    assert body(text)[2:] == [
        "mov.f32 %f0, 0f3F800000;", "add.u32 %b0, %b0, 1;", "mul.lo.u32 %r0, %r0, 3;",
        "max.f32 %f0, %f0, %f1;", "min.u32 %r0, %r0, 9;",
        "ld.global.nc.f32 %f0, [%rd1];", "setp.gt.f32 %p1, %f0, %f1;",
        "setp.lt.u32 %p0, %r0, 4;", "@%p0 selp.f32 %f0, %f0, %f1, %p1;",
        "cvt.rni.u32.f32 %r0, %f0;", "cvt.rz.f32.u32 %f0, %r0;",
        "@%p1 st.global.f32 [%rd1], %f0;", "and.b32 %b0, %b0, 7;",
        "ret;"]


def test_wrapper_mistakes_fail_at_the_line():
    def float_mode():
        f = reg.scalar(f32)
        ptx.mul(f32, f, f, f, mode="hi")  # <- float-mode

    def bad_cmp():
        r = reg.scalar(u32)
        ptx.setp("less", u32, reg.scalar(pred), r, r)  # <- bad-cmp

    def mad_arity():
        r = reg.scalar(u32)
        ptx.mad(u32, r, r, r)  # <- mad-arity

    for fn, marker, message in (
            (float_mode, "<- float-mode", "mul.hi is integer-only; f32 mul has no mode"),
            (bad_cmp, "<- bad-cmp", "setp compares with one of eq, equ, ge"),
            (mad_arity, "<- mad-arity", r"ptx.mad\(dtype, dst, a, b, c\) takes 5 arguments")):
        with pytest.raises(KernelError, match=message) as e:
            trace(fn)
        assert e.value.line == line_of(__file__, marker)


def test_wrapper_signatures_are_the_originals():
    sig = lambda f: str(inspect.signature(f))  # noqa: E731
    assert sig(ptx.mov).startswith("(dtype, dst, src")
    assert sig(ptx.mul).startswith("(dtype, dst, a, b=None, *, mode=None, pred=None")
    assert sig(ptx.setp).startswith("(cmp_op, dtype, pred_out=None, a=None, b=None, *, "
                                    "pred_negate=None")
    assert sig(ptx.cvt).startswith("(dst_type, src_type=None, dst=None, src=None, *, "
                                   "rounding=None, ftz=False, sat=False, pred=None")
    assert sig(ptx.ld) == "(dtype, dst, addr=None, *, space='global', cache=None, pred=None)"
    assert sig(ptx.st) == "(dtype, addr, src=None, *, space='global', cache=None, pred=None)"
    assert sig(ptx.mad) == "(*args, mode='lo', pred=None)"
    assert ptx.TYPED_WRAPPER_CODEGEN["setp"] is ptx.setp


# -- parameters, cvta, special registers ---------------------------------------------------

def test_param_scalar_array_and_cvta(assemble):
    def k(X):
        n = ptx.param(u32, "K")
        mine = reg.scalar(u32)
        again = ptx.param(u32, "K", dst=mine)
        desc = ptx.param(b64, "tmap")            # array parameter: its address
        generic = ptx.cvta.param(desc)
        raw = ptx.param(X)                       # ours: u64 by default
        g = ptx.cvta.to_global(raw)
        ptx.cvta.to_global(raw, dst=g)
        assert again is mine and n.dtype == u32
        ptx.ret()

    text = kernel(arch="sm_90a", raw_params=[("u32", "K"), ("b8.align64.array128", "tmap")])(
        k).ptx()
    assemble(text)
    assert body(text) == [
        "ld.param.u32 %r0, [K];", "ld.param.u32 %r1, [K];",
        "mov.b64 %bd0, tmap;", "cvta.param.u64 %rd0, %bd0;",
        "ld.param.u64 %rd1, [X];", "cvta.to.global.u64 %rd2, %rd1;",
        "cvta.to.global.u64 %rd2, %rd1;", "ret;"]
    assert "cvta.param" in repr(ptx.cvta.param.u64)   # the raw spelling still works


def test_special_register_helpers(assemble):
    def k():
        for r in (ptx.sreg("%cluster_ctarank"), ptx.sreg("smid"), ptx.ctaid_x(), ptx.ctaid_y(),
                  ptx.special.tid.y(), ptx.special.ntid.z(), ptx.special.nctaid.x(),
                  ptx.special.laneid(), ptx.special.warpid(), ptx.special.clock()):
            ptx.mov(u32, reg.scalar(u32), r)
        ptx.ret()

    text = trace(k)
    assemble(text)
    assert [line.split(", ")[1] for line in body(text)[:-1]] == [
        "%cluster_ctarank;", "%smid;", "%ctaid.x;", "%ctaid.y;", "%tid.y;", "%ntid.z;",
        "%nctaid.x;", "%laneid;", "%warpid;", "%clock;"]


# -- ptx.inst ----------------------------------------------------------------------------------

def test_inst_returns_the_destination_and_reads_string_immediates(assemble):
    got = {}

    def k():
        s, bits, f = reg.scalar(s32), reg.scalar(b32), reg.scalar(f32)
        d = reg.scalar(f64)
        t = ptx.inst.add.s32(s, s, "-1")
        got["returned"] = t is s
        got["no_operands"] = ptx.inst.membar.gl()
        got["guarded"] = ptx.inst.mov.b32(bits, "0x1F", pred=reg.pred(True)) is bits
        ptx.inst.mov.f32(f, "0f3F800000")
        ptx.inst.mov.f64(d, "0d3FF0000000000000")
        ptx.inst.and_.b32(bits, bits, "0b1010")
        ptx.inst.mov.b32(bits, "017")
        ptx.inst.ret()

    text = trace(k)
    assemble(text)
    assert got == {"returned": True, "no_operands": None, "guarded": True}
    assert body(text) == [
        "add.s32 %s0, %s0, -1;", "membar.gl;", "mov.pred %p0, 1;",
        "@%p0 mov.b32 %b0, 31;", "mov.f32 %f0, 0f3F800000;",
        "mov.f64 %fd0, 0d3FF0000000000000;", "and.b32 %b0, %b0, 10;",
        "mov.b32 %b0, 15;", "ret;"]


def test_string_operands_that_are_not_numbers_stay_symbols():
    def k():
        buf = smem.alloc(u32, (4,), name="buf")
        r = reg.scalar(u32)
        ptx.inst.mov.u32(r, "buf")
        ptx.inst.add.u32(r, r, "12abc")  # <- not-a-number

    with pytest.raises(TypeError, match="'12abc' is neither a PTX immediate"):
        trace(k)


# -- pipes ---------------------------------------------------------------------------------

def test_pipe_chain_and_pipe_operand(assemble):
    got = {}

    def k():
        r = reg.scalar(u32)
        a, b, c = reg.scalar(u32), reg.scalar(b32), reg.scalar(u32)
        chain = ptx.pipe(r).add.u32(a, -8192).and_.b32(b, 262016).shr.u32(c, 4)
        got["end"] = chain.value is c
        lane, elected = reg.scalar(b32), reg.scalar(pred)
        ptx.inst.elect.sync(ptx.pipe(lane, elected), -1)
        ptx.ret()

    text = trace(k)
    assemble(text)
    assert got == {"end": True}
    assert body(text) == ["add.u32 %r1, %r0, -8192;", "and.b32 %b0, %r1, 262016;",
                          "shr.u32 %r2, %b0, 4;", "elect.sync %b1|%p0, -1;", "ret;"]


# -- control flow ----------------------------------------------------------------------------

def test_named_loops(assemble):
    def k():
        i = reg.scalar(u32, init=0)
        p = reg.scalar(pred)
        with ptx.loop("k_loop", pred=p):
            i += 1
            ptx.setp("lt", u32, p, i, 8)
        with ptx.loop("spin", pred=~p):
            ptx.setp("eq", u32, p, i, 0)
        with ptx.loop("tile_loop") as tiles:
            tiles.break_(pred=i == 3)
            i -= 1
        with ptx.loop("forever"):
            ptx.bra("out")
        ptx.label("out")
        ptx.ret()

    text = trace(k)
    assemble(text)
    assert body(text) == [
        "mov.u32 %r0, 0;",
        "k_loop:", "add.u32 %r0, %r0, 1;", "setp.lt.u32 %p0, %r0, 8;", "@%p0 bra k_loop;",
        "spin:", "setp.eq.u32 %p0, %r0, 0;", "@!%p0 bra spin;",
        "tile_loop:", "setp.eq.u32 %p1, %r0, 3;", "@%p1 bra tile_loop_end;",
        "sub.u32 %r0, %r0, 1;", "bra.uni tile_loop;", "tile_loop_end:",
        "forever:", "bra out;", "bra.uni forever;",
        "out:", "ret;"]


def test_kloop_register_total(assemble):
    def k():
        total = reg.scalar(s32, init=9)
        acc = reg.scalar(s32, init=0)

        def body_():
            acc.__iadd__(1)

        ptx.kloop(total, unroll=4, body=body_, loop_label="main")
        ptx.ret()

    text = trace(k)
    assemble(text)
    assert body(text) == [
        "mov.s32 %s0, 9;", "mov.s32 %s1, 0;",
        "and.b32 %s2, %s0, 3;", "sub.s32 %s3, %s0, %s2;",
        "setp.ge.s32 %p0, %s0, 4;", "@!%p0 bra $L__if0_false;",
        "main:", *["add.s32 %s1, %s1, 1;"] * 4,
        "sub.s32 %s3, %s3, 4;", "setp.ne.s32 %p1, %s3, 0;", "@%p1 bra main;",
        "$L__if0_false:",
        "setp.ne.s32 %p2, %s2, 0;", "@!%p2 bra $L__if1_false;", "add.s32 %s1, %s1, 1;",
        "setp.ne.s32 %p3, %s2, 1;", "@!%p3 bra $L__if2_false;", "add.s32 %s1, %s1, 1;",
        "setp.ne.s32 %p4, %s2, 2;", "@!%p4 bra $L__if3_false;", "add.s32 %s1, %s1, 1;",
        "$L__if3_false:", "$L__if2_false:", "$L__if1_false:",
        "ret;"]


def test_kloop_int_total_and_unroll_one(assemble):
    def k():
        n = reg.scalar(u32, init=5)
        acc = reg.scalar(u32, init=0)
        ptx.kloop(3, unroll=2, body=lambda: acc.__iadd__(2))
        ptx.kloop(n, unroll=1, body=lambda: acc.__iadd__(1))
        ptx.ret()

    text = trace(k)
    assemble(text)
    assert body(text) == [
        "mov.u32 %r0, 5;", "mov.u32 %r1, 0;", *["add.u32 %r1, %r1, 2;"] * 3,
        "mov.u32 %r2, %r0;", "setp.ge.u32 %p0, %r0, 1;", "@!%p0 bra $L__if0_false;",
        "kloop:", "add.u32 %r1, %r1, 1;", "sub.u32 %r2, %r2, 1;",
        "setp.ne.u32 %p1, %r2, 0;", "@%p1 bra kloop;", "$L__if0_false:", "ret;"]


def test_kloop_mistakes_fail_at_the_line():
    def bad_unroll():
        ptx.kloop(reg.scalar(u32), unroll=3, body=lambda: None)  # <- unroll3

    def bad_total():
        ptx.kloop(reg.scalar(f32), unroll=2, body=lambda: None)  # <- float-total

    for fn, marker, message in ((bad_unroll, "<- unroll3", "power of two"),
                                (bad_total, "<- float-total", "integer register")):
        with pytest.raises(KernelError, match=message) as e:
            trace(fn)
        assert e.value.line == line_of(__file__, marker)


def test_expr_emits_the_same_ptx():
    def plain():
        r = reg.scalar(u32)
        x = ((r - 8192) & 0x3FF80) >> 4
        ptx.ret()

    def grouped():
        r = reg.scalar(u32)
        with ptx.expr():
            x = ((r - 8192) & 0x3FF80) >> 4
        ptx.ret()

    assert body(trace(grouped)) == body(trace(plain)) == [
        "sub.u32 %r1, %r0, 8192;", "and.b32 %r2, %r1, 262016;", "shr.u32 %r3, %r2, 4;",
        "ret;"]


def test_range_counts_signed_when_a_bound_is_negative(assemble):
    def k():
        for i in ptx.range_(-4, 4, 2):
            ptx.inst.bar.sync(0)
        ptx.ret()

    text = trace(k)
    assemble(text)
    assert body(text)[:3] == ["mov.s32 %s0, -4;", "$L__range0:", "setp.ge.s32 %p0, %s0, 4;"]


# -- addresses ---------------------------------------------------------------------------------

def test_addr_forms(assemble):
    def k():
        p = reg.scalar(u64)
        buf = smem.alloc(u32, (16,))
        bar = smem.mbarrier(2)
        r = reg.scalar(u32)
        ptx.inst.ld.global_.u32(r, ptx.addr(p))
        ptx.inst.ld.global_.u32(r, ptx.addr(p, 16))
        ptx.inst.ld.global_.u32(r, ptx.addr(p, "0x10"))
        ptx.inst.ld.global_.u32(r, ptx.addr(p, -4))
        ptx.inst.ld.shared.u32(r, ptx.addr(buf, 8))
        ptx.inst.ld.shared.u32(r, ptx.addr(ptx.addr(buf, 8), 4))
        ptx.inst.ld.shared.u32(r, ptx.addr(buf, -4), pred=reg.pred(True))
        ptx.inst.mbarrier.init.shared__cta.b64(ptx.addr(bar[1]), 1)
        ptx.ret()

    text = trace(k)
    assemble(text)
    assert body(text) == [
        "ld.global.u32 %r0, [%rd0];", "ld.global.u32 %r0, [%rd0+16];",
        "ld.global.u32 %r0, [%rd0+16];", "ld.global.u32 %r0, [%rd0+-4];",
        "ld.shared.u32 %r0, [smem_0+8];", "ld.shared.u32 %r0, [smem_0+12];",
        "mov.pred %p0, 1;", "@%p0 ld.shared.u32 %r0, [smem_0+-4];",
        "mbarrier.init.shared::cta.b64 [mbar_0+8], 1;", "ret;"]


def test_addr_register_offset_is_an_error_at_the_line():
    def k():
        p, off = reg.scalar(u64), reg.scalar(u64)
        ptx.addr(p, off)  # <- reg-offset

    def k2():
        ptx.addr(reg.scalar(u64), "sym")  # <- sym-offset

    with pytest.raises(KernelError, match=r"no \[reg\+reg\] form; add the register first") as e:
        trace(k)
    assert e.value.line == line_of(__file__, "<- reg-offset")
    with pytest.raises(KernelError, match="offset 'sym' is not an integer") as e:
        trace(k2)
    assert e.value.line == line_of(__file__, "<- sym-offset")


# -- the rest of the namespace ---------------------------------------------------------------

def test_warp_reduce_takes_the_original_arguments(assemble):
    def k():
        v = reg.scalar(b32)
        ptx.warp.reduce_max(val=v, width=4)
        ptx.ret()

    text = trace(k)
    assemble(text)
    assert body(text) == [
        "shfl.sync.bfly.b32 %b1, %b0, 2, 7199, -1;", "max.u32 %b0, %b0, %b1;",
        "shfl.sync.bfly.b32 %b1, %b0, 1, 7199, -1;", "max.u32 %b0, %b0, %b1;", "ret;"]


def test_directives_are_reexported():
    from pyptx import _directives
    for name in ("raw", "var", "pragma", "loc", "file_"):
        assert getattr(ptx, name) is getattr(_directives, name)


def test_a_kernel_written_for_the_original_traces_and_assembles(assemble):
    """The prologue/loop idioms of the original's examples (rms_norm,
    gemm_highperf_hopper), unmodified."""
    from pyptx.types import b16

    def persistent(X, Y):
        K_param = ptx.param(u32, "K")
        px, py = ptx.global_ptrs(X, Y)
        cluster_rank = reg.scalar(u32)
        ptx.inst.mov.u32(cluster_rank, ptx.sreg("%clusterid.x"))
        tid = reg.scalar(u32)
        ptx.inst.mov.u32(tid, ptx.special.tid.x())
        wg_idx = reg.scalar(u32); wg_idx = tid >> 7
        lane128 = reg.scalar(u32); lane128 = tid & 127
        row_byte_off = ptx.ctaid_x() * 16
        px += row_byte_off
        num_blocks_k = reg.scalar(s32)
        ptx.inst.shr.s32(num_blocks_k, K_param, 6)
        ptx.bra("producer_entry", pred=(wg_idx == 0))
        consumer_id = reg.scalar(u32)
        ptx.inst.sub.u32(consumer_id, wg_idx, 1)
        acc = reg.array(f32, 8)
        frag = acc.hw_order(reverse=True)
        tile_iter = reg.scalar(u32, init=0)
        with ptx.loop("consumer_tile_loop"):
            tile_packed = reg.scalar(u32)
            ptx.inst.ld.global_.u32(tile_packed, ptx.addr(px + (tile_iter << 2)))
            ptx.bra("consumer_exit", pred=(tile_packed == -1))
            block_m = tile_packed >> 16
            ptx.inst.mad.lo.s32(block_m, block_m, 2, consumer_id)
            max_k = num_blocks_k.max(2)
            remaining = reg.scalar(s32)
            ptx.inst.add.s32(remaining, max_k, -1)
            ptx.kloop(remaining, unroll=2, loop_label="consumer_pair_loop",
                      body=lambda: ptx.inst.add.f32(frag[0], frag[0], frag[1]))
            with ptx.if_(lane128 == 0):
                ptx.inst.st.global_.f32(ptx.addr(py), acc[0])
            tile_iter += 1
        ptx.label("consumer_exit")
        ptx.ret()
        ptx.label("producer_entry")
        mask = reg.scalar(b16)
        ptx.inst.mov.u16(mask, 3)
        with ptx.if_(lane128 == 0):
            p_k = reg.scalar(u32, init=0)

            def step(p_k=p_k):
                p_k += 1

            ptx.kloop(num_blocks_k, unroll=4, loop_label="producer_chunk_loop", body=step)
        ptx.ret()

    text = kernel(arch="sm_90a", raw_params=[("u32", "K")])(persistent).ptx()
    assemble(text)
    lines = body(text)
    assert "ld.param.u32 %r0, [K];" in lines
    assert "mov.u32 %r1, %clusterid.x;" in lines
    assert "mov.u32 %r7, %ctaid.x;" in lines and "mul.lo.u32 %r8, %r7, 16;" in lines
    assert lines.count("consumer_pair_loop:") == lines.count("producer_chunk_loop:") == 1
    assert "@%p1 bra consumer_exit;" in lines and "bra.uni consumer_tile_loop;" in lines
