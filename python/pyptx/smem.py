"""Shared memory: ``smem.alloc``, ``smem.wgmma_tile``, ``smem.mbarrier``,
``smem.base``.

Static allocations become ``.shared .align A .b8 name[bytes];`` (mbarriers:
``.shared .align 8 .b64 name[n];``) at the top of the kernel. Names are
``smem_0, smem_1, ...`` / ``mbar_0, ...`` per trace unless given. As
operands, an allocation is its symbol; ``alloc[i]`` is the address of stage
i (``[smem_0+i*stage_bytes]``) and ``mbar[i]`` the address of barrier i.
"""
from __future__ import annotations

import math

from pyptx import types as T
from pyptx._operands import Address
from pyptx._trace import get_ctx, user_loc


class SharedAlloc:
    __slots__ = ("name", "dtype", "shape", "nbytes", "align", "swizzle", "major")

    def __init__(self, name, dtype, shape, align, swizzle=None, major=None):
        self.name, self.dtype, self.shape = name, dtype, shape
        self.nbytes = math.prod(shape) * max(dtype.bits // 8, 1)
        self.align, self.swizzle, self.major = align, swizzle, major

    @property
    def stage_bytes(self) -> int:
        """Bytes of one slice along the first dimension."""
        return self.nbytes // self.shape[0] if self.shape else self.nbytes

    def __getitem__(self, i: int) -> Address:
        if not 0 <= i < self.shape[0]:
            raise IndexError(f"{self.name}[{i}] out of range 0..{self.shape[0] - 1}")
        return Address(self.name, i * self.stage_bytes)

    def __ptx_symbol__(self):
        return self.name

    def __ptx_operand__(self, ftype):
        return ("s", self.name)

    def __repr__(self):
        return f"SharedAlloc({self.name!r}, {self.dtype}, {self.shape})"


class MbarrierArray:
    __slots__ = ("name", "count")

    def __init__(self, name, count):
        self.name, self.count = name, count

    def __getitem__(self, i: int) -> Address:
        if not 0 <= i < self.count:
            raise IndexError(f"{self.name}[{i}] out of range 0..{self.count - 1}")
        return Address(self.name, 8 * i)

    def __len__(self):
        return self.count

    def __ptx_symbol__(self):
        return self.name

    def __ptx_operand__(self, ftype):
        return ("s", self.name)

    def __repr__(self):
        return f"MbarrierArray({self.name!r}, {self.count})"


def _name(ctx, kind, name):
    return name if name is not None else f"{kind}_{ctx.unique('smem:' + kind)}"


def alloc(dtype, shape, swizzle: str | None = None, align: int | None = None,
          name: str | None = None) -> SharedAlloc:
    """Static shared memory of `shape` elements of `dtype` (alignment 128 by
    default). `swizzle` ("32B", "64B", "128B") is metadata for helpers."""
    ctx = get_ctx()
    dtype = T.as_type(dtype)
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    a = SharedAlloc(_name(ctx, "smem", name), dtype, shape, align or 128, swizzle)
    ctx.add_shared(a.name, "b8", a.nbytes, a.align, loc=user_loc())
    return a


def wgmma_tile(dtype, shape, major: str = "K", *, align: int | None = None,
               name: str | None = None) -> SharedAlloc:
    """A wgmma operand tile: `shape` is (M, K) for major="K" or (K, N) for
    major="MN". Picks the widest swizzle (128B/64B/32B) that the contiguous
    row fits, and 1024-byte alignment (what 128B swizzle needs)."""
    major = major.upper()
    if major not in ("K", "MN"):
        raise ValueError(f"major must be 'K' or 'MN', not {major!r}")
    dtype = T.as_type(dtype)
    contiguous = shape[1] * max(dtype.bits // 8, 1)
    swizzle = next((f"{s}B" for s in (128, 64, 32) if contiguous % s == 0), None)
    a = alloc(dtype, shape, swizzle=swizzle, align=align or 1024, name=name)
    a.major = major
    return a


def mbarrier(count: int = 1, name: str | None = None) -> MbarrierArray:
    """`count` mbarrier objects: ``.shared .align 8 .b64 mbar_N[count];``."""
    ctx = get_ctx()
    m = MbarrierArray(_name(ctx, "mbar", name), count)
    ctx.add_shared(m.name, "b64", count, 8, loc=user_loc())
    return m


def base(name: str | None = None):
    """A u32 register with the shared-window address of `name` (default: the
    kernel's extern_smem array): ``mov.u32 %r, smem;``."""
    from pyptx.reg import from_
    ctx = get_ctx()
    symbol = getattr(name, "name", name) or ctx.extern_smem_name
    if symbol is None:
        raise ValueError("smem.base() without a name needs @kernel(extern_smem=True)")
    return from_(symbol, T.u32)
