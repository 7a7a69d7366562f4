"""The two descriptors of Blackwell's ``tcgen05.mma`` as plain data.

:class:`InstrDesc` is the 32-bit *instruction descriptor* (PTX ISA,
"Instruction descriptor format for .kind::tf32, .kind::f16, .kind::f8f6f4 and
.kind::i8"); :class:`SmemDesc` is the 64-bit *shared memory descriptor* of an
A or B operand (PTX ISA, "Shared memory descriptor layout"). Both are frozen
data classes with ``encode() -> int`` and ``decode(int)``; nothing here emits
PTX. ``ptx.tcgen05.make_instr_desc_f16bf16_f32`` and
``ptx.tcgen05.descriptor`` build on them.

Instruction descriptor bits::

    0-1   sparsity selector        13  negate A      17-22  N >> 3
    2     sparse (1) / dense (0)   14  negate B      23     reserved
    3     saturate (kind::i8 only) 15  transpose A   24-28  M >> 4
    4-5   D format                 16  transpose B   29     reserved
    6     reserved                                   30-31  max shift (.ws)
    7-9   A format, 10-12 B format

Formats by kind (``FORMATS``): D is f16 = 0, f32 = 1, s32 = 2; A/B are
f16 = 0, bf16 = 1 (kind::f16), tf32 = 2 (kind::tf32), e4m3 = 0, e5m2 = 1,
e2m3 = 3, e3m2 = 4, e2m1 = 5 (kind::f8f6f4), u8 = 0, s8 = 1 (kind::i8).
"Transpose" is MN-major: a K-major operand has the bit clear.

Shared memory descriptor bits::

    0-13   start address >> 4      46-48  fixed 0b001
    14-15  reserved                49-51  base offset
    16-29  leading byte offset >> 4  52   LBO mode (0 relative, 1 absolute)
    30-31  reserved                53-60  fixed 0
    32-45  stride byte offset >> 4  61-63 swizzle (``SWIZZLE_CODES``)

Each address and offset is encoded as ``(x & 0x3FFFF) >> 4`` and must be a
multiple of 16.
"""
from __future__ import annotations

from dataclasses import dataclass

from pyptx import _isa_facts

KINDS = ("f16", "tf32", "f8f6f4", "i8")

D_FORMATS = {"f16": 0, "f32": 1, "s32": 2}

# A/B operand formats of each kind, and the D formats the kind allows.
FORMATS = {
    "f16": {"f16": 0, "bf16": 1},
    "tf32": {"tf32": 2},
    "f8f6f4": {"e4m3": 0, "e5m2": 1, "e2m3": 3, "e3m2": 4, "e2m1": 5},
    "i8": {"u8": 0, "s8": 1},
}
D_FORMATS_OF_KIND = {"f16": ("f16", "f32"), "tf32": ("f32",), "f8f6f4": ("f32",),
                     "i8": ("s32",)}

MAJORS = ("K", "MN")

# Swizzle field (bits 61-63); 3, 5 and 7 are invalid.
SWIZZLE_CODES = {"NONE": 0, "128B_BASE32B": 1, "128B": 2, "64B": 4, "32B": 6}

_RESERVED_IDESC_BITS = (1 << 6) | (1 << 23) | (1 << 29)


def _name_of(table: dict, code: int) -> str:
    return next((name for name, c in table.items() if c == code), f"code {code}")


def _check_bits(what: str, value: int, bits: int):
    if not 0 <= value < (1 << bits):
        raise ValueError(f"{what} must fit in {bits} bits (0..{(1 << bits) - 1}); got {value}")


@dataclass(frozen=True)
class InstrDesc:
    """The ``idesc`` operand of ``tcgen05.mma`` (kind::f16, tf32, f8f6f4, i8).

    Formats are the raw field codes (see the module docstring); build one by
    names with :meth:`for_kind`. ``m`` must be a multiple of 16, ``n`` of 8."""

    m: int = 128
    n: int = 256
    d_format: int = 1
    a_format: int = 1
    b_format: int = 1
    sparse: bool = False
    sparsity_selector: int = 0
    saturate: bool = False
    negate_a: bool = False
    negate_b: bool = False
    transpose_a: bool = False
    transpose_b: bool = False
    max_shift: int = 0

    @classmethod
    def for_kind(cls, kind: str, *, m: int = 128, n: int = 256, d: str = "f32",
                 a: str = "bf16", b: str | None = None, a_major: str = "K",
                 b_major: str = "K", **flags) -> "InstrDesc":
        """A descriptor from type names: ``for_kind("f16", d="f32", a="bf16")``
        (b defaults to a). Raises ValueError for a type the kind lacks."""
        if kind not in FORMATS:
            raise ValueError(f"kind must be one of {KINDS}; got {kind!r}")
        b = a if b is None else b
        for what, name in (("A", a), ("B", b)):
            if name not in FORMATS[kind]:
                raise ValueError(f"kind::{kind} takes {what} of type "
                                 f"{'/'.join(FORMATS[kind])}; got {name!r}")
        if d not in D_FORMATS_OF_KIND[kind]:
            raise ValueError(f"kind::{kind} accumulates in {'/'.join(D_FORMATS_OF_KIND[kind])}; "
                             f"got {d!r}")
        for what, major in (("a_major", a_major), ("b_major", b_major)):
            if major not in MAJORS:
                raise ValueError(f"{what} must be 'K' or 'MN'; got {major!r}")
        return cls(m=m, n=n, d_format=D_FORMATS[d], a_format=FORMATS[kind][a],
                   b_format=FORMATS[kind][b], transpose_a=a_major == "MN",
                   transpose_b=b_major == "MN", **flags)

    def encode(self) -> int:
        """The 32-bit descriptor. Raises ValueError for a field out of range."""
        if self.m % 16 or not 16 <= self.m <= 31 * 16:
            raise ValueError(f"M must be a multiple of 16 from 16 to 496; got {self.m}")
        if self.n % 8 or not 8 <= self.n <= 63 * 8:
            raise ValueError(f"N must be a multiple of 8 from 8 to 504; got {self.n}")
        for what, value, bits in (("sparsity_selector", self.sparsity_selector, 2),
                                  ("d_format", self.d_format, 2),
                                  ("a_format", self.a_format, 3),
                                  ("b_format", self.b_format, 3),
                                  ("max_shift", self.max_shift, 2)):
            _check_bits(what, value, bits)
        return (self.sparsity_selector
                | int(self.sparse) << 2
                | int(self.saturate) << 3
                | self.d_format << 4
                | self.a_format << 7
                | self.b_format << 10
                | int(self.negate_a) << 13
                | int(self.negate_b) << 14
                | int(self.transpose_a) << 15
                | int(self.transpose_b) << 16
                | (self.n >> 3) << 17
                | (self.m >> 4) << 24
                | self.max_shift << 30)

    @classmethod
    def decode(cls, value: int) -> "InstrDesc":
        """The fields of a 32-bit descriptor. Raises ValueError if it is not
        32 bits or sets a reserved bit (6, 23, 29)."""
        _check_bits("an instruction descriptor", value, 32)
        if value & _RESERVED_IDESC_BITS:
            bits = [b for b in (6, 23, 29) if value >> b & 1]
            raise ValueError(f"instruction descriptor {value:#x} sets reserved bit(s) "
                             f"{', '.join(map(str, bits))}")
        return cls(m=(value >> 24 & 0x1F) << 4, n=(value >> 17 & 0x3F) << 3,
                   d_format=value >> 4 & 3, a_format=value >> 7 & 7,
                   b_format=value >> 10 & 7, sparse=bool(value >> 2 & 1),
                   sparsity_selector=value & 3, saturate=bool(value >> 3 & 1),
                   negate_a=bool(value >> 13 & 1), negate_b=bool(value >> 14 & 1),
                   transpose_a=bool(value >> 15 & 1), transpose_b=bool(value >> 16 & 1),
                   max_shift=value >> 30 & 3)

    def type_names(self, kind: str) -> tuple[str, str, str]:
        """(D, A, B) type names as `kind` reads the format codes."""
        table = FORMATS.get(kind, {})
        return (_name_of(D_FORMATS, self.d_format), _name_of(table, self.a_format),
                _name_of(table, self.b_format))

    def problem(self, kind: str, cta_group: int = 1, sparse: bool | None = None) -> str | None:
        """Why ``tcgen05.mma.cta_group::<cta_group>.kind::<kind>`` (not .ws)
        cannot take this descriptor (PTX ISA, "Various combinations of .kind
        and shapes"), or None. `sparse`: whether the instruction is .sp."""
        if kind not in FORMATS:
            return None
        d, a, b = self.type_names(kind)
        formats = FORMATS[kind]
        if a not in formats or b not in formats:
            return (f"kind::{kind} needs A and B of type {'/'.join(formats)}, but the "
                    f"instruction descriptor encodes A {a}, B {b} (as kind::{kind} reads "
                    f"the codes {self.a_format} and {self.b_format})")
        if kind == "f16" and a != b:
            return f"kind::f16 needs A and B of one type; the descriptor has A {a}, B {b}"
        if d not in D_FORMATS_OF_KIND[kind]:
            return (f"kind::{kind} accumulates in {'/'.join(D_FORMATS_OF_KIND[kind])}, "
                    f"but the descriptor's D format is {d}")
        if kind == "f16" and d == "f16" and a != "f16":
            return "kind::f16 with an f16 accumulator needs f16 inputs, not bf16"
        if self.saturate and kind != "i8":
            return f"saturate (bit 3) is only for kind::i8, not kind::{kind}"
        if kind == "i8" and (self.negate_a or self.negate_b):
            return "kind::i8 cannot negate A or B (bits 13, 14)"
        if sparse is not None and self.sparse != sparse:
            return (f"the descriptor says {'sparse' if self.sparse else 'dense'} (bit 2) "
                    f"but the instruction is {'sparse (.sp)' if sparse else 'dense'}")
        shapes = _isa_facts.tcgen05_mma_shapes(cta_group)
        if shapes is None:
            return f"tcgen05.mma has no cta_group::{cta_group}"
        if self.m not in shapes["m"] or self.n not in shapes["n"]:
            return (f"cta_group::{cta_group} takes M = {_isa_facts.describe(shapes['m'])} "
                    f"and N = {_isa_facts.describe(shapes['n'])}; the descriptor has "
                    f"M = {self.m}, N = {self.n}")
        return None


def encode_address(what: str, value: int) -> int:
    """matrix-descriptor-encode(x) = (x & 0x3FFFF) >> 4, for a byte address or
    offset that must be a multiple of 16 below 2**18."""
    if value % 16 or not 0 <= value < 1 << 18:
        raise ValueError(f"{what} must be a multiple of 16 from 0 to {(1 << 18) - 16}; "
                         f"got {value}")
    return (value & 0x3FFFF) >> 4


def swizzle_code(swizzle) -> int:
    """The 3-bit swizzle field for a name ("NONE", "128B_BASE32B", "128B",
    "64B", "32B"; case-insensitive) or a valid code."""
    if isinstance(swizzle, int) and swizzle in SWIZZLE_CODES.values():
        return swizzle
    key = str(swizzle).upper()
    if key not in SWIZZLE_CODES:
        raise ValueError(f"swizzle must be one of {tuple(SWIZZLE_CODES)}; got {swizzle!r}")
    return SWIZZLE_CODES[key]


@dataclass(frozen=True)
class SmemDesc:
    """The 64-bit shared memory descriptor of a ``tcgen05.mma`` (or
    ``tcgen05.cp``) operand. Addresses and offsets are in bytes."""

    start_address: int = 0
    leading_byte_offset: int = 16
    stride_byte_offset: int = 0
    base_offset: int = 0
    lbo_mode: int = 0
    swizzle: str = "NONE"

    VERSION = 1  # bits 46-48 hold the fixed value 0b001

    def encode(self) -> int:
        """The 64-bit descriptor. Raises ValueError for a field out of range."""
        _check_bits("base_offset", self.base_offset, 3)
        _check_bits("lbo_mode", self.lbo_mode, 1)
        return (encode_address("the start address", self.start_address)
                | encode_address("the leading byte offset", self.leading_byte_offset) << 16
                | encode_address("the stride byte offset", self.stride_byte_offset) << 32
                | self.VERSION << 46
                | self.base_offset << 49
                | self.lbo_mode << 52
                | swizzle_code(self.swizzle) << 61)

    def const_bits(self) -> int:
        """encode() without the start address: the part known at trace time."""
        return SmemDesc(0, self.leading_byte_offset, self.stride_byte_offset,
                        self.base_offset, self.lbo_mode, self.swizzle).encode()

    @classmethod
    def decode(cls, value: int) -> "SmemDesc":
        """The fields of a 64-bit descriptor. Raises ValueError if it is not
        64 bits, lacks the fixed 0b001 at bits 46-48, sets a reserved or
        fixed-zero bit, or has an invalid swizzle code (3, 5, 7)."""
        _check_bits("a shared memory descriptor", value, 64)
        if value >> 46 & 7 != cls.VERSION:
            raise ValueError(f"shared memory descriptor {value:#x} has {value >> 46 & 7:#05b} "
                             f"at bits 46-48; tcgen05 needs the fixed 0b001")
        if value & (3 << 14 | 3 << 30 | 0xFF << 53):
            raise ValueError(f"shared memory descriptor {value:#x} sets a reserved bit "
                             f"(14-15, 30-31 or 53-60)")
        code = value >> 61
        if code not in SWIZZLE_CODES.values():
            raise ValueError(f"shared memory descriptor {value:#x} has the invalid "
                             f"swizzle code {code}")
        return cls(start_address=(value & 0x3FFF) << 4,
                   leading_byte_offset=(value >> 16 & 0x3FFF) << 4,
                   stride_byte_offset=(value >> 32 & 0x3FFF) << 4,
                   base_offset=value >> 49 & 7, lbo_mode=value >> 52 & 1,
                   swizzle=_name_of(SWIZZLE_CODES, code))
