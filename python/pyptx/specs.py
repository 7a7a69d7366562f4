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

    def __repr__(self):
        return f"TensorSpec({self.name!r}, {self.shape}, {self.dtype})"
