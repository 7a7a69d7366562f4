"""wgmma's data layouts: the canonical GMMA shared-memory layouts of its A
and B operands (the tiles ``smem.wgmma_tile`` allocates) and the register
fragment of its accumulator (what ``reg.wgmma_frag`` allocates). Pure
computation: no instructions, no trace.

wgmma reads its A and B operands from shared memory through a 64-bit
matrix descriptor (see :mod:`pyptx.hw.descriptors`). The descriptor does
not describe an arbitrary layout: the data must be in one of the PTX ISA's
*canonical layouts* (PTX ISA, "Asynchronous Warpgroup Level Matrix Shared
Memory Layout"), one per swizzle mode:

==============  ================  =========================================
layout type     swizzle           line width (bytes of the contiguous dim)
==============  ================  =========================================
``INTERLEAVE``  none              16
``B32``         32-byte           32
``B64``         64-byte           64
``B128``        128-byte          128
==============  ================  =========================================

A tile is described by its *major-ness*: ``Major.K`` when K is the
contiguous dimension (row-major A of shape (M, K); B stored as (N, K)),
``Major.MN`` when M or N is (A stored as (K, M); row-major B of shape
(K, N)). Its *lines* are the rows along the other dimension.

This module picks, for a tile whose lines are stored one after another
(what a TMA load of a row-major box writes), the layout whose line width
equals the tile's line width in bytes. A line wider than 128 bytes (a
multiple of 128) is stored as several 128-byte *panels* side by side: each
panel holds every line's next 128 bytes, and panels follow each other
(what several TMA boxes of 128-byte width write). The descriptor's byte
offsets then follow from the ISA's definitions (in bytes):

* K-major: SBO = offset between groups of 8 lines (8 x width); LBO is
  unused by the swizzled layouts ("assumed 1", i.e. 16 bytes) and for
  INTERLEAVE is the offset to the next 16-byte column of core matrices,
  i.e. the next panel.
* MN-major, swizzled: LBO = offset to the next swizzle atom along M/N
  (the next panel), SBO = offset between groups of 8 K lines.
* MN-major, INTERLEAVE: LBO = offset between groups of 8 K lines (128),
  SBO = offset to the next 16-byte column of core matrices along M/N (the
  next panel).

The swizzle that TMA writes with and the swizzle the descriptor reads with
must be the same, so each layout also names it: ``tma_swizzle`` for the
TMA Layout and ``smem_swizzle`` for ``smem.alloc(swizzle=...)``.
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import Any


class LayoutType(IntEnum):
    """The descriptor's swizzle field (bits 62-63) for each canonical layout."""

    INTERLEAVE = 0
    B128 = 1
    B64 = 2
    B32 = 3


class Major(IntEnum):
    """Which dimension of the tile is contiguous in shared memory.

    ``K``: K is contiguous (row-major A of shape (M, K); B stored (N, K)).
    ``MN``: M or N is contiguous (A stored (K, M); row-major B (K, N))."""

    K = 0
    MN = 1


# Bytes of one line of each layout's swizzle atom.
_LINE_BYTES = {LayoutType.INTERLEAVE: 16, LayoutType.B32: 32,
               LayoutType.B64: 64, LayoutType.B128: 128}
_BY_LINE_BYTES = {v: k for k, v in _LINE_BYTES.items()}
_SWIZZLE_NAME = {LayoutType.INTERLEAVE: "NONE", LayoutType.B32: "32B",
                 LayoutType.B64: "64B", LayoutType.B128: "128B"}


@dataclass(frozen=True)
class GmmaLayout:
    """A canonical GMMA shared-memory layout and its descriptor fields.

    Attributes:
        layout_type: the :class:`LayoutType`; its value is the descriptor's
            swizzle field (bits 62-63).
        leading_byte_offset: LBO in bytes (``make_descriptor``'s
            ``leading_byte_offset=``; the descriptor stores it >> 4).
        stride_byte_offset: SBO in bytes (``stride_byte_offset=``).
        tma_swizzle: the TMA swizzle that writes this layout: ``"NONE"``,
            ``"32B"``, ``"64B"`` or ``"128B"``.
        smem_swizzle: the ``smem.alloc(swizzle=...)`` value: as
            tma_swizzle, with None for ``"NONE"``.
    """

    layout_type: LayoutType
    leading_byte_offset: int
    stride_byte_offset: int
    tma_swizzle: str
    smem_swizzle: str | None

    @property
    def swizzle_code(self) -> int:
        """The value for ``ptx.wgmma.make_descriptor(swizzle=...)``."""
        return int(self.layout_type)

    @property
    def line_bytes(self) -> int:
        """Bytes of one line of the swizzle atom (16, 32, 64 or 128)."""
        return _LINE_BYTES[self.layout_type]

    @property
    def pattern_bytes(self) -> int:
        """The swizzle pattern repeats every this many bytes (1024, 512,
        256; 16 without swizzle): a tile starting at such a boundary needs
        the descriptor's base offset 0."""
        if self.layout_type == LayoutType.INTERLEAVE:
            return 16
        return 8 * self.line_bytes


def as_major(major: Any) -> Major:
    """A :class:`Major` from a Major, its value, or "K" / "MN" (any case)."""
    if isinstance(major, str):
        key = major.strip().upper()
        if key in ("K", "MN"):
            return Major[key]
    elif isinstance(major, int) and major in (0, 1):
        return Major(major)
    raise ValueError(f"major must be Major.K, Major.MN, 'K' or 'MN', not {major!r}")


def pick_gmma_layout(*, elem_bytes: int, m_or_n: int, k: int, major: Major) -> GmmaLayout:
    """The canonical GMMA layout of a (M or N) x K tile.

    Args:
        elem_bytes: bytes of one element (2 for bf16/f16, 4 for tf32, 1 for
            fp8/int8).
        m_or_n: the tile's M (operand A) or N (operand B) extent.
        k: the tile's K extent.
        major: ``Major.K`` (K contiguous) or ``Major.MN`` (M/N contiguous);
            "K" / "MN" strings are accepted too.

    The contiguous dimension's bytes pick the layout: 16 -> INTERLEAVE,
    32 -> B32, 64 -> B64, 128 -> B128, a multiple of 128 -> B128 in
    128-byte panels (see the module docstring).

    Raises:
        ValueError: the line width is none of those, or the other dimension
            is not a whole number of 8-line core-matrix groups.
    """
    major = as_major(major)
    for name, value in (("elem_bytes", elem_bytes), ("m_or_n", m_or_n), ("k", k)):
        if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
            raise ValueError(f"{name} must be a positive int, not {value!r}")
    contiguous, lines = (k, m_or_n) if major == Major.K else (m_or_n, k)
    line_bytes = contiguous * elem_bytes
    if line_bytes in _BY_LINE_BYTES:
        width = line_bytes
    elif line_bytes > 128 and line_bytes % 128 == 0:
        width = 128
    else:
        dim = "K" if major == Major.K else "M/N"
        raise ValueError(
            f"a {major.name}-major tile has {contiguous} x {elem_bytes}-byte elements = "
            f"{line_bytes} bytes along {dim}; canonical GMMA layouts need 16, 32, 64, "
            f"128 or a multiple of 128 bytes there (pad {dim})")
    if lines % 8:
        dim = "M/N" if major == Major.K else "K"
        raise ValueError(f"a {major.name}-major tile needs its {dim} extent to be a multiple "
                         f"of 8 (core matrices have 8 lines); it is {lines}")
    layout_type = _BY_LINE_BYTES[width]
    group = 8 * width            # 8 lines of one panel
    panel = lines * width        # one panel: every line's `width` bytes
    if major == Major.K:
        lbo = panel if layout_type == LayoutType.INTERLEAVE else 16
        sbo = group
    elif layout_type == LayoutType.INTERLEAVE:
        lbo, sbo = group, panel
    else:
        lbo, sbo = panel, group
    name = _SWIZZLE_NAME[layout_type]
    return GmmaLayout(layout_type, lbo, sbo, name, None if name == "NONE" else name)


def dtype_bytes(dtype: Any) -> int:
    """Bytes of one element of a pyptx type (anything with ``.bits``) or an
    int taken as the byte count."""
    bits = getattr(dtype, "bits", None)
    if isinstance(bits, int):
        return max(bits // 8, 1)
    if isinstance(dtype, int) and not isinstance(dtype, bool) and dtype > 0:
        return dtype
    raise TypeError(f"cannot tell the element size of {dtype!r} (pass a pyptx type, e.g. bf16)")


def layout_for_a(*, dtype: Any, m: int, k: int) -> GmmaLayout:
    """Canonical layout of operand A stored row-major (M, K), i.e. K-major.

    ``layout_for_a(dtype=bf16, m=64, k=16)`` is B32 with
    leading_byte_offset 16, stride_byte_offset 256 and swizzle "32B"."""
    return pick_gmma_layout(elem_bytes=dtype_bytes(dtype), m_or_n=m, k=k, major=Major.K)


def layout_for_b(*, dtype: Any, k: int, n: int) -> GmmaLayout:
    """Canonical layout of operand B stored row-major (K, N), i.e. MN-major
    (use it with ``trans_b=1``)."""
    return pick_gmma_layout(elem_bytes=dtype_bytes(dtype), m_or_n=n, k=k, major=Major.MN)


def tile_layout(dtype: Any, shape, major: str = "K") -> GmmaLayout:
    """The layout of a wgmma operand tile (``smem.wgmma_tile``): `shape` is
    (M, K) for ``major="K"`` or (K, N) for ``major="MN"``, optionally after
    leading stage dimensions. ValueError for a shape no layout fits."""
    major = str(major).upper()
    if major not in ("K", "MN"):
        raise ValueError(f"major must be 'K' or 'MN', not {major!r}")
    shape = tuple(shape)
    if len(shape) < 2:
        raise ValueError(f"shape {shape} needs (M, K) or (K, N), optionally after "
                         f"stage dimensions")
    rows, cols = shape[-2:]
    m_or_n, k = (rows, cols) if major == "K" else (cols, rows)
    return pick_gmma_layout(elem_bytes=dtype_bytes(dtype), m_or_n=m_or_n, k=k,
                            major=Major[major])


# wgmma accumulator types -> the register type holding them.
_FRAGMENT_TYPES = {"f32": "f32", "s32": "s32", "f16": "f16x2", "f16x2": "f16x2"}


def accumulator_registers(m: int, n: int, dtype: Any) -> tuple[str, int]:
    """(register type, count) of the accumulator fragment one thread holds
    for a dense ``wgmma.mma_async.m{m}n{n}``: ``m*n/128`` f32 or s32
    registers, or half as many f16x2 (two f16 values each) for an f16
    accumulator. ValueError for another type or shape."""
    name = getattr(dtype, "name", dtype)
    fragment = _FRAGMENT_TYPES.get(name)
    if fragment is None:
        raise ValueError(f"wgmma accumulates in f32, s32 or f16, not {dtype}")
    per_register = 2 if fragment == "f16x2" else 1
    if m <= 0 or n <= 0 or (m * n) % (128 * per_register):
        raise ValueError(f"m={m} n={n} is no wgmma accumulator shape (m*n must be a "
                         f"multiple of {128 * per_register} for {dtype})")
    return fragment, m * n // (128 * per_register)


def accumulator_row_col(index: int, thread: int) -> tuple[int, int]:
    """(row, column) in the warpgroup's 64 x N accumulator tile of value
    `index` of thread `thread` (0..127, the thread's index in its
    warpgroup), for a dense ``wgmma.mma_async.m64nNk*`` (PTX ISA,
    "Matrix Fragments for wgmma .m64nNk*: Accumulator D")::

        warp = thread // 32, lane = thread % 32
        row  = 16 * warp + lane // 4 + 8 * ((index // 2) % 2)
        col  = 8 * (index // 4) + 2 * (lane % 4) + index % 2

    Each warp owns 16 rows; each quad of lanes (lane // 4) owns a row pair
    (r, r + 8); each 8-column group j holds values 4j..4j+3 of every
    thread: (r, c), (r, c+1), (r+8, c), (r+8, c+1) with c = 8j + 2*(lane%4).
    For an f32 or s32 accumulator value `index` is register `index` of
    ``reg.wgmma_frag``; for f16, register k holds values 2k (low half) and
    2k+1 (high half). N/2 values per thread."""
    if not 0 <= thread < 128:
        raise ValueError(f"thread {thread} is not an index in a warpgroup (0..127)")
    if index < 0:
        raise ValueError(f"value index {index} is negative")
    warp, lane = divmod(thread, 32)
    row = 16 * warp + lane // 4 + 8 * ((index // 2) % 2)
    col = 8 * (index // 4) + 2 * (lane % 4) + index % 2
    return row, col


__all__ = ["LayoutType", "Major", "GmmaLayout", "pick_gmma_layout", "layout_for_a",
           "layout_for_b", "as_major", "dtype_bytes", "tile_layout",
           "accumulator_registers", "accumulator_row_col"]
