"""tcgen05 descriptors as data: every field's bits against the PTX ISA tables
("Instruction descriptor format for .kind::tf32, .kind::f16, .kind::f8f6f4 and
.kind::i8" and "Shared memory descriptor layout"), and decode(encode(x)) == x."""
import random

import pytest

from pyptx.hw.tcgen05_desc import FORMATS, InstrDesc, SmemDesc, encode_address, swizzle_code

BASE = InstrDesc(m=64, n=8, d_format=0, a_format=0, b_format=0)


def bits(lo, hi, value):
    """value placed in bits lo..hi (inclusive), checking that it fits."""
    assert 0 <= value < 1 << (hi - lo + 1)
    return value << lo


# (field, value, bits the ISA table gives it)
INSTR_FIELDS = [
    ("sparsity_selector", 3, bits(0, 1, 3)),
    ("sparsity_selector", 2, bits(0, 1, 2)),
    ("sparse", True, bits(2, 2, 1)),
    ("saturate", True, bits(3, 3, 1)),
    ("d_format", 1, bits(4, 5, 1)),      # F32
    ("d_format", 2, bits(4, 5, 2)),      # S32
    ("a_format", 1, bits(7, 9, 1)),      # BF16
    ("a_format", 5, bits(7, 9, 5)),      # E2M1
    ("b_format", 2, bits(10, 12, 2)),    # TF32
    ("b_format", 4, bits(10, 12, 4)),    # E3M2
    ("negate_a", True, bits(13, 13, 1)),
    ("negate_b", True, bits(14, 14, 1)),
    ("transpose_a", True, bits(15, 15, 1)),
    ("transpose_b", True, bits(16, 16, 1)),
    ("max_shift", 3, bits(30, 31, 3)),
]


@pytest.mark.parametrize("field,value,expected", INSTR_FIELDS)
def test_instr_desc_field_bits(field, value, expected):
    base = BASE.encode()
    changed = InstrDesc(**{**BASE.__dict__, field: value}).encode()
    assert changed ^ base == expected


@pytest.mark.parametrize("n", [8, 16, 64, 128, 200, 256])
def test_instr_desc_n_is_n_shifted_3_in_bits_17_to_22(n):
    desc = InstrDesc(m=64, n=n, d_format=0, a_format=0, b_format=0).encode()
    assert desc == bits(17, 22, n >> 3) | bits(24, 28, 64 >> 4)


@pytest.mark.parametrize("m", [64, 128, 256])
def test_instr_desc_m_is_m_shifted_4_in_bits_24_to_28(m):
    desc = InstrDesc(m=m, n=8, d_format=0, a_format=0, b_format=0).encode()
    assert desc == bits(24, 28, m >> 4) | bits(17, 22, 8 >> 3)


def test_instr_desc_reserved_bits_stay_clear():
    everything = InstrDesc(m=496, n=504, d_format=3, a_format=7, b_format=7, sparse=True,
                           sparsity_selector=3, saturate=True, negate_a=True, negate_b=True,
                           transpose_a=True, transpose_b=True, max_shift=3).encode()
    assert everything == 0xFFFFFFFF & ~(1 << 6 | 1 << 23 | 1 << 29)


def test_instr_desc_bf16_f32_128x256_by_hand():
    # D F32 (1 << 4), A BF16 (1 << 7), B BF16 (1 << 10), N 256 >> 3 = 32 at bit 17,
    # M 128 >> 4 = 8 at bit 24.
    assert InstrDesc.for_kind("f16", m=128, n=256, d="f32", a="bf16").encode() == \
        1 << 4 | 1 << 7 | 1 << 10 | 32 << 17 | 8 << 24 == 0x08400490


def test_instr_desc_for_kind_uses_each_kinds_codes():
    assert InstrDesc.for_kind("tf32", a="tf32").a_format == 2
    assert InstrDesc.for_kind("f8f6f4", a="e2m3", b="e5m2").a_format == 3
    assert InstrDesc.for_kind("f8f6f4", a="e2m3", b="e5m2").b_format == 1
    assert InstrDesc.for_kind("i8", d="s32", a="s8").d_format == 2
    assert InstrDesc.for_kind("f16", a="f16", a_major="MN").transpose_a
    with pytest.raises(ValueError, match="kind::f16 takes A of type f16/bf16"):
        InstrDesc.for_kind("f16", a="tf32")
    with pytest.raises(ValueError, match="kind::tf32 accumulates in f32"):
        InstrDesc.for_kind("tf32", d="f16", a="tf32")
    with pytest.raises(ValueError, match="a_major must be 'K' or 'MN'"):
        InstrDesc.for_kind("f16", a_major="T")


def test_instr_desc_encode_rejects_out_of_range_fields():
    with pytest.raises(ValueError, match="M must be a multiple of 16"):
        InstrDesc(m=100).encode()
    with pytest.raises(ValueError, match="N must be a multiple of 8"):
        InstrDesc(n=12).encode()
    with pytest.raises(ValueError, match="max_shift must fit in 2 bits"):
        InstrDesc(max_shift=4).encode()


def test_instr_desc_decode_round_trips():
    rng = random.Random(5)
    for _ in range(500):
        d = InstrDesc(m=16 * rng.randint(1, 31), n=8 * rng.randint(1, 63),
                      d_format=rng.randint(0, 3), a_format=rng.randint(0, 7),
                      b_format=rng.randint(0, 7), sparse=rng.random() < .5,
                      sparsity_selector=rng.randint(0, 3), saturate=rng.random() < .5,
                      negate_a=rng.random() < .5, negate_b=rng.random() < .5,
                      transpose_a=rng.random() < .5, transpose_b=rng.random() < .5,
                      max_shift=rng.randint(0, 3))
        assert InstrDesc.decode(d.encode()) == d


@pytest.mark.parametrize("bit", [6, 23, 29])
def test_instr_desc_decode_rejects_reserved_bits(bit):
    with pytest.raises(ValueError, match=f"reserved bit\\(s\\) {bit}"):
        InstrDesc.decode(0x08400490 | 1 << bit)


def test_instr_desc_problem_checks_kind_shape_and_sparsity():
    bf16 = InstrDesc.for_kind("f16", m=128, n=256, a="bf16")
    assert bf16.problem("f16", 1) is None
    assert "kind::tf32 needs A and B of type tf32" in bf16.problem("tf32", 1)
    tf32 = InstrDesc.for_kind("tf32", a="tf32")
    assert "kind::f16 needs A and B of type f16/bf16" in tf32.problem("f16", 1)
    assert "A and B of one type" in InstrDesc.for_kind("f16", a="f16", b="bf16").problem("f16")
    assert "f16 inputs" in InstrDesc.for_kind("f16", d="f16", a="bf16").problem("f16")
    assert "cta_group::1 takes M = 64 or 128" in InstrDesc.for_kind("f16", m=256).problem("f16", 1)
    assert InstrDesc.for_kind("f16", m=256, n=256).problem("f16", 2) is None
    assert "N = a multiple of 16 from 16 to 256" in InstrDesc.for_kind("f16", m=256, n=24).problem("f16", 2)
    assert "sparse (.sp)" in bf16.problem("f16", 1, sparse=True)
    assert "saturate" in InstrDesc.for_kind("f16", saturate=True).problem("f16")
    assert "negate" in InstrDesc.for_kind("i8", d="s32", a="s8", negate_a=True).problem("i8")
    assert set(FORMATS) == {"f16", "tf32", "f8f6f4", "i8"}


# -- shared memory descriptor ---------------------------------------------------------

ZERO = SmemDesc(start_address=0, leading_byte_offset=0, stride_byte_offset=0)
VERSION_BITS = bits(46, 48, 0b001)

SMEM_FIELDS = [
    ("start_address", 0x1230, bits(0, 13, 0x123)),
    ("start_address", (1 << 18) - 16, bits(0, 13, 0x3FFF)),
    ("leading_byte_offset", 16, bits(16, 29, 1)),
    ("leading_byte_offset", 0x3FFF0, bits(16, 29, 0x3FFF)),
    ("stride_byte_offset", 1024, bits(32, 45, 64)),
    ("stride_byte_offset", 0x3FFF0, bits(32, 45, 0x3FFF)),
    ("base_offset", 7, bits(49, 51, 7)),
    ("base_offset", 1, bits(49, 51, 1)),
    ("lbo_mode", 1, bits(52, 52, 1)),
]


@pytest.mark.parametrize("field,value,expected", SMEM_FIELDS)
def test_smem_desc_field_bits(field, value, expected):
    changed = SmemDesc(**{**ZERO.__dict__, field: value}).encode()
    assert changed == expected | VERSION_BITS


@pytest.mark.parametrize("name,code", [("NONE", 0), ("128B_BASE32B", 1), ("128B", 2),
                                       ("64B", 4), ("32B", 6)])
def test_smem_desc_swizzle_is_a_3_bit_code_in_bits_61_to_63(name, code):
    desc = SmemDesc(**{**ZERO.__dict__, "swizzle": name}).encode()
    assert desc == bits(61, 63, code) | VERSION_BITS
    assert swizzle_code(name.lower()) == code


@pytest.mark.parametrize("code", [3, 5, 7])
def test_smem_desc_invalid_swizzle_codes(code):
    with pytest.raises(ValueError, match="swizzle must be one of"):
        swizzle_code(code)
    with pytest.raises(ValueError, match=f"invalid swizzle code {code}"):
        SmemDesc.decode(VERSION_BITS | code << 61)


def test_smem_desc_fixed_bits_and_reserved_bits():
    everything = SmemDesc(start_address=0x3FFF0, leading_byte_offset=0x3FFF0,
                          stride_byte_offset=0x3FFF0, base_offset=7, lbo_mode=1,
                          swizzle="32B").encode()
    assert everything >> 46 & 0b111 == 0b001
    # Reserved 14-15 and 30-31, fixed-zero 53-60.
    assert everything & (3 << 14 | 3 << 30 | 0xFF << 53) == 0
    assert everything == (0x3FFF | 0x3FFF << 16 | 0x3FFF << 32 | 1 << 46 | 7 << 49 | 1 << 52
                          | 6 << 61)


def test_smem_desc_b128_constant_of_the_original():
    # The original pyptx's BLACKWELL_MASKED_DESC_B128: LBO 16, SBO 1024, 128B swizzle.
    assert SmemDesc(leading_byte_offset=16, stride_byte_offset=1024,
                    swizzle="128B").encode() == 0x4000404000010000 == 4611756662049538048


def test_smem_desc_const_bits_drop_only_the_start_address():
    d = SmemDesc(start_address=0x2000, leading_byte_offset=16, stride_byte_offset=1024,
                 swizzle="64B")
    assert d.const_bits() == d.encode() & ~0x3FFF
    assert d.encode() & 0x3FFF == 0x200


def test_smem_desc_rejects_unaligned_or_too_large_offsets():
    with pytest.raises(ValueError, match="the stride byte offset must be a multiple of 16"):
        SmemDesc(stride_byte_offset=1000).encode()
    with pytest.raises(ValueError, match="the start address must be a multiple of 16 from 0"):
        SmemDesc(start_address=1 << 18).encode()
    with pytest.raises(ValueError, match="base_offset must fit in 3 bits"):
        SmemDesc(base_offset=8).encode()
    assert encode_address("x", 0x3FFF0) == 0x3FFF


def test_smem_desc_decode_round_trips_and_checks_the_fixed_bits():
    rng = random.Random(7)
    for _ in range(500):
        d = SmemDesc(start_address=16 * rng.randrange(1 << 14),
                     leading_byte_offset=16 * rng.randrange(1 << 14),
                     stride_byte_offset=16 * rng.randrange(1 << 14),
                     base_offset=rng.randint(0, 7), lbo_mode=rng.randint(0, 1),
                     swizzle=rng.choice(["NONE", "128B_BASE32B", "128B", "64B", "32B"]))
        assert SmemDesc.decode(d.encode()) == d
    with pytest.raises(ValueError, match="fixed 0b001"):
        SmemDesc.decode(0x4000004000010000)  # a Hopper wgmma descriptor: no version bit
    with pytest.raises(ValueError, match="reserved bit"):
        SmemDesc.decode(VERSION_BITS | 1 << 14)
    with pytest.raises(ValueError, match="reserved bit"):
        SmemDesc.decode(VERSION_BITS | 1 << 53)
