"""Storing a wgmma accumulator fragment: ``ptx.wgmma.store_fragment``
writes each thread's f32 registers of an m64nN tile to a row-major matrix
in global or shared memory, at the (row, column) places
:func:`pyptx.hw.wgmma_layout.accumulator_row_col` gives.
"""
from __future__ import annotations

from pyptx import reg as _reg
from pyptx import types as T
from pyptx._inst import as_address, emit, fail
from pyptx._operands import Address

_OUT_TYPES = ("f32", "bf16", "f16")


def _out_type(value, what):
    name = getattr(value, "name", value)
    if name not in _OUT_TYPES:
        fail(f"store_fragment: {what} {value!r} is not one of f32, bf16, f16")
    return name


def _registers(frag):
    regs = list(frag) if isinstance(frag, (_reg.RegArray, list, tuple)) else None
    if not regs or len(regs) % 4:
        fail(f"store_fragment: frag must be the f32 accumulator of an m64nN wgmma "
             f"(reg.wgmma_frag(m=64, n=N, dtype=f32): N/2 registers, a multiple of 4); "
             f"got {frag!r}")
    for i, r in enumerate(regs):
        if not isinstance(r, _reg.Reg) or r.dtype != T.f32:
            fail(f"store_fragment: frag[{i}] is {r!r}; frag holds f32 registers")
    return regs


def _destination(dst):
    """("global", u64 register) or ("shared", u32 register or symbol, byte
    offset, the allocation's element type name or None)."""
    if isinstance(dst, _reg.Reg):
        if dst.dtype.bits == 64 and dst.dtype.is_int:
            return "global", dst, 0, None
        if dst.dtype.bits == 32 and dst.dtype.is_int:
            return "shared", dst, 0, None
        fail(f"store_fragment: dst {dst!r} must be a u64 global pointer, a u32 shared "
             f"address, or a shared allocation")
    alloc = getattr(dst, "alloc", dst)
    dtype = getattr(alloc, "dtype", None)
    where = as_address(dst)
    return "shared", where.base, where.offset, getattr(dtype, "name", None)


def store_fragment(frag, dst, *, ld: int, lane=None, out_dtype=None, row0: int = 0,
                   col0: int = 0, pred=None) -> None:
    """Stores the f32 accumulator fragment `frag` of an m64nN wgmma (each
    thread's N/2 registers, ``reg.wgmma_frag(m=64, n=N, dtype=f32)``) into
    rows row0..row0+63, columns col0..col0+N-1 of a row-major matrix of `ld`
    elements per row, converting to `out_dtype`.

    dst: a u64 register (a global pointer to element (0, 0); `out_dtype`
    defaults to f32), or shared memory -- an allocation, a slice, an address
    or a u32 register holding a shared address (`out_dtype` defaults to the
    allocation's type). lane: the thread's index in its warpgroup (a u32
    register, tid % 128); None computes it from %tid.x (2 more
    instructions). out_dtype: f32, bf16 or f16. pred: a guard on every
    store (e.g. a row limit of the whole tile).

    Element (row, col) of the fragment (see
    ``pyptx.hw.wgmma_layout.accumulator_row_col``) goes to element
    (row0 + row, col0 + col): each thread writes 2 adjacent values per store.

    Instructions: 7 to form the thread's address (and, shr, bfe, mad for
    the row; shl, mad for the element offset; mad.wide.u32 onto a global
    pointer or mad.lo.u32 onto a shared base, plus a mov.u32 when the
    shared base is a symbol), then per 8 columns 2 stores -- ``st.v2.f32`` for f32,
    or ``cvt.rn.{bf16x2,f16x2}.f32`` + ``st.b32`` for 16-bit outputs: N/4
    stores (and N/4 cvt). For N = 128, f32 to global: 7 + 32 = 39; bf16 to
    shared: 8 + 64 = 72. row0/col0 fold into the stores' immediate offsets.
    """
    regs = _registers(frag)
    if not isinstance(ld, int) or isinstance(ld, bool) or ld <= 0:
        fail(f"store_fragment: ld={ld!r} must be a positive int (elements per row)")
    for what, v in (("row0", row0), ("col0", col0)):
        if not isinstance(v, int) or isinstance(v, bool) or v < 0:
            fail(f"store_fragment: {what}={v!r} must be a non-negative int")
    space, base, base_offset, alloc_type = _destination(dst)
    out = _out_type(out_dtype or alloc_type or "f32", "out_dtype")
    esize = 4 if out == "f32" else 2
    if lane is None:
        lane = _reg.from_(_reg.special("%tid.x"), T.u32) & 127
    elif not isinstance(lane, _reg.Reg) or not lane.dtype.is_int or lane.dtype.bits != 32:
        fail(f"store_fragment: lane must be a 32-bit integer register (tid % 128), "
             f"not {lane!r}")

    # row = 16 * warp + (lane % 32) / 4 in the warpgroup's tile; the
    # element offset row * ld + 2 * (lane % 4).
    u32 = T.u32
    pair, warp, quad, row = (_reg.scalar(u32) for _ in range(4))
    col, offset = _reg.scalar(u32), _reg.scalar(u32)
    emit("and.b32", pair, lane, 3)
    emit("shr.u32", warp, lane, 5)
    emit("bfe.u32", quad, lane, 2, 3)
    emit("mad.lo.u32", row, warp, 16, quad)
    emit("shl.b32", col, pair, 1)
    emit("mad.lo.u32", offset, row, ld, col)
    if space == "global":
        address = _reg.scalar(T.u64)
        emit("mad.wide.u32", address, offset, esize, base)
    else:
        if not isinstance(base, _reg.Reg):
            symbol = _reg.scalar(u32)
            emit("mov.u32", symbol, base)
            base = symbol
        address = _reg.scalar(u32)
        emit("mad.lo.u32", address, offset, esize, base)
    start = base_offset + (row0 * ld + col0) * esize
    packed = _reg.scalar(T.b32) if out != "f32" else None
    for group in range(len(regs) // 4):
        for half in range(2):  # rows r and r + 8
            lo, hi = regs[4 * group + 2 * half], regs[4 * group + 2 * half + 1]
            where = Address(address, start + esize * (8 * half * ld + 8 * group))
            if out == "f32":
                emit(f"st.{space}.v2.f32", where, [lo, hi], pred=pred)
            else:
                # cvt.rn.bf16x2.f32 d, a, b puts a in the high half.
                emit(f"cvt.rn.{out}x2.f32", packed, hi, lo)
                emit(f"st.{space}.b32", where, packed, pred=pred)


__all__ = ["store_fragment"]
