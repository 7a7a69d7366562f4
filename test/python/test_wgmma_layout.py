"""pyptx.wgmma_layout: the canonical GMMA layouts picked for a tile agree with
the PTX ISA's canonical layouts ("Asynchronous Warpgroup Level Matrix Shared
Memory Layout", Canonical Layouts table), evaluated with the picked LBO/SBO."""
import itertools

import pytest

from pyptx.types import bf16, e4m3, f16, f32, tf32
from pyptx.wgmma_layout import (GmmaLayout, LayoutType, Major, layout_for_a, layout_for_b,
                                pick_gmma_layout)


def canonical_offset(layout, major, elem_bytes, mn, k):
    """Byte offset (before swizzling) of element (mn, k) in the ISA's canonical
    layout for `layout`'s type, with its LBO/SBO. T = elements per 16 bytes.

    MN-major  INTERLEAVE ((T,1,m),(8,k)):((1,T,SBO),(1T,LBO))
              swizzled   ((T,w,m),(8,k)):((1,T,LBO),(wT,SBO))   w = 2, 4, 8
    K-major   INTERLEAVE ((8,m),(T,2k)):((1T,SBO),(1,LBO))
              swizzled   ((8,m),(T,2k)):((wT,SBO),(1,T))
    (LBO/SBO given in bytes; element strides times elem_bytes.)"""
    t = 16 // elem_bytes
    w = layout.line_bytes // 16
    lbo, sbo = layout.leading_byte_offset, layout.stride_byte_offset
    if major == Major.K:
        i0, i1 = mn % 8, mn // 8
        j0, j1 = k % t, k // t
        if layout.layout_type == LayoutType.INTERLEAVE:
            return (i0 * t + j0) * elem_bytes + i1 * sbo + j1 * lbo
        return (i0 * w * t + j0 + j1 * t) * elem_bytes + i1 * sbo
    a, rest = mn % t, mn // t
    k0, k1 = k % 8, k // 8
    if layout.layout_type == LayoutType.INTERLEAVE:
        return (a + k0 * t) * elem_bytes + rest * sbo + k1 * lbo
    b, c = rest % w, rest // w
    return (a + b * t + k0 * w * t) * elem_bytes + c * lbo + k1 * sbo


def stored_offset(major, elem_bytes, m_or_n, k_extent, mn, k):
    """Where a row-major tile written line by line in 128-byte-wide panels
    (several TMA boxes for lines wider than 128 bytes) keeps (mn, k)."""
    contiguous, line, lines = (k, mn, m_or_n) if major == Major.K else (mn, k, k_extent)
    line_bytes = (k_extent if major == Major.K else m_or_n) * elem_bytes
    width = min(line_bytes, 128)
    position = contiguous * elem_bytes
    return (position // width) * lines * width + line * width + position % width


CASES = [
    # (elem_bytes, m_or_n, k, major)
    (2, 64, 16, Major.K), (2, 64, 32, Major.K), (2, 64, 64, Major.K), (2, 128, 64, Major.K),
    (2, 64, 8, Major.K), (4, 64, 4, Major.K), (4, 64, 8, Major.K), (4, 64, 32, Major.K),
    (1, 64, 32, Major.K), (1, 64, 128, Major.K), (2, 64, 128, Major.K), (1, 128, 256, Major.K),
    (2, 8, 16, Major.MN), (2, 16, 16, Major.MN), (2, 32, 16, Major.MN), (2, 64, 16, Major.MN),
    (2, 128, 16, Major.MN), (2, 256, 32, Major.MN), (2, 64, 64, Major.MN), (4, 32, 8, Major.MN),
]


@pytest.mark.parametrize("elem_bytes,m_or_n,k,major", CASES)
def test_picked_layout_is_the_isa_canonical_layout_of_the_stored_tile(elem_bytes, m_or_n, k,
                                                                      major):
    layout = pick_gmma_layout(elem_bytes=elem_bytes, m_or_n=m_or_n, k=k, major=major)
    if major == Major.K:
        # One descriptor covers the K of one instruction inside a 16-byte
        # column (INTERLEAVE) or one swizzle line; further K steps move the
        # start address.
        k_span = min(k, layout.line_bytes // elem_bytes)
    else:
        k_span = k
    mismatches = [(mn, kk) for mn, kk in itertools.product(range(m_or_n), range(k_span))
                  if canonical_offset(layout, major, elem_bytes, mn, kk)
                  != stored_offset(major, elem_bytes, m_or_n, k, mn, kk)]
    assert not mismatches, (layout, mismatches[:5])


def test_line_width_picks_the_layout_type():
    picks = {w: pick_gmma_layout(elem_bytes=2, m_or_n=64, k=w // 2, major=Major.K).layout_type
             for w in (16, 32, 64, 128, 256, 512)}
    assert picks == {16: LayoutType.INTERLEAVE, 32: LayoutType.B32, 64: LayoutType.B64,
                     128: LayoutType.B128, 256: LayoutType.B128, 512: LayoutType.B128}


def test_swizzle_codes_are_the_descriptor_field():
    # PTX ISA, Matrix Descriptor Format: bits 62-63, 0 none, 1 128B, 2 64B, 3 32B.
    assert [LayoutType.INTERLEAVE, LayoutType.B128, LayoutType.B64, LayoutType.B32] == [0, 1, 2, 3]
    assert [Major.K, Major.MN] == [0, 1]
    layout = pick_gmma_layout(elem_bytes=2, m_or_n=64, k=32, major=Major.K)
    assert layout.swizzle_code == 2 and isinstance(layout.swizzle_code, int)
    assert type(layout.swizzle_code) is int


def test_layout_for_a_documented_example():
    la = layout_for_a(dtype=bf16, m=64, k=16)
    assert la == GmmaLayout(LayoutType.B32, 16, 256, "32B", "32B")


def test_k_major_128b_offsets():
    # 8 lines of 128 bytes between core-matrix groups; LBO unused ("assumed 1").
    layout = layout_for_a(dtype=f16, m=128, k=64)
    assert (layout.layout_type, layout.leading_byte_offset, layout.stride_byte_offset) == \
        (LayoutType.B128, 16, 1024)
    assert (layout.tma_swizzle, layout.smem_swizzle, layout.pattern_bytes) == ("128B", "128B", 1024)


def test_mn_major_b_offsets():
    # (K=16, N=64) bf16: one 128-byte panel; 8 K lines apart = 1024; LBO = the panel.
    lb = layout_for_b(dtype=bf16, k=16, n=64)
    assert (lb.layout_type, lb.leading_byte_offset, lb.stride_byte_offset) == \
        (LayoutType.B128, 2048, 1024)
    # N=256 bf16: four 128-byte panels of 16 K lines each, 2048 bytes apart.
    wide = layout_for_b(dtype=bf16, k=16, n=256)
    assert (wide.leading_byte_offset, wide.stride_byte_offset) == (2048, 1024)
    # N=8 (one core matrix wide): INTERLEAVE, LBO = 8 K lines of 16 bytes.
    narrow = layout_for_b(dtype=bf16, k=16, n=8)
    assert (narrow.layout_type, narrow.leading_byte_offset, narrow.tma_swizzle,
            narrow.smem_swizzle) == (LayoutType.INTERLEAVE, 128, "NONE", None)


def test_isa_mn_32b_example_strides():
    # ISA example "MN-Major, 32B swizzling, bf16": ((8,2,2),(8,2)):((1,8,128),(16,256))
    # elements, i.e. LBO 256 bytes between M/N atoms and SBO 512 between 8-K-line
    # groups. Evaluate the canonical layout with those offsets: atom lines are 32
    # bytes, the next 8 K lines 512 bytes on.
    layout = GmmaLayout(LayoutType.B32, 256, 512, "32B", "32B")
    assert canonical_offset(layout, Major.MN, 2, 16, 0) == 256       # next atom along N
    assert canonical_offset(layout, Major.MN, 2, 0, 8) == 512        # next 8 K lines
    assert canonical_offset(layout, Major.MN, 2, 9, 1) == (1 + 8 + 16) * 2


def test_other_dtypes():
    assert layout_for_a(dtype=tf32, m=64, k=32).layout_type == LayoutType.B128
    assert layout_for_a(dtype=e4m3, m=64, k=32).layout_type == LayoutType.B32
    assert layout_for_a(dtype=f32, m=64, k=16).layout_type == LayoutType.B64
    # "mn" as a string: N=16 bf16 is 32 bytes along N.
    assert pick_gmma_layout(elem_bytes=2, m_or_n=16, k=16, major="mn").layout_type == \
        LayoutType.B32


@pytest.mark.parametrize("kwargs,match", [
    (dict(elem_bytes=2, m_or_n=64, k=24, major=Major.K), "48 bytes along K"),
    (dict(elem_bytes=2, m_or_n=64, k=96, major=Major.K), "192 bytes along K"),
    (dict(elem_bytes=2, m_or_n=4, k=16, major=Major.MN), "8 bytes along M/N"),
    (dict(elem_bytes=2, m_or_n=60, k=16, major=Major.K), "M/N extent to be a multiple of 8"),
    (dict(elem_bytes=2, m_or_n=64, k=12, major=Major.MN), "K extent to be a multiple of 8"),
    (dict(elem_bytes=2, m_or_n=0, k=16, major=Major.K), "m_or_n must be a positive int"),
    (dict(elem_bytes=2, m_or_n=64, k=16, major="row"), "major must be"),
])
def test_impossible_tiles_raise(kwargs, match):
    with pytest.raises(ValueError, match=match):
        pick_gmma_layout(**kwargs)


def test_accumulator_registers_count_and_type():
    from pyptx.hw.wgmma_layout import accumulator_registers
    assert accumulator_registers(64, 128, "f32") == ("f32", 64)
    assert accumulator_registers(64, 8, "s32") == ("s32", 4)
    assert accumulator_registers(64, 128, "f16") == ("f16x2", 32)
    with pytest.raises(ValueError, match="accumulates in f32, s32 or f16"):
        accumulator_registers(64, 128, "bf16")
    with pytest.raises(ValueError, match="multiple of 256"):
        accumulator_registers(64, 2, "f16")


def test_tile_layout_reads_the_shape_by_major():
    from pyptx.hw.wgmma_layout import tile_layout
    # (stages, M, K) K-major and (K, N) MN-major pick the layout of their line.
    assert tile_layout(bf16, (3, 64, 64), "K") == pick_gmma_layout(
        elem_bytes=2, m_or_n=64, k=64, major=Major.K)
    assert tile_layout(bf16, (16, 128), "mn") == pick_gmma_layout(
        elem_bytes=2, m_or_n=128, k=16, major=Major.MN)
    with pytest.raises(ValueError, match="major must be 'K' or 'MN'"):
        tile_layout(bf16, (64, 64), "N")
    with pytest.raises(ValueError, match="needs \\(M, K\\) or \\(K, N\\)"):
        tile_layout(bf16, (64,), "K")
