"""Warpgroup-level units: ``wgmma.*`` (``ptx.wgmma``) and ``setmaxnreg``.

``ptx.wgmma`` holds the helpers below; any other attribute spells a raw
opcode (``ptx.wgmma.fence.sync.aligned()``). A Hopper GEMM step::

    ptx.wgmma.fence()
    ptx.wgmma.mma_async(shape=(64, 64, 16), dtype_d=f32, dtype_a=bf16,
                        dtype_b=bf16, d=acc, a=sA, b=sB,
                        scale_d=True, trans_b=1)
    ptx.wgmma.commit_group()
    ptx.wgmma.wait_group(0)

Each helper emits one instruction, except the descriptor builders (and
``mma_async`` given shared-memory tiles, which builds their descriptors):
their docstrings give the count. Descriptor fields known at trace time are
computed in Python (:mod:`pyptx.hw.descriptors`) and emitted as one
immediate.

Mistakes the ISA or the data layout rule out (accumulator size and type,
N, K, type combinations, transpose flags, descriptor swizzle against the
tile's swizzle, a tile the instruction does not fit) raise a KernelError at
the kernel author's line.
"""
from __future__ import annotations

from pyptx import _isa_facts as _isa
from pyptx import reg as _reg
from pyptx import types as T
from pyptx.hw import wgmma_layout as _layout
from pyptx.hw.wgmma_store import store_fragment
from pyptx._inst import Namespace, as_address, emit, fail
from pyptx._operands import operand
from pyptx.hw.descriptors import (SWIZZLE_128B, SWIZZLE_32B, SWIZZLE_64B, SWIZZLE_NAMES,
                                  SWIZZLE_NONE, MatrixDescriptor, encode_field, swizzle_code)

MASKED_DESC_B128 = MatrixDescriptor(leading_byte_offset=16, stride_byte_offset=1024,
                                    swizzle=SWIZZLE_128B).encode()
"""Constant fields of a 128B-swizzled K-major descriptor with 128-byte lines
(LBO 16, SBO 1024): ``masked_descriptor``'s default."""

_CONST_NAMES = {SWIZZLE_NONE: "SWIZZLE_NONE", SWIZZLE_128B: "SWIZZLE_128B",
                SWIZZLE_64B: "SWIZZLE_64B", SWIZZLE_32B: "SWIZZLE_32B"}
_PATTERN_BYTES = {SWIZZLE_128B: 1024, SWIZZLE_64B: 512, SWIZZLE_32B: 256}

# Register types an accumulator of each type is held in.
_D_REGS = {"f32": ("f32",), "s32": ("s32",), "f16": ("f16x2", "b32")}


# -- synchronization ---------------------------------------------------------------

def fence(*, pred=None):
    """``wgmma.fence.sync.aligned;`` -- orders register accesses before
    the next ``mma_async`` (one instruction)."""
    emit("wgmma.fence.sync.aligned", pred=pred)


def commit_group(*, pred=None):
    """``wgmma.commit_group.sync.aligned;`` -- closes the pending
    ``mma_async`` operations into a wgmma-group (one instruction)."""
    emit("wgmma.commit_group.sync.aligned", pred=pred)


def wait_group(n, *, pred=None):
    """``wgmma.wait_group.sync.aligned n;`` -- waits until at most `n`
    wgmma-groups are pending (one instruction; n a non-negative int)."""
    if not isinstance(n, int) or isinstance(n, bool) or n < 0:
        fail(f"wgmma.wait_group takes a non-negative integer constant (the number of groups "
             f"left pending), not {n!r}: e.g. ptx.wgmma.wait_group(0)")
    emit("wgmma.wait_group.sync.aligned", n, pred=pred)


# -- descriptors -----------------------------------------------------------------------

class _SymbolPlus:
    """The operand ``sym`` or ``sym+offset`` (a symbol's address, as mov takes it)."""

    __slots__ = ("symbol", "offset")

    def __init__(self, symbol, offset):
        self.symbol, self.offset = symbol, offset

    def __ptx_operand__(self, ftype):
        if not self.offset:
            return self.symbol
        return ("+", self.symbol, ("i", self.offset))


def _tile_of(x):
    """The shared allocation behind `x` (an allocation or a slice of one), or None."""
    alloc = getattr(x, "alloc", None)
    if alloc is not None:
        return alloc
    if hasattr(x, "__ptx_symbol__") and hasattr(x, "shape") and hasattr(x, "swizzle"):
        return x
    return None


def _stage_offset(x, alloc) -> int:
    stage = getattr(x, "stage", None)
    return stage * alloc.stage_bytes if isinstance(stage, int) else 0


def _tile_swizzle(alloc):
    """The swizzle code the tile's data is laid out with, or None if unknown."""
    layout = getattr(alloc, "gmma_layout", None)
    if layout is not None:
        return layout.swizzle_code
    try:
        return None if alloc.swizzle is None else swizzle_code(alloc.swizzle)
    except ValueError:
        return None


def _swizzle_text(code) -> str:
    return f"{SWIZZLE_NAMES[code]} (ptx.wgmma.{_CONST_NAMES[code]} = {code})"


def _check_tile(x, swizzle, base_offset, what, fix):
    """Swizzle and alignment of the tile behind `x` against a descriptor's."""
    alloc = _tile_of(x)
    if alloc is None:
        return
    have = _tile_swizzle(alloc)
    if have is not None and have != swizzle:
        fail(f"{what} reads {alloc.name} with swizzle {_swizzle_text(swizzle)}, but "
             f"{alloc.name} holds its data in the {_swizzle_text(have)} pattern; the "
             f"descriptor must read with the swizzle the data was written with: {fix}")
    pattern = _PATTERN_BYTES.get(swizzle)
    if pattern is None or base_offset:
        return
    align = getattr(alloc, "align", None)
    if isinstance(align, int) and align % pattern:
        fail(f"{what}: the {SWIZZLE_NAMES[swizzle]} swizzle pattern repeats every {pattern} "
             f"bytes and a descriptor with base_offset=0 needs the tile to start at such a "
             f"boundary, but {alloc.name} is only {align}-byte aligned: allocate it with "
             f"align={pattern} (smem.wgmma_tile does) or pass base_offset")
    offset = _stage_offset(x, alloc)
    if offset % pattern:
        fail(f"{what}: stage {x.stage} of {alloc.name} starts {offset} bytes in, not at a "
             f"{pattern}-byte boundary of the {SWIZZLE_NAMES[swizzle]} swizzle pattern: make "
             f"each stage a multiple of {pattern} bytes or pass base_offset")


def _constant(leading_byte_offset, stride_byte_offset, swizzle, base_offset, what) -> int:
    try:
        return MatrixDescriptor(0, leading_byte_offset, stride_byte_offset, base_offset,
                                swizzle).encode()
    except ValueError as e:
        fail(f"{what}: {e}")


def _check_offset(value, name, what):
    if not isinstance(value, int) or isinstance(value, bool) or value < 0 or value % 16:
        fail(f"{what}: {name}={value!r} must be a non-negative multiple of 16 bytes "
             f"(descriptors address shared memory in 16-byte units)")


def _u64():
    return _reg.scalar(T.u64)


def _address_bits(smem_base, offset, what):
    """(register or symbol operand, byte offset still to add) for a base."""
    if isinstance(smem_base, _reg.Reg):
        return smem_base, offset
    try:
        address = as_address(smem_base, offset)
    except TypeError as e:
        fail(f"{what}: cannot take the shared address of {smem_base!r} ({e})")
    if isinstance(address.base, _reg.Reg):
        return address.base, address.offset
    try:
        symbol = operand(address.base, symbolic=True)
    except TypeError:
        symbol = ("?",)
    if symbol[0] != "s":
        fail(f"{what}: {smem_base!r} is not a shared allocation, symbol or address register")
    if address.offset < 0:
        fail(f"{what}: PTX cannot write a symbol's address minus {-address.offset}; move "
             f"the address into a register first and pass that")
    return _SymbolPlus(symbol, address.offset), 0


def _check_address_register(r, what):
    if r.dtype == T.pred or not r.dtype.is_int or r.dtype.bits not in (32, 64):
        fail(f"{what}: a shared address register must be a 32- or 64-bit integer "
             f"register, not {r.dtype}")


def _widened(r, what):
    """A 64-bit register with the value of integer register `r`: r itself,
    or ``cvt.u64.u32`` of it (one instruction)."""
    _check_address_register(r, what)
    if r.dtype.bits == 64:
        return r
    wide = _u64()
    emit("cvt.u64.s32" if r.dtype.is_signed else "cvt.u64.u32", wide, r)
    return wide


def _build(smem_base, offset, constant, what):
    """desc = (((address + offset) >> 4) & 0x3FFF) + constant, in a new u64
    register. The start-address field is 14 bits: ``bfe`` keeps bits 4-17
    of the address (shared memory is below 256 KiB). Inside a cluster a
    shared::cta address also carries the CTA's rank above bit 23, which an
    unmasked shift would carry into the leading-byte-offset field."""
    base, rest = _address_bits(smem_base, offset, what)
    if isinstance(base, _SymbolPlus):
        address = _u64()
        emit("mov.u64", address, base)
    else:
        address = base
        _check_address_register(base, what)
    bits = address.dtype.bits
    field = _reg.scalar(T.u32 if bits == 32 else T.u64)
    emit(f"bfe.u{bits}", field, address, 4, 14)
    desc = _u64()
    # The fields do not overlap the address bits, so adding is or-ing; a
    # register's offset (a multiple of 16) folds into the immediate.
    if bits == 32:
        emit("mad.wide.u32", desc, field, 1, constant + (rest >> 4))
    else:
        emit("add.u64", desc, field, constant + (rest >> 4))
    return desc


def make_descriptor(smem_base, *, leading_byte_offset, stride_byte_offset, swizzle=0,
                    base_offset=0, addr_byte_offset=0):
    """A wgmma matrix descriptor in a new u64 register.

    smem_base: a shared allocation or slice (``sA``, ``sA[stage]``), an
    address (``ptx.addr(...)``), a symbol name, or a register holding a
    shared-window address (u32 or u64). ``addr_byte_offset`` (bytes, a
    multiple of 16) is added to the address: the j-th K step of a tile, for
    one. leading/stride byte offsets, swizzle (``SWIZZLE_*``) and
    base_offset are the descriptor's fields (see pyptx.hw.descriptors);
    they are combined in Python into one immediate.

    The start-address field is 14 bits of ``address >> 4``: ``bfe`` keeps
    address bits 4-17 and drops the rest, such as the CTA's rank that a
    shared::cta address carries above bit 23 inside a cluster (unmasked,
    it would reach the leading-byte-offset field).

    Emits 3 instructions for an allocation, slice, address or symbol
    (``mov.u64 %rd, sym+off; bfe.u64 %rd, %rd, 4, 14; add.u64 %rd, %rd,
    CONST``), 2 for a u64 register (``bfe.u64``, ``add.u64``) and 2 for a
    u32 register (``bfe.u32``, ``mad.wide.u32 %rd, %r, 1, CONST``). A tile
    allocated with a swizzle must be read with the same swizzle (KernelError
    otherwise)."""
    what = "ptx.wgmma.make_descriptor"
    constant = _constant(leading_byte_offset, stride_byte_offset, swizzle, base_offset, what)
    _check_offset(addr_byte_offset, "addr_byte_offset", what)
    alloc = _tile_of(smem_base)
    have = _tile_swizzle(alloc) if alloc is not None else None
    fix = f"pass swizzle=ptx.wgmma.{_CONST_NAMES[have]}" if have is not None else ""
    _check_tile(smem_base, swizzle, base_offset, what, fix)
    return _build(smem_base, addr_byte_offset, constant, what)


def _layout_or_fail(elem_bytes, m_or_n, k, major, what):
    try:
        return _layout.pick_gmma_layout(elem_bytes=elem_bytes, m_or_n=m_or_n, k=k, major=major)
    except (ValueError, TypeError) as e:
        fail(f"{what}: {e}")


def _descriptor_from_layout(smem_base, layout, offset, what, fix):
    _check_tile(smem_base, layout.swizzle_code, 0, what, fix)
    constant = _constant(layout.leading_byte_offset, layout.stride_byte_offset,
                         layout.swizzle_code, 0, what)
    return _build(smem_base, offset, constant, what)


def auto_descriptor(smem_base, *, dtype, shape, major):
    """A descriptor for a tile of `dtype` and `shape` -- (M, K) for A or
    (N, K) for B when ``major="K"``, (K, M) / (K, N) when ``major="MN"``
    -- in its canonical GMMA layout (:func:`pyptx.hw.wgmma_layout.pick_gmma_layout`
    picks INTERLEAVE / B32 / B64 / B128 and the byte offsets).

    The tile must have been written with that layout's swizzle
    (``layout.smem_swizzle`` / ``Layout.TMA_*B``); a shared allocation whose
    swizzle differs is a KernelError. major must match the ``trans_a`` /
    ``trans_b`` of the ``mma_async`` it feeds ("MN" is transposed).
    Emits what :func:`make_descriptor` emits (2-3 instructions)."""
    what = "ptx.wgmma.auto_descriptor"
    try:
        major = _layout.as_major(major)
        elem = _layout.dtype_bytes(dtype)
    except (ValueError, TypeError) as e:
        fail(f"{what}: {e}")
    if len(shape) != 2:
        fail(f"{what}: shape must be the tile's two dimensions, not {shape!r}")
    rows, cols = shape
    m_or_n, k = (rows, cols) if major == _layout.Major.K else (cols, rows)
    layout = _layout_or_fail(elem, m_or_n, k, major, what)
    fix = (f"the {dtype} {tuple(shape)} {major.name}-major tile's canonical layout is "
           f"{layout.layout_type.name}: allocate it with smem.wgmma_tile(...) or "
           f"swizzle={layout.smem_swizzle!r}, or give the shape and major it was allocated with")
    return _descriptor_from_layout(smem_base, layout, 0, what, fix)


def masked_descriptor(smem_addr, *, byte_offset=0, mask=0x3FF80, const_bits=MASKED_DESC_B128):
    """A descriptor from a computed shared address, the handwritten-kernel
    pattern: ``desc = u64(((smem_addr + byte_offset) & mask) >> 4) | const_bits``
    (mask 0x3FF80 keeps address bits 7-17; const_bits defaults to
    ``MASKED_DESC_B128``).

    Emits, for a u32 register: ``[add.u32] and.b32, shr.u32, cvt.u64.u32,
    or.b64`` (4, 5 with a byte_offset); for a u64 register: ``[add.u64]
    and.b64, shr.u64, or.b64`` (3-4); for an allocation, slice or symbol:
    ``mov.u64 %rd, sym+byte_offset; and.b64; shr.u64; or.b64`` (4)."""
    what = "ptx.wgmma.masked_descriptor"
    if not isinstance(byte_offset, int) or isinstance(byte_offset, bool):
        fail(f"{what}: byte_offset must be a Python int, not {byte_offset!r}")
    if not 0 <= const_bits < 1 << 64 or const_bits & (mask >> 4):
        fail(f"{what}: const_bits={const_bits:#x} overlaps the address bits "
             f"(mask >> 4 = {mask >> 4:#x}) it is or-ed with; build const_bits with "
             f"pyptx.hw.descriptors.MatrixDescriptor(...).const_bits")
    _check_tile(smem_addr, (const_bits >> 62) & 3, (const_bits >> 49) & 7, what,
                "pass const_bits with the tile's swizzle in bits 62-63")
    if isinstance(smem_addr, _reg.Reg) and smem_addr.dtype.bits == 32 and smem_addr.dtype.is_int:
        t32 = smem_addr.dtype
        address = smem_addr
        if byte_offset:
            address = _reg.scalar(t32)
            emit("add.s32" if t32.is_signed else "add.u32", address, smem_addr, byte_offset)
        bits = _reg.scalar(t32)
        emit("and.b32", bits, address, mask)
        index = _reg.scalar(t32)
        emit("shr.u32", index, bits, 4)
        wide = _u64()
        emit("cvt.u64.u32", wide, index)
    else:
        base, rest = _address_bits(smem_addr, byte_offset, what)
        if isinstance(base, _SymbolPlus):
            address = _u64()
            emit("mov.u64", address, base)
        else:
            address = _widened(base, what)
            if rest:
                moved = _u64()
                emit("add.u64", moved, address, rest)
                address = moved
        bits = _u64()
        emit("and.b64", bits, address, mask)
        wide = _u64()
        emit("shr.u64", wide, bits, 4)
    desc = _u64()
    emit("or.b64", desc, wide, const_bits)
    return desc


# -- mma_async ------------------------------------------------------------------------------

def _check_types(shape, dtype_d, dtype_a, dtype_b):
    if not (isinstance(shape, (tuple, list)) and len(shape) == 3
            and all(isinstance(v, int) for v in shape)):
        fail(f"wgmma shape must be (m, n, k) ints, e.g. (64, 128, 16), not {shape!r}")
    m, n, k = shape
    inputs = _isa.wgmma_inputs(dtype_a.name, dtype_b.name)
    if inputs is None:
        # (pyptx.types has no .b1: the single-bit form has no helper)
        pairs = [p for p in _isa.wgmma_type_pairs()
                 if all(t in T.ALL_TYPES for t in p.split("."))]
        fail(f"wgmma has no .{dtype_a}.{dtype_b} inputs: A.B must be one of "
             f"{', '.join(pairs)}; set dtype_a and dtype_b to one of these")
    accumulators = inputs["d"]
    if dtype_d.name not in accumulators:
        fail(f"wgmma with {dtype_a}.{dtype_b} inputs accumulates in "
             f"{' or '.join(accumulators)}, not {dtype_d}: set dtype_d="
             f"{accumulators[-1]}")
    want_m, want_k = inputs["m"], inputs["k"]
    if m != want_m:
        fail(f"wgmma computes {want_m} rows per warpgroup (m{want_m}); shape has m={m}: "
             f"use shape=({want_m}, {n}, {k}) and one wgmma per {want_m} rows")
    if k != want_k:
        fail(f"wgmma with {dtype_a} inputs has K={want_k} (m{want_m}nNk{want_k}); shape "
             f"has k={k}: use shape=({m}, {n}, {want_k}) and one wgmma per K step")
    if n not in inputs["n"]:
        fail(f"wgmma with {dtype_a} inputs needs N {_isa.describe(inputs['n'])}; shape "
             f"has n={n}")
    return inputs, m, n, k


def _check_accumulator(d, dtype_d, m, n):
    regs = list(d) if isinstance(d, (_reg.RegArray, list, tuple)) else None
    per_reg = 2 if dtype_d.name == "f16" else 1
    want = m * n // 128 // per_reg
    shape = f"m{m}n{n}"
    fix = f"allocate d = reg.wgmma_frag(m={m}, n={n}, dtype={dtype_d})"
    if regs is None or not all(isinstance(r, _reg.Reg) for r in regs):
        fail(f"wgmma d must be the accumulator registers (a RegArray or list of {want}); "
             f"got {d!r}: {fix}")
    packing = " (two f16 per f16x2 register)" if per_reg == 2 else ""
    if len(regs) != want:
        fail(f"wgmma {shape} with an {dtype_d} accumulator needs {want} registers per "
             f"thread{packing}; d has {len(regs)} ({fix})")
    kinds = _D_REGS[dtype_d.name]
    wrong = next((r for r in regs if r.dtype.name not in kinds), None)
    if wrong is not None:
        fail(f"wgmma {shape} with an {dtype_d} accumulator needs {' or '.join(kinds)} "
             f"registers; d holds {wrong.dtype} registers ({fix})")


def _scale_d_operand(scale_d):
    if isinstance(scale_d, _reg.NegPred):
        fail("wgmma scale_d=~p: the operand takes a predicate register or True/False, "
             "not a negated predicate; negate it into a register first "
             "(q = reg.pred(); ptx.inst.not_.pred(q, p)) and pass scale_d=q")
    if isinstance(scale_d, _reg.Reg):
        if scale_d.dtype != T.pred:
            fail(f"wgmma scale_d must be a predicate register or True/False, not a "
                 f"{scale_d.dtype} register: compare it (scale_d=(r != 0))")
        return scale_d
    if isinstance(scale_d, int) and scale_d in (0, 1):
        return int(scale_d)
    fail(f"wgmma scale_d must be True (D = A*B + D), False (D = A*B) or a predicate "
         f"register, not {scale_d!r}")


def _check_flags(inputs, dtype_a, scale_a, scale_b, trans_a, trans_b):
    for name, value in (("scale_a", scale_a), ("scale_b", scale_b)):
        if value not in (1, -1) or isinstance(value, bool):
            fail(f"wgmma {name} must be 1 or -1 (-1 negates the operand), not {value!r}")
        if not inputs["imm_scale"] and value != 1:
            fail(f"wgmma with {dtype_a} inputs cannot negate operands; {name} must be "
                 f"1 (negate the data instead)")
    for name, value in (("trans_a", trans_a), ("trans_b", trans_b)):
        if value not in (0, 1) or isinstance(value, bool):
            fail(f"wgmma {name} must be 0 (K-major) or 1 (MN-major), not {value!r}")
        if value and not inputs["imm_trans"]:
            with_trans = [p.split(".")[0] for p in _isa.wgmma_type_pairs()
                          if _isa.wgmma_inputs(*p.split("."))["imm_trans"]]
            fail(f"wgmma {name}=1 (an MN-major operand) exists only for "
                 f"{'/'.join(with_trans)} inputs; {dtype_a} operands must be K-major: "
                 f"store the tile K-major and pass {name}=0")


def _tile_layout(alloc, what):
    """(GmmaLayout, Major, (M or N extent, K extent)) of an allocation, or
    (None, None, None) when it has no GMMA layout metadata."""
    layout = getattr(alloc, "gmma_layout", None)
    major = getattr(alloc, "gmma_major", None)
    if major is None:
        major = getattr(alloc, "major", None)
    if major is None:
        return layout, None, None
    try:
        major = _layout.as_major(major)
    except ValueError as e:
        fail(f"{what}: {alloc.name}: {e}")
    rows, cols = alloc.shape[-2:]
    extents = (rows, cols) if major == _layout.Major.K else (cols, rows)
    if layout is None:
        layout = _layout_or_fail(_layout.dtype_bytes(alloc.dtype), *extents, major,
                                 f"{what}: tile {alloc.name}")
    return layout, major, extents


def _describe(x, alloc) -> str:
    if alloc is None:
        return repr(x)
    stage = getattr(x, "stage", None)
    return alloc.name if stage is None or x is alloc else f"{alloc.name}[{stage}]"


def _operand_descriptor(x, name, dtype, trans, offset, mn, k):
    """The descriptor operand for a or b: a register or immediate as given,
    or one built from a shared tile."""
    _check_offset(offset, f"{name}_k_offset", f"wgmma {name}")
    if isinstance(x, _reg.Reg):
        if x.dtype == T.pred or not x.dtype.is_int or x.dtype.bits != 64:
            fail(f"wgmma {name} must be a 64-bit matrix descriptor (u64 register from "
                 f"ptx.wgmma.make_descriptor / auto_descriptor) or a shared tile, not a "
                 f"{x.dtype} register")
        if not offset:
            return x
        moved = _u64()
        emit("add.u64", moved, x, encode_field(offset))  # the start-address field
        return moved
    if isinstance(x, int) and not isinstance(x, bool):
        return x + encode_field(offset)
    alloc = _tile_of(x)
    what = f"wgmma {name}={_describe(x, alloc)}"
    if alloc is None:
        fail(f"{what} is not a descriptor or a shared tile with a GMMA layout: pass "
             f"ptx.wgmma.auto_descriptor(...) / make_descriptor(...), or an allocation "
             f"from smem.wgmma_tile")
    layout, major, extents = _tile_layout(alloc, what)
    if layout is None or major is None:
        fail(f"{what}: {alloc.name} has no GMMA layout (no major/gmma_layout): allocate it "
             f"with smem.wgmma_tile(dtype, shape, major=...) or pass a descriptor from "
             f"ptx.wgmma.auto_descriptor(...)")
    flag = f"trans_{name}"
    want = 1 if major == _layout.Major.MN else 0
    if trans != want:
        fail(f"{what} is {major.name}-major but {flag}={trans} reads it as "
             f"{'MN' if trans else 'K'}-major: pass {flag}={want}")
    tile_mn, tile_k = extents
    dim = "M" if name == "a" else "N"
    if tile_mn < mn or tile_k < k:
        fail(f"{what} is {tile_mn} ({dim}) x {tile_k} (K) but the instruction reads "
             f"{mn} x {k}: use a tile at least that large or a smaller shape")
    fix = (f"the tile's shape and major give the {layout.layout_type.name} layout; "
           f"allocate it with smem.wgmma_tile(...) or swizzle={layout.smem_swizzle!r} "
           f"(and the same swizzle in its TMA Layout)")
    return _descriptor_from_layout(x, layout, offset, what, fix)


def mma_async(*, shape, dtype_d, dtype_a, dtype_b, d, a, b, scale_d=False, scale_a=1,
              scale_b=1, trans_a=0, trans_b=0, a_k_offset=0, b_k_offset=0, pred=None):
    """``wgmma.mma_async.sync.aligned.m64nNkK.<d>.<a>.<b>`` -- D = A*B (+ D).

    One instruction, with the operands the ISA's form takes::

        d, a-desc, b-desc, scale-d, scale-a, scale-b, trans-a, trans-b   f16/bf16
        d, a-regs, b-desc, scale-d, scale-a, scale-b, trans-b            (A in registers)
        d, a-desc, b-desc, scale-d, scale-a, scale-b                     tf32, fp8
        d, a-desc, b-desc, scale-d                                       s8/u8

    - shape: (64, N, K) with K 16 (f16/bf16), 8 (tf32), 32 (fp8, s8/u8).
    - d: the accumulator, m*n/128 registers (f32/s32; half as many f16x2
      for an f16 accumulator), e.g. ``reg.wgmma_frag(m=64, n=N, dtype=f32)``.
    - a: a descriptor (u64 register or int), a shared tile (``sA``,
      ``sA[stage]``) from ``smem.wgmma_tile``, or 4 32-bit registers (A in
      registers: the fragment of the ISA's "Register Fragments" layout).
      b: a descriptor or a shared tile. For a tile, its descriptor is built
      first from its canonical layout (3 instructions per tile, see
      ``make_descriptor``); ``a_k_offset`` / ``b_k_offset`` (bytes, multiples
      of 16) move its start, e.g. ``j * 32`` for the j-th k16 step of a bf16
      K-major tile (1 ``add.u64`` for a descriptor register).
    - scale_d: False (D = A*B) or True (D = A*B + D), emitted as the
      immediate 0/1; or a predicate register.
    - scale_a, scale_b: 1 or -1 (negate A / B); trans_a, trans_b: 0 for
      K-major, 1 for MN-major (f16/bf16 only). A tile's major must match.
    """
    dtype_d, dtype_a, dtype_b = T.as_type(dtype_d), T.as_type(dtype_a), T.as_type(dtype_b)
    inputs, m, n, k = _check_types(shape, dtype_d, dtype_a, dtype_b)
    _check_accumulator(d, dtype_d, m, n)
    _check_flags(inputs, dtype_a, scale_a, scale_b, trans_a, trans_b)
    scale = _scale_d_operand(scale_d)
    a_in_registers = isinstance(a, (_reg.RegArray, list, tuple))
    if a_in_registers:
        regs = list(a)
        if len(regs) != 4 or not all(isinstance(r, _reg.Reg) and r.dtype.bits == 32
                                     and r.dtype != T.pred for r in regs):
            kinds = sorted({r.dtype.name for r in regs if isinstance(r, _reg.Reg)})
            fail(f"wgmma A in registers is 4 32-bit registers per thread (f16x2/b32, two "
                 f"16-bit or four 8-bit elements each); got {len(regs)} value(s) "
                 f"({', '.join(kinds) or 'no registers'})")
        if trans_a:
            fail("wgmma with A in registers has no trans-a operand (the fragment layout is "
                 "fixed): pass trans_a=0")
        if a_k_offset:
            fail("wgmma a_k_offset moves a shared-memory tile; A is in registers: pass "
                 "a_k_offset=0 and the registers of the K step you want")
    else:
        a = _operand_descriptor(a, "a", dtype_a, trans_a, a_k_offset, m, k)
    b = _operand_descriptor(b, "b", dtype_b, trans_b, b_k_offset, n, k)
    operands = [d if isinstance(d, _reg.RegArray) else list(d), a, b, scale]
    if inputs["imm_scale"]:
        operands += [scale_a, scale_b]
    if inputs["imm_trans"]:
        operands += [trans_b] if a_in_registers else [trans_a, trans_b]
    emit(f"wgmma.mma_async.sync.aligned.m{m}n{n}k{k}.{dtype_d}.{dtype_a}.{dtype_b}",
         *operands, pred=pred)


# -- setmaxnreg ---------------------------------------------------------------------------

def setmaxnreg(count, *, inc=True, pred=None):
    """``setmaxnreg.{inc|dec}.sync.aligned.u32 count;`` -- raise (inc=True,
    consumer warpgroups) or lower (producers) the warp's register budget.
    count: a multiple of 8 from 24 to 256. One instruction."""
    if not isinstance(count, int) or isinstance(count, bool) or count % 8 \
            or not 24 <= count <= 256:
        fail(f"setmaxnreg count must be a multiple of 8 from 24 to 256, not {count!r} "
             f"(e.g. 240 for consumers, 40 for producers)")
    emit(f"setmaxnreg.{'inc' if inc else 'dec'}.sync.aligned.u32", count, pred=pred)


def setmaxnreg_inc(reg_count, *, pred=None):
    """``setmaxnreg.inc.sync.aligned.u32 reg_count;`` (one instruction)."""
    setmaxnreg(reg_count, inc=True, pred=pred)


def setmaxnreg_dec(reg_count, *, pred=None):
    """``setmaxnreg.dec.sync.aligned.u32 reg_count;`` (one instruction)."""
    setmaxnreg(reg_count, inc=False, pred=pred)


wgmma = Namespace(
    "wgmma",
    "ptx.wgmma: mma_async, fence, commit_group, wait_group, the shared-memory "
    "descriptor builders (make_descriptor, auto_descriptor, masked_descriptor) and "
    "store_fragment (pyptx.hw.wgmma_store); any other attribute spells a raw wgmma "
    "opcode.",
    mma_async=mma_async, fence=fence, commit_group=commit_group, wait_group=wait_group,
    store_fragment=store_fragment,
    make_descriptor=make_descriptor, auto_descriptor=auto_descriptor,
    masked_descriptor=masked_descriptor,
    SWIZZLE_NONE=SWIZZLE_NONE, SWIZZLE_128B=SWIZZLE_128B, SWIZZLE_64B=SWIZZLE_64B,
    SWIZZLE_32B=SWIZZLE_32B, MASKED_DESC_B128=MASKED_DESC_B128)
