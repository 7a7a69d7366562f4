"""Raw parameters of a kernel (``@kernel(raw_params=...)``): ``(type, name)``
pairs, the type in the original pyptx's spelling: a PTX type, then
dot-separated parts ``ptr``, a state space (``global``, ``shared``,
``local``, ``const``, ``param``, after ``ptr``), ``alignN`` (the parameter's
alignment), ``palignN`` (the pointee's alignment) and ``arrayN`` (N
elements)::

    raw_params=[("u32", "M"), ("u64.ptr.global.palign1", "A"),
                ("b8.align64.array128", "tmap")]

``(name, type)`` pairs are accepted too (whichever element is a type
spelling is the type).
"""
from __future__ import annotations

import re

_PARAM_TYPES = frozenset({"b8", "b16", "b32", "b64", "u8", "u16", "u32", "u64",
                          "s8", "s16", "s32", "s64", "f16", "bf16", "f32", "f64"})
_PTR_SPACES = ("global", "shared", "local", "const", "param")
_SIZED_PART = re.compile(r"(palign|align|array)(\d+)")


class RawParam(tuple):
    """One raw parameter: the pair ``(name, type)`` (``type`` the PTX
    element type, e.g. "u32"), plus ``align`` (0: none), ``count`` (0: a
    scalar, N: ``name[N]``), ``ptr_space``/``ptr_align`` (the ``.ptr``
    attributes, None/0 without) and ``spelling`` (the type as written)."""

    def __new__(cls, name, type, *, align=0, count=0, ptr_space=None, ptr_align=0,
                spelling=None):
        self = super().__new__(cls, (name, type))
        self.align, self.count = align, count
        self.ptr_space, self.ptr_align = ptr_space, ptr_align
        self.spelling = spelling or type
        return self

    name = property(lambda self: self[0])
    type = property(lambda self: self[1])

    @property
    def is_ptr(self) -> bool:
        return self.ptr_align > 0

    @property
    def nbytes(self) -> int:
        """Bytes of the parameter (count elements, or one)."""
        bits = int(re.sub(r"\D", "", self.type) or 8)
        return max(self.count, 1) * bits // 8


def parse_raw_type(spelling):
    """The type spelling's details as keyword arguments of RawParam, or
    None when `spelling` is no type spelling (a parameter name)."""
    if not isinstance(spelling, str):
        return None
    parts = spelling.lstrip(".").split(".")
    if parts[0] not in _PARAM_TYPES:
        return None
    details = dict(align=0, count=0, ptr_space=None, ptr_align=0)
    is_ptr = False
    for part in parts[1:]:
        sized = _SIZED_PART.fullmatch(part)
        if part == "ptr":
            is_ptr = True
        elif part in _PTR_SPACES and is_ptr:
            details["ptr_space"] = part
        elif sized and int(sized.group(2)) > 0:
            key = {"palign": "ptr_align", "align": "align", "array": "count"}[sized.group(1)]
            details[key] = int(sized.group(2))
        else:
            raise ValueError(
                f"raw parameter type {spelling!r}: unknown part {part!r} (a type is "
                f"written like 'u32', 'u64.ptr.global.palign1' or 'b8.align64.array128': "
                f"ptr, then a state space {'/'.join(_PTR_SPACES)}, alignN, palignN, "
                f"arrayN)")
    if is_ptr:
        if parts[0] not in ("u64", "b64", "s64"):
            raise ValueError(f"raw parameter type {spelling!r}: .ptr needs a 64-bit "
                             f"integer type (u64)")
        details["ptr_align"] = details["ptr_align"] or 1
    elif details["ptr_align"]:
        raise ValueError(f"raw parameter type {spelling!r}: palignN needs .ptr before it")
    return details


def raw_param(entry) -> RawParam:
    """A RawParam of a ``(type, name)`` or ``(name, type)`` pair: the element
    that is a type spelling is the type (when both are, the first)."""
    if isinstance(entry, RawParam):
        return entry
    try:
        first, second = entry
    except (TypeError, ValueError):
        raise TypeError(f"raw_params entries are (type, name) pairs, got {entry!r}") from None
    for spelling, name in ((first, second), (second, first)):
        details = parse_raw_type(spelling)
        if details is not None:
            if not isinstance(name, str) or not name:
                raise TypeError(f"raw parameter {entry!r}: the name must be a string")
            return RawParam(name, spelling.lstrip(".").split(".")[0], spelling=spelling,
                            **details)
    raise ValueError(f"raw parameter {entry!r}: neither element is a PTX type (write "
                     f"('u32', 'n'), ('u64.ptr.global.palign1', 'ptr') or "
                     f"('b8.align64.array128', 'tmap'))")
