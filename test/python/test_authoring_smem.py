"""Shared memory as a new author writes it: a 1-D array indexed ``a[i]``
(int or register) loads and stores an element like the 2-D ``a[i, j]``; a
TMA descriptor whose swizzle is not the tile's gets the fix that keeps the
wgmma reading the tile working."""
import pytest

from pyptx import KernelError, Layout, Tile, kernel, ptx, reg, smem
from pyptx.types import bf16, f32, u32


def body(text):
    inner = text.split("{", 1)[1].rsplit("}", 1)[0]
    return [line.strip() for line in inner.splitlines()
            if line.strip() and not line.strip().startswith(".")]


def test_one_dimensional_index_is_the_element():
    @kernel(arch="sm_90a")
    def k():
        tid = reg.from_(ptx.special.tid.x(), u32)
        a = smem.alloc(f32, (32,))
        b = smem.alloc(f32, (4, 8))
        x = a[tid]          # register index: like b[row, col]
        y = a[3]            # int index: folds into the address
        a[tid] = x + y
        a[0] = 1.0
        z = b[1, tid]       # the 2-D form, for comparison
        a[5] = z
        ptx.ret()

    lines = body(k.ptx())
    loads = [l for l in lines if l.startswith("ld.shared.f32")]
    stores = [l for l in lines if l.startswith("st.shared.f32")]
    assert len(loads) == 3 and len(stores) == 3
    assert loads[1].endswith("[smem_0+12];")       # a[3]: 3 * 4 bytes
    assert "[smem_0]" in stores[1] and stores[1].endswith("0f3F800000;")
    assert "[smem_0+20]" in stores[2]
    # a[tid] scales the register index by the element size, as b[1, tid] does
    assert sum(l.startswith("mad.lo.u32") and ", 4, " in l for l in lines) == 3


def test_one_dimensional_iteration_still_gives_slices():
    @kernel(arch="sm_90a")
    def k():
        a = smem.alloc(u32, (2,))
        addresses = list(a)
        assert [s.stage for s in addresses] == [0, 1]
        ptx.ret()

    k.ptx()


# -- the swizzle-mismatch hint ---------------------------------------------------------

def _tma_into_wgmma_tile(layout, swizzle=None):
    @kernel(in_specs=(Tile(64, 64, bf16, layout),), out_specs=(Tile(64, 64, f32),),
            block=(128, 1, 1), arch="sm_90a")
    def k(A, C):
        sA = smem.wgmma_tile(bf16, (64, 64), major="K")   # wgmma reads it 128B-swizzled
        bar = smem.mbarrier(1)
        desc = A.tma_desc() if swizzle is None else A.tma_desc(swizzle=swizzle)
        ptx.cp.async_.bulk.tensor_2d(dst=sA[0], src=desc, coord=(0, 0), mbar=bar[0])
        ptx.wgmma.auto_descriptor(sA[0], dtype=bf16, shape=(64, 64), major="K")
        ptx.ret()
    return k


def test_swizzle_mismatch_hint_fixes_the_descriptor_not_the_wgmma_tile():
    with pytest.raises(KernelError) as info:
        _tma_into_wgmma_tile(Layout.ROW).ptx()
    message = info.value.message
    assert "Fix the descriptor, not the tile" in message
    assert "Tile(..., layout=Layout.TMA_128B) for A" in message
    assert "A.tma_desc(swizzle='128B')" in message
    assert "would break the wgmma" in message
    # Both suggested fixes trace, with the wgmma descriptor reading the same tile.
    for fixed in (_tma_into_wgmma_tile(Layout.TMA_128B),
                  _tma_into_wgmma_tile(Layout.ROW, swizzle="128B")):
        assert "cp.async.bulk.tensor.2d" in fixed.ptx()


def test_swizzle_mismatch_on_a_plain_allocation_names_both_ways():
    @kernel(in_specs=(Tile(8, 64, bf16, Layout.TMA_64B),), out_specs=(Tile(8, 64, f32),),
            arch="sm_90a")
    def k(A, C):
        buf = smem.alloc(bf16, (8, 64), swizzle="128B", align=1024)
        bar = smem.mbarrier(1)
        ptx.cp.async_.bulk.tensor_2d(dst=buf, src=A.tma_desc(box=(8, 32)), coord=(0, 0),
                                     mbar=bar[0])
        ptx.ret()

    with pytest.raises(KernelError) as info:
        k.ptx()
    message = info.value.message
    assert "A.tma_desc(swizzle='128B')" in message and "swizzle='64B'" in message


# -- the per-CTA shared-memory limit ----------------------------------------------------

def test_the_limits_come_from_the_isa_description():
    from pyptx import _isa_facts
    assert _isa_facts.max_shared_per_cta("sm_90a") == 227 * 1024
    assert _isa_facts.max_shared_per_cta("sm_100a") == 227 * 1024
    assert _isa_facts.max_shared_per_cta("sm_80") == 163 * 1024


@pytest.mark.parametrize("arch,limit", [("sm_90a", 227 * 1024), ("sm_80", 163 * 1024)])
def test_allocation_crossing_the_limit_is_reported_at_its_line(arch, limit):
    import os

    from conftest import line_of

    @kernel(arch=arch)
    def k():
        smem.alloc(f32, (32 * 1024,))            # 128 KiB
        smem.alloc(f32, (24 * 1024,))            # 96 KiB more  # <- crosses 163 KiB
        smem.alloc(f32, (4 * 1024,))             # 16 KiB more  # <- crosses 227 KiB
        ptx.ret()

    with pytest.raises(KernelError) as info:
        k.ptx()
    here = os.path.abspath(__file__)
    marker = "# <- crosses 163 KiB" if arch == "sm_80" else "# <- crosses 227 KiB"
    assert (info.value.file, info.value.line) == (here, line_of(here, marker))
    assert f"over the {limit} bytes" in info.value.message and arch in info.value.message


def test_just_under_the_limit_traces():
    @kernel(arch="sm_90a")
    def k():
        smem.alloc(u32, (227 * 256 - 32,))       # 227 KiB less 128 bytes ...
        smem.alloc(u32, (32,))                   # ... and 128 bytes: exactly the limit
        ptx.ret()

    assert "dyn_smem" in k.ptx()


def test_dynamic_request_over_the_limit_is_reported_at_the_kernel():
    @kernel(arch="sm_80", smem=200 * 1024)       # <- the request
    def k():
        ptx.ret()

    with pytest.raises(KernelError, match="over the 166912 bytes"):
        k.ptx()
