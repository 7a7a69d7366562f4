"""Python values -> the native module's tagged operand tuples (see _native.pyi)."""
from __future__ import annotations

import re
import struct


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
            # ptxas reads [r+-8], not [r-8].
            base = ("+", base, ("i", self.offset))
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
        # PTX identifiers start with a letter, _, $ or %: a string that
        # starts like a number is an immediate ("0f3F800000", "0x1F", "-1").
        return immediate(value, ftype) if value[:1] in _NUMBER_START else ("s", value)
    if isinstance(value, (list, tuple)):
        return ("v", [operand(v, ftype) for v in value])
    raise TypeError(f"cannot use {type(value).__name__} {value!r} as a PTX operand")


_NUMBER_START = frozenset("0123456789+-.")
_INT_TEXT = re.compile(r"[+-]?(0[xX][0-9a-fA-F]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)U?")
_HEX_FLOAT = re.compile(r"0[fF]([0-9a-fA-F]{8})|0[dD]([0-9a-fA-F]{16})")
_DEC_FLOAT = re.compile(r"[+-]?([0-9]+\.[0-9]*|\.[0-9]+|[0-9]+)([eE][+-]?[0-9]+)?")


def immediate(text: str, ftype: str = "f32") -> tuple:
    """The operand of a PTX immediate written as text: integers in decimal,
    hex (0x), octal (0) or binary (0b), with an optional U suffix; float
    bit patterns 0fXXXXXXXX (f32) and 0dXXXXXXXXXXXXXXXX (f64); decimal
    floats (in the instruction's float type). Integers print in decimal."""
    if _INT_TEXT.fullmatch(text):
        body = text.rstrip("U")
        sign = -1 if body[0] == "-" else 1
        digits = body.lstrip("+-")
        if digits[:2] in ("0x", "0X"):
            value = int(digits[2:], 16)
        elif digits[:2] in ("0b", "0B"):
            value = int(digits[2:], 2)
        elif len(digits) > 1 and digits[0] == "0":
            value = int(digits, 8)
        else:
            value = int(digits)
        return ("i", sign * value)
    m = _HEX_FLOAT.fullmatch(text)
    if m:
        if m.group(1):
            return ("f32", struct.unpack(">f", bytes.fromhex(m.group(1)))[0])
        return ("f64", struct.unpack(">d", bytes.fromhex(m.group(2)))[0])
    if _DEC_FLOAT.fullmatch(text):
        return (ftype, float(text))
    raise TypeError(f"{text!r} is neither a PTX immediate (42, 0x2A, -1, 0f3F800000, "
                    f"1.5) nor a symbol (symbols start with a letter, _, $ or %)")


def float_kind(opcode: str) -> str:
    """Float immediates are f64 in an instruction whose type is f64."""
    kind = _FLOAT_KIND.get(opcode)
    if kind is None:
        kind = _FLOAT_KIND[opcode] = "f64" if ".f64" in opcode else "f32"
    return kind


_FLOAT_KIND: dict = {}


def symbol_operand(symbol, offset):
    """The operand `symbol`+`offset` (the symbol alone at offset 0)."""
    if offset:
        return ("+", ("s", symbol), ("i", offset))
    return ("s", symbol)
