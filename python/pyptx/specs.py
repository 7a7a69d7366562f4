"""Tensor boundary specs: ``Tile("M", "K", bf16, Layout.ROW)``.

A Tile lists its dimensions (ints, or names of shape variables bound when
the kernel is specialised, e.g. ``kernel.ptx(M=4096)``), then the element
type, then optionally a Layout. Inside the trace, each tensor parameter is a
:class:`TensorSpec`: its name is the ``.param .u64`` holding the tensor's
global address.
"""
from __future__ import annotations

import enum

from pyptx.types import PtxType


class Layout(enum.Enum):
    ROW = "row"   # row-major (C order), the default
    COL = "col"   # column-major (Fortran order)


class Tile:
    __slots__ = ("dims", "dtype", "layout")

    def __init__(self, *args):
        dims, dtype, layout = [], None, Layout.ROW
        for a in args:
            if isinstance(a, PtxType):
                if dtype is not None:
                    raise TypeError("Tile takes one element type")
                dtype = a
            elif isinstance(a, Layout):
                layout = a
            elif isinstance(a, (int, str)) and not isinstance(a, bool) and dtype is None:
                dims.append(a)
            else:
                raise TypeError(f"Tile(*dims, dtype, [layout]): unexpected {a!r}")
        if dtype is None:
            raise TypeError("Tile needs an element type, e.g. Tile('M', 'N', f32)")
        self.dims, self.dtype, self.layout = tuple(dims), dtype, layout

    @property
    def symbols(self) -> list[str]:
        """Names of the shape variables this tile uses, in order."""
        return [d for d in self.dims if isinstance(d, str)]

    def resolve(self, shapes: dict) -> tuple | None:
        """The concrete shape, or None while a shape variable is unbound."""
        if any(isinstance(d, str) and d not in shapes for d in self.dims):
            return None
        return tuple(shapes[d] if isinstance(d, str) else d for d in self.dims)

    def __repr__(self):
        dims = ", ".join(map(repr, self.dims))
        return f"Tile({dims}, {self.dtype}, {self.layout})"


class TensorSpec:
    """A tensor parameter during a trace (no data: launching is the runtime's)."""

    __slots__ = ("name", "shape", "dtype", "layout")

    def __init__(self, name, shape=None, dtype=None, layout=None):
        self.name, self.shape, self.dtype, self.layout = name, shape, dtype, layout

    def __ptx_symbol__(self):
        return self.name

    def __ptx_operand__(self, ftype):
        return ("s", self.name)

    def tma_desc(self, box, swizzle: str = "none", l2_promotion: str = "none",
                 oob_fill: str = "zero"):
        """A u64 register holding the generic address of a TMA descriptor of
        this tensor, for ``ptx.tensor_addr(desc, x, y)``. The descriptor is
        a kernel parameter (``.param .align 64 .b8 <name>_tmap<k>[128]``,
        after the others) that the launcher encodes from the tensor at each
        launch (cuTensorMapEncodeTiled) and passes by value. `box`: the
        elements copied per dimension, outermost first, like the Tile.
        Call it where every later use is reached (it emits the mov and
        cvta.param that load the address; later calls return that
        register)."""
        from pyptx import reg
        from pyptx import types as T
        from pyptx._trace import get_ctx
        from pyptx.ptx import inst

        if self.shape is None or self.dtype is None:
            raise TypeError(f"{self.name}.tma_desc() needs the tensor's Tile")
        box = tuple(int(b) for b in box)
        if len(box) != len(self.shape):
            raise ValueError(f"{self.name}.tma_desc(): box {box} needs one size per "
                             f"dimension of {self.shape}")
        ctx = get_ctx()
        key = (self.name, box, swizzle, l2_promotion, oob_fill)
        found = ctx.tma_regs.get(key)
        if found is not None:
            return found
        param = f"{self.name}_tmap{len(ctx.tma_descs)}"
        ctx.add_param(param, "b8", 64, 128)
        ctx.tma_descs.append(TmaDescriptor(self.name, param, self.dtype, box, swizzle,
                                           l2_promotion, oob_fill))
        address = reg.from_(param, T.u64)
        generic = reg.scalar(T.u64)
        inst.cvta.param.u64(generic, address)
        ctx.tma_regs[key] = generic
        return generic

    def __repr__(self):
        return f"TensorSpec({self.name!r}, {self.shape}, {self.dtype})"


class TmaDescriptor:
    """What the launcher needs to encode one descriptor parameter: the
    tensor parameter it describes, the descriptor's parameter name, the
    element type, the box (outermost first) and the encoding options."""

    __slots__ = ("tensor", "param", "dtype", "box", "swizzle", "l2_promotion",
                 "oob_fill")

    def __init__(self, tensor, param, dtype, box, swizzle, l2_promotion, oob_fill):
        self.tensor, self.param, self.dtype, self.box = tensor, param, dtype, box
        self.swizzle, self.l2_promotion, self.oob_fill = swizzle, l2_promotion, oob_fill

    def __repr__(self):
        return (f"TmaDescriptor({self.tensor!r} -> {self.param!r}, box {self.box}, "
                f"swizzle {self.swizzle})")
