"""pyptx.hw.descriptors: the wgmma matrix descriptor's bit layout, checked
against the PTX ISA's "Matrix Descriptor Format" table:

    13-0   encode(start address)      29-16  encode(LBO)
    45-32  encode(SBO)                51-49  base offset
    63-62  swizzle: 0 none, 1 128B, 2 64B, 3 32B
    encode(x) = (x & 0x3FFFF) >> 4
"""
import pytest

from pyptx.hw import descriptors as D
from pyptx.hw.descriptors import MatrixDescriptor


def test_each_field_lands_in_its_isa_bits():
    assert MatrixDescriptor(start_address=16).encode() == 1 << 0
    assert MatrixDescriptor(start_address=0x3FFF0).encode() == 0x3FFF      # all 14 bits
    assert MatrixDescriptor(leading_byte_offset=16).encode() == 1 << 16
    assert MatrixDescriptor(leading_byte_offset=0x3FFF0).encode() == 0x3FFF << 16
    assert MatrixDescriptor(stride_byte_offset=16).encode() == 1 << 32
    assert MatrixDescriptor(stride_byte_offset=0x3FFF0).encode() == 0x3FFF << 32
    assert MatrixDescriptor(base_offset=1).encode() == 1 << 49
    assert MatrixDescriptor(base_offset=7).encode() == 7 << 49
    assert [MatrixDescriptor(swizzle=s).encode() for s in range(4)] == \
        [0, 1 << 62, 2 << 62, 3 << 62]


def test_swizzle_constants_match_the_isa():
    assert (D.SWIZZLE_NONE, D.SWIZZLE_128B, D.SWIZZLE_64B, D.SWIZZLE_32B) == (0, 1, 2, 3)
    assert [D.swizzle_code(n) for n in (None, "none", "NONE", "128B", "64B", "32b", 2)] == \
        [0, 0, 0, 1, 2, 3, 2]
    with pytest.raises(ValueError, match="unknown swizzle"):
        D.swizzle_code("16B")


def test_field_positions_and_reserved_bits():
    assert [D.START_ADDRESS, D.LEADING_BYTE_OFFSET, D.STRIDE_BYTE_OFFSET, D.BASE_OFFSET,
            D.SWIZZLE] == [(0, 14), (16, 14), (32, 14), (49, 3), (62, 2)]
    # Bits 14-15, 30-31, 46-48 and 52-61 belong to no field.
    reserved = sum(1 << b for b in [14, 15, 30, 31, 46, 47, 48, *range(52, 62)])
    assert D.RESERVED_BITS == reserved


def test_encode_field_is_the_isa_formula():
    assert D.encode_field(0x12340) == 0x1234
    assert D.encode_field(0x40010) == 0x1   # bits above 17 are dropped
    assert D.encode_field(0x1F) == 0x1


def test_isa_examples_encode():
    # ISA canonical-layout examples: K-major no swizzle tf32 (LBO 64*4, SBO 32*4)
    # encode to 16 and 8; MN-major 64B bf16 (LBO 256*2, SBO 512*2) to 32 and 64.
    k_major = MatrixDescriptor(leading_byte_offset=64 * 4, stride_byte_offset=32 * 4)
    assert (k_major.encode() >> 16) & 0x3FFF == 16 and (k_major.encode() >> 32) & 0x3FFF == 8
    mn = MatrixDescriptor(leading_byte_offset=256 * 2, stride_byte_offset=512 * 2,
                          swizzle=D.SWIZZLE_64B)
    assert mn.encode() == (2 << 62) | (64 << 32) | (32 << 16)


def test_masked_default_constant():
    # The original's MASKED_DESC_B128: 128B swizzle, SBO 1024, LBO 16.
    value = MatrixDescriptor(leading_byte_offset=16, stride_byte_offset=1024,
                             swizzle=D.SWIZZLE_128B).encode()
    assert value == 4611686293305360384 == 0x4000004000010000


def test_decode_round_trips():
    d = MatrixDescriptor(start_address=0x2A0, leading_byte_offset=2048,
                         stride_byte_offset=1024, base_offset=3, swizzle=D.SWIZZLE_32B)
    assert MatrixDescriptor.decode(d.encode()) == d
    assert MatrixDescriptor.decode(0x4000004000010000) == MatrixDescriptor(
        0, 16, 1024, 0, D.SWIZZLE_128B)
    assert d.const_bits == d.encode() - (0x2A0 >> 4)


@pytest.mark.parametrize("kwargs,match", [
    (dict(leading_byte_offset=24), "multiple of 16"),
    (dict(stride_byte_offset=1 << 18), "multiple of 16 in 0..262128"),
    (dict(start_address=-16), "multiple of 16"),
    (dict(base_offset=8), "base_offset=8 must be an int in 0..7"),
    (dict(swizzle=4), "swizzle=4 must be 0"),
])
def test_unencodable_fields_raise(kwargs, match):
    with pytest.raises(ValueError, match=match):
        MatrixDescriptor(**kwargs)


def test_decode_rejects_reserved_bits():
    with pytest.raises(ValueError, match="reserved bits"):
        MatrixDescriptor.decode(1 << 14)
    with pytest.raises(ValueError, match="64-bit unsigned"):
        MatrixDescriptor.decode(1 << 64)
