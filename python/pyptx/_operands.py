"""Python values -> the native module's tagged operand tuples (see _native.pyi)."""
from __future__ import annotations


class Sink:
    """The PTX sink operand ``_``."""

    def __ptx_operand__(self, ftype):
        return ("_",)

    def __repr__(self):
        return "ptx.sink"


SINK = Sink()


class Address:
    """``[base]``, ``[base+offset]`` or ``[tmap, {c0, c1, ...}]``.

    base: a register, a symbol name, a shared allocation, a kernel parameter
    (TensorSpec) or another Address (offsets add up)."""

    __slots__ = ("base", "offset", "coords")

    def __init__(self, base, offset: int = 0, coords=None):
        if isinstance(base, Address):
            offset += base.offset
            base = base.base
        if not isinstance(offset, int):
            raise TypeError("ptx.addr offset must be a Python int (PTX addresses are "
                            "[reg+imm]); add a register offset with + first")
        self.base, self.offset, self.coords = base, offset, coords

    def __add__(self, offset: int) -> "Address":
        return Address(self.base, self.offset + offset, self.coords)

    def __ptx_operand__(self, ftype):
        base = operand(self.base, ftype, symbolic=True)
        if self.offset:
            base = ("+", base, ("i", self.offset)) if self.offset > 0 else \
                   ("-", base, ("i", -self.offset))
        items = [base]
        if self.coords is not None:
            items.append(("v", [operand(c, ftype) for c in self.coords]))
        return ("a", items)

    def __repr__(self):
        return f"Address({self.base!r}, {self.offset})"


class Pipe:
    """``p|q``: setp's two predicate destinations."""

    __slots__ = ("left", "right")

    def __init__(self, left, right):
        self.left, self.right = left, right

    def __ptx_operand__(self, ftype):
        return ("|", operand(self.left, ftype), operand(self.right, ftype))


def operand(value, ftype: str = "f32", symbolic: bool = False) -> tuple:
    """The tagged operand for `value`. ftype picks the float immediate
    encoding ("f32" or "f64"). symbolic: inside an address, objects that name
    a variable (shared allocations, params) give their symbol."""
    if hasattr(value, "__ptx_operand__"):
        if symbolic and hasattr(value, "__ptx_symbol__"):
            return ("s", value.__ptx_symbol__())
        return value.__ptx_operand__(ftype)
    if isinstance(value, bool):
        return ("i", int(value))
    if isinstance(value, int):
        return ("i", value)
    if isinstance(value, float):
        return (ftype, value)
    if isinstance(value, str):
        return ("s", value)
    if isinstance(value, (list, tuple)):
        return ("v", [operand(v, ftype) for v in value])
    raise TypeError(f"cannot use {type(value).__name__} {value!r} as a PTX operand")


def float_kind(opcode: str) -> str:
    """Float immediates are f64 in an instruction whose type is f64."""
    kind = _FLOAT_KIND.get(opcode)
    if kind is None:
        kind = _FLOAT_KIND[opcode] = "f64" if ".f64" in opcode else "f32"
    return kind


_FLOAT_KIND: dict = {}
