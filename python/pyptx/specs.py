"""Tensor boundary specs: ``Tile("M", "K", bf16, Layout.ROW)``.

A Tile lists its dimensions (ints, or names of shape variables bound when
the kernel is specialised, e.g. ``kernel.ptx(M=4096)`` or from the launch
arguments), then the element type, then optionally a Layout; ``dtype=`` and
``layout=`` may also be keywords. ``tma_box=``, ``tma_rank=`` and
``tma_padding=`` describe the TMA descriptor that ``X.tma_desc()`` builds
for the tensor::

    Tile("M", "K", bf16, Layout.TMA_128B, tma_box=(128, 64))
    Tile.wgmma_a("M", "K", bf16, tile_m=128, tile_k=64)   # the same

Inside the trace, each tensor parameter is a :class:`TensorSpec`: its name is
the ``.param .u64`` holding the tensor's global address.
"""
from __future__ import annotations

import enum
import math
from typing import Union

from pyptx.types import PtxType


class Layout(enum.Enum):
    """How a tensor lies in global memory and how TMA writes it to shared
    memory: ROW (row-major, C order, the default), COL (column-major),
    TMA_128B / TMA_64B / TMA_32B (row-major, loaded by TMA with that
    shared-memory swizzle: what wgmma operands need), INTERLEAVED
    (CUTLASS interleaved; metadata only)."""

    ROW = "row"
    COL = "col"
    TMA_128B = "tma_128b"
    TMA_64B = "tma_64b"
    TMA_32B = "tma_32b"
    INTERLEAVED = "interleaved"


# A dimension: an int (concrete) or a str (a shape variable).
Dim = Union[int, str]

# numpy/JAX names of the PTX element types, for Tile.matches.
_NUMPY_NAMES = {"f16": "float16", "bf16": "bfloat16", "f32": "float32",
                "f64": "float64", "s8": "int8", "s16": "int16", "s32": "int32",
                "s64": "int64", "u8": "uint8", "u16": "uint16", "u32": "uint32",
                "u64": "uint64", "b8": "uint8", "b16": "uint16", "b32": "uint32",
                "b64": "uint64", "pred": "bool"}


def _is_dim(value) -> bool:
    return isinstance(value, (int, str)) and not isinstance(value, bool)


class Tile:
    """A tensor spec: shape (``shape``, also ``dims``), ``dtype``, ``layout``,
    and the TMA descriptor options:

    * ``tma_box``: the box one TMA load moves, outermost first (ints or shape
      variables); default: the whole tensor.
    * ``tma_rank``: 2 (a descriptor of the tensor's own rank) or 3 (the
      Hopper form: a (rows, cols) tensor described as 3-D, cols cut into
      stripes as wide as the swizzle span, 128 bytes without swizzle, so one
      load brings a tile wider than the 128-byte swizzle line). Rank 3 needs a
      2-D tile.
    * ``tma_padding``: rank 3 only; pads each stripe of the box by 16 bytes
      (64 -> 72 bf16), the padded shared-memory rows of a Hopper epilogue store.

    Tiles compare and hash by value."""

    __slots__ = ("shape", "dtype", "layout", "tma_box", "tma_rank", "tma_padding")

    def __init__(self, *dims_and_dtype, dtype: PtxType | None = None,
                 layout: Layout = Layout.ROW, tma_box=None, tma_rank: int = 2,
                 tma_padding: bool = False):
        dims, typed = [], False  # typed: the element type came positionally
        for a in dims_and_dtype:
            if isinstance(a, PtxType):
                if dtype is not None and dtype != a:
                    raise TypeError(f"Tile takes one element type, got {dtype} and {a}")
                dtype, typed = a, True
            elif isinstance(a, Layout):
                if layout not in (Layout.ROW, a):
                    raise TypeError(f"Tile takes one layout, got {layout} and {a}")
                layout = a
            elif _is_dim(a) and not typed:
                dims.append(a)
            else:
                raise TypeError(f"Tile(*dims, dtype, [layout]): unexpected {a!r}")
        if dtype is None:
            raise TypeError("Tile needs an element type, e.g. Tile('M', 'N', f32)")
        if not isinstance(layout, Layout):
            raise TypeError(f"Tile layout must be a Layout (Layout.ROW, ...), not "
                            f"{layout!r}")
        if not dims:
            raise TypeError("Tile needs at least one dimension, e.g. Tile('N', f32)")
        if tma_box is not None:
            tma_box = tuple(tma_box)
            if len(tma_box) != len(dims) or not all(map(_is_dim, tma_box)):
                raise ValueError(f"Tile tma_box {tma_box} needs one int or shape "
                                 f"variable per dimension of {tuple(dims)}")
        if tma_rank not in (2, 3):
            raise ValueError(f"Tile tma_rank must be 2 or 3, not {tma_rank!r}")
        if tma_rank == 3 and len(dims) != 2:
            raise ValueError(f"Tile tma_rank=3 describes a 2-D tensor; this one has "
                             f"{len(dims)} dimensions")
        if tma_padding and tma_rank != 3:
            raise ValueError("Tile tma_padding=True pads the rank-3 TMA box; "
                             "add tma_rank=3")
        init = object.__setattr__
        init(self, "shape", tuple(dims))
        init(self, "dtype", dtype)
        init(self, "layout", layout)
        init(self, "tma_box", tma_box)
        init(self, "tma_rank", tma_rank)
        init(self, "tma_padding", bool(tma_padding))

    def __setattr__(self, name, value):
        raise AttributeError(f"Tile is immutable (setting {name!r})")

    def _key(self):
        return (self.shape, self.dtype, self.layout, self.tma_box, self.tma_rank,
                self.tma_padding)

    def __eq__(self, other):
        return isinstance(other, Tile) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    @property
    def dims(self) -> tuple:
        """Same as ``shape``."""
        return self.shape

    @property
    def rank(self) -> int:
        """Number of dimensions."""
        return len(self.shape)

    @property
    def symbolic_dims(self) -> tuple:
        """Names of the shape variables this tile uses, in order."""
        return tuple(d for d in self.shape if isinstance(d, str))

    @property
    def symbols(self) -> list:
        """``symbolic_dims`` as a list."""
        return list(self.symbolic_dims)

    def resolve(self, shapes: dict) -> tuple | None:
        """The concrete shape, or None while a shape variable is unbound."""
        if any(isinstance(d, str) and d not in shapes for d in self.shape):
            return None
        return tuple(shapes[d] if isinstance(d, str) else d for d in self.shape)

    def resolve_shape(self, env: dict) -> tuple:
        """The concrete shape under `env` (name -> int); KeyError naming an
        unbound variable."""
        for d in self.shape:
            if isinstance(d, str) and d not in env:
                raise KeyError(f"Tile shape variable {d!r} is not bound; bound: "
                               f"{sorted(env)}")
        return self.resolve(env)

    def matches(self, array_shape, array_dtype_name: str) -> bool:
        """Whether an array of `array_shape` and dtype `array_dtype_name`
        (the PTX name "bf16", the numpy/JAX name "bfloat16", or a torch name
        "torch.bfloat16") fits this tile: rank, dtype and the concrete
        dimensions (shape variables match anything; see extract_env)."""
        name = str(array_dtype_name).removeprefix("torch.")
        if name not in (self.dtype.name, _NUMPY_NAMES.get(self.dtype.name)):
            return False
        array_shape = tuple(array_shape)
        return len(array_shape) == self.rank and all(
            isinstance(d, str) or d == n for d, n in zip(self.shape, array_shape))

    def extract_env(self, array_shape) -> dict:
        """The shape variables an array of `array_shape` binds,
        {name: size}; ValueError on a rank or concrete-dimension mismatch,
        or one variable given two sizes."""
        array_shape = tuple(array_shape)
        if len(array_shape) != self.rank:
            raise ValueError(f"{self} has rank {self.rank}; the array has shape "
                             f"{array_shape}")
        env: dict = {}
        for axis, (d, n) in enumerate(zip(self.shape, array_shape)):
            if isinstance(d, str):
                if env.setdefault(d, n) != n:
                    raise ValueError(f"{self}: {d} is {env[d]} and {n} in shape "
                                     f"{array_shape}")
            elif d != n:
                raise ValueError(f"{self}: dimension {axis} must be {d}, the array "
                                 f"has {n} (shape {array_shape})")
        return env

    @classmethod
    def wgmma_a(cls, m: Dim, k: Dim, dtype: PtxType, *, tile_m: Dim | None = None,
                tile_k: Dim | None = None) -> "Tile":
        """An (M, K) row-major (K-major) wgmma A operand loaded by TMA. The
        layout is the TMA swizzle of the per-load K width (``tile_k``, default
        K): rows of >= 128 bytes TMA_128B, 64 TMA_64B, 32 TMA_32B, 16 ROW (no
        swizzle); ROW when that width is a shape variable. With ``tile_m`` or
        ``tile_k``, ``tma_box=(tile_m or M, tile_k or K)``; else the whole
        tensor. Allocate the shared tile to match:
        ``smem.wgmma_tile(dtype, (tile_m, tile_k), major="K")``."""
        box = None
        if tile_m is not None or tile_k is not None:
            box = (m if tile_m is None else tile_m, k if tile_k is None else tile_k)
        return cls(m, k, dtype=dtype, layout=_wgmma_layout("a", k if tile_k is None
                                                           else tile_k, dtype),
                   tma_box=box)

    @classmethod
    def wgmma_b(cls, k: Dim, n: Dim, dtype: PtxType, *, tile_k: Dim | None = None,
                tile_n: Dim | None = None) -> "Tile":
        """A (K, N) row-major (MN-major) wgmma B operand loaded by TMA: as
        :meth:`wgmma_a` with the per-load N width (``tile_n``, default N)
        picking the layout and ``tma_box=(tile_k or K, tile_n or N)`` when
        either is given."""
        box = None
        if tile_k is not None or tile_n is not None:
            box = (k if tile_k is None else tile_k, n if tile_n is None else tile_n)
        return cls(k, n, dtype=dtype, layout=_wgmma_layout("b", n if tile_n is None
                                                           else tile_n, dtype),
                   tma_box=box)

    def __repr__(self):
        parts = [*map(repr, self.shape), str(self.dtype), str(self.layout)]
        if self.tma_box is not None:
            parts.append(f"tma_box={self.tma_box}")
        if self.tma_rank != 2:
            parts.append(f"tma_rank={self.tma_rank}")
        if self.tma_padding:
            parts.append("tma_padding=True")
        return f"Tile({', '.join(parts)})"


def _wgmma_layout(operand: str, inner: Dim, dtype: PtxType) -> Layout:
    """The TMA layout of a wgmma operand whose contiguous rows are `inner`
    elements wide (rows wider than 128 bytes still use the 128B swizzle)."""
    if isinstance(inner, str):
        return Layout.ROW
    row = int(inner) * max(dtype.bits // 8, 1)
    if row >= 128:
        return Layout.TMA_128B
    layout = {64: Layout.TMA_64B, 32: Layout.TMA_32B, 16: Layout.ROW}.get(row)
    if layout is None:
        raise ValueError(f"Tile.wgmma_{operand}: rows of {inner} {dtype} are {row} "
                         f"bytes; a GMMA operand row is 16, 32, 64 or a multiple of "
                         f"128 bytes")
    return layout


def unify_envs(envs) -> dict:
    """Merges {shape variable: size} dicts (one per argument); ValueError when
    a variable has two sizes (Tile("M", "K") and Tile("K", "N") must agree
    on K)."""
    merged: dict = {}
    for env in envs:
        for name, size in env.items():
            if merged.setdefault(name, size) != size:
                raise ValueError(f"shape variable {name!r} is {merged[name]} in one "
                                 f"argument and {size} in another")
    return merged


# -- TMA descriptors -----------------------------------------------------------------

MAX_BOX = 256         # elements per box dimension (cuTensorMapEncodeTiled)
STRIPE_BYTES = 128    # rank-3 stripe width without swizzle
_SWIZZLE_SPAN = {"32B": 32, "64B": 64, "128B": 128}
_LAYOUT_SWIZZLE = {Layout.TMA_128B: "128B", Layout.TMA_64B: "64B",
                   Layout.TMA_32B: "32B"}
_L2_PROMOTIONS = ("none", "64B", "128B", "256B")
_OOB_FILLS = ("zero", "nan")


def _swizzle_name(value):
    """'none', '32B', '64B', '128B' from a name (any case), None or a Layout."""
    if isinstance(value, Layout):
        return _LAYOUT_SWIZZLE.get(value, "none")
    if value is None or str(value).lower() == "none":
        return "none"
    text = str(value).upper()
    return text if text in _SWIZZLE_SPAN else None


class UnboundShape:
    """The ``shape`` of a TensorSpec whose Tile names a shape variable the
    trace was not given. It is false (``if A.shape:``); unpacking, indexing
    or ``len`` raise a KernelTypeError at the author's line naming the
    variable to pass, where None would give "cannot unpack non-iterable
    NoneType"."""

    __slots__ = ("name", "tile", "missing")

    def __init__(self, name: str, tile: "Tile", env: dict):
        self.name, self.tile = name, tile
        self.missing = [d for d in tile.symbolic_dims if d not in env]

    def _raise(self, *_):
        from pyptx._trace import user_loc
        from pyptx.errors import KernelTypeError
        first = self.missing[0]
        raise KernelTypeError(
            f"shape variable {first!r} is unbound: pass {first}=... to ptx()/module() "
            f"({self.name}'s Tile is {self.tile.shape}; unbound: "
            f"{', '.join(self.missing)})", *user_loc())

    __iter__ = __getitem__ = __len__ = _raise

    def __bool__(self):
        return False

    def __repr__(self):
        return f"UnboundShape({self.tile.shape}, unbound={self.missing})"


class TensorSpec:
    """A tensor parameter during a trace (no data: launching is the runtime's):
    ``name`` (its ``.param``), ``shape`` (concrete, or an UnboundShape -- false,
    raising on use -- while a shape variable is unbound), ``dtype``,
    ``layout``, ``tile`` (its Tile, when the kernel passes it) and ``env``
    (the bound shape variables)."""

    __slots__ = ("name", "shape", "dtype", "layout", "tile", "env")

    def __init__(self, name, shape=None, dtype=None, layout=None, *, tile=None,
                 env=None):
        self.name, self.shape, self.dtype, self.layout = name, shape, dtype, layout
        self.tile, self.env = tile, dict(env or {})

    @classmethod
    def from_tile(cls, name: str, tile: Tile, env: dict) -> "TensorSpec":
        """The TensorSpec of parameter `name` declared by `tile`, with the
        shape variables `env` bound."""
        shape = tile.resolve(env)
        if shape is None:
            shape = UnboundShape(name, tile, env)
        return cls(name, shape, tile.dtype, tile.layout, tile=tile, env=env)

    def __ptx_symbol__(self):
        return self.name

    def __ptx_operand__(self, ftype):
        return ("s", self.name)

    def tma_desc(self, box=None, swizzle=None, l2_promotion: str = "none",
                 oob_fill: str = "zero"):
        """A u64 register holding the generic address of a TMA descriptor of
        this tensor, for ``ptx.tensor_addr(desc, x, y)`` / the TMA helpers.

        With no arguments everything comes from the Tile: the box from
        ``tma_box`` (default: the whole tensor), the swizzle from the layout
        (``Layout.TMA_128B`` -> "128B", ...; other layouts none), and with
        ``tma_rank=3`` the Hopper 3-D form (see :class:`TmaDescriptor`).
        `box` (elements per dimension, outermost first) and `swizzle`
        ("none", "32B", "64B", "128B") override them; `l2_promotion`
        ("none", "64B", "128B", "256B") and `oob_fill` ("zero", "nan") are
        passed to the encoder.

        The descriptor is a kernel parameter (``.param .align 64 .b8
        <name>_tmap<k>[128]``, after the others) that the launcher encodes
        from the tensor at each launch (cuTensorMapEncodeTiled) and passes by
        value; the first call for a descriptor emits 2 instructions
        (``mov.u64`` of the parameter, ``cvta.param.u64``), later calls
        return that register, so call it where every later use is reached.
        The register's :class:`TmaDescriptor` is recorded in
        ``get_ctx().units["tma_desc"][reg.id]``.

        Checked here: one box size per dimension; each box dimension 1..256
        and within the tensor; the innermost box row a multiple of 16 bytes
        and, swizzled, at most the swizzle span (128B: 128 bytes, e.g. 64
        bf16)."""
        from pyptx import reg
        from pyptx import types as T
        from pyptx._inst import emit, fail
        from pyptx._trace import get_ctx

        if self.dtype is None:
            fail(f"{self.name}.tma_desc() needs the tensor's Tile (in_specs/out_specs)")
        tile = self.tile
        derived = box is None
        if derived:
            box = self._default_box(fail)
        box = tuple(box)
        if not all(isinstance(b, int) and not isinstance(b, bool) for b in box):
            fail(f"{self.name}.tma_desc(): box {box} must be ints")
        if swizzle is None:
            swizzle = self.layout
        swizzle_name = _swizzle_name(swizzle)
        if swizzle_name is None:
            fail(f"{self.name}.tma_desc(): swizzle {swizzle!r} is not one of 'none', "
                 f"'32B', '64B', '128B'")
        if l2_promotion not in _L2_PROMOTIONS:
            fail(f"{self.name}.tma_desc(): l2_promotion {l2_promotion!r} is not one of "
                 f"{', '.join(_L2_PROMOTIONS)}")
        if oob_fill not in _OOB_FILLS:
            fail(f"{self.name}.tma_desc(): oob_fill {oob_fill!r} is not one of "
                 f"{', '.join(_OOB_FILLS)}")
        if oob_fill == "nan" and not self.dtype.is_float:
            fail(f"{self.name}.tma_desc(): oob_fill='nan' fills with a float NaN; "
                 f"{self.dtype} is not a float type (use oob_fill='zero')")
        rank3 = tile is not None and tile.tma_rank == 3
        d = _plan(self.name, self.shape, self.dtype, box, swizzle_name,
                  rank3, tile is not None and tile.tma_padding, fail)

        ctx = get_ctx()
        key = (self.name, d.box, swizzle_name, l2_promotion, oob_fill, d.stripe)
        found = ctx.tma_regs.get(key)
        if found is not None:
            return found
        d.param = f"{self.name}_tmap{len(ctx.tma_descs)}"
        d.l2_promotion, d.oob_fill = l2_promotion, oob_fill
        ctx.add_param(d.param, "b8", 64, 128)
        ctx.tma_descs.append(d)
        address = reg.scalar(T.u64)
        emit("mov.u64", address, d.param)
        generic = reg.scalar(T.u64)
        emit("cvta.param.u64", generic, address)
        ctx.tma_regs[key] = generic
        ctx.units.setdefault("tma_desc", {})[generic.id] = d
        return generic

    def _default_box(self, fail):
        tile = self.tile
        if tile is not None and tile.tma_box is not None:
            box = []
            for b in tile.tma_box:
                if isinstance(b, str):
                    if b not in self.env:
                        fail(f"{self.name}.tma_desc(): tma_box {tile.tma_box} uses "
                             f"{b!r}, which is not bound (pass {b}=... to ptx()/module())")
                    b = self.env[b]
                box.append(b)
            return box
        if not self.shape:
            fail(f"{self.name}.tma_desc(): the box defaults to the whole tensor, whose "
                 f"shape is not bound yet; bind it (ptx(M=...)) or set Tile(..., "
                 f"tma_box=(...))")
        return self.shape

    def __repr__(self):
        return f"TensorSpec({self.name!r}, {self.shape}, {self.dtype})"


def _plan(name, shape, dtype, box, swizzle, rank3, padding, fail) -> "TmaDescriptor":
    """The TmaDescriptor for `box` (outermost first, in tensor elements)
    after the checks of tma_desc; `fail` raises at the author's line."""
    e = max(dtype.bits // 8, 1)
    where = f"{name}.tma_desc()"
    rank = len(shape) if shape else len(box)
    if len(box) != rank:
        fail(f"{where}: box {box} needs one size per dimension of the tensor {shape}")
    if shape:
        for axis, (b, n) in enumerate(zip(box, shape)):
            if b > n:
                fit = tuple(min(x, y) for x, y in zip(box, shape))
                fail(f"{where}: box {box} is larger than the tensor {shape} in "
                     f"dimension {axis} ({b} > {n}); a TMA box must fit in the tensor "
                     f"(use tma_box={fit})")
    stripe = None
    hw_box = box
    if rank3:
        span = _SWIZZLE_SPAN.get(swizzle, STRIPE_BYTES)
        stripe = span // e
        rows, cols = box
        if cols % stripe:
            fail(f"{where}: tma_rank=3 cuts the box's {cols} columns into stripes of "
                 f"{stripe} {dtype} ({span} bytes); make the column count a multiple "
                 f"of {stripe}")
        if shape and shape[1] % stripe:
            fail(f"{where}: tma_rank=3 cuts the tensor's {shape[1]} columns into "
                 f"stripes of {stripe} {dtype}; the column count must be a multiple "
                 f"of {stripe}")
        inner = stripe + (16 // e if padding else 0)
        hw_box = (cols // stripe, rows, inner)
    for axis, b in enumerate(hw_box):
        if not 1 <= b <= MAX_BOX:
            smaller = "" if rank3 else f"={tuple(max(min(x, MAX_BOX), 1) for x in box)}"
            fail(f"{where}: box {hw_box} has {b} elements in dimension {axis}; a TMA "
                 f"box dimension holds 1..{MAX_BOX} elements (use a smaller "
                 f"tma_box{smaller} and issue several loads)")
    row = hw_box[-1] * e
    if row % 16:
        fail(f"{where}: the innermost box dimension spans {hw_box[-1]} {dtype} = {row} "
             f"bytes; TMA needs a multiple of 16 bytes (a multiple of {max(16 // e, 1)} "
             f"{dtype})")
    span = _SWIZZLE_SPAN.get(swizzle)
    if span is not None and row > span:
        hint = ("drop tma_padding (the padded stripe is for unswizzled stores)"
                if rank3 else f"narrow the box to {span // e} columns, or describe the "
                f"tile as {span}-byte stripes with Tile(..., tma_rank=3)")
        fail(f"{where}: the innermost box dimension spans {hw_box[-1]} {dtype} = {row} "
             f"bytes, but a {swizzle}-swizzled box row holds at most {span} bytes "
             f"({span // e} {dtype}); {hint}")
    d = TmaDescriptor(name, None, dtype, tuple(hw_box), swizzle, stripe=stripe)
    if shape:
        _, strides, _ = d.geometry(shape)
        bad = [s for s in strides if s % 16]
        if bad:
            fail(f"{where}: the tensor {shape} has a row stride of {bad[0]} bytes; TMA "
                 f"needs every stride to be a multiple of 16 bytes")
    return d


class TmaDescriptor:
    """What the launcher needs to encode one descriptor parameter.

    ``tensor`` (the tensor parameter), ``param`` (the descriptor's parameter),
    ``dtype``, ``box`` (the box the hardware moves per load, outermost first;
    ``nbytes`` = its bytes, what a load's mbarrier transaction counts),
    ``swizzle`` ("none", "32B", "64B", "128B"), ``l2_promotion``,
    ``oob_fill``, ``rank`` (``len(box)``: the N of ``cp.async.bulk.tensor.Nd``)
    and ``stripe``: None, or for the rank-3 Hopper form the stripe width in
    elements. :meth:`geometry` gives cuTensorMapEncodeTiled's arguments."""

    __slots__ = ("tensor", "param", "dtype", "box", "swizzle", "l2_promotion",
                 "oob_fill", "stripe")

    def __init__(self, tensor, param, dtype, box, swizzle, l2_promotion="none",
                 oob_fill="zero", *, stripe=None):
        self.tensor, self.param, self.dtype, self.box = tensor, param, dtype, tuple(box)
        self.swizzle, self.l2_promotion, self.oob_fill = swizzle, l2_promotion, oob_fill
        self.stripe = stripe

    @property
    def rank(self) -> int:
        return len(self.box)

    @property
    def nbytes(self) -> int:
        return math.prod(self.box) * max(self.dtype.bits // 8, 1)

    def geometry(self, shape) -> tuple[list, list, list]:
        """(dims, strides_bytes, box), innermost first as
        cuTensorMapEncodeTiled takes them, for a row-major contiguous tensor
        of `shape` (outermost first). Rank 2..5: dims = reversed(shape),
        strides = the byte strides of dimensions 1.., box = reversed(box).
        Rank-3 form of an (H, W) tensor with stripes of s elements:
        dims [s, H, W/s], strides [W*e, s*e] (e = element bytes),
        box [s (+16/e padded), rows, cols/s]."""
        e = max(self.dtype.bits // 8, 1)
        shape = [int(n) for n in shape]
        if self.stripe is not None:
            s = self.stripe
            height, width = shape
            return [s, height, width // s], [width * e, s * e], list(reversed(self.box))
        strides, stride = [], e
        for n in reversed(shape[1:]):
            stride *= n
            strides.append(stride)
        return list(reversed(shape)), strides, list(reversed(self.box))

    def __repr__(self):
        form = f", stripes of {self.stripe}" if self.stripe is not None else ""
        return (f"TmaDescriptor({self.tensor!r} -> {self.param!r}, box {self.box}, "
                f"swizzle {self.swizzle}{form})")


__all__ = ["Layout", "Dim", "Tile", "unify_envs", "TensorSpec", "TmaDescriptor"]
