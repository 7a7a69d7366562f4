"""ptx.tcgen05: each helper's exact PTX (one instruction unless its docstring
counts more), ptxas -arch=sm_100a assembling it, and the checks at the
author's line (cta_group consistency, ncols, ld/st counts, mma kind vs idesc)."""
import inspect
import os
import re

import numpy as np
import pytest

from conftest import line_of
from pyptx import KernelError, kernel, ptx, reg, smem
from pyptx.hw.tcgen05_desc import InstrDesc, SmemDesc
from pyptx.types import b16, b32, b64, bf16, f32, pred, u32, u64
from test_seeds import body

HERE = os.path.abspath(__file__)
IDESC = 0x08400490  # kind::f16, bf16 x bf16 -> f32, M 128, N 256, K-major


def trace(fn):
    @kernel(arch="sm_100a")
    def k():
        fn()
        ptx.ret()
    return k.ptx()


def between_markers(text):
    """The body lines between `mov.u32 %rX, 1111;` and `mov.u32 %rX, 2222;`."""
    lines = body(text)
    start = next(i for i, l in enumerate(lines) if l.endswith(", 1111;"))
    end = next(i for i, l in enumerate(lines) if l.endswith(", 2222;"))
    return lines[start + 1:end]


def emitted(setup, call):
    """(the lines `call(*setup())` emits, the whole PTX)."""
    def fn():
        operands = setup()
        marker = reg.scalar(u32)
        ptx.inst.mov.u32(marker, 1111)
        call(*operands)
        ptx.inst.mov.u32(marker, 2222)
    text = trace(fn)
    return between_markers(text), text


class Ops:
    """Operands most cases use, allocated in a fixed order so register names
    are known: %b0 the TMEM address (b32), %r0 a u32 (%r1 is the marker), %bd0/%bd1 the A/B
    descriptors (b64), %p0 a predicate."""

    def __call__(self):
        self.slot = smem.alloc(b32, (1,))
        self.tile = smem.alloc(bf16, (128, 64), align=1024)
        self.bar = smem.mbarrier(2)
        tmem = reg.scalar(b32)
        ptx.inst.ld.shared.b32(tmem, ptx.addr(self.slot))
        word = reg.scalar(u32, init=7)
        da, db = reg.scalar(b64, init=0), reg.scalar(b64, init=0)
        p = reg.scalar(pred)
        ptx.inst.setp.ne.u32(p, word, 0)
        return self, tmem, word, da, db, p


def one(call, setup=None):
    ops = Ops()
    lines, text = emitted(setup or ops, call)
    return lines, text, ops


# -- the instructions ------------------------------------------------------------------

def test_alloc_dealloc_relinquish(assemble):
    lines, text, ops = one(lambda o, t, w, a, b, p: (
        ptx.tcgen05.alloc(o.slot, 64), ptx.tcgen05.alloc(o.slot, w),
        ptx.tcgen05.dealloc(t, 64), ptx.tcgen05.relinquish_alloc_permit()))
    assert lines == [
        f"tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [{ops.slot.name}], 64;",
        f"tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [{ops.slot.name}], %r0;",
        "tcgen05.dealloc.cta_group::1.sync.aligned.b32 %b0, 64;",
        "tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;",
    ]
    assemble(text, "sm_100a")


def test_cta_group_2_forms(assemble):
    def call(o, t, w, a, b, p):
        ptx.tcgen05.alloc(o.slot, 512, cta_group=2)
        ptx.tcgen05.mma(t, a, b, InstrDesc.for_kind("f16", m=256, n=256).encode(),
                        cta_group=2, disable_output_lane=reg.array(b32, 8), enable_input_d=p)
        ptx.tcgen05.commit(o.bar, cta_group=2, multicast_mask=0b11)
        ptx.tcgen05.cp(t, a, cta_group=2)
        ptx.tcgen05.shift(t, cta_group=2)
        ptx.tcgen05.dealloc(t, 512, cta_group=2)
        ptx.tcgen05.relinquish_alloc_permit(cta_group=2)
    lines, text, ops = one(call)
    bar = ops.bar.name
    assert lines == [
        f"tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [{ops.slot.name}], 512;",
        "tcgen05.mma.cta_group::2.kind::f16 [%b0], %bd0, %bd1, 272630928, "
        "{%b1, %b2, %b3, %b4, %b5, %b6, %b7, %b8}, %p0;",
        "mov.b16 %bh0, 3;",
        f"tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster"
        f".b64 [{bar}], %bh0;",
        "tcgen05.cp.cta_group::2.128x256b [%b0], %bd0;",
        "tcgen05.shift.cta_group::2.down [%b0];",
        "tcgen05.dealloc.cta_group::2.sync.aligned.b32 %b0, 512;",
        "tcgen05.relinquish_alloc_permit.cta_group::2.sync.aligned;",
    ]
    assemble(text, "sm_100a")


MMA_CASES = [
    # (keyword arguments, the operands after [d], a, b)
    (dict(pred_operand=False), f"%bd0, %bd1, {IDESC}, 0;"),
    (dict(), f"%bd0, %bd1, {IDESC}, 1;"),                         # enable_input_d=True
    (dict(enable_input_d=False), f"%bd0, %bd1, {IDESC}, 0;"),
    (dict(scale_d=True, enable_input_d=False), f"%bd0, %bd1, {IDESC}, 1;"),
    (dict(pred_operand=True, enable_input_d=False), f"%bd0, %bd1, {IDESC}, 1;"),
    (dict(scale_c=3), f"%bd0, %bd1, {IDESC}, 1, 3;"),
]


@pytest.mark.parametrize("kwargs,tail", MMA_CASES)
def test_mma_enable_input_d_is_an_immediate(kwargs, tail, assemble):
    lines, text, _ = one(lambda o, t, w, a, b, p: ptx.tcgen05.mma(t, a, b, IDESC, **kwargs))
    assert lines == [f"tcgen05.mma.cta_group::1.kind::f16 [%b0], {tail}"]
    assemble(text, "sm_100a")


def test_mma_operand_forms(assemble):
    def call(o, t, w, a, b, p):
        ptx.tcgen05.mma(t, a, b, IDESC, pred_operand=p)
        ptx.tcgen05.mma(t, a, b, w, scale_d=p)                       # idesc in a register
        ptx.tcgen05.mma(t, a, b, IDESC, pred_operand=w)              # setp first
        ptx.tcgen05.mma(t, a, b, IDESC, disable_output_lane=reg.array(b32, 4))
        ptx.tcgen05.mma(ptx.addr(t, 64), t, b, IDESC, a_is_tmem=True, ashift=True,
                        collector_a="lastuse", enable_input_d=False)
        ptx.tcgen05.mma(t, a, b, IDESC, collector_a="fill", pred=p)
        ptx.tcgen05.mma(t, a, b, InstrDesc.for_kind("f16", sparse=True).encode(), sparse=True,
                        sparse_metadata=ptx.addr(t, 256))
    lines, text, _ = one(call)
    assert lines == [
        f"tcgen05.mma.cta_group::1.kind::f16 [%b0], %bd0, %bd1, {IDESC}, %p0;",
        "tcgen05.mma.cta_group::1.kind::f16 [%b0], %bd0, %bd1, %r0, %p0;",
        "setp.ne.u32 %p1, %r0, 0;",
        f"tcgen05.mma.cta_group::1.kind::f16 [%b0], %bd0, %bd1, {IDESC}, %p1;",
        f"tcgen05.mma.cta_group::1.kind::f16 [%b0], %bd0, %bd1, {IDESC}, "
        "{%b1, %b2, %b3, %b4}, 1;",
        f"tcgen05.mma.cta_group::1.kind::f16.ashift.collector::a::lastuse [%b0+64], [%b0], "
        f"%bd1, {IDESC}, 0;",
        f"@%p0 tcgen05.mma.cta_group::1.kind::f16.collector::a::fill [%b0], %bd0, %bd1, "
        f"{IDESC}, 1;",
        f"tcgen05.mma.sp.cta_group::1.kind::f16 [%b0], %bd0, %bd1, [%b0+256], {IDESC | 4}, 1;",
    ]
    assemble(text, "sm_100a")


@pytest.mark.parametrize("kind,idesc", [
    ("tf32", InstrDesc.for_kind("tf32", a="tf32").encode()),
    ("f8f6f4", InstrDesc.for_kind("f8f6f4", a="e4m3", b="e2m1").encode()),
    ("i8", InstrDesc.for_kind("i8", d="s32", a="s8", saturate=True).encode()),
])
def test_mma_other_kinds(kind, idesc, assemble):
    lines, text, _ = one(lambda o, t, w, a, b, p: ptx.tcgen05.mma(t, a, b, idesc, kind=kind))
    assert lines == [f"tcgen05.mma.cta_group::1.kind::{kind} [%b0], %bd0, %bd1, {idesc}, 1;"]
    assemble(text, "sm_100a")


def test_mma_negated_predicate(assemble):
    lines, text, _ = one(lambda o, t, w, a, b, p: ptx.tcgen05.mma(t, a, b, IDESC,
                                                                  pred_operand=~p))
    assert lines == [f"tcgen05.mma.cta_group::1.kind::f16 [%b0], %bd0, %bd1, {IDESC}, !%p0;"]
    assemble(text, "sm_100a")


def test_commit_fence_wait(assemble):
    def call(o, t, w, a, b, p):
        ptx.tcgen05.commit(o.bar)
        ptx.tcgen05.commit(o.bar[1], space="cta")
        ptx.tcgen05.commit(o.bar, multicast=True, multicast_mask=reg.scalar(b16, init=1))
        ptx.tcgen05.fence_before_thread_sync()
        ptx.tcgen05.fence_after_thread_sync()
        ptx.tcgen05.wait_ld()
        ptx.tcgen05.wait_st(pred=p)
    lines, text, ops = one(call)
    commit = "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster"
    bar = ops.bar.name
    assert lines == [
        f"{commit}.b64 [{bar}];",
        f"{commit}.b64 [{bar}+8];",
        "mov.b16 %bh0, 1;",
        f"{commit}.multicast::cluster.b64 [{bar}], %bh0;",
        "tcgen05.fence::before_thread_sync;",
        "tcgen05.fence::after_thread_sync;",
        "tcgen05.wait::ld.sync.aligned;",
        "@%p0 tcgen05.wait::st.sync.aligned;",
    ]
    assemble(text, "sm_100a")


def vec(prefix, n, first=0):
    return "{" + ", ".join(f"{prefix}{i}" for i in range(first, first + n)) + "}"


@pytest.mark.parametrize("shape,count,nregs", [
    ("32x32b", 1, 1), ("32x32b", 128, 128), ("16x64b", 4, 4), ("16x128b", 64, 128),
    ("16x128b", 2, 4), ("16x256b", 32, 128), ("16x256b", 1, 4),
])
def test_ld_st_shapes(shape, count, nregs, assemble):
    def call(o, t, w, a, b, p):
        regs = reg.array(f32, nregs)
        ptx.tcgen05.ld(regs, t, shape=shape, count=count)
        ptx.tcgen05.st(ptx.addr(t, 32), list(regs), shape=shape, count=count)
    lines, text, _ = one(call)
    assert lines == [
        f"tcgen05.ld.sync.aligned.{shape}.x{count}.b32 {vec('%f', nregs)}, [%b0];",
        f"tcgen05.st.sync.aligned.{shape}.x{count}.b32 [%b0+32], {vec('%f', nregs)};",
    ]
    assemble(text, "sm_100a")


def test_ld_st_pack_and_16x32bx2(assemble):
    def call(o, t, w, a, b, p):
        regs = reg.array(b32, 8)
        ptx.tcgen05.ld(regs, t, shape="16x32bx2", count=8, half_splitoff=16)
        ptx.tcgen05.st(t, regs, shape="16x32bx2", count=8, half_splitoff=16, unpack=True)
        ptx.tcgen05.ld(regs[:4], w, shape="16x64b", count=4, pack=True)
    lines, text, _ = one(call)
    assert lines == [
        f"tcgen05.ld.sync.aligned.16x32bx2.x8.b32 {vec('%b', 8, 1)}, [%b0], 16;",
        f"tcgen05.st.sync.aligned.16x32bx2.x8.unpack::16b.b32 [%b0], 16, {vec('%b', 8, 1)};",
        f"tcgen05.ld.sync.aligned.16x64b.x4.pack::16b.b32 {vec('%b', 4, 1)}, [%r0];",
    ]
    assemble(text, "sm_100a")


def test_cp_and_shift(assemble):
    def call(o, t, w, a, b, p):
        for size in ("128x256b", "4x256b", "128x128b", "64x128b.warpx2::02_13",
                     "64x128b.warpx2::01_23", "32x128b.warpx4", "128x256b.b8x16.b6x16_p32"):
            ptx.tcgen05.cp(t, a, size=size)
        ptx.tcgen05.shift(ptx.addr(t, 8))
    lines, text, _ = one(call)
    assert lines == [f"tcgen05.cp.cta_group::1.{s} [%b0], %bd0;" for s in (
        "128x256b", "4x256b", "128x128b", "64x128b.warpx2::02_13", "64x128b.warpx2::01_23",
        "32x128b.warpx4", "128x256b.b8x16.b6x16_p32")] + [
        "tcgen05.shift.cta_group::1.down [%b0+8];"]
    assemble(text, "sm_100a")


def test_raw_spellings_still_work(assemble):
    def call(o, t, w, a, b, p):
        ptx.tcgen05.alloc.cta_group__1.sync.aligned.shared__cta.b32(ptx.addr(o.slot), 32)
        ptx.tcgen05.fence__before_thread_sync()
        ptx.tcgen05.wait__ld.sync.aligned()
    lines, text, ops = one(call)
    assert lines == [
        f"tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [{ops.slot.name}], 32;",
        "tcgen05.fence::before_thread_sync;",
        "tcgen05.wait::ld.sync.aligned;",
    ]
    assemble(text, "sm_100a")


# -- descriptors ----------------------------------------------------------------------------

def test_make_instr_desc_is_a_python_int_and_emits_nothing():
    lines, _, _ = one(lambda *ops: ptx.tcgen05.make_instr_desc_f16bf16_f32())
    assert lines == []
    make = ptx.tcgen05.make_instr_desc_f16bf16_f32
    assert make() == IDESC
    assert make(m=64, n=8, ab_dtype="f16") == 1 << 4 | 1 << 17 | 4 << 24
    assert make(ab_dtype="tf32") == InstrDesc.for_kind("tf32", a="tf32").encode()
    assert make(a_major="MN", b_major="MN", scale_a=-1, scale_b=-1) == \
        IDESC | 1 << 13 | 1 << 14 | 1 << 15 | 1 << 16
    assert make(sparse=True, max_shift=2) == IDESC | 1 << 2 | 2 << 30
    assert ptx.tcgen05.BLACKWELL_MASKED_DESC_B128 == 4611756662049538048


B128 = SmemDesc(leading_byte_offset=16, stride_byte_offset=1024, swizzle="128B").const_bits()


def test_descriptor_of_a_shared_allocation_is_three_instructions(assemble):
    lines, text, ops = one(lambda o, *_: ptx.tcgen05.descriptor(o.tile, stride_bytes=1024))
    assert lines == [
        f"mov.u32 %r2, {ops.tile.name};",
        "bfe.u32 %r3, %r2, 4, 14;",
        f"mad.wide.u32 %bd2, %r3, 1, {B128};",
    ]
    assemble(text, "sm_100a")


def test_descriptor_folds_the_byte_offset_and_the_constant_fields(assemble):
    def call(o, t, w, a, b, p):
        ptx.tcgen05.descriptor(w, byte_offset=64, stride_bytes=256, leading_bytes=128,
                               swizzle="NONE", base_offset=3, lbo_mode=1)
        ptx.tcgen05.descriptor(ptx.addr(w, 32), stride_bytes=1024, swizzle="32B")
        ptx.tcgen05.descriptor(reg.scalar(u64), stride_bytes=512, swizzle="64B")
        ptx.tcgen05.descriptor(0x1000, stride_bytes=1024)
    lines, text, _ = one(call)
    first = SmemDesc(leading_byte_offset=128, stride_byte_offset=256, base_offset=3,
                     lbo_mode=1).const_bits() + (64 >> 4)
    second = SmemDesc(leading_byte_offset=16, stride_byte_offset=1024,
                      swizzle="32B").const_bits() + (32 >> 4)
    third = SmemDesc(leading_byte_offset=16, stride_byte_offset=512, swizzle="64B").const_bits()
    assert lines == [
        "bfe.u32 %r2, %r0, 4, 14;",
        f"mad.wide.u32 %bd2, %r2, 1, {first};",
        "bfe.u32 %r3, %r0, 4, 14;",
        f"mad.wide.u32 %bd3, %r3, 1, {second};",
        "bfe.u64 %rd1, %rd0, 4, 14;",
        f"add.u64 %bd4, %rd1, {third};",
        f"mov.b64 %bd5, {B128 + (0x1000 >> 4)};",
    ]
    assert second >> 61 == 6 and first >> 52 & 1 == 1 and first >> 49 & 7 == 3
    assemble(text, "sm_100a")


def test_masked_descriptor(assemble):
    def call(o, t, w, a, b, p):
        ptx.tcgen05.masked_descriptor(w)
        ptx.tcgen05.masked_descriptor(w, byte_offset=16, mask=0x3FF80,
                                      const_bits=0x4000004000010000)
    lines, text, _ = one(call)
    assert lines == [
        "bfe.u32 %r2, %r0, 4, 14;",
        f"mad.wide.u32 %bd2, %r2, 1, {ptx.tcgen05.BLACKWELL_MASKED_DESC_B128};",
        "add.u32 %r3, %r0, 16;",
        "and.b32 %r4, %r3, 262016;",
        "shr.u32 %r5, %r4, 4;",
        f"mad.wide.u32 %bd3, %r5, 1, {0x4000004000010000};",
    ]
    assemble(text, "sm_100a")


def test_signatures_are_the_originals():
    sig = {name: str(inspect.signature(getattr(ptx.tcgen05, name))) for name in (
        "alloc", "dealloc", "relinquish_alloc_permit", "commit", "cp", "shift",
        "descriptor", "masked_descriptor", "make_instr_desc_f16bf16_f32")}
    # As the original's page prints them (string annotations).
    assert sig["alloc"] == "(tmem_addr, ncols, *, cta_group: 'int' = 1, pred=None) -> 'None'"
    assert sig["descriptor"].startswith(
        "(smem_addr, *, byte_offset: 'int' = 0, stride_bytes: 'int', leading_bytes: 'int' = 16, "
        "swizzle: 'str' = '128B', version: 'int' = 1, base_offset: 'int' = 0, "
        "lbo_mode: 'int' = 0)")
    mma = inspect.signature(ptx.tcgen05.mma).parameters
    assert list(mma)[:4] == ["d_tmem", "a_desc", "b_desc", "idesc"]
    assert {k: mma[k].default for k in ("cta_group", "kind", "enable_input_d", "scale_d",
                                        "sparse", "ashift", "collector_a", "a_is_tmem",
                                        "sparse_metadata", "pred_operand", "scale_c", "pred")} \
        == dict(cta_group=1, kind="f16", enable_input_d=True, scale_d=None, sparse=False,
                ashift=False, collector_a=None, a_is_tmem=False, sparse_metadata=None,
                pred_operand=None, scale_c=None, pred=None)
    ld = inspect.signature(ptx.tcgen05.ld).parameters
    assert [(k, ld[k].default) for k in ("shape", "count", "dtype", "pack")] == \
        [("shape", "16x128b"), ("count", 1), ("dtype", "b32"), ("pack", False)]


# -- checks at the author's line -----------------------------------------------------------

def error_of(fn) -> KernelError:
    with pytest.raises(KernelError) as info:
        trace(fn)
    return info.value


def assert_at(err, marker, *fragments):
    assert err.line == line_of(HERE, marker) and os.path.samefile(err.file, HERE), str(err)
    for fragment in fragments:
        assert fragment in err.message, err.message


def test_cta_group_must_agree_within_a_kernel():
    def fn():
        slot = smem.alloc(b32, (1,))
        ptx.tcgen05.alloc(slot, 32)  # <- first-cta-group
        t = reg.scalar(b32)
        ptx.tcgen05.mma(t, 0, 0, IDESC, cta_group=2)  # <- second-cta-group
    err = error_of(fn)
    first = line_of(HERE, "# <- first-cta-group")
    assert_at(err, "# <- second-cta-group", "tcgen05.mma uses cta_group::2",
              f"tcgen05.alloc at test_tcgen05.py:{first} uses cta_group::1",
              "pass cta_group=1 here, or cta_group=2 at line")


def test_cta_group_must_be_1_or_2():
    err = error_of(lambda: ptx.tcgen05.relinquish_alloc_permit(cta_group=4))  # <- cg4
    assert_at(err, "# <- cg4", "cta_group must be 1 or 2", "got 4")


@pytest.mark.parametrize("ncols", [16, 48, 1024, 3.0])
def test_alloc_ncols_power_of_two_32_to_512(ncols):
    def fn():
        ptx.tcgen05.alloc(smem.alloc(b32, (1,)), ncols)  # <- ncols
    assert_at(error_of(fn), "# <- ncols", "ncols must be a power of two from 32 to 512",
              f"got {ncols!r}")


def test_dealloc_checks_ncols_and_the_address():
    def bad_ncols():
        ptx.tcgen05.dealloc(reg.scalar(b32), 96)  # <- dealloc-ncols
    assert_at(error_of(bad_ncols), "# <- dealloc-ncols", "tcgen05.dealloc: ncols")

    def slot_not_address():
        ptx.tcgen05.dealloc(smem.alloc(b32, (1,)), 32)  # <- dealloc-slot
    assert_at(error_of(slot_not_address), "# <- dealloc-slot",
              "takes the Tensor Memory address itself")


def test_ld_register_count_must_match_shape_and_count():
    def fn():
        t = reg.scalar(b32)
        ptx.tcgen05.ld(reg.array(f32, 32), t, shape="32x32b", count=64)  # <- ld-count
    assert_at(error_of(fn), "# <- ld-count",
              "tcgen05.ld .32x32b.x64 moves 64 32-bit registers per thread; dst_regs has 32",
              "reg.array(b32, 64)", "count=32")


def test_st_register_count_and_shape_limits():
    def wrong():
        ptx.tcgen05.st(reg.scalar(b32), reg.array(b32, 4), shape="16x128b", count=4)  # <- st
    assert_at(error_of(wrong), "# <- st", ".16x128b.x4 moves 8 32-bit registers",
              "src_regs has 4", "count=2")

    def too_many():
        ptx.tcgen05.ld(reg.array(b32, 256), reg.scalar(b32), shape="16x128b", count=128)  # <- x128
    assert_at(error_of(too_many), "# <- x128", ".16x128b allows .x1 to .x64")

    def bad_count():
        ptx.tcgen05.ld(reg.array(b32, 3), reg.scalar(b32), shape="32x32b", count=3)  # <- x3
    assert_at(error_of(bad_count), "# <- x3", "count must be 1, 2, 4, 8, 16, 32, 64 or 128")

    def no_splitoff():
        ptx.tcgen05.ld(reg.array(b32, 2), reg.scalar(b32), shape="16x32bx2", count=2)  # <- split
    assert_at(error_of(no_splitoff), "# <- split", "needs half_splitoff=")

    def wide_register():
        ptx.tcgen05.ld([reg.scalar(b64)], reg.scalar(b32), shape="32x32b")  # <- wide
    assert_at(error_of(wide_register), "# <- wide", "moves 32-bit registers; dst_regs[0]")


@pytest.mark.parametrize("kind,idesc,fragment", [
    ("tf32", IDESC, "kind::tf32 needs A and B of type tf32, but the instruction descriptor "
                    "encodes A code 1, B code 1"),
    ("f16", InstrDesc.for_kind("tf32", a="tf32").encode(),
     "kind::f16 needs A and B of type f16/bf16, but the instruction descriptor encodes "
     "A code 2, B code 2"),
    ("i8", IDESC, "kind::i8 accumulates in s32"),
    ("f16", InstrDesc.for_kind("f16", m=256).encode(), "cta_group::1 takes M = 64 or 128"),
    ("f16", IDESC | 1 << 23, "reserved bit(s) 23"),
])
def test_mma_kind_must_suit_a_static_idesc(kind, idesc, fragment):
    def fn():
        ptx.tcgen05.mma(reg.scalar(b32), 0, 0, idesc, kind=kind)  # <- mma-idesc
    assert_at(error_of(fn), "# <- mma-idesc", f"tcgen05.mma.kind::{kind} cannot use the "
              f"instruction descriptor {idesc:#x}", fragment, "make_instr_desc_f16bf16_f32")


def test_mma_argument_checks():
    cases = {
        "u32-tmem": (lambda: ptx.tcgen05.mma(reg.scalar(u32), 0, 0, IDESC),  # <- u32-tmem
                     "Tensor Memory addresses in .b32 registers"),
        "block-scaled": (lambda: ptx.tcgen05.mma(reg.scalar(b32), 0, 0, IDESC,  # <- block-scaled
                                                 kind="mxf4"), "block scaled"),
        "smem-a": (lambda: ptx.tcgen05.mma(reg.scalar(b32), smem.alloc(b32, 4), 0,  # <- smem-a
                                           IDESC), "a_desc must be a shared memory descriptor"),
        "ashift": (lambda: ptx.tcgen05.mma(reg.scalar(b32), 0, 0, IDESC,  # <- ashift
                                           ashift=True), "pass a_is_tmem=True"),
        "sparse": (lambda: ptx.tcgen05.mma(reg.scalar(b32), 0, 0, IDESC,  # <- sparse
                                           sparse=True), "needs sparse_metadata="),
        "scale-c": (lambda: ptx.tcgen05.mma(reg.scalar(b32), 0, 0, IDESC,  # <- scale-c
                                            scale_c=16), "scale_c must be an int from 0 to 15"),
        "mask": (lambda: ptx.tcgen05.mma(reg.scalar(b32), 0, 0, IDESC,  # <- mask
                                         disable_output_lane=reg.array(b32, 8)),
                 "cta_group::1 takes 4 disable-output-lane registers; got 8"),
    }
    for marker, (fn, fragment) in cases.items():
        assert_at(error_of(fn), f"# <- {marker}", fragment)


def test_other_argument_checks():
    cases = {
        "cp-addr": (lambda: ptx.tcgen05.cp(reg.scalar(b32), smem.alloc(b32, 4)),  # <- cp-addr
                    "shared memory *descriptor*"),
        "cp-size": (lambda: ptx.tcgen05.cp(reg.scalar(b32), 0, size="64x128b"),  # <- cp-size
                    "tcgen05.cp size must be one of"),
        "commit-mask": (lambda: ptx.tcgen05.commit(smem.mbarrier(1),  # <- commit-mask
                                                   multicast=True), "needs multicast_mask="),
        "desc-offset": (lambda: ptx.tcgen05.descriptor(smem.alloc(b32, 64),  # <- desc-offset
                                                       byte_offset=8, stride_bytes=1024),
                        "offset must be a multiple of 16"),
        "desc-version": (lambda: ptx.tcgen05.descriptor(reg.scalar(u32),  # <- desc-version
                                                        stride_bytes=1024, version=0),
                         "version must be 1"),
        "desc-sbo": (lambda: ptx.tcgen05.descriptor(reg.scalar(u32),  # <- desc-sbo
                                                    stride_bytes=1000),
                     "the stride byte offset must be a multiple of 16"),
        "instr-desc": (lambda: ptx.tcgen05.make_instr_desc_f16bf16_f32(n=12),  # <- instr-desc
                       "n must be a multiple of 8 from 8 to 256"),
        "masked-overlap": (lambda: ptx.tcgen05.masked_descriptor(  # <- masked-overlap
            reg.scalar(u32), const_bits=1), "overlaps the address bits"),
    }
    for marker, (fn, fragment) in cases.items():
        assert_at(error_of(fn), f"# <- {marker}", fragment)


def test_ptxas_rejects_what_the_cta_group_check_catches(ptxas, tmp_path):
    """The rule behind the cta_group check: ptxas refuses a kernel that mixes them."""
    import subprocess

    def fn():
        slot = smem.alloc(b32, (1,))
        ptx.tcgen05.alloc.cta_group__1.sync.aligned.shared__cta.b32(ptx.addr(slot), 32)
        ptx.tcgen05.alloc.cta_group__2.sync.aligned.shared__cta.b32(ptx.addr(slot), 32)
    (tmp_path / "k.ptx").write_text(trace(fn))
    proc = subprocess.run([ptxas, "-arch=sm_100a", str(tmp_path / "k.ptx"), "-o",
                           str(tmp_path / "k.cubin")], capture_output=True, text=True)
    assert proc.returncode != 0 and re.search(r"cta_group::1.*cta_group::2", proc.stderr)


# -- the examples (examples/blackwell/tcgen05_*.py) -------------------------------------------

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def example(name):
    import importlib
    import sys
    if ROOT not in sys.path:
        sys.path.insert(0, ROOT)
    return importlib.import_module(f"examples.blackwell.{name}")


def count(text, prefix):
    return sum(1 for line in body(text) if re.sub(r"^@!?%p\d+ ", "", line).startswith(prefix))


@pytest.mark.parametrize("N,K", [(64, 64), (256, 128), (16, 64)])
def test_example_alloc_mma(N, K, assemble):
    ex = example("tcgen05_alloc_mma")
    text = ex.build_tcgen05_alloc_mma(N, K).ptx()
    assemble(text, "sm_100a")
    ncols = ex.tmem_columns(N)
    idesc = ptx.tcgen05.make_instr_desc_f16bf16_f32(m=128, n=N)
    lines = body(text)
    # (256 x 128 needs 96 KiB: the kernel traces in dynamic shared-memory mode.)
    assert count(text, "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [") == 1
    assert any(re.fullmatch(rf"tcgen05\.alloc\..* \[\w+(\+\d+)?\], {ncols};", l) for l in lines)
    assert count(text, "tcgen05.mma.cta_group::1.kind::f16 ") == K // 16
    assert sum(l.endswith(f", {idesc}, 0;") for l in lines) == 1     # only the first overwrites
    assert count(text, "tcgen05.commit.cta_group::1.mbarrier::arrive::one") == 1
    assert count(text, "tcgen05.ld.sync.aligned.32x32b.") == -(-N // 128)
    assert count(text, "tcgen05.wait::ld.sync.aligned") == -(-N // 128)
    assert count(text, "tcgen05.fence::before_thread_sync") == 2
    assert count(text, "tcgen05.fence::after_thread_sync") == 2
    assert f"tcgen05.dealloc.cta_group::1.sync.aligned.b32 %b4, {ncols};" in lines
    assert count(text, "tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned") == 1


def test_example_alloc_mma_layout_and_reference():
    ex = example("tcgen05_alloc_mma")
    # The copy loop's address (thread t, row group j) is the element's place in
    # the layout the descriptors describe.
    for rows, tile in ((128, 0), (64, 1)):
        seen = set()
        for t in range(128):
            for j in range(rows // 16):
                row, chunk = (t >> 3) + 16 * j, t & 7
                kernel_offset = (tile * rows * ex.ROW_BYTES + (t >> 3) * ex.ROW_BYTES
                                 + ((chunk ^ ((t >> 3) & 7)) << 4) + j * 16 * ex.ROW_BYTES)
                assert kernel_offset == ex.swizzled_offset(tile, rows, row, 8 * chunk)
                seen.add(kernel_offset)
        assert len(seen) == rows * 8                   # every 16-byte chunk exactly once
    rng = np.random.default_rng(1)
    a = ex.round_to_bf16(rng.standard_normal((128, 64), dtype=np.float32))
    b_t = ex.round_to_bf16(rng.standard_normal((32, 64), dtype=np.float32))
    expect = [[sum(float(a[i, k]) * float(b_t[j, k]) for k in range(64)) for j in range(32)]
              for i in range(0, 128, 31)]
    assert np.allclose(ex.reference(a, b_t)[::31], expect, rtol=1e-12, atol=1e-12)
    with pytest.raises(ValueError, match="multiple of 16"):
        ex.build_tcgen05_alloc_mma(24, 64)


@pytest.mark.parametrize("C", [32, 128])
def test_example_ld_st(C, assemble):
    ex = example("tcgen05_ld_st")
    text = ex.build_tcgen05_ld_st(C).ptx()
    assemble(text, "sm_100a")
    assert count(text, f"tcgen05.st.sync.aligned.32x32b.x{C}.b32 [%b1], ") == 1
    assert count(text, f"tcgen05.ld.sync.aligned.32x32b.x{C}.b32 ") == 1
    for prefix in ("tcgen05.alloc", "tcgen05.wait::st", "tcgen05.wait::ld", "tcgen05.dealloc",
                   "tcgen05.relinquish_alloc_permit"):
        assert count(text, prefix) == 1, prefix
    x = np.random.default_rng(2).standard_normal((128, C), dtype=np.float32)
    assert np.array_equal(ex.reference(x), x + x)


@pytest.mark.parametrize("shift", [True, False])
def test_example_cp_shift(shift, assemble):
    ex = example("tcgen05_cp_shift")
    text = ex.build_tcgen05_cp_shift(shift).ptx()
    assemble(text, "sm_100a")
    desc = SmemDesc(leading_byte_offset=ex.LBO, stride_byte_offset=ex.SBO).const_bits()
    assert f"mad.wide.u32 %bd0, %r11, 1, {desc};" in body(text)
    assert count(text, "tcgen05.cp.cta_group::1.128x256b [%b4], %bd0;") == 1
    assert count(text, "tcgen05.shift.cta_group::1.down [%b4];") == int(shift)
    assert count(text, "tcgen05.commit.") == 1 + int(shift)
    assert count(text, "tcgen05.ld.sync.aligned.32x32b.x8.b32") == 1


def test_example_cp_shift_layout_and_reference():
    ex = example("tcgen05_cp_shift")
    x = np.arange(128 * 8, dtype=np.float32).reshape(128, 8)
    image = ex.smem_image(x)
    assert sorted(image.tolist()) == x.ravel().tolist()   # a permutation: each element once
    for t in range(128):       # the kernel's store address is smem_offset
        for c in range(2):
            assert (t >> 3) * ex.SBO + ((t & 7) << 4) + c * ex.LBO == ex.smem_offset(t, c)
    y = ex.reference(x)
    assert np.isnan(y[0]).all() and np.array_equal(y[1:32], x[:31])
    assert np.array_equal(y[32:], x[32:])
    assert np.array_equal(ex.reference(x, shift=False), x)


@pytest.mark.parametrize("name", ["tcgen05_alloc_mma", "tcgen05_ld_st", "tcgen05_cp_shift"])
def test_examples_run_as_scripts(name):
    import subprocess
    import sys
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "blackwell",
                                                        f"{name}.py")],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(".version ") and ".target sm_100a" in proc.stdout
    assert "tcgen05." in proc.stdout
