"""ptx.wgmma helpers and setmaxnreg: the exact PTX each emits, ptxas -arch=sm_90a
accepts kernels using them, and each mistake is a KernelError at the author's line."""
import os

import pytest

from conftest import line_of
from pyptx import KernelError, kernel, ptx, reg, smem
from pyptx.hw import warpgroup
from pyptx.hw.descriptors import MatrixDescriptor
from pyptx.types import b32, bf16, e4m3, e5m2, f16, f16x2, f32, pred, s8, s32, tf32, u8, u32, u64
from pyptx.wgmma_layout import layout_for_a, layout_for_b

HERE = os.path.abspath(__file__)


def body(text):
    """The instruction lines of a kernel's PTX (no declarations, labels, braces)."""
    lines = []
    for line in text.splitlines():
        line = line.strip()
        if line.endswith(";") and not line.startswith("."):
            lines.append(line)
    return lines


def vec(prefix, first, count):
    return "{" + ", ".join(f"{prefix}{i}" for i in range(first, first + count)) + "}"


def const(layout):
    return MatrixDescriptor(0, layout.leading_byte_offset, layout.stride_byte_offset, 0,
                            layout.swizzle_code).encode()


# -- one instruction each ---------------------------------------------------------------

def test_fence_commit_wait_and_raw_spelling(assemble):
    @kernel(arch="sm_90a")
    def k():
        ptx.wgmma.fence()
        ptx.wgmma.commit_group()
        ptx.wgmma.wait_group(1)
        ptx.wgmma.fence.sync.aligned()          # the raw opcode still works
        p = reg.scalar(pred)
        ptx.wgmma.wait_group(0, pred=p)
        ptx.ret()

    text = k.ptx()
    assert body(text) == ["wgmma.fence.sync.aligned;", "wgmma.commit_group.sync.aligned;",
                          "wgmma.wait_group.sync.aligned 1;", "wgmma.fence.sync.aligned;",
                          "@%p0 wgmma.wait_group.sync.aligned 0;", "ret;"]
    assemble(text)


def test_mma_async_with_descriptor_registers(assemble):
    @kernel(arch="sm_90a")
    def k():
        acc = reg.array(f32, 64)
        da, db = reg.scalar(u64), reg.scalar(u64)
        ptx.inst.mov.u64(da, 0)
        ptx.inst.mov.u64(db, 0)
        p = reg.scalar(pred)
        ptx.inst.setp.ne.u64(p, da, 1)
        ptx.wgmma.fence()
        ptx.wgmma.mma_async(shape=(64, 128, 16), dtype_d=f32, dtype_a=bf16, dtype_b=bf16,
                            d=acc, a=da, b=db, trans_b=1)
        ptx.wgmma.mma_async(shape=(64, 128, 16), dtype_d=f32, dtype_a=bf16, dtype_b=bf16,
                            d=acc, a=da, b=db, scale_d=True, scale_a=-1)
        ptx.wgmma.mma_async(shape=(64, 128, 16), dtype_d=f32, dtype_a=bf16, dtype_b=bf16,
                            d=acc, a=da, b=db, scale_d=p, pred=p)
        ptx.ret()

    text = k.ptx()
    acc = vec("%f", 0, 64)
    assert body(text)[4:7] == [
        f"wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {acc}, %rd0, %rd1, 0, 1, 1, 0, 1;",
        f"wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {acc}, %rd0, %rd1, 1, -1, 1, 0, 0;",
        f"@%p0 wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {acc}, %rd0, %rd1, %p0, "
        f"1, 1, 0, 0;"]
    assemble(text)


def test_mma_async_with_tiles_builds_their_descriptors(assemble):
    @kernel(arch="sm_90a")
    def k():
        sA = smem.wgmma_tile(bf16, (64, 16), major="K")
        sB = smem.wgmma_tile(bf16, (16, 64), major="MN")
        acc = reg.array(f32, 32)
        ptx.wgmma.mma_async(shape=(64, 64, 16), dtype_d=f32, dtype_a=bf16, dtype_b=bf16,
                            d=acc, a=sA, b=sB, scale_d=False, trans_b=1)
        ptx.ret()

    text = k.ptx()
    ca = const(layout_for_a(dtype=bf16, m=64, k=16))
    cb = const(layout_for_b(dtype=bf16, k=16, n=64))
    assert ca == (3 << 62) | (16 << 32) | (1 << 16)           # B32, SBO 256, LBO 16
    assert cb == (1 << 62) | (64 << 32) | (128 << 16)         # B128, SBO 1024, LBO 2048
    assert body(text) == [
        "mov.u64 %rd0, smem_0;", "bfe.u64 %rd1, %rd0, 4, 14;", f"add.u64 %rd2, %rd1, {ca};",
        "mov.u64 %rd3, smem_1;", "bfe.u64 %rd4, %rd3, 4, 14;", f"add.u64 %rd5, %rd4, {cb};",
        f"wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {vec('%f', 0, 32)}, "
        f"%rd2, %rd5, 0, 1, 1, 0, 1;",
        "ret;"]
    assemble(text)


def test_stage_slices_and_k_offsets_fold_into_the_symbol(assemble):
    @kernel(arch="sm_90a")
    def k():
        sA = smem.wgmma_tile(bf16, (2, 64, 64), major="K")     # 8 KiB stages, B128
        sB = smem.wgmma_tile(bf16, (2, 64, 64), major="K")     # B stored (N, K)
        acc = reg.array(f32, 32)
        ptx.wgmma.mma_async(shape=(64, 64, 16), dtype_d=f32, dtype_a=bf16, dtype_b=bf16,
                            d=acc, a=sA[1], b=sB[0], scale_d=True, a_k_offset=32,
                            b_k_offset=96)
        ptx.ret()

    text = k.ptx()
    c = const(layout_for_a(dtype=bf16, m=64, k=64))
    assert body(text)[:6] == [
        "mov.u64 %rd0, smem_0+8224;", "bfe.u64 %rd1, %rd0, 4, 14;", f"add.u64 %rd2, %rd1, {c};",
        "mov.u64 %rd3, smem_1+96;", "bfe.u64 %rd4, %rd3, 4, 14;", f"add.u64 %rd5, %rd4, {c};"]
    assemble(text)


def test_register_stage_slice_uses_the_register_path(assemble):
    @kernel(arch="sm_90a")
    def k():
        sA = smem.wgmma_tile(bf16, (3, 64, 64), major="K")
        stage = reg.scalar(u32)
        ptx.inst.mov.u32(stage, 2)
        desc = ptx.wgmma.auto_descriptor(sA[stage], dtype=bf16, shape=(64, 64), major="K")
        acc = reg.array(f32, 32)
        ptx.wgmma.mma_async(shape=(64, 64, 16), dtype_d=f32, dtype_a=bf16, dtype_b=bf16,
                            d=acc, a=sA[stage], b=desc, a_k_offset=64)
        ptx.ret()

    c = const(layout_for_a(dtype=bf16, m=64, k=64))
    lines = body(k.ptx())
    # sA[stage] is mov.u32 of the symbol + mad.lo.u32; then bfe (the 14-bit
    # start-address field) and mad.wide (widen + the constant fields). The
    # second sA[stage] reuses the mov (the same stretch of code): mad only.
    assert lines[1:5] == ["mov.u32 %r1, smem_0;", "mad.lo.u32 %r2, %r0, 8192, %r1;",
                          "bfe.u32 %r3, %r2, 4, 14;", f"mad.wide.u32 %rd0, %r3, 1, {c};"]
    assert lines[5:8] == ["mad.lo.u32 %r4, %r0, 8192, %r1;", "bfe.u32 %r5, %r4, 4, 14;",
                          f"mad.wide.u32 %rd1, %r5, 1, {c + 4};"]   # a_k_offset 64 = 4 units
    assemble(k.ptx())


def test_dynamic_shared_memory_tiles(assemble):
    @kernel(arch="sm_90a", smem=64 * 1024)
    def k():
        sA = smem.wgmma_tile(bf16, (64, 64), major="K")
        sB = smem.wgmma_tile(bf16, (64, 64), major="K")
        acc = reg.array(f32, 32)
        ptx.wgmma.mma_async(shape=(64, 64, 16), dtype_d=f32, dtype_a=bf16, dtype_b=bf16,
                            d=acc, a=sA, b=sB, scale_d=True)
        ptx.ret()

    text = k.ptx()
    assert ".extern .shared .align 1024 .b8 dyn_smem[];" in text
    lines = body(text)
    assert lines[0] == "mov.u64 %rd0, dyn_smem;" and lines[3] == "mov.u64 %rd3, dyn_smem+8192;"
    assemble(text)


def test_a_from_registers_has_no_trans_a(assemble):
    @kernel(arch="sm_90a")
    def k():
        acc = reg.array(f32, 8)
        frag = reg.array(b32, 4)
        packed = reg.array(f16x2, 4)
        db = reg.scalar(u64)
        ptx.inst.mov.u64(db, 0)
        ptx.wgmma.mma_async(shape=(64, 16, 16), dtype_d=f32, dtype_a=bf16, dtype_b=bf16,
                            d=acc, a=frag, b=db, scale_d=True, trans_b=1)
        ptx.wgmma.mma_async(shape=(64, 16, 16), dtype_d=f32, dtype_a=f16, dtype_b=f16,
                            d=acc, a=list(packed), b=db, scale_d=True)
        ptx.ret()

    text = k.ptx()
    assert body(text)[1:3] == [
        f"wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16 {vec('%f', 0, 8)}, "
        f"{vec('%b', 0, 4)}, %rd0, 1, 1, 1, 1;",
        f"wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {vec('%f', 0, 8)}, "
        f"{vec('%hh', 0, 4)}, %rd0, 1, 1, 1, 0;"]
    assemble(text)


def test_other_input_types_take_their_operand_lists(assemble):
    @kernel(arch="sm_90a", version=(8, 4))      # mixed s8/u8 inputs need PTX 8.4
    def k():
        da = reg.scalar(u64)
        ptx.inst.mov.u64(da, 0)
        h = reg.array(f16x2, 16)
        ptx.wgmma.mma_async(shape=(64, 64, 16), dtype_d=f16, dtype_a=f16, dtype_b=f16,
                            d=h, a=da, b=da, scale_d=True, trans_a=1)
        t = reg.array(f32, 16)
        ptx.wgmma.mma_async(shape=(64, 32, 8), dtype_d=f32, dtype_a=tf32, dtype_b=tf32,
                            d=t, a=da, b=da, scale_d=True, scale_b=-1)
        q = reg.array(f32, 128)
        ptx.wgmma.mma_async(shape=(64, 256, 32), dtype_d=f32, dtype_a=e4m3, dtype_b=e5m2,
                            d=q, a=da, b=da)
        i = reg.array(s32, 24)
        ptx.wgmma.mma_async(shape=(64, 48, 32), dtype_d=s32, dtype_a=s8, dtype_b=u8,
                            d=i, a=da, b=da, scale_d=True)
        ptx.ret()

    lines = body(k.ptx())
    assert lines[1:5] == [
        f"wgmma.mma_async.sync.aligned.m64n64k16.f16.f16.f16 {vec('%hh', 0, 16)}, %rd0, %rd0, "
        f"1, 1, 1, 1, 0;",
        f"wgmma.mma_async.sync.aligned.m64n32k8.f32.tf32.tf32 {vec('%f', 0, 16)}, %rd0, %rd0, "
        f"1, 1, -1;",
        f"wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e5m2 {vec('%f', 16, 128)}, %rd0, "
        f"%rd0, 0, 1, 1;",
        f"wgmma.mma_async.sync.aligned.m64n48k32.s32.s8.u8 {vec('%s', 0, 24)}, %rd0, %rd0, 1;"]
    assemble(k.ptx())


# -- descriptor builders ----------------------------------------------------------------

def test_make_descriptor_instruction_counts(assemble):
    @kernel(arch="sm_90a")
    def k():
        sA = smem.wgmma_tile(bf16, (64, 64), major="K")
        ptx.wgmma.make_descriptor(sA, leading_byte_offset=16, stride_byte_offset=1024,
                                  swizzle=ptx.wgmma.SWIZZLE_128B, addr_byte_offset=64)
        r64 = reg.scalar(u64)
        ptx.inst.mov.u64(r64, sA)
        ptx.wgmma.make_descriptor(r64, leading_byte_offset=16, stride_byte_offset=1024,
                                  swizzle=1, addr_byte_offset=32)
        r32 = reg.scalar(u32)
        ptx.inst.mov.u32(r32, sA)
        ptx.wgmma.make_descriptor(r32, leading_byte_offset=128, stride_byte_offset=256,
                                  base_offset=2)
        ptx.ret()

    c = MatrixDescriptor(0, 16, 1024, 0, 1).encode()
    c2 = MatrixDescriptor(0, 128, 256, 2, 0).encode()
    text = k.ptx()
    assert body(text) == [
        "mov.u64 %rd0, smem_0+64;", "bfe.u64 %rd1, %rd0, 4, 14;", f"add.u64 %rd2, %rd1, {c};",
        "mov.u64 %rd3, smem_0;",
        "bfe.u64 %rd4, %rd3, 4, 14;", f"add.u64 %rd5, %rd4, {c + 2};",
        "mov.u32 %r0, smem_0;",
        "bfe.u32 %r1, %r0, 4, 14;", f"mad.wide.u32 %rd6, %r1, 1, {c2};",
        "ret;"]
    assemble(text)


def test_auto_descriptor_matches_the_tile_layout(assemble):
    @kernel(arch="sm_90a")
    def k():
        sB = smem.wgmma_tile(bf16, (16, 128), major="MN")
        ptx.wgmma.auto_descriptor(sB, dtype=bf16, shape=(16, 128), major="MN")
        ptx.ret()

    layout = layout_for_b(dtype=bf16, k=16, n=128)
    text = k.ptx()
    assert body(text) == ["mov.u64 %rd0, smem_0;", "bfe.u64 %rd1, %rd0, 4, 14;",
                          f"add.u64 %rd2, %rd1, {const(layout)};", "ret;"]
    assert MatrixDescriptor.decode(const(layout)) == MatrixDescriptor(0, 2048, 1024, 0, 1)
    assemble(text)


def test_masked_descriptor_forms(assemble):
    @kernel(arch="sm_90a")
    def k():
        sA = smem.wgmma_tile(bf16, (64, 64), major="K")
        r = reg.scalar(u32)
        ptx.inst.mov.u32(r, sA)
        ptx.wgmma.masked_descriptor(r, byte_offset=256)
        ptx.wgmma.masked_descriptor(sA, byte_offset=128)
        ptx.ret()

    m = ptx.wgmma.MASKED_DESC_B128
    text = k.ptx()
    assert m == 4611686293305360384
    assert body(text) == [
        "mov.u32 %r0, smem_0;",
        "add.u32 %r1, %r0, 256;", "and.b32 %r2, %r1, 262016;", "shr.u32 %r3, %r2, 4;",
        "cvt.u64.u32 %rd0, %r3;", f"or.b64 %rd1, %rd0, {m};",
        "mov.u64 %rd2, smem_0+128;", "and.b64 %rd3, %rd2, 262016;", "shr.u64 %rd4, %rd3, 4;",
        f"or.b64 %rd5, %rd4, {m};",
        "ret;"]
    assemble(text)


def test_constants_and_signatures():
    import inspect
    w = ptx.wgmma
    assert (w.SWIZZLE_NONE, w.SWIZZLE_128B, w.SWIZZLE_64B, w.SWIZZLE_32B) == (0, 1, 2, 3)
    assert list(inspect.signature(w.mma_async).parameters) == [
        "shape", "dtype_d", "dtype_a", "dtype_b", "d", "a", "b", "scale_d", "scale_a",
        "scale_b", "trans_a", "trans_b", "a_k_offset", "b_k_offset", "pred"]
    assert str(inspect.signature(w.make_descriptor)) == (
        "(smem_base, *, leading_byte_offset, stride_byte_offset, swizzle=0, base_offset=0, "
        "addr_byte_offset=0)")
    assert str(inspect.signature(w.masked_descriptor)) == (
        f"(smem_addr, *, byte_offset=0, mask=262016, const_bits={w.MASKED_DESC_B128})")
    assert str(inspect.signature(w.auto_descriptor)) == "(smem_base, *, dtype, shape, major)"
    assert str(inspect.signature(warpgroup.setmaxnreg)) == "(count, *, inc=True, pred=None)"


def test_setmaxnreg(assemble):
    @kernel(arch="sm_90a")
    def k():
        warpgroup.setmaxnreg(232)
        warpgroup.setmaxnreg(40, inc=False)
        warpgroup.setmaxnreg_inc(240)
        warpgroup.setmaxnreg_dec(24)
        ptx.ret()

    text = k.ptx()
    assert body(text) == ["setmaxnreg.inc.sync.aligned.u32 232;",
                          "setmaxnreg.dec.sync.aligned.u32 40;",
                          "setmaxnreg.inc.sync.aligned.u32 240;",
                          "setmaxnreg.dec.sync.aligned.u32 24;", "ret;"]
    assemble(text)


def test_gemm_step_assembles(assemble):
    """A BK=64 step of an m64n128 tile: fence, 4 k16 wgmmas (A moves 32 bytes along
    its 128-byte lines, B 16 K lines of 128 bytes per step), commit, wait."""
    @kernel(arch="sm_90a", block=(128, 1, 1))
    def gemm():
        sA = smem.wgmma_tile(bf16, (64, 64), major="K")
        sB = smem.wgmma_tile(bf16, (64, 128), major="MN")
        acc = reg.array(f32, 64)
        ptx.wgmma.fence()
        for j in range(4):
            ptx.wgmma.mma_async(shape=(64, 128, 16), dtype_d=f32, dtype_a=bf16, dtype_b=bf16,
                                d=acc, a=sA, b=sB, scale_d=j > 0, trans_b=1,
                                a_k_offset=32 * j, b_k_offset=16 * 128 * j)
        ptx.wgmma.commit_group()
        ptx.wgmma.wait_group(0)
        ptx.ret()

    text = gemm.ptx()
    assert sum(line.startswith("wgmma.mma_async") for line in body(text)) == 4
    assert "mov.u64 %rd9, smem_1+2048;" in body(text)
    assemble(text)


# -- mistakes at the author's line ---------------------------------------------------------

def _mma(**kw):
    args = dict(shape=(64, 128, 16), dtype_d=f32, dtype_a=bf16, dtype_b=bf16)
    args.update(kw)
    return args


def _desc():
    r = reg.scalar(u64)
    ptx.inst.mov.u64(r, 0)
    return r


def err_acc_count():
    d = _desc()
    ptx.wgmma.mma_async(**_mma(d=reg.array(f32, 32), a=d, b=d))  # <- err_acc_count


def err_acc_type():
    d = _desc()
    ptx.wgmma.mma_async(**_mma(d=reg.array(u32, 64), a=d, b=d))  # <- err_acc_type


def err_acc_f16_count():
    d = _desc()
    args = _mma(shape=(64, 64, 16), dtype_d=f16, dtype_a=f16, dtype_b=f16,
                d=reg.array(f16x2, 32), a=d, b=d)
    ptx.wgmma.mma_async(**args)  # <- err_acc_f16_count


def err_n_bf16():
    d = _desc()
    ptx.wgmma.mma_async(**_mma(shape=(64, 20, 16), d=reg.array(f32, 10), a=d, b=d))  # <- err_n_bf16


def err_n_int8():
    d = _desc()
    args = _mma(shape=(64, 40, 32), dtype_d=s32, dtype_a=s8, dtype_b=s8,
                d=reg.array(s32, 20), a=d, b=d)
    ptx.wgmma.mma_async(**args)  # <- err_n_int8


def err_k():
    d = _desc()
    ptx.wgmma.mma_async(**_mma(shape=(64, 128, 32), d=reg.array(f32, 64), a=d, b=d))  # <- err_k


def err_m_rows():
    d = _desc()
    args = _mma(shape=(128, 128, 16), d=reg.array(f32, 64), a=d, b=d)
    ptx.wgmma.mma_async(**args)  # <- err_m_rows


def err_types():
    d = _desc()
    ptx.wgmma.mma_async(**_mma(dtype_b=f16, d=reg.array(f32, 64), a=d, b=d))  # <- err_types


def err_dtype_d():
    d = _desc()
    ptx.wgmma.mma_async(**_mma(dtype_d=f16, d=reg.array(f16x2, 32), a=d, b=d))  # <- err_dtype_d


def err_trans_tf32():
    d = _desc()
    ptx.wgmma.mma_async(**_mma(shape=(64, 128, 8), dtype_a=tf32, dtype_b=tf32,  # <- err_trans_tf32
                               d=reg.array(f32, 64), a=d, b=d, trans_b=1))


def err_trans_major():
    sA = smem.wgmma_tile(bf16, (64, 16), major="K")
    sB = smem.wgmma_tile(bf16, (16, 128), major="MN")
    ptx.wgmma.mma_async(**_mma(d=reg.array(f32, 64), a=sA, b=sB))  # <- err_trans_major


def err_tile_small():
    sA = smem.wgmma_tile(bf16, (64, 16), major="K")
    sB = smem.wgmma_tile(bf16, (16, 64), major="MN")
    ptx.wgmma.mma_async(**_mma(d=reg.array(f32, 64), a=sA, b=sB, trans_b=1))  # <- err_tile_small


def err_no_layout():
    sA = smem.alloc(bf16, (64, 16), swizzle="32B", align=1024)
    d = _desc()
    ptx.wgmma.mma_async(**_mma(d=reg.array(f32, 64), a=sA, b=d))  # <- err_no_layout


def err_make_swizzle():
    sA = smem.wgmma_tile(bf16, (64, 16), major="K")
    fields = dict(leading_byte_offset=16, stride_byte_offset=1024, swizzle=1)
    ptx.wgmma.make_descriptor(sA, **fields)  # <- err_make_swizzle


def err_auto_swizzle():
    sA = smem.wgmma_tile(bf16, (64, 16), major="K")
    ptx.wgmma.auto_descriptor(sA, dtype=bf16, shape=(64, 64), major="K")  # <- err_auto_swizzle


def err_align():
    sA = smem.alloc(bf16, (64, 64), swizzle="128B")
    ptx.wgmma.make_descriptor(sA, leading_byte_offset=16, stride_byte_offset=1024,  # <- err_align
                              swizzle=1)


def err_lbo():
    sA = smem.wgmma_tile(bf16, (64, 64), major="K")
    ptx.wgmma.make_descriptor(sA, leading_byte_offset=24, stride_byte_offset=1024,  # <- err_lbo
                              swizzle=1)


def err_masked_overlap():
    r = reg.scalar(u32)
    ptx.wgmma.masked_descriptor(r, const_bits=(1 << 62) | 0x10)  # <- err_masked_overlap


def err_symbol_minus():
    sA = smem.wgmma_tile(bf16, (64, 64), major="K")
    ptx.wgmma.masked_descriptor(sA, byte_offset=-128)  # <- err_symbol_minus


def err_scale_d_neg():
    d = _desc()
    p = reg.scalar(pred)
    ptx.wgmma.mma_async(**_mma(d=reg.array(f32, 64), a=d, b=d, scale_d=~p))  # <- err_scale_d_neg


def err_scale_a():
    d = _desc()
    ptx.wgmma.mma_async(**_mma(d=reg.array(f32, 64), a=d, b=d, scale_a=2))  # <- err_scale_a


def err_a_regs_count():
    d = _desc()
    three = reg.array(b32, 3)
    ptx.wgmma.mma_async(**_mma(d=reg.array(f32, 64), a=three, b=d))  # <- err_a_regs_count


def err_a_regs_trans():
    d = _desc()
    four = reg.array(b32, 4)
    ptx.wgmma.mma_async(**_mma(d=reg.array(f32, 64), a=four, b=d, trans_a=1))  # <- err_a_regs_trans


def err_desc_type():
    r = reg.scalar(u32)
    ptx.wgmma.mma_async(**_mma(d=reg.array(f32, 64), a=r, b=r))  # <- err_desc_type


def err_wait():
    ptx.wgmma.wait_group(-1)  # <- err_wait


def err_setmaxnreg():
    warpgroup.setmaxnreg_inc(100)  # <- err_setmaxnreg


ERRORS = [
    (err_acc_count, "wgmma m64n128 with an f32 accumulator needs 64 registers per thread; "
                    "d has 32 (allocate d = reg.wgmma_frag(m=64, n=128, dtype=f32))"),
    (err_acc_type, "needs f32 registers; d holds u32 registers"),
    (err_acc_f16_count, "an f16 accumulator needs 16 registers per thread (two f16 per f16x2 "
                        "register); d has 32"),
    (err_n_bf16, "bf16 inputs needs N a multiple of 8 from 8 to 256; shape has n=20"),
    (err_n_int8, "needs N 8, 16, 24, or a multiple of 16 from 32 to 256; shape has n=40"),
    (err_k, "has K=16 (m64nNk16); shape has k=32: use shape=(64, 128, 16)"),
    (err_m_rows, "64 rows per warpgroup (m64); shape has m=128"),
    (err_types, "wgmma has no .bf16.f16 inputs: A.B must be one of bf16.bf16, e4m3.e4m3"),
    (err_dtype_d, "with bf16.bf16 inputs accumulates in f32, not f16: set dtype_d=f32"),
    (err_trans_tf32, "trans_b=1 (an MN-major operand) exists only for bf16/f16 inputs; tf32 "
                     "operands must be K-major"),
    (err_trans_major, "wgmma b=smem_1 is MN-major but trans_b=0 reads it as K-major: pass "
                      "trans_b=1"),
    (err_tile_small, "wgmma b=smem_1 is 64 (N) x 16 (K) but the instruction reads 128 x 16"),
    (err_no_layout, "wgmma a=smem_0: smem_0 has no GMMA layout"),
    (err_make_swizzle, "ptx.wgmma.make_descriptor reads smem_0 with swizzle 128B "
                       "(ptx.wgmma.SWIZZLE_128B = 1), but smem_0 holds its data in the 32B "
                       "(ptx.wgmma.SWIZZLE_32B = 3) pattern; the descriptor must read with the "
                       "swizzle the data was written with: pass swizzle=ptx.wgmma.SWIZZLE_32B"),
    (err_auto_swizzle, "ptx.wgmma.auto_descriptor reads smem_0 with swizzle 128B"),
    (err_align, "the 128B swizzle pattern repeats every 1024 bytes and a descriptor with "
                "base_offset=0 needs the tile to start at such a boundary, but smem_0 is only "
                "128-byte aligned: allocate it with align=1024"),
    (err_lbo, "leading_byte_offset=24 must be a multiple of 16"),
    (err_masked_overlap, "overlaps the address bits"),
    (err_symbol_minus, "PTX cannot write a symbol's address minus 128"),
    (err_scale_d_neg, "scale_d=~p: the operand takes a predicate register or True/False"),
    (err_scale_a, "scale_a must be 1 or -1"),
    (err_a_regs_count, "A in registers is 4 32-bit registers per thread"),
    (err_a_regs_trans, "A in registers has no trans-a operand"),
    (err_desc_type, "wgmma a must be a 64-bit matrix descriptor"),
    (err_wait, "wgmma.wait_group takes a non-negative integer constant"),
    (err_setmaxnreg, "setmaxnreg count must be a multiple of 8 from 24 to 256, not 100"),
]


@pytest.mark.parametrize("fn,message", ERRORS, ids=[f.__name__ for f, _ in ERRORS])
def test_mistakes_are_kernel_errors_at_the_call(fn, message):
    def k():
        fn()
        ptx.ret()
    k.__name__ = fn.__name__
    with pytest.raises(KernelError) as info:
        kernel(arch="sm_90a")(k).ptx()
    assert message in info.value.message, info.value.message
    line = line_of(HERE, f"# <- {fn.__name__}")
    assert (os.path.basename(info.value.file), info.value.line) == ("test_wgmma.py", line), \
        str(info.value)
