"""The wgmma shared-memory matrix descriptor as plain data.

``wgmma.mma_async`` takes each shared-memory operand as a 64-bit matrix
descriptor (PTX ISA, "Matrix Descriptor Format")::

    bits  0-13  start address            encode(address)
    bits 16-29  leading dimension offset encode(LBO)
    bits 32-45  stride dimension offset  encode(SBO)
    bits 49-51  matrix base offset       (swizzled layouts whose pattern
                                          does not start at its boundary)
    bits 62-63  swizzle mode             0 none, 1 128B, 2 64B, 3 32B

where ``encode(x) = (x & 0x3FFFF) >> 4``: shared addresses and offsets
are in bytes, 16-byte aligned, below 256 KiB. Every other bit is zero.

:class:`MatrixDescriptor` holds the fields in bytes; ``encode()`` gives
the 64-bit value and ``decode()`` takes it apart. The wgmma helpers
(``ptx.wgmma.make_descriptor`` ...) compute the constant fields with it
at trace time and emit them as one immediate.
"""
from __future__ import annotations

from dataclasses import dataclass

SWIZZLE_NONE = 0
SWIZZLE_128B = 1
SWIZZLE_64B = 2
SWIZZLE_32B = 3

SWIZZLE_NAMES = {SWIZZLE_NONE: "none", SWIZZLE_128B: "128B", SWIZZLE_64B: "64B",
                 SWIZZLE_32B: "32B"}

# (shift, width in bits) of each field.
START_ADDRESS = (0, 14)
LEADING_BYTE_OFFSET = (16, 14)
STRIDE_BYTE_OFFSET = (32, 14)
BASE_OFFSET = (49, 3)
SWIZZLE = (62, 2)

_FIELD_MASK = 0
for _shift, _width in (START_ADDRESS, LEADING_BYTE_OFFSET, STRIDE_BYTE_OFFSET,
                       BASE_OFFSET, SWIZZLE):
    _FIELD_MASK |= ((1 << _width) - 1) << _shift
RESERVED_BITS = ((1 << 64) - 1) & ~_FIELD_MASK
"""The bits outside every field (always zero in a descriptor)."""

ADDRESS_LIMIT = 1 << 18  # the encoding keeps byte offsets below 256 KiB


def encode_field(value: int) -> int:
    """The ISA's ``matrix-descriptor-encode(x) = (x & 0x3FFFF) >> 4``."""
    return (value & 0x3FFFF) >> 4


def swizzle_code(name) -> int:
    """The swizzle field for a swizzle name ("128B", "64B", "32B", "none" /
    "NONE" / None) or a code 0-3."""
    if name is None:
        return SWIZZLE_NONE
    if isinstance(name, int) and not isinstance(name, bool) and 0 <= name <= 3:
        return name
    key = str(name).strip().upper()
    for code, text in SWIZZLE_NAMES.items():
        if key == text.upper():
            return code
    raise ValueError(f"unknown swizzle {name!r} (use '128B', '64B', '32B' or None)")


def _check_bytes(name: str, value: int) -> None:
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"{name} must be a Python int (bytes), not {value!r}")
    if not 0 <= value < ADDRESS_LIMIT or value % 16:
        raise ValueError(f"{name}={value} must be a multiple of 16 in 0..{ADDRESS_LIMIT - 16} "
                         f"(the descriptor stores bytes >> 4 in 14 bits)")


@dataclass(frozen=True)
class MatrixDescriptor:
    """A wgmma matrix descriptor, fields in bytes (see the module docstring).

    ``start_address`` is the operand's shared-window address; 0 leaves the
    address bits clear, giving the constant part that the helpers add a run-
    time address to. ValueError on a field that the encoding cannot hold."""

    start_address: int = 0
    leading_byte_offset: int = 0
    stride_byte_offset: int = 0
    base_offset: int = 0
    swizzle: int = SWIZZLE_NONE

    def __post_init__(self):
        _check_bytes("start_address", self.start_address)
        _check_bytes("leading_byte_offset", self.leading_byte_offset)
        _check_bytes("stride_byte_offset", self.stride_byte_offset)
        if self.base_offset not in range(8) or isinstance(self.base_offset, bool):
            raise ValueError(f"base_offset={self.base_offset!r} must be an int in 0..7")
        if self.swizzle not in SWIZZLE_NAMES or isinstance(self.swizzle, bool):
            raise ValueError(f"swizzle={self.swizzle!r} must be 0 (none), 1 (128B), "
                             f"2 (64B) or 3 (32B)")

    def encode(self) -> int:
        """The 64-bit descriptor value."""
        return (encode_field(self.start_address) << START_ADDRESS[0]
                | encode_field(self.leading_byte_offset) << LEADING_BYTE_OFFSET[0]
                | encode_field(self.stride_byte_offset) << STRIDE_BYTE_OFFSET[0]
                | self.base_offset << BASE_OFFSET[0]
                | self.swizzle << SWIZZLE[0])

    @classmethod
    def decode(cls, value: int) -> "MatrixDescriptor":
        """The fields of a 64-bit descriptor value (ValueError if a
        reserved bit is set)."""
        if not isinstance(value, int) or not 0 <= value < 1 << 64:
            raise ValueError(f"a descriptor is a 64-bit unsigned int, not {value!r}")
        if value & RESERVED_BITS:
            raise ValueError(f"descriptor {value:#018x} has reserved bits set "
                             f"({value & RESERVED_BITS:#018x})")

        def field(spec):
            shift, width = spec
            return (value >> shift) & ((1 << width) - 1)
        return cls(start_address=field(START_ADDRESS) << 4,
                   leading_byte_offset=field(LEADING_BYTE_OFFSET) << 4,
                   stride_byte_offset=field(STRIDE_BYTE_OFFSET) << 4,
                   base_offset=field(BASE_OFFSET), swizzle=field(SWIZZLE))

    @property
    def const_bits(self) -> int:
        """The encoding without the start address: what a helper adds to
        ``address >> 4`` at run time."""
        return self.encode() & ~(((1 << START_ADDRESS[1]) - 1) << START_ADDRESS[0])
