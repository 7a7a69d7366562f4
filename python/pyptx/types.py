"""PTX scalar types as Python objects: ``from pyptx.types import f32, u32``.

A :class:`PtxType` names a PTX fundamental type. ``kind`` is one of
``"pred"``, ``"b"`` (untyped bits), ``"u"``, ``"s"``, ``"f"`` (floating
point, including packed and narrow float formats). ``reg_type`` is the type a
register of this type is declared with: PTX has no ``.reg .bf16`` (ptxas
rejects it), so bf16 values live in ``.b16`` registers, like nvcc does.
"""
from __future__ import annotations


class PtxType:
    """A PTX type: ``PtxType("f32", 32)``. `kind` defaults from the name
    ("pred", "b", "u", "s", else "f"); `reg_type` (the type its registers
    are declared with) defaults to the name."""

    __slots__ = ("name", "bits", "kind", "reg_type")

    def __init__(self, name: str, bits: int, kind: str | None = None,
                 reg_type: str | None = None):
        self.name = name
        self.bits = bits
        self.kind = kind or _kind_of(name)
        self.reg_type = reg_type or name

    @property
    def ptx(self) -> str:
        """The type as a PTX modifier, e.g. ``".f32"``."""
        return "." + self.name

    @property
    def is_int(self) -> bool:
        return self.kind in ("b", "u", "s")

    @property
    def is_float(self) -> bool:
        return self.kind == "f"

    @property
    def is_signed(self) -> bool:
        return self.kind == "s"

    def __repr__(self) -> str:
        return self.name

    __str__ = __repr__

    def __eq__(self, other) -> bool:
        if isinstance(other, str):
            return self.name == other
        return isinstance(other, PtxType) and other.name == self.name

    def __hash__(self) -> int:
        return hash(self.name)


def _kind_of(name: str) -> str:
    if name == "pred":
        return "pred"
    return name[0] if name[:1] in ("b", "u", "s") and name[1:].isdigit() else "f"


pred = PtxType("pred", 1, "pred")
b8, b16, b32, b64, b128 = (PtxType(f"b{n}", n, "b") for n in (8, 16, 32, 64, 128))
u8, u16, u32, u64 = (PtxType(f"u{n}", n, "u") for n in (8, 16, 32, 64))
s8, s16, s32, s64 = (PtxType(f"s{n}", n, "s") for n in (8, 16, 32, 64))
f16 = PtxType("f16", 16, "f")
f16x2 = PtxType("f16x2", 32, "f")
bf16 = PtxType("bf16", 16, "f", reg_type="b16")
bf16x2 = PtxType("bf16x2", 32, "f", reg_type="b32")
tf32 = PtxType("tf32", 32, "f", reg_type="b32")
f32 = PtxType("f32", 32, "f")
f64 = PtxType("f64", 64, "f")
e4m3 = PtxType("e4m3", 8, "f", reg_type="b8")
e5m2 = PtxType("e5m2", 8, "f", reg_type="b8")

ALL_TYPES = {t.name: t for t in (
    pred, b8, b16, b32, b64, b128, u8, u16, u32, u64, s8, s16, s32, s64,
    f16, f16x2, bf16, bf16x2, tf32, f32, f64, e4m3, e5m2)}


def as_type(value) -> PtxType:
    """A PtxType from a PtxType or its name ("f32", ".f32")."""
    if isinstance(value, PtxType):
        return value
    if isinstance(value, str) and value.lstrip(".") in ALL_TYPES:
        return ALL_TYPES[value.lstrip(".")]
    raise TypeError(f"not a PTX type: {value!r} (use pyptx.types.f32, u32, ...)")


def from_name(name: str) -> PtxType:
    """The PtxType named `name`, with or without the leading dot ("f32",
    ".f32"); ValueError for an unknown name."""
    t = ALL_TYPES.get(name.lstrip(".")) if isinstance(name, str) else None
    if t is None:
        raise ValueError(f"unknown PTX type name {name!r}; known: {', '.join(ALL_TYPES)}")
    return t


def bits_type(t: PtxType) -> PtxType:
    """The untyped ``.bN`` type of t's width (for and/or/xor/shl/shfl)."""
    return pred if t == pred else ALL_TYPES[f"b{t.bits}"]


__all__ = ["PtxType", "as_type", "bits_type", "from_name", *ALL_TYPES]
