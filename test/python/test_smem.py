"""pyptx.smem: allocations (static and carved from dyn_smem), stage slices,
mbarrier references, element access, smem.load/store/base, apply_swizzle and
wgmma_tile's GMMA layout."""
import os
import re

import pytest

from conftest import line_of
from pyptx import KernelError, kernel, ptx, reg, smem
from pyptx._inst import as_address
from pyptx._operands import Address
from pyptx._trace import get_ctx
from pyptx.smem import MbarrierArray, MbarrierRef, SharedAlloc, SharedSlice
from pyptx.types import b16, bf16, f32, u8, u32, u64

HERE = os.path.abspath(__file__)


def body(text):
    """The instruction lines of the kernel body, without declarations."""
    inner = text.split("{", 1)[1].rsplit("}", 1)[0]
    return [line.strip() for line in inner.splitlines()
            if line.strip() and not line.strip().startswith(".")]


def trace(fn, arch="sm_90a"):
    return kernel(arch=arch)(fn).ptx()


def raises_at(fn, marker, *fragments):
    """Tracing fn raises a KernelError at the line marked `marker` whose
    message contains every fragment."""
    with pytest.raises(KernelError) as info:
        trace(fn)
    message = str(info.value)
    assert info.value.line == line_of(HERE, marker), message
    for fragment in fragments:
        assert fragment in message, message
    return message


# -- allocation -----------------------------------------------------------------------

def test_static_allocations_are_shared_variables_with_a_running_total(assemble):
    seen = {}

    def k():
        a = smem.alloc(f32, (16, 32))
        b = smem.alloc(bf16, (2, 64, 64), align=1024, name="tiles")
        bars = smem.mbarrier(3)
        c = smem.alloc(u8, 100)
        seen.update(a=a, b=b, bars=bars, c=c, total=get_ctx().smem_bytes)
        ptx.ret()

    text = trace(k)
    assemble(text)
    assert ".shared .align 128 .b8 smem_0[2048];" in text
    assert ".shared .align 1024 .b8 tiles[16384];" in text
    assert ".shared .align 8 .b64 mbar_0[3];" in text
    assert ".shared .align 128 .b8 smem_1[100];" in text
    a, b, bars, c = seen["a"], seen["b"], seen["bars"], seen["c"]
    # Static variables: the address is [name+0]; ptxas places them.
    assert (a.symbol, a.byte_offset, b.symbol, bars.symbol) == ("smem_0", 0, "tiles", "mbar_0")
    # 2048, then 1024-aligned 2048..18432, 24 bytes of barriers, 128-aligned
    # 18560 + 100.
    assert seen["total"] == 18660
    assert (b.nbytes, b.stage_bytes, b.align, b.shape) == (16384, 8192, 1024, (2, 64, 64))
    assert c.shape == (100,) and a.gmma_layout is None and a.gmma_major is None


def test_allocation_as_operand_is_its_address_value(assemble):
    def k():
        a = smem.alloc(f32, 32)
        bars = smem.mbarrier(1)
        reg.from_(a, u32)
        reg.from_(bars, u32)
        ptx.inst.ld.shared.f32(reg.scalar(f32), ptx.addr(a, 8))
        ptx.ret()

    text = trace(k)
    assemble(text)
    assert body(text) == ["mov.u32 %r0, smem_0;", "mov.u32 %r1, mbar_0;",
                          "ld.shared.f32 %f0, [smem_0+8];", "ret;"]


# -- stage slices ------------------------------------------------------------------------

def test_stage_slice_addresses_that_stage(assemble):
    seen = {}

    def k():
        sA = smem.alloc(bf16, (3, 64, 64), align=1024)
        bar = smem.mbarrier(1)
        s = sA[2]
        seen.update(s=s, sA=sA, addr=as_address(s, 16))
        tmap = reg.scalar(u64)
        x = reg.scalar(u32, init=0)
        # The original dropped the stage here ([smem_0]); stage 2 is +16384.
        ptx.inst.cp.async_.bulk.tensor._2d.shared__cluster.global_.tile \
            .mbarrier__complete_tx__bytes(s, ptx.tensor_addr(tmap, x, x), bar[0])
        ptx.ret()

    text = trace(k)
    assemble(text)
    s, sA = seen["s"], seen["sA"]
    assert isinstance(s, SharedSlice) and isinstance(s, Address)
    assert (s.alloc, s.stage, s.name, s.shape, s.nbytes) == (sA, 2, "smem_0", (64, 64), 8192)
    assert (s.base, s.offset) == ("smem_0", 16384)
    assert (seen["addr"].base, seen["addr"].offset) == ("smem_0", 16400)
    assert ("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes "
            "[smem_0+16384], [%rd0, {%r0, %r0}], [mbar_0];") in body(text)


def test_register_stage_is_two_instructions(assemble):
    def k():
        sA = smem.alloc(f32, (4, 256))
        stage = reg.scalar(u32)
        ptx.inst.st.shared.f32(sA[stage], reg.scalar(f32))
        ptx.ret()

    text = trace(k)
    assemble(text)
    assert body(text) == ["mov.u32 %r1, smem_0;", "mad.lo.u32 %r2, %r0, 1024, %r1;",
                          "st.shared.f32 [%r2], %f0;", "ret;"]


# -- element access ------------------------------------------------------------------------

def test_element_load_with_int_indices_is_one_instruction(assemble):
    def k():
        a = smem.alloc(f32, (16, 32))
        a[1, 2]
        ptx.ret()

    text = trace(k, "sm_80")
    assemble(text, "sm_80")
    # (1 * 32 + 2) * 4 = 136, folded into the address.
    assert body(text) == ["ld.shared.f32 %f0, [smem_0+136];", "ret;"]


def test_element_load_with_one_register_index_is_three_instructions(assemble):
    def k():
        a = smem.alloc(f32, (16, 32))
        row = reg.scalar(u32)
        a[row, 3]
        ptx.ret()

    text = trace(k, "sm_80")
    assemble(text, "sm_80")
    # Row stride 32 * 4 = 128 an immediate; the column's 12 bytes in the address.
    assert body(text) == ["mov.u32 %r1, smem_0;", "mad.lo.u32 %r2, %r0, 128, %r1;",
                          "ld.shared.f32 %f0, [%r2+12];", "ret;"]


def test_element_load_with_two_register_indices_is_four_instructions(assemble):
    def k():
        a = smem.alloc(bf16, (8, 64))
        row, col = reg.scalar(u32), reg.scalar(u32)
        a[row, col]
        ptx.ret()

    text = trace(k, "sm_80")
    assemble(text, "sm_80")
    # bf16 moves as .b16 (PTX has no ld.bf16).
    assert body(text) == ["mov.u32 %r2, smem_0;", "mad.lo.u32 %r3, %r0, 128, %r2;",
                          "mad.lo.u32 %r4, %r1, 2, %r3;", "ld.shared.b16 %bh0, [%r4];",
                          "ret;"]


def test_element_store_of_register_and_immediate(assemble):
    def k():
        a = smem.alloc(f32, (16, 32))
        col = reg.scalar(u32)
        v = reg.scalar(f32)
        a[2, col] = v
        a[0, 1] = 1.0
        b = smem.alloc(u8, (4, 4))
        b[3, 3] = 7
        ptx.ret()

    text = trace(k, "sm_80")
    assemble(text, "sm_80")
    assert body(text) == ["mov.u32 %r1, smem_0;", "mad.lo.u32 %r2, %r0, 4, %r1;",
                          "st.shared.f32 [%r2+256], %f0;",
                          "st.shared.f32 [smem_0+4], 0f3F800000;",
                          "st.shared.u8 [smem_1+15], 7;", "ret;"]


def test_three_index_element_and_element_of_a_slice(assemble):
    def k():
        sA = smem.alloc(bf16, (2, 64, 64))
        row = reg.scalar(u32)
        sA[1, row, 5]
        sA[1][3, 4]
        ptx.ret()

    text = trace(k, "sm_80")
    assemble(text, "sm_80")
    # Stage 1 is +8192; row stride 128; column 5 is +10; (3, 4) is +392.
    assert body(text) == ["mov.u32 %r1, smem_0;", "mad.lo.u32 %r2, %r0, 128, %r1;",
                          "ld.shared.b16 %bh0, [%r2+8202];",
                          "ld.shared.b16 %bh1, [smem_0+8584];", "ret;"]


def test_element_access_ignores_the_swizzle_like_the_original():
    def k():
        a = smem.alloc(bf16, (8, 64), swizzle="128B")
        a[1, 0]
        ptx.ret()

    assert body(trace(k)) == ["ld.shared.b16 %bh0, [smem_0+128];", "ret;"]


# -- smem.load / store / base ----------------------------------------------------------------

def test_load_and_store_are_one_instruction_each(assemble):
    def k():
        a = smem.alloc(bf16, (2, 64))
        p = reg.scalar(u32)
        x = smem.load(f32, p)
        smem.store(f32, ptx.addr(p, 4), x)
        h = smem.load(bf16, a[1])
        smem.store(b16, a, h)
        smem.store(u32, p, 5)
        ptx.ret()

    text = trace(k, "sm_80")
    assemble(text, "sm_80")
    assert body(text) == ["ld.shared.f32 %f0, [%r0];", "st.shared.f32 [%r0+4], %f0;",
                          "ld.shared.b16 %bh0, [smem_0+128];", "st.shared.b16 [smem_0], %bh0;",
                          "st.shared.u32 [%r0], 5;", "ret;"]


def test_base_moves_an_address_into_a_register(assemble):
    def k():
        a = smem.alloc(f32, (2, 32))
        bars = smem.mbarrier(2)
        smem.base(a)
        smem.base("smem_0")
        smem.base(a[1])
        smem.base(bars[1])
        ptx.ret()

    text = trace(k)
    assemble(text)
    assert body(text) == ["mov.u32 %r0, smem_0;", "mov.u32 %r1, smem_0;",
                          "mov.u32 %r2, smem_0+128;", "mov.u32 %r3, mbar_0+8;", "ret;"]


def test_base_of_the_extern_array():
    seen = {}

    @kernel(arch="sm_90a", extern_smem=True)
    def k():
        smem.base()
        seen["name"] = get_ctx().extern_smem_name
        ptx.ret()

    assert body(k.ptx()) == [f"mov.u32 %r0, {seen['name']};", "ret;"]


# -- mbarriers ---------------------------------------------------------------------------

def test_mbarrier_index_is_a_reference(assemble):
    seen = {}

    def k():
        smem.alloc(f32, 3)
        bars = smem.mbarrier(4)
        ref = bars[3]
        seen.update(bars=bars, ref=ref, refs=list(bars))
        ptx.inst.mbarrier.init.shared.b64(ref, 1)
        ptx.inst.mbarrier.init.shared.b64(as_address(bars[1]), 1)
        ptx.ret()

    text = trace(k)
    assemble(text)
    bars, ref = seen["bars"], seen["ref"]
    assert isinstance(bars, MbarrierArray) and len(bars) == 4 and bars.byte_offset == 0
    assert isinstance(ref, MbarrierRef) and isinstance(ref, Address)
    assert (ref.array, ref.index, ref.idx, ref.name, ref.byte_offset) == (bars, 3, 3, "mbar_0", 24)
    assert [r.index for r in seen["refs"]] == [0, 1, 2, 3]
    assert body(text) == ["mbarrier.init.shared.b64 [mbar_0+24], 1;",
                          "mbarrier.init.shared.b64 [mbar_0+8], 1;", "ret;"]


# -- dynamic shared memory -----------------------------------------------------------------

def test_dynamic_mode_carves_everything_from_dyn_smem(assemble):
    seen = {}

    def k():
        get_ctx().dynamic_smem = True
        a = smem.alloc(f32, (16, 32))
        bars = smem.mbarrier(3)
        t = smem.wgmma_tile(bf16, (2, 64, 64), major="K")
        row = reg.scalar(u32)
        a[1, 2]
        t[1, row, 3]
        ptx.inst.mbarrier.init.shared.b64(bars[1], 1)
        ptx.inst.st.shared.b16(t[1], reg.scalar(bf16))
        reg.from_(t, u32)
        smem.base(t)
        smem.base()
        seen.update(a=a, bars=bars, t=t, total=get_ctx().smem_bytes)
        ptx.ret()

    text = trace(k)
    assemble(text)
    a, bars, t = seen["a"], seen["bars"], seen["t"]
    assert text.count(".extern .shared .align 1024 .b8 dyn_smem[];") == 1
    assert ".shared .align" not in text.replace(".extern .shared .align 1024", "")
    # a at 0 (2048 bytes), barriers at 2048 (24), the tile 1024-aligned at 3072.
    assert (a.symbol, a.byte_offset, bars.byte_offset, t.byte_offset) == ("dyn_smem", 0, 2048, 3072)
    assert (a.name, bars.name, t.name) == ("smem_0", "mbar_0", "smem_1")
    assert seen["total"] == 3072 + 16384
    assert (as_address(t).base, as_address(t).offset) == ("dyn_smem", 3072)
    assert body(text) == [
        "ld.shared.f32 %f0, [dyn_smem+136];",
        "mov.u32 %r1, dyn_smem;", "mad.lo.u32 %r2, %r0, 128, %r1;",
        "ld.shared.b16 %bh0, [%r2+11270];",          # 3072 + 8192 + 6
        "mbarrier.init.shared.b64 [dyn_smem+2056], 1;",
        "st.shared.b16 [dyn_smem+11264], %bh1;",
        "mov.u32 %r3, dyn_smem+3072;", "mov.u32 %r4, dyn_smem+3072;",
        "mov.u32 %r5, dyn_smem;", "ret;"]


def test_dynamic_allocation_refuses_a_bare_symbol_address():
    def k():
        get_ctx().dynamic_smem = True
        smem.alloc(f32, 8)
        b = smem.alloc(f32, 8)
        ptx.inst.ld.shared.f32(reg.scalar(f32), Address(b))  # <- bare-dyn
        ptx.ret()

    raises_at(k, "# <- bare-dyn", "lives at dyn_smem+128", "as_address")


# -- wgmma_tile --------------------------------------------------------------------------

def test_wgmma_tile_carries_the_gmma_layout(assemble):
    from pyptx.wgmma_layout import Major, layout_for_a, pick_gmma_layout
    seen = {}

    def k():
        seen["a"] = smem.wgmma_tile(bf16, (64, 64), major="K")
        seen["b"] = smem.wgmma_tile(bf16, (16, 64), major="MN", name="sB")
        seen["c"] = smem.wgmma_tile(bf16, (64, 16), align=2048)
        seen["d"] = smem.alloc_with_layout(bf16, (64, 64), "128B",
                                           gmma_layout=seen["a"].gmma_layout,
                                           gmma_major="K")
        ptx.ret()

    text = trace(k)
    assemble(text)
    a, b, c, d = seen["a"], seen["b"], seen["c"], seen["d"]
    assert a.gmma_layout == layout_for_a(dtype=bf16, m=64, k=64)
    assert a.swizzle == a.gmma_layout.smem_swizzle == "128B"
    assert (a.gmma_major, a.major, a.align) == ("K", "K", 1024)
    assert b.gmma_layout == pick_gmma_layout(elem_bytes=2, m_or_n=64, k=16, major=Major.MN)
    assert b.gmma_major == "MN" and b.swizzle == b.gmma_layout.smem_swizzle
    assert c.gmma_layout == layout_for_a(dtype=bf16, m=64, k=16) and c.swizzle == "32B"
    assert d.gmma_layout is a.gmma_layout and d.gmma_major == "K" and d.align == 128
    assert ".shared .align 1024 .b8 smem_0[8192];" in text
    assert ".shared .align 1024 .b8 sB[2048];" in text
    assert ".shared .align 2048 .b8 smem_1[2048];" in text



def test_wgmma_tile_without_stage_dimension_is_one_stage(assemble):
    """The original's idiom dst=sA[0] for an (M, K) tile means the whole tile:
    a wgmma tile has stage dimensions only before its last two."""
    from pyptx.specs import Tile
    seen = {}

    @kernel(arch="sm_90a", in_specs=(Tile.wgmma_a(128, 64, bf16, tile_m=64, tile_k=16),),
            block=(128, 1, 1))
    def k(A):
        sA = smem.wgmma_tile(bf16, (64, 16), major="K")
        staged = smem.wgmma_tile(bf16, (2, 64, 16), major="K")
        rows = smem.alloc(bf16, (64, 16))
        bar = smem.mbarrier(1)
        seen.update(sA=sA, staged=staged, rows=rows, s0=sA[0], t1=staged[1], r1=rows[1])
        ptx.mbarrier.init(bar[0], 1)
        ptx.mbarrier.arrive_expect_tx(bar[0], 64 * 16 * 2)
        ptx.cp.async_.bulk.tensor_2d(dst=sA[0], src=A.tma_desc(), coord=(0, 0), mbar=bar[0])
        ptx.ret()

    text = k.ptx()
    assemble(text)
    sA, staged, rows = seen["sA"], seen["staged"], seen["rows"]
    assert (sA.stage_count, sA.stage_bytes, sA.unstaged_tile) == (1, 2048, True)
    assert (seen["s0"].nbytes, seen["s0"].shape, seen["s0"].offset) == (2048, (64, 16), 0)
    assert len(list(sA)) == 1
    # A staged tile and a plain allocation slice along their first dimension.
    assert (staged.stage_count, seen["t1"].offset, seen["t1"].shape) == (2, 2048, (64, 16))
    assert (rows.stage_count, seen["r1"].offset, seen["r1"].shape) == (64, 32, (16,))
    assert re.search(r"cp\.async\.bulk\.tensor\.2d\.shared::cluster\.global\.tile"
                     r"\.mbarrier::complete_tx::bytes \[smem_0\], \[%rd\d+, \{0, 0\}\], "
                     r"\[mbar_0\];", text), text


def test_wgmma_tile_without_stage_dimension_has_only_stage_0():
    def k():
        sA = smem.wgmma_tile(bf16, (64, 16), major="K")
        sA[1]  # <- unstaged-1

    raises_at(k, "# <- unstaged-1", "stage out of range 0..0",
              "a wgmma tile without a stage dimension is one stage")


def test_name_of_a_carved_allocation_stands_for_its_address(assemble):
    """In dynamic mode the name declares no variable; used as an operand (the
    original's mov.b32 r, sP.name) it is the allocation's address."""
    seen = {}

    def k():
        get_ctx().dynamic_smem = True
        smem.alloc(f32, (16, 32))
        t = smem.wgmma_tile(bf16, (64, 64), major="K")
        seen["t"] = t
        r = reg.scalar(u32)
        ptx.inst.mov.b32(r, t.name)
        ptx.inst.ld.shared.b32(reg.scalar(u32), ptx.addr(t.name, 4))
        ptx.ret()

    text = trace(k)
    assemble(text)
    t = seen["t"]
    assert t.name == "smem_1" and isinstance(t.name, str) and f"{t.name}" == "smem_1"
    assert body(text) == ["mov.b32 %r0, dyn_smem+2048;",
                          "ld.shared.b32 %r1, [dyn_smem+2052];", "ret;"]


def test_static_allocation_name_is_the_variable(assemble):
    def k():
        t = smem.wgmma_tile(bf16, (64, 64), major="K")
        assert type(t.name) is str
        ptx.inst.mov.b32(reg.scalar(u32), t.name)
        ptx.ret()

    text = trace(k)
    assemble(text)
    assert body(text) == ["mov.b32 %r0, smem_0;", "ret;"]


def test_name_of_a_carved_allocation_is_no_bare_symbol():
    def k():
        get_ctx().dynamic_smem = True
        smem.alloc(f32, 8)
        b = smem.alloc(f32, 8)
        ptx.inst.ld.shared.f32(reg.scalar(f32), Address(b.name))  # <- bare-name
        ptx.ret()

    raises_at(k, "# <- bare-name", "lives at dyn_smem+128", "ptx.addr")

# -- apply_swizzle -----------------------------------------------------------------------

@pytest.mark.parametrize("mode,mask", [("128B", 896), ("64B", 384), ("32B", 128)])
def test_apply_swizzle_is_and_shr_xor(assemble, mode, mask):
    seen = {}

    def k():
        off = reg.scalar(u32)
        seen["out"] = smem.apply_swizzle(off, mode)
        ptx.ret()

    text = trace(k, "sm_80")
    assemble(text, "sm_80")
    assert body(text) == [f"and.b32 %r1, %r0, {mask};", "shr.u32 %r1, %r1, 3;",
                          "xor.b32 %r2, %r0, %r1;", "ret;"]


def test_apply_swizzle_none_and_int_offsets_emit_nothing():
    seen = {}

    def k():
        off = reg.scalar(u32)
        seen["same"] = smem.apply_swizzle(off, None) is off
        seen["none"] = smem.apply_swizzle(off, "NONE") is off
        seen["int"] = smem.apply_swizzle(0x1B0, "128B")
        ptx.ret()

    assert body(trace(k)) == ["ret;"]
    # 0x1B0: chunk 3 of line 3 -> chunk 3 ^ 3 = 0 -> 0x180.
    assert seen == {"same": True, "none": True, "int": 0x180}


def _model(offset, mode):
    """TMA's swizzle, stated per 16-byte chunk: within each 128-byte line,
    chunk c of line r (counted from a pattern-aligned base) moves to
    c XOR (r mod n), for n = span / 16 chunks (128B: 8, 64B: 4, 32B: 2)."""
    n = {"128B": 8, "64B": 4, "32B": 2}[mode]
    line, chunk = offset // 128, (offset // 16) % 8
    low, high = chunk % n, chunk - chunk % n
    moved = high + (low ^ (line % n))
    return offset - chunk * 16 + moved * 16


def _simulate(lines, value):
    """Runs the and/shr/xor lines of apply_swizzle on `value`."""
    regs = {"%r0": value}

    def arg(text):
        return regs[text] if text.startswith("%") else int(text)

    for line in lines:
        op, rest = line.rstrip(";").split(" ", 1)
        d, a, b = [x.strip() for x in rest.split(",")]
        if op == "and.b32":
            regs[d] = arg(a) & arg(b)
        elif op == "shr.u32":
            regs[d] = arg(a) >> arg(b)
        elif op == "xor.b32":
            regs[d] = arg(a) ^ arg(b)
        else:
            raise AssertionError(line)
    return regs[d]


@pytest.mark.parametrize("mode", ["128B", "64B", "32B"])
def test_apply_swizzle_bit_patterns_match_the_tma_model(mode):
    def k():
        smem.apply_swizzle(reg.scalar(u32), mode)
        ptx.ret()

    lines = body(trace(k))[:-1]
    for offset in range(0, 4096, 2):
        expected = _model(offset, mode)
        assert _simulate(lines, offset) == expected, (mode, offset)
        assert smem.swizzled_offset(offset, mode) == expected
    # A permutation of each 1024-byte block.
    assert sorted(_model(o, mode) for o in range(0, 1024, 16)) == list(range(0, 1024, 16))


# -- errors at the author's line ----------------------------------------------------------

def test_stage_out_of_range():
    def k():
        sA = smem.alloc(f32, (2, 8))
        sA[2]  # <- stage-range

    raises_at(k, "# <- stage-range", "stage out of range 0..1")


def test_element_index_out_of_range():
    def k():
        a = smem.alloc(f32, (4, 8))
        a[1, 8]  # <- elem-range

    raises_at(k, "# <- elem-range", "index 8 of dimension 1 out of range 0..7")


def test_element_access_needs_one_index_per_dimension():
    def k():
        a = smem.alloc(f32, (2, 4, 8))
        a[1, 2]  # <- elem-count

    raises_at(k, "# <- elem-count", "one index per dimension of (2, 4, 8)")


def test_index_register_must_be_32_bit():
    def k():
        a = smem.alloc(f32, (4, 8))
        a[reg.scalar(u64), 0]  # <- wide-index

    raises_at(k, "# <- wide-index", "32-bit integers", "got u64", "cvt it to u32")


def test_store_value_must_match_the_element_width():
    def k():
        a = smem.alloc(bf16, (4, 8))
        a[0, 0] = reg.scalar(f32)  # <- wide-value

    raises_at(k, "# <- wide-value", "bf16 element", "f32 register", "reg.from_(v, bf16)")


def test_store_of_a_float_immediate_into_bf16():
    def k():
        a = smem.alloc(bf16, (4, 8))
        a[0, 0] = 1.5  # <- bf16-imm

    raises_at(k, "# <- bf16-imm", "no bf16 immediates")


def test_mbarrier_index_out_of_range():
    def k():
        bars = smem.mbarrier(2)
        bars[2]  # <- bar-range

    raises_at(k, "# <- bar-range", "mbarrier index out of range 0..1")


def test_wgmma_tile_major_must_be_k_or_mn():
    def k():
        smem.wgmma_tile(bf16, (64, 64), major="M")  # <- bad-major

    raises_at(k, "# <- bad-major", "major must be 'K' or 'MN'")


def test_wgmma_tile_rejects_a_non_canonical_row():
    def k():
        smem.wgmma_tile(bf16, (64, 12))  # <- bad-row

    raises_at(k, "# <- bad-row", "wgmma_tile(bf16, (64, 12)")


def test_alignment_must_be_a_power_of_two():
    def k():
        smem.alloc(f32, 8, align=48)  # <- bad-align

    raises_at(k, "# <- bad-align", "power of two")


def test_dynamic_alignment_is_at_most_1024():
    def k():
        get_ctx().dynamic_smem = True
        smem.alloc(f32, 8, align=2048)  # <- dyn-align

    raises_at(k, "# <- dyn-align", "1024-byte aligned")


def test_duplicate_name():
    def k():
        smem.alloc(f32, 8, name="buf")
        smem.mbarrier(1, name="buf")  # <- dup-name

    raises_at(k, "# <- dup-name", "'buf' is already taken")


def test_unknown_swizzle_mode():
    def k():
        smem.apply_swizzle(reg.scalar(u32), "16B")  # <- bad-swizzle

    raises_at(k, "# <- bad-swizzle", "'16B' is not one of None, '32B', '64B', '128B'")


def test_base_without_a_name_needs_extern_smem():
    def k():
        smem.base()  # <- no-extern

    raises_at(k, "# <- no-extern", "extern_smem=True")


def test_shared_memory_holds_no_predicates():
    def k():
        smem.load("pred", reg.scalar(u32))  # <- pred-load

    raises_at(k, "# <- pred-load", "no predicates")


def test_docstrings_state_instruction_counts():
    assert "3 instructions" in smem.apply_swizzle.__doc__
    assert "1 instruction" in smem.load.__doc__ and "1 instruction" in smem.store.__doc__
    assert "k + 2" in SharedAlloc.__getitem__.__doc__
    assert re.search(r"2 instructions", SharedAlloc.__getitem__.__doc__)
