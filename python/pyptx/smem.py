"""Shared memory: allocations, mbarriers, element access and GMMA swizzles.

::

    sA = smem.alloc(bf16, (STAGES, BM, BK), swizzle="128B")
    sB = smem.wgmma_tile(bf16, (BK, BN), major="MN")   # carries a GmmaLayout
    bars = smem.mbarrier(STAGES)
    ptx.mbarrier.init(bars[0], 1)          # bars[0]: an MbarrierRef
    tma_dst = sA[1]                        # a SharedSlice: stage 1's address
    x = scratch[row, col]                  # ld.shared (row-major)
    scratch[row, col] = x                  # st.shared

Allocating emits no instruction. In the default (static) mode each
allocation is a ``.shared .align A .b8 smem_N[bytes];`` variable (mbarriers:
``.shared .align 8 .b64 mbar_N[count];``), named ``smem_0, smem_1, ...`` /
``mbar_0, ...`` per trace unless given a name. When the kernel traces in
dynamic mode (``get_ctx().dynamic_smem``; the kernel switches to it when the
static total passes 48 KiB), every allocation is carved from one
``.extern .shared .align 1024 .b8 dyn_smem[];`` at its aligned
``byte_offset``. Either way an allocation's address is
``[symbol+byte_offset]`` (``symbol`` is the variable or ``dyn_smem``;
``byte_offset`` is 0 for a static variable), every shared-memory object here
gives it through ``__ptx_address__()``, and ``get_ctx().smem_bytes`` is the
running total of the trace (each allocation aligned).
"""
from __future__ import annotations

import math

from pyptx import _isa_facts
from pyptx import types as T
from pyptx._inst import emit, fail
from pyptx._operands import Address, symbol_operand
from pyptx._trace import get_ctx, user_loc
from pyptx.errors import KernelError
from pyptx.hw.mbarrier import MbarrierArray, MbarrierRef  # re-exported: smem.MbarrierArray
from pyptx.hw.wgmma_layout import tile_layout

DYNAMIC_SYMBOL = "dyn_smem"
DYNAMIC_ALIGN = 1024  # alignment of dyn_smem, the most any allocation may ask for


def _elem_bytes(dtype) -> int:
    return max(dtype.bits // 8, 1)


# ld/st take .b16 for the 16-bit float formats, .b32 for the packed and
# tf32 ones, .b8 for the 8-bit floats (PTX has no ld.f16/ld.bf16).
_ACCESS_TYPES = {"f16": "b16", "bf16": "b16", "f16x2": "b32", "bf16x2": "b32",
                 "tf32": "b32", "e4m3": "b8", "e5m2": "b8"}


def access_type(dtype) -> str:
    """The ld/st type modifier (without the dot) that moves `dtype`."""
    dtype = T.as_type(dtype)
    if dtype == T.pred:
        fail("shared memory holds no predicates: store a u8/u32 (selp) instead")
    return _ACCESS_TYPES.get(dtype.name, dtype.name)


def _state():
    """Per-trace bookkeeping: allocations by name, whether dyn_smem exists."""
    return get_ctx().units.setdefault("smem", {"names": {}, "dynamic_declared": False})


# -- objects ------------------------------------------------------------------------

class SharedAlloc:
    """A shared-memory allocation (what ``smem.alloc``/``wgmma_tile`` return).

    Attributes: ``name``, ``dtype``, ``shape``, ``swizzle`` ("32B", "64B",
    "128B" or None: metadata for helpers), ``nbytes``, ``align``,
    ``gmma_layout`` (a ``pyptx.hw.wgmma_layout.GmmaLayout`` when made by
    ``wgmma_tile``/``alloc_with_layout``, else None), ``gmma_major`` ("K",
    "MN" or None; also ``major``), ``symbol`` (the PTX variable its address is
    relative to: its name, or ``dyn_smem`` in dynamic mode) and
    ``byte_offset`` (its offset from ``symbol``: 0 for a static variable).

    As an operand it is its address value (``mov.u32 %r, smem_0;``, in
    dynamic mode ``mov.u32 %r, dyn_smem+1024;``); ``_inst.as_address`` gives
    ``[symbol+byte_offset]``. ``alloc[i]`` is a :class:`SharedSlice`,
    the address of stage i (slices along the first dimension; a wgmma tile
    of shape (M, K) or (K, N), with no stage dimension, is one stage, so
    ``tile[0]`` is the whole tile, as the original's TMA idiom
    ``dst=sA[0]`` means);
    ``alloc[i, j, ...]`` with one index per dimension loads an element and
    ``alloc[i, j, ...] = v`` stores one (see :meth:`__getitem__`).
    """

    __slots__ = ("name", "dtype", "shape", "swizzle", "gmma_layout", "gmma_major",
                 "byte_offset", "nbytes", "align", "symbol")

    def __init__(self, name, dtype, shape, swizzle=None, gmma_layout=None,
                 gmma_major=None, byte_offset=0, *, align=128, symbol=None):
        self.name, self.dtype = name, T.as_type(dtype)
        self.shape = (shape,) if isinstance(shape, int) else tuple(shape)
        self.swizzle, self.gmma_layout, self.gmma_major = swizzle, gmma_layout, gmma_major
        self.byte_offset, self.align = byte_offset, align
        self.symbol = symbol or name
        self.nbytes = math.prod(self.shape) * _elem_bytes(self.dtype)

    @property
    def major(self):
        """Same as ``gmma_major``."""
        return self.gmma_major

    @property
    def unstaged_tile(self) -> bool:
        """A wgmma tile without stage dimensions (shape (M, K) or (K, N))."""
        return self.gmma_layout is not None and len(self.shape) == 2

    @property
    def stage_count(self) -> int:
        """How many stages ``alloc[i]`` indexes: the first dimension, except
        for an :attr:`unstaged_tile`, which is one stage (the whole tile)."""
        if self.unstaged_tile or not self.shape:
            return 1
        return self.shape[0]

    @property
    def stage_bytes(self) -> int:
        """Bytes of one stage (see :attr:`stage_count`)."""
        return self.nbytes // self.stage_count

    def __getitem__(self, index):
        """``alloc[stage]`` -> :class:`SharedSlice` (stage an int, or a
        register: then 2 instructions, ``mov.u32`` of the symbol and
        ``mad.lo.u32``, compute its address).

        ``alloc[i, j, ...]`` (one index per dimension, ints or 32-bit integer
        registers) -> a new register loaded by ``ld.shared``: 1 instruction
        when every index is an int; with k register indices, ``mov.u32`` of
        the symbol, k ``mad.lo.u32`` (row stride and element size are
        immediates) and the ``ld``: k + 2. Integer indices and the allocation's
        offset fold into the address immediate. The layout is plain row-major:
        like the original, the allocation's swizzle is NOT applied (use it for
        scratch buffers; for swizzled tiles see :func:`apply_swizzle`).

        A 1-D allocation has no stages to slice: ``a[i]`` is ``a[i, ]``, the
        element (and ``a[i] = v`` stores it); the address of element i is
        ``ptx.addr(a, i * element_bytes)``."""
        if isinstance(index, tuple):
            return _load(self.dtype, _element_address(self, self.shape, index))
        if len(self.shape) == 1:
            return _load(self.dtype, _element_address(self, self.shape, (index,)))
        return SharedSlice(self, index)

    def __setitem__(self, index, value):
        """``alloc[i, j, ...] = value``: ``st.shared`` of a register or an
        immediate, addressed as in :meth:`__getitem__` (k + 2 instructions
        with k register indices, 1 with none); ``a[i] = value`` on a 1-D
        allocation."""
        if not isinstance(index, tuple) and len(self.shape) == 1:
            index = (index,)
        if not isinstance(index, tuple):
            fail(f"{self.name}[{index!r}] = ...: a store needs one index per dimension "
                 f"of {self.shape}, e.g. {self.name}[row, col] = value")
        _store(self.dtype, _element_address(self, self.shape, index), value)

    def __iter__(self):
        return (SharedSlice(self, i) for i in range(self.stage_count))

    def __ptx_address__(self) -> Address:
        return Address(self.symbol, self.byte_offset)

    def __ptx_operand__(self, ftype):
        return symbol_operand(self.symbol, self.byte_offset)

    def __ptx_symbol__(self):
        # Address(alloc, off) asks for the bare symbol; a carved allocation
        # has none, and printing [dyn_smem+off] would address the wrong bytes.
        if self.byte_offset:
            fail(f"{self.name} lives at {self.symbol}+{self.byte_offset}: take its "
                 f"address with ptx.addr/_inst.as_address, not Address({self.name})")
        return self.symbol

    def __repr__(self):
        where = f" at {self.symbol}+{self.byte_offset}" if self.symbol != self.name else ""
        return f"SharedAlloc({self.name!r}, {self.dtype}, {self.shape}{where})"


class SharedSlice(Address):
    """``alloc[stage]``: the address of one stage (a slice along the first
    dimension), ``[symbol+byte_offset+stage*stage_bytes]``. An Address, so
    it goes wherever a shared-memory operand does (TMA destinations, wgmma
    descriptors, ``ptx.addr``). ``alloc``, ``stage`` (int or register),
    ``name`` (the allocation's), ``shape`` (a stage's), ``nbytes``
    (``alloc.stage_bytes``). ``slice[i, j]`` loads and ``slice[i, j] = v``
    stores an element of the stage like ``alloc[stage, i, j]``."""

    __slots__ = ("alloc", "stage")

    def __init__(self, alloc: SharedAlloc, stage):
        from pyptx.reg import Reg
        count = alloc.stage_count
        if isinstance(stage, Reg):
            base = _index_register(stage, f"{alloc.name}[stage]")
            address = _mad_chain(alloc.symbol, [(base, alloc.stage_bytes)])
            Address.__init__(self, address, alloc.byte_offset)
        elif isinstance(stage, int) and not isinstance(stage, bool):
            if not 0 <= stage < count:
                unstaged = (" (a wgmma tile without a stage dimension is one stage; "
                            "allocate (STAGES, M, K) for more)" if count == 1 else "")
                fail(f"{alloc.name}[{stage}]: stage out of range 0..{count - 1} "
                     f"(shape {alloc.shape}){unstaged}")
            Address.__init__(self, alloc.symbol,
                             alloc.byte_offset + stage * alloc.stage_bytes)
        else:
            fail(f"{alloc.name}[{stage!r}]: a stage is an int or a u32 register")
        self.alloc, self.stage = alloc, stage

    @property
    def name(self) -> str:
        return self.alloc.name

    @property
    def shape(self) -> tuple:
        alloc = self.alloc
        return alloc.shape if alloc.unstaged_tile else alloc.shape[1:]

    @property
    def nbytes(self) -> int:
        return self.alloc.stage_bytes

    def __ptx_address__(self) -> Address:
        return Address(self.base, self.offset)

    def __getitem__(self, index):
        if not isinstance(index, tuple):
            index = (index,)
        return _load(self.alloc.dtype, _element_address(self, self.shape, index))

    def __setitem__(self, index, value):
        if not isinstance(index, tuple):
            index = (index,)
        _store(self.alloc.dtype, _element_address(self, self.shape, index), value)

    def __repr__(self):
        return f"SharedSlice({self.alloc.name!r}[{self.stage!r}])"


# -- element addressing ------------------------------------------------------------

def _index_register(r, what):
    if r.dtype.kind not in ("u", "s", "b") or r.dtype.bits != 32:
        fail(f"{what}: index registers must be 32-bit integers (shared-memory "
             f"addresses are 32-bit); got {r.dtype} (cvt it to u32 first)")
    return r


def _symbol_address(base):
    """A u32 register holding the shared address of symbol `base`: one
    ``mov.u32``, or none when an earlier one of this symbol still holds it
    on every path here: emitted in this block or one enclosing it, with no
    label since that code before it may branch to (TraceContext.labels;
    the labels of if_/range_/unnamed loops are not such)."""
    from pyptx.reg import scalar
    ctx = get_ctx()
    movs = ctx.units.setdefault("smem_address_movs", {})
    found = movs.get(base)
    if found is not None:
        register, blocks, labels = found
        open_blocks = ctx.open_blocks
        if labels == ctx.labels and len(blocks) <= len(open_blocks) and all(
                a is b for a, b in zip(blocks, open_blocks)):
            return register
    register = scalar(T.u32)
    emit("mov.u32", register, base)
    movs[base] = (register, tuple(ctx.open_blocks), ctx.labels)
    return register


def _mad_chain(base, terms):
    """A u32 register = base + sum(reg * stride): ``mov.u32`` of a symbol
    base (none for a register base, or when an earlier mov of the symbol
    can be reused: _symbol_address), then one ``mad.lo.u32`` per term
    (``add.u32`` for stride 1)."""
    from pyptx.reg import Reg, scalar
    acc = base if isinstance(base, Reg) else _symbol_address(base)
    for r, stride in terms:
        out = scalar(T.u32)
        if stride == 1:
            emit("add.u32", out, r, acc)
        else:
            emit("mad.lo.u32", out, r, stride, acc)
        acc = out
    return acc


def _element_address(where, dims, index) -> Address:
    """Address of element `index` of a row-major array of `dims` at the
    Address (or shared object) `where`: int indices fold into the offset."""
    from pyptx.reg import Reg
    owner = getattr(where, "alloc", where)
    start = where.__ptx_address__()
    if len(index) != len(dims):
        fail(f"{owner.name}[{', '.join(map(repr, index))}]: element access needs one "
             f"index per dimension of {tuple(dims)}")
    stride = _elem_bytes(owner.dtype)
    strides = []
    for d in reversed(dims):
        strides.append(stride)
        stride *= d
    strides.reverse()
    offset, terms = start.offset, []
    for axis, (i, dim, step) in enumerate(zip(index, dims, strides)):
        if isinstance(i, Reg):
            terms.append((_index_register(i, f"{owner.name} index {axis}"), step))
        elif isinstance(i, int) and not isinstance(i, bool):
            if not 0 <= i < dim:
                fail(f"{owner.name}: index {i} of dimension {axis} out of range "
                     f"0..{dim - 1} (shape {tuple(dims)})")
            offset += i * step
        else:
            fail(f"{owner.name}: index {i!r} must be an int or a u32 register")
    if not terms:
        return Address(start.base, offset)
    return Address(_mad_chain(start.base, terms), offset)


def _load(dtype, address):
    from pyptx.reg import scalar
    out = scalar(dtype)
    emit(f"ld.shared.{access_type(dtype)}", out, address)
    return out


def _store(dtype, address, value):
    from pyptx.reg import Reg
    if isinstance(value, Reg):
        if value.dtype.bits != dtype.bits:
            fail(f"st.shared of a {dtype} element: the value is a {value.dtype} "
                 f"register ({value.dtype.bits} bits, the element {dtype.bits}); "
                 f"convert it first (reg.from_(v, {dtype}))")
    elif isinstance(value, bool) or not isinstance(value, (int, float)):
        fail(f"a shared-memory store takes a register or a number, not {value!r}")
    elif isinstance(value, float) and dtype.name not in ("f32", "f64"):
        fail(f"PTX has no {dtype} immediates: put {value!r} in a register first")
    elif dtype.name in ("f32", "f64"):
        value = float(value)
    emit(f"st.shared.{access_type(dtype)}", address, value)


# -- public functions -----------------------------------------------------------------

def load(dtype, address):
    """``ld.shared.<type> %new, [address]`` (1 instruction): a new register of
    `dtype` loaded from `address` (an Address, shared object, u32 register
    or symbol). 16-bit float formats load as ``.b16``."""
    from pyptx._inst import as_address
    return _load(T.as_type(dtype), as_address(address))


def store(dtype, address, value) -> None:
    """``st.shared.<type> [address], value`` (1 instruction); `value` a
    register of `dtype`'s width or an immediate."""
    from pyptx._inst import as_address
    _store(T.as_type(dtype), as_address(address), value)


def _carve(ctx, nbytes, align):
    """(symbol, byte_offset) of `nbytes` more shared memory; advances
    ctx.smem_bytes."""
    offset = -(-ctx.smem_bytes // align) * align
    ctx.smem_bytes = offset + nbytes
    check_smem_limit(ctx, ctx.smem_bytes, "this allocation brings the kernel's shared "
                     "memory to")
    if not ctx.dynamic_smem:
        return None, 0
    _declare_dynamic(ctx)
    return DYNAMIC_SYMBOL, offset


def check_smem_limit(ctx, total: int, what: str, loc=None) -> None:
    """KernelError (at `loc`, default the author's line) when `total` bytes
    of shared memory exceed what one CTA may use on the trace's target."""
    limit = _isa_facts.max_shared_per_cta(ctx.target)
    if limit is not None and total > limit:
        raise KernelError(
            f"{what} {total} bytes, over the {limit} bytes ({limit / 1024:g} KiB) of "
            f"shared memory one CTA may use on {ctx.target}: use fewer stages or "
            f"smaller tiles", *(loc or user_loc()))


def _declare_dynamic(ctx):
    """``.extern .shared .align 1024 .b8 dyn_smem[];``, once per trace."""
    state = _state()
    if not state["dynamic_declared"]:
        ctx.add_shared(DYNAMIC_SYMBOL, "b8", 0, DYNAMIC_ALIGN, extern=True,
                       loc=user_loc())
        state["dynamic_declared"] = True


def _new_name(ctx, kind, name):
    names = _state()["names"]
    if name is None:
        name = f"{kind}_{ctx.unique('smem:' + kind)}"
    elif name in names:
        fail(f"shared-memory name {name!r} is already taken in this kernel")
    return name


def alloc(dtype, shape, swizzle: str | None = None, align: int | None = None,
          name: str | None = None) -> SharedAlloc:
    """Shared memory for `shape` elements of `dtype` (a tuple such as
    (STAGES, BM, BK), or an int): ``.shared .align A .b8 name[bytes];``
    (no instruction; dynamic mode: carved from ``dyn_smem``). `align`
    defaults to 128 bytes; `swizzle` ("32B", "64B", "128B") is metadata for
    helpers. `name` defaults to ``smem_<n>``."""
    return alloc_with_layout(dtype, shape, swizzle, align, name)


def alloc_with_layout(dtype, shape, swizzle: str | None = None, align: int | None = None,
                      name: str | None = None, *, gmma_layout=None,
                      gmma_major: str | None = None) -> SharedAlloc:
    """``alloc`` that also records ``gmma_layout`` (a
    ``pyptx.hw.wgmma_layout.GmmaLayout``) and ``gmma_major`` ("K"/"MN") on the
    allocation, for descriptor helpers. Most kernels call :func:`wgmma_tile`."""
    ctx = get_ctx()
    dtype = T.as_type(dtype)
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    if not shape or any(not isinstance(d, int) or d < 1 for d in shape):
        fail(f"smem.alloc shape must be positive ints, got {shape!r}")
    swizzle = _swizzle_name(swizzle, "smem.alloc")
    align = 128 if align is None else align
    if align < 1 or align & (align - 1):
        fail(f"smem.alloc align={align}: alignment must be a power of two")
    if ctx.dynamic_smem and align > DYNAMIC_ALIGN:
        fail(f"smem.alloc align={align}: dynamic shared memory (dyn_smem) is only "
             f"{DYNAMIC_ALIGN}-byte aligned; ask for at most {DYNAMIC_ALIGN}")
    name = _new_name(ctx, "smem", name)
    a = SharedAlloc(name, dtype, shape, swizzle, gmma_layout, gmma_major, align=align)
    symbol, offset = _carve(ctx, a.nbytes, align)
    if symbol is None:
        ctx.add_shared(name, "b8", a.nbytes, align, loc=user_loc())
    else:
        a.symbol, a.byte_offset = symbol, offset
        a.name = CarvedName(name, symbol, offset)
    _state()["names"][name] = a
    return a


def wgmma_tile(dtype, shape, major: str = "K", *, align: int | None = None,
               name: str | None = None) -> SharedAlloc:
    """A wgmma operand tile in its canonical GMMA layout: `shape` is (M, K)
    for ``major="K"`` (K contiguous: row-major A, column-major B) or (K, N)
    for ``major="MN"`` (M/N contiguous), optionally after leading stage
    dimensions, e.g. (STAGES, M, K). The layout comes from
    ``pyptx.hw.wgmma_layout.tile_layout`` and is recorded as
    ``.gmma_layout`` (descriptor helpers derive LBO/SBO/swizzle from it);
    ``.swizzle`` is its shared-memory swizzle. Alignment defaults to 1024
    bytes, what a 128B-swizzled tile needs."""
    dtype = T.as_type(dtype)
    try:
        layout = tile_layout(dtype, shape, major)
    except ValueError as e:
        fail(f"wgmma_tile({dtype}, {tuple(shape)}, major={major!r}): {e}")
    swizzle = getattr(layout, "smem_swizzle", None)
    return alloc_with_layout(dtype, shape, swizzle, align or DYNAMIC_ALIGN, name,
                             gmma_layout=layout, gmma_major=str(major).upper())


def mbarrier(count: int = 1, name: str | None = None) -> MbarrierArray:
    """`count` mbarrier objects: ``.shared .align 8 .b64 mbar_N[count];`` (no
    instruction; dynamic mode: 8-byte aligned in ``dyn_smem``)."""
    ctx = get_ctx()
    if not isinstance(count, int) or count < 1:
        fail(f"smem.mbarrier count must be a positive int, got {count!r}")
    name = _new_name(ctx, "mbar", name)
    symbol, offset = _carve(ctx, 8 * count, 8)
    m = MbarrierArray(name, count, offset, symbol=symbol)
    if symbol is None:
        ctx.add_shared(name, "b64", count, 8, loc=user_loc())
    _state()["names"][name] = m
    return m


def base(name=None):
    """A u32 register with a shared-memory address (1 instruction,
    ``mov.u32 %r, <symbol>[+offset]``): of `name` (an allocation, slice,
    mbarrier, or a symbol name; names of this kernel's allocations resolve
    to their address), by default of the kernel's ``extern_smem`` array, or
    in dynamic mode of ``dyn_smem``."""
    from pyptx.reg import Reg, scalar
    ctx = get_ctx()
    target = _state()["names"].get(name, name) if isinstance(name, str) else name
    if target is None:
        if ctx.extern_smem_name is not None:
            target = ctx.extern_smem_name
        elif ctx.dynamic_smem:
            _declare_dynamic(ctx)
            target = DYNAMIC_SYMBOL
        else:
            fail("smem.base() without a name needs @kernel(extern_smem=True) (or "
                 "pass an allocation: smem.base(sA))")
    out = scalar(T.u32)
    if isinstance(target, str):
        emit("mov.u32", out, target)
        return out
    from pyptx._inst import as_address
    address = as_address(target)
    if isinstance(address.base, Reg):
        if address.offset:
            emit("add.u32", out, address.base, address.offset)
        else:
            emit("mov.u32", out, address.base)
    else:
        emit("mov.u32", out, _Symbol(address.base, address.offset))
    return out


class CarvedName(str):
    """The name of an allocation carved from ``dyn_smem``: the name text,
    which declares no PTX variable, so used as an operand
    (``ptx.inst.mov.b32(r, sP.name)``, the original's way to take a tile's
    address) it stands for the allocation's address ``dyn_smem+offset``,
    as it does in static mode, where the name is the variable."""

    def __new__(cls, name, symbol, offset):
        self = super().__new__(cls, name)
        self.symbol, self.offset = symbol, offset
        return self

    def __ptx_operand__(self, ftype):
        return symbol_operand(self.symbol, self.offset)

    def __ptx_address__(self) -> Address:
        return Address(self.symbol, self.offset)

    def __ptx_symbol__(self):
        fail(f"{str(self)} lives at {self.symbol}+{self.offset}: take its address "
             f"with ptx.addr(...), not Address({str(self)!r})")


class _Symbol:
    """``symbol+offset`` as an instruction operand (mov of an address)."""

    __slots__ = ("symbol", "offset")

    def __init__(self, symbol, offset):
        self.symbol, self.offset = symbol, offset

    def __ptx_operand__(self, ftype):
        return symbol_operand(self.symbol, self.offset)


# -- GMMA swizzles --------------------------------------------------------------------
#
# The 128B/64B/32B swizzles that TMA writes and wgmma reads, on byte offsets
# (CUTLASS Swizzle<B, 4, 3>): the 16-byte chunk index (bits 4..4+B-1) is
# XORed with the B bits above the 128-byte line (bits 7..7+B-1):
#   128B: bits 4-6 ^= bits 7-9 (mask 0x380), repeating every 1024 bytes
#    64B: bits 4-5 ^= bits 7-8 (mask 0x180), every 512 bytes
#    32B: bit  4   ^= bit  7   (mask 0x080), every 256 bytes
# i.e. physical = logical ^ ((logical & mask) >> 3).

SWIZZLE_MASKS = {"32B": 0x080, "64B": 0x180, "128B": 0x380}
SWIZZLE_SHIFT = 3


def _swizzle_name(swizzle, what):
    if swizzle is None or str(swizzle).upper() == "NONE":
        return None
    text = str(swizzle).upper()
    if text not in SWIZZLE_MASKS:
        fail(f"{what}: swizzle {swizzle!r} is not one of None, '32B', '64B', '128B'")
    return text


def swizzled_offset(offset: int, swizzle) -> int:
    """The physical byte offset of logical byte `offset` under `swizzle`
    (Python ints; what :func:`apply_swizzle` computes in registers)."""
    name = _swizzle_name(swizzle, "swizzled_offset")
    if name is None:
        return offset
    return offset ^ ((offset & SWIZZLE_MASKS[name]) >> SWIZZLE_SHIFT)


def apply_swizzle(logical_offset, swizzle):
    """The physical byte offset of a logical (row-major) byte offset under a
    GMMA swizzle ("32B", "64B", "128B"; None/"NONE" returns the offset as is).
    For a u32 register, 3 instructions::

        and.b32 %t, off, MASK;    // 0x380 (128B), 0x180 (64B), 0x080 (32B)
        shr.u32 %t, %t, 3;
        xor.b32 %phys, off, %t;

    (bits 4.. of the 16-byte chunk index XOR the bits 7.. above the 128-byte
    line). For a Python int, the value computed in Python (no instruction).
    Offsets are relative to a base aligned to the pattern (1024 bytes for
    128B; ``wgmma_tile`` aligns to 1024)."""
    from pyptx.reg import Reg, scalar
    name = _swizzle_name(swizzle, "apply_swizzle")
    if isinstance(logical_offset, int) and not isinstance(logical_offset, bool):
        return swizzled_offset(logical_offset, name)
    if not isinstance(logical_offset, Reg):
        fail(f"apply_swizzle takes a u32 register or an int, not {logical_offset!r}")
    _index_register(logical_offset, "apply_swizzle")
    if name is None:
        return logical_offset
    bits = scalar(T.u32)
    emit("and.b32", bits, logical_offset, SWIZZLE_MASKS[name])
    emit("shr.u32", bits, bits, SWIZZLE_SHIFT)
    physical = scalar(T.u32)
    emit("xor.b32", physical, logical_offset, bits)
    return physical


__all__ = ["SharedAlloc", "SharedSlice", "MbarrierArray", "MbarrierRef", "alloc",
           "alloc_with_layout", "wgmma_tile", "mbarrier", "base", "load", "store",
           "apply_swizzle", "swizzled_offset", "access_type"]
