"""Warp-level helpers (pyptx.hw.warp): ptx.mma.sync, ldmatrix, stmatrix,
stmatrix_x4_trans_f32_bf16, elect_sync -- the exact PTX line each emits,
ptxas accepting it for its targets, and each check's message at the
author's line."""
import inspect
import os

import pytest

from conftest import line_of
from pyptx import KernelError, kernel, ptx, reg, smem
from pyptx.hw import warp
from pyptx.types import (PtxType, b16, b32, bf16, e4m3, e5m2, f16, f16x2, f32, f64, s8, s32,
                         tf32, u8, u32, u64)

HERE = os.path.abspath(__file__)
s4 = PtxType("s4", 4, "s")  # pyptx.types has no sub-byte types; mma.sync takes them
b1 = PtxType("b1", 1, "b")


def body(text):
    """The instruction lines of a kernel's PTX (no declarations)."""
    lines = [line.strip() for line in text.splitlines()]
    return [line for line in lines if line and not line.startswith((".", "{", "}", "//"))
            and not line.endswith(")") and not line.startswith("(")]


def trace(fn, arch="sm_90a"):
    return kernel(arch=arch, block=(128, 1, 1))(fn).ptx()


def error_of(fn, arch="sm_90a"):
    with pytest.raises(KernelError) as info:
        trace(fn, arch)
    return info.value


def assert_at(err, marker, *fragments):
    assert err.line == line_of(HERE, marker), str(err)
    assert os.path.samefile(err.file, HERE)
    for fragment in fragments:
        assert fragment in err.message, err.message


# -- the helpers are the original's, reachable from pyptx.ptx -----------------

def test_ptx_reexports_the_warp_helpers():
    for name in ("ldmatrix", "stmatrix", "stmatrix_x4_trans_f32_bf16", "elect_sync"):
        assert getattr(ptx, name, None) is getattr(warp, name), \
            f"pyptx.ptx must re-export pyptx.hw.warp.{name}"
    assert ptx.mma is warp.mma


def test_signatures_match_the_original():
    def params(fn):
        return [(p.name, p.kind.name, p.default) for p in inspect.signature(fn).parameters.values()]

    kw, pos, empty = "KEYWORD_ONLY", "POSITIONAL_OR_KEYWORD", inspect.Parameter.empty
    assert params(ptx.mma.sync) == [
        ("shape", kw, empty), ("dtype_d", kw, empty), ("dtype_a", kw, empty),
        ("dtype_b", kw, empty), ("dtype_c", kw, empty), ("d", kw, empty), ("a", kw, empty),
        ("b", kw, empty), ("c", kw, empty), ("a_layout", kw, "row"), ("b_layout", kw, "col"),
        ("pred", kw, None)]
    assert params(warp.ldmatrix) == [("dst", kw, empty), ("src", kw, empty),
                                     ("layout", kw, "x4"), ("trans", kw, False),
                                     ("pred", kw, None)]
    assert params(warp.stmatrix) == [("smem", kw, empty), ("regs", kw, empty),
                                     ("layout", kw, "x4"), ("trans", kw, False),
                                     ("shape", kw, "m8n8"), ("pred", kw, None)]
    assert params(warp.stmatrix_x4_trans_f32_bf16) == [
        ("frag", kw, empty), ("smem_base", kw, empty), ("lane", kw, empty),
        ("row_stride", kw, empty), ("tmp_bf16", kw, None), ("tmp_pack", kw, None)]
    assert params(warp.elect_sync) == [("dst", pos, empty), ("pred_out", pos, empty),
                                       ("membermask", pos, empty)]


# -- mma.sync -------------------------------------------------------------------

def test_mma_sync_bf16_m16n8k16_is_one_instruction(assemble):
    def k():
        a, b, acc = reg.array(b32, 4), reg.array(b32, 2), reg.array(f32, 4)
        ptx.mma.sync(shape=(16, 8, 16), dtype_d=f32, dtype_a=bf16, dtype_b=bf16,
                     dtype_c=f32, d=acc, a=a, b=b, c=acc)
        ptx.ret()

    for arch in ("sm_80", "sm_90a"):
        text = trace(k, arch)
        assert body(text) == [
            "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%f0, %f1, %f2, %f3}, "
            "{%b0, %b1, %b2, %b3}, {%b4, %b5}, {%f0, %f1, %f2, %f3};", "ret;"]
        assemble(text, arch)


def test_mma_sync_takes_lists_strings_and_a_guard():
    def k():
        a, b, acc = reg.array(b32, 4), reg.array(b32, 2), reg.array(f32, 4)
        p = reg.pred()
        ptx.mma.sync(shape="m16n8k16", dtype_d="f32", dtype_a="bf16", dtype_b="bf16",
                     dtype_c="f32", d=list(acc), a=[a[0], a[1], a[2], a[3]], b=(b[0], b[1]),
                     c=acc, a_layout="row", b_layout="col", pred=~p)
        ptx.ret()

    assert body(trace(k))[0] == (
        "@!%p0 mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%f0, %f1, %f2, %f3}, "
        "{%b0, %b1, %b2, %b3}, {%b4, %b5}, {%f0, %f1, %f2, %f3};")


def test_mma_raw_spelling_still_emits():
    def k():
        a, b, acc = reg.array(b32, 4), reg.array(b32, 2), reg.array(f32, 4)
        ptx.mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32(acc, a, b, acc)
        ptx.ret()

    assert body(trace(k))[0].startswith("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 ")


# (shape, d, a, b, c types, register types and counts of d, a, b, c, the opcode, sm_80 ok)
FORMS = [
    ((16, 8, 16), (f16, f16, f16, f16), ((f16x2, 2), (b32, 4), (b32, 2), (f16x2, 2)),
     "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16", True),
    ((16, 8, 16), (f32, f16, f16, f32), ((f32, 4), (f16x2, 4), (f16x2, 2), (f32, 4)),
     "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", True),
    ((16, 8, 8), (f32, bf16, bf16, f32), ((f32, 4), (b32, 2), (b32, 1), (f32, 4)),
     "mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32", True),
    ((16, 8, 8), (f32, tf32, tf32, f32), ((f32, 4), (b32, 4), (b32, 2), (f32, 4)),
     "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32", True),
    ((16, 8, 4), (f32, tf32, tf32, f32), ((f32, 4), (b32, 2), (b32, 1), (f32, 4)),
     "mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32", True),
    ((16, 8, 32), (s32, s8, u8, s32), ((s32, 4), (b32, 4), (u32, 2), (s32, 4)),
     "mma.sync.aligned.m16n8k32.row.col.s32.s8.u8.s32", True),
    ((8, 8, 32), (s32, s4, s4, s32), ((s32, 2), (b32, 1), (b32, 1), (s32, 2)),
     "mma.sync.aligned.m8n8k32.row.col.s32.s4.s4.s32", True),
    ((8, 8, 4), (f64, f64, f64, f64), ((f64, 2), (f64, 1), (f64, 1), (f64, 2)),
     "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64", True),
    ((16, 8, 16), (f64, f64, f64, f64), ((f64, 4), (f64, 8), (f64, 4), (f64, 4)),
     "mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64", False),
    ((16, 8, 32), (f32, e4m3, e5m2, f32), ((f32, 4), (b32, 4), (b32, 2), (f32, 4)),
     "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32", False),
]


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_mma_sync_forms(arch, assemble):
    forms = [f for f in FORMS if arch != "sm_80" or f[4]]

    def k():
        for shape, (td, ta, tb, tc), regs, _, _ in forms:
            d, a, b, c = (reg.array(t, n) for t, n in regs)
            ptx.mma.sync(shape=shape, dtype_d=td, dtype_a=ta, dtype_b=tb, dtype_c=tc,
                         d=d, a=a, b=b, c=c)
        ptx.ret()

    text = trace(k, arch)
    assert [line.split(" ")[0] for line in body(text)] == [f[3] for f in forms] + ["ret;"]
    assemble(text, arch)


def test_mma_sync_volta_m8n8k4_takes_any_layout_and_mixed_accumulators(assemble):
    def k():
        a, b = reg.array(f16x2, 2), reg.array(f16x2, 2)
        d, c = reg.array(f32, 8), reg.array(f16x2, 4)
        ptx.mma.sync(shape=(8, 8, 4), dtype_d=f32, dtype_a=f16, dtype_b=f16, dtype_c=f16,
                     d=d, a=a, b=b, c=c, a_layout="col", b_layout="row")
        ptx.ret()

    text = trace(k)
    assert body(text)[0].startswith("mma.sync.aligned.m8n8k4.col.row.f32.f16.f16.f16 {")
    assemble(text, "sm_90a")


def mma_error(**overrides):
    def k():
        args = dict(shape=(16, 8, 16), dtype_d=f32, dtype_a=bf16, dtype_b=bf16,
                    dtype_c=f32, d=reg.array(f32, 4), a=reg.array(b32, 4),
                    b=reg.array(b32, 2), c=reg.array(f32, 4))
        args.update({key: (value() if callable(value) else value)
                     for key, value in overrides.items()})
        ptx.mma.sync(**args)  # <- mma-call
    return error_of(k)


def test_mma_sync_a_count_is_checked_at_the_call():
    err = mma_error(a=lambda: reg.array(b32, 2))
    assert_at(err, "# <- mma-call",
              "mma.sync m16n8k16 .bf16: a needs 4 .b32 (or .bf16x2) registers per thread",
              "2 packed bf16", "got 2", "reg.array(b32, 4)")


def test_mma_sync_b_count_is_checked():
    err = mma_error(b=lambda: reg.array(b32, 4))
    assert_at(err, "# <- mma-call", "b needs 2", "got 4", "reg.array(b32, 2)")


def test_mma_sync_a_register_type_is_checked():
    err = mma_error(a=lambda: reg.array(u32, 4))
    assert_at(err, "# <- mma-call", "a[0] is a .u32 register", ".bf16x2 or .b32",
              "reg.array(b32, 4)")


def test_mma_sync_accumulator_count_is_checked():
    err = mma_error(d=lambda: reg.array(f32, 8))
    assert_at(err, "# <- mma-call", "with a .f32 accumulator needs 4 .f32 registers per "
              "thread in d; got 8", "reg.array(f32, 4)")


def test_mma_sync_accumulator_type_is_checked():
    err = mma_error(c=lambda: reg.array(s32, 4))
    assert_at(err, "# <- mma-call", "c[0] is a .s32 register", ".f32 or .b32")


def test_mma_sync_tf32_fragment_counts():
    err = mma_error(shape=(16, 8, 8), dtype_a=tf32, dtype_b=tf32, a=lambda: reg.array(b32, 2))
    assert_at(err, "# <- mma-call", "mma.sync m16n8k8 .tf32: a needs 4", "one tf32")


def test_mma_sync_s8_fragment_counts():
    err = mma_error(shape=(16, 8, 32), dtype_a=s8, dtype_b=s8, dtype_d=s32, dtype_c=s32,
                    d=lambda: reg.array(s32, 4), c=lambda: reg.array(s32, 4),
                    b=lambda: reg.array(b32, 1))
    assert_at(err, "# <- mma-call", "mma.sync m16n8k32 .s8: b needs 2", "4 packed 8-bit")


def test_mma_sync_layout_string_is_checked():
    err = mma_error(a_layout="rows")
    assert_at(err, "# <- mma-call", "a_layout must be 'row' or 'col', not 'rows'")


def test_mma_sync_needs_row_col():
    err = mma_error(b_layout="row")
    assert_at(err, "# <- mma-call", "takes only a_layout='row', b_layout='col'",
              "ldmatrix(trans=True)")


def test_mma_sync_shape_must_exist_for_the_type():
    err = mma_error(shape=(16, 8, 32))
    assert_at(err, "# <- mma-call", "no m16n8k32 shape for .bf16", "m16n8k8, m16n8k16")


def test_mma_sync_accumulator_types_must_match():
    err = mma_error(dtype_d=f16, d=lambda: reg.array(f16x2, 2))
    assert_at(err, "# <- mma-call", "dtype_d .f16 is not an accumulator type", "use .f32")
    err = mma_error(dtype_a=f16, dtype_b=f16, dtype_d=f16, d=lambda: reg.array(f16x2, 2))
    assert_at(err, "# <- mma-call", "dtype_d .f16 and dtype_c .f32 differ")


def test_mma_sync_a_and_b_types_must_pair():
    err = mma_error(dtype_b=f16)
    assert_at(err, "# <- mma-call", "dtype_b .f16 does not go with dtype_a .bf16")


def test_mma_sync_b1_points_to_the_raw_form():
    err = mma_error(shape=(16, 8, 256), dtype_a=b1, dtype_b=b1)
    assert_at(err, "# <- mma-call", ".and.popc", "ptx.inst.mma.sync.aligned.m16n8k256")


# -- ldmatrix -------------------------------------------------------------------

def test_ldmatrix_lines(assemble):
    def k():
        buf = smem.alloc(b16, (64, 64))
        base = reg.from_(buf, u32)
        r4, r2, r1 = reg.array(b32, 4), reg.array(b32, 2), reg.array(b32, 1)
        warp.ldmatrix(dst=r4, src=base)
        warp.ldmatrix(dst=r4, src=ptx.addr(base, 16), layout="x4.trans")
        warp.ldmatrix(dst=r2, src=ptx.addr(buf, 128), layout="m8n8.x2", trans=True)
        warp.ldmatrix(dst=[r1[0]], src=buf, layout="x1")
        ptx.ret()

    text = trace(k, "sm_80")
    assert body(text) == [
        "mov.u32 %r0, smem_0;",
        "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%b0, %b1, %b2, %b3}, [%r0];",
        "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%b0, %b1, %b2, %b3}, [%r0+16];",
        "ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%b4, %b5}, [smem_0+128];",
        "ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%b6}, [smem_0];",
        "ret;"]
    assemble(text, "sm_80")
    assemble(text.replace(".target sm_80", ".target sm_90a"), "sm_90a")


def test_ldmatrix_m16n16_is_sm100(assemble):
    def k():
        base = reg.from_(smem.alloc(b16, (64, 64)), u32)
        warp.ldmatrix(dst=reg.array(b32, 4), src=base, layout="m16n16.x2.trans")
        ptx.ret()

    text = trace(k, "sm_100a")
    assert body(text)[1] == ("ldmatrix.sync.aligned.m16n16.x2.trans.shared.b8 "
                             "{%b0, %b1, %b2, %b3}, [%r0];")
    assemble(text, "sm_100a")


def ldmatrix_error(dst, layout="x4", trans=False):
    def k():
        base = reg.from_(smem.alloc(b16, (64, 64)), u32)
        warp.ldmatrix(dst=dst(), src=base, layout=layout, trans=trans)  # <- ldmatrix-call
    return error_of(k)


def test_ldmatrix_register_count_is_checked():
    err = ldmatrix_error(lambda: reg.array(b32, 2))
    assert_at(err, "# <- ldmatrix-call", "ldmatrix: m8n8.x4 needs 4 32-bit registers in dst; "
              "got 2", "reg.array(b32, 4)")
    err = ldmatrix_error(lambda: reg.array(b32, 2), layout="m16n16.x2", trans=True)
    assert_at(err, "# <- ldmatrix-call", "m16n16.x2 needs 4")


def test_ldmatrix_register_width_is_checked():
    err = ldmatrix_error(lambda: reg.array(u64, 4))
    assert_at(err, "# <- ldmatrix-call", "dst[0] is a .u64 register", "32-bit registers")


def test_ldmatrix_layout_is_checked():
    err = ldmatrix_error(lambda: reg.array(b32, 4), layout="x3")
    assert_at(err, "# <- ldmatrix-call", "'x3' is not a count (x1, x2, x4)", "'m8n8.x4.trans'")
    err = ldmatrix_error(lambda: reg.array(b32, 4), layout="m8n8")
    assert_at(err, "# <- ldmatrix-call", "has no matrix count")
    err = ldmatrix_error(lambda: reg.array(b32, 4), layout="m16n16.x2")
    assert_at(err, "# <- ldmatrix-call", "m16n16 is always transposing: pass trans=True")
    err = ldmatrix_error(lambda: reg.array(b32, 8), layout="m16n16.x4", trans=True)
    assert_at(err, "# <- ldmatrix-call", "ldmatrix.m16n16 moves x1 or x2 matrices, not x4")


# -- stmatrix -------------------------------------------------------------------

def test_stmatrix_lines(assemble):
    def k():
        buf = smem.alloc(b16, (64, 64))
        base = reg.from_(buf, u32)
        r = reg.array(b32, 4)
        warp.stmatrix(smem=base, regs=r)
        warp.stmatrix(smem=ptx.addr(base, 32), regs=r, layout="x4.trans")
        warp.stmatrix(smem=buf, regs=[r[0], r[1]], layout="x2", trans=True)
        warp.stmatrix(smem=ptx.addr(buf, 16), regs=[r[3]], layout="m8n8.x1")
        ptx.ret()

    text = trace(k)
    assert body(text) == [
        "mov.u32 %r0, smem_0;",
        "stmatrix.sync.aligned.m8n8.x4.shared::cta.b16 [%r0], {%b0, %b1, %b2, %b3};",
        "stmatrix.sync.aligned.m8n8.x4.trans.shared::cta.b16 [%r0+32], {%b0, %b1, %b2, %b3};",
        "stmatrix.sync.aligned.m8n8.x2.trans.shared::cta.b16 [smem_0], {%b0, %b1};",
        "stmatrix.sync.aligned.m8n8.x1.shared::cta.b16 [smem_0+16], {%b3};",
        "ret;"]
    assemble(text, "sm_90a")


def test_stmatrix_m16n8_is_sm100(assemble):
    def k():
        base = reg.from_(smem.alloc(b16, (64, 64)), u32)
        warp.stmatrix(smem=base, regs=reg.array(b32, 2), layout="x2", shape="m16n8",
                      trans=True)
        ptx.ret()

    text = trace(k, "sm_100a")
    assert body(text)[1] == "stmatrix.sync.aligned.m16n8.x2.trans.shared::cta.b8 [%r0], {%b0, %b1};"
    assemble(text, "sm_100a")


def stmatrix_error(regs, layout="x4", shape="m8n8", trans=False):
    def k():
        base = reg.from_(smem.alloc(b16, (64, 64)), u32)
        warp.stmatrix(smem=base, regs=regs(), layout=layout, shape=shape, trans=trans)  # <- stm
    return error_of(k)


def test_stmatrix_checks():
    err = stmatrix_error(lambda: reg.array(b32, 3))
    assert_at(err, "# <- stm", "stmatrix: m8n8.x4 needs 4 32-bit registers in regs; got 3")
    err = stmatrix_error(lambda: reg.array(f64, 4))
    assert_at(err, "# <- stm", "regs[0] is a .f64 register")
    err = stmatrix_error(lambda: reg.array(b32, 4), layout="x4.transposed")
    assert_at(err, "# <- stm", "'transposed' is not a count")
    err = stmatrix_error(lambda: reg.array(b32, 4), shape="m16n8")
    assert_at(err, "# <- stm", "stmatrix.m16n8 is always transposing")
    err = stmatrix_error(lambda: reg.array(b32, 4), layout="m8n8.x4", shape="m16n8", trans=True)
    assert_at(err, "# <- stm", "layout 'm8n8.x4' says m8n8 but shape='m16n8'")


# -- stmatrix_x4_trans_f32_bf16 ----------------------------------------------------

def test_stmatrix_x4_trans_f32_bf16_sequence(assemble):
    def k():
        buf = smem.alloc(bf16, (64, 72))
        tid = reg.from_(ptx.special.tid.x(), u32)
        frag = reg.array(f32, 16)
        for r in frag:
            ptx.mov(r, 1.0)
        warp.stmatrix_x4_trans_f32_bf16(frag=frag, smem_base=buf, lane=tid, row_stride=72)
        ptx.ret()

    text = trace(k)
    lines = body(text)
    start = lines.index("mov.f32 %f15, 0f3F800000;") + 1
    helper = lines[start:lines.index("ret;")]
    # 1 mov of the symbol + 10 address instructions + 2 x (4 cvt + 1 stmatrix)
    assert len(helper) == 1 + 10 + 2 * 5, helper
    assert helper[0] == "mov.u32 %r1, smem_0;"
    assert [line.split(" ")[0] for line in helper[1:11]] == [
        "and.b32", "shr.u32", "shl.b32", "and.b32", "mad.lo.u32", "shr.u32", "mad.lo.u32",
        "and.b32", "add.u32", "mad.lo.u32"]
    assert helper[5] == "mad.lo.u32 %r4, %r5, 72, %r4;"
    assert helper[7] == "mad.lo.u32 %r4, %r6, 576, %r4;"
    addr = helper[10].split(" ")[1].rstrip(",")
    assert helper[11:16] == [
        "cvt.rn.bf16x2.f32 %b0, %f1, %f0;", "cvt.rn.bf16x2.f32 %b1, %f3, %f2;",
        "cvt.rn.bf16x2.f32 %b2, %f5, %f4;", "cvt.rn.bf16x2.f32 %b3, %f7, %f6;",
        f"stmatrix.sync.aligned.m8n8.x4.trans.shared::cta.b16 [{addr}], "
        "{%b0, %b1, %b2, %b3};"]
    assert helper[20] == (f"stmatrix.sync.aligned.m8n8.x4.trans.shared::cta.b16 "
                          f"[{addr}+{16 * 72 * 2}], {{%b0, %b1, %b2, %b3}};")
    assemble(text, "sm_90a")


def test_stmatrix_x4_trans_f32_bf16_with_register_base_and_tmp_pack():
    def k():
        tid = reg.from_(ptx.special.tid.x(), u32)
        base = reg.from_(smem.alloc(bf16, (64, 64)), u32)
        pack = reg.array(b32, 4)
        warp.stmatrix_x4_trans_f32_bf16(frag=reg.array(f32, 8), smem_base=base, lane=tid,
                                        row_stride=64, tmp_pack=pack,
                                        tmp_bf16=reg.array(b16, 8))
        ptx.ret()

    lines = body(trace(k))
    assert sum(line.startswith("mov.u32") for line in lines) == 2  # tid, base: no extra mov
    assert lines[-2].endswith("{%b0, %b1, %b2, %b3};") and lines[-2].startswith("stmatrix")


def stm_helper_error(frag=lambda: reg.array(f32, 16), row_stride=64, lane=None):
    def k():
        tid = reg.from_(ptx.special.tid.x(), u32)
        buf = smem.alloc(bf16, (64, 64))
        warp.stmatrix_x4_trans_f32_bf16(frag=frag(), smem_base=buf,  # <- stm-helper
                                        lane=tid if lane is None else lane(),
                                        row_stride=row_stride)
    return error_of(k)


def test_stmatrix_x4_trans_f32_bf16_checks():
    err = stm_helper_error(frag=lambda: reg.array(f32, 12))
    assert_at(err, "# <- stm-helper", "frag needs a multiple of 8 f32 registers", "got 12")
    err = stm_helper_error(frag=lambda: reg.array(b32, 8))
    assert_at(err, "# <- stm-helper", "frag[0] is a .b32 register", "f32 accumulator")
    err = stm_helper_error(row_stride=60)
    assert_at(err, "# <- stm-helper", "row_stride=60 must be a positive multiple of 8")
    err = stm_helper_error(lane=lambda: reg.scalar(u64))
    assert_at(err, "# <- stm-helper", "lane must be a 32-bit integer register")


# -- elect.sync -------------------------------------------------------------------

def test_elect_sync_lines(assemble):
    def k():
        leader, p, mask = reg.scalar(u32), reg.pred(), reg.scalar(b32)
        ptx.mov(mask, 0xFFFF)
        warp.elect_sync(leader, p, 0xFFFFFFFF)
        warp.elect_sync(ptx.sink, p, -1)
        warp.elect_sync(None, p, mask)
        ptx.ret()

    text = trace(k)
    assert body(text)[1:4] == ["elect.sync %r0|%p0, 4294967295;", "elect.sync _|%p0, -1;",
                               "elect.sync _|%p0, %b0;"]
    assemble(text, "sm_90a")


def elect_error(dst=None, pred_out=None, mask=0xFFFFFFFF):
    def k():
        d = reg.scalar(u32) if dst is None else dst()
        p = reg.pred() if pred_out is None else pred_out()
        warp.elect_sync(d, p, mask() if callable(mask) else mask)  # <- elect
    return error_of(k)


def test_elect_sync_checks():
    err = elect_error(pred_out=lambda: reg.scalar(u32))
    assert_at(err, "# <- elect", "pred_out must be a predicate register")
    err = elect_error(dst=lambda: reg.scalar(u64))
    assert_at(err, "# <- elect", "dst must be a 32-bit integer register")
    err = elect_error(mask=1 << 32)
    assert_at(err, "# <- elect", "does not fit in 32 bits")
    err = elect_error(mask=lambda: reg.scalar(u64))
    assert_at(err, "# <- elect", "membermask is a .u64 register")
    err = elect_error(mask=lambda: reg.pred())
    assert_at(err, "# <- elect", "membermask is a .pred register")


def test_elect_sync_needs_sm90():
    def k():
        warp.elect_sync(reg.scalar(u32), reg.pred(), 0xFFFFFFFF)  # <- elect-sm80
        ptx.ret()

    err = error_of(k, "sm_80")
    assert err.line == line_of(HERE, "# <- elect-sm80")
    assert "sm_90" in err.message
