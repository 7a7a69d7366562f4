"""examples/blackwell/tcgen05_suite.py without a GPU: every case traces and
assembles for sm_100a; each primitive is the instruction line expected
(alloc/dealloc/relinquish, mma of each kind with its instruction
descriptor, the descriptors, commit, fences, wait, ld/st of each shape with
its count and half-split offset, pack/unpack, cp); the NumPy references are
right (fp8 decoding against PyTorch's, exact sums for fp8 and s8, the
swizzled layout is a permutation), and the checks the GPU test applies
accept right answers and reject wrong ones."""
import os
import subprocess
import sys

import numpy as np
import pytest
import torch

from examples.blackwell import tcgen05_suite as suite
from pyptx.hw.tcgen05_desc import InstrDesc, SmemDesc
from test_seeds import body

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def lines(text, needle):
    return [l for l in body(text) if needle in l]


@pytest.mark.parametrize("name", [c.name for c in suite.CASES])
def test_every_case_assembles(name, assemble):
    text = suite.case(name).build().ptx()
    assemble(text, "sm_100a")
    assert ".target sm_100a" in text


def test_alloc_case():
    text = suite.build_alloc().ptx()
    allocs = lines(text, "tcgen05.alloc")
    assert [l.split()[0] for l in allocs] == ["tcgen05.alloc.cta_group::1.sync.aligned"
                                              ".shared::cta.b32"] * 2
    assert allocs[0].endswith("], 64;") and allocs[1].endswith("+4], 32;")
    assert [l.split(", ")[1] for l in lines(text, "tcgen05.dealloc")] == ["64;", "32;"]
    assert len(lines(text, "tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;")) == 1
    assert suite.check_alloc([0x20, 0x0, 64, 32]) is None
    assert "overlapping" in suite.check_alloc([0x0, 0x20, 64, 32])
    assert "lane 1" in suite.check_alloc([0x10000, 0x40, 64, 32])
    assert "columns 480..543" in suite.check_alloc([480, 0, 64, 32])


@pytest.mark.parametrize("a_type,b_type,kind,sass_d", [
    ("bf16", None, "f16", "f32"), ("f16", None, "f16", "f32"), ("tf32", None, "tf32", "f32"),
    ("e4m3", None, "f8f6f4", "f32"), ("e5m2", None, "f8f6f4", "f32"),
    ("e4m3", "e5m2", "f8f6f4", "f32"), ("s8", None, "i8", "s32")])
def test_mma_case_lines(a_type, b_type, kind, sass_d):
    text = suite.build_mma(a_type, b_type).ptx()
    idesc = suite.mma_idesc(a_type, b_type)
    fields = InstrDesc.decode(idesc)
    assert (fields.m, fields.n) == (128, 64)
    assert fields.type_names(kind) == (sass_d, a_type, b_type or a_type)
    mma = lines(text, "tcgen05.mma")
    assert mma == [f"tcgen05.mma.cta_group::1.kind::{kind} [%b4], %bd{d}, %bd{d + 1}, "
                   f"{idesc}, {int(i > 0)};" for i, d in enumerate((0, 2, 4, 6))]
    # descriptors: the 128B K-major constant, stepped by 32 bytes (+2) per MMA
    const = SmemDesc(leading_byte_offset=16, stride_byte_offset=1024,
                     swizzle="128B").const_bits()
    assert sum(l.endswith(f", 1, {const};") for l in lines(text, "mad.wide.u32")) == 2
    assert lines(text, "add.u64 %bd") == [f"add.u64 %bd{2 * i + j}, %bd{j}, {2 * i};"
                                          for i in (1, 2, 3) for j in (0, 1)]
    assert lines(text, "tcgen05.commit") == [
        "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [mbar_0];"]
    assert len(lines(text, "fence.proxy.async.shared::cta;")) == 1
    assert len(lines(text, "tcgen05.fence::before_thread_sync;")) == 2
    assert len(lines(text, "tcgen05.fence::after_thread_sync;")) == 2
    assert len(lines(text, "tcgen05.ld.sync.aligned.32x32b.x64.b32")) == 1
    assert len(lines(text, "tcgen05.wait::ld.sync.aligned;")) == 1


def test_mma_copy_is_the_swizzled_layout():
    seen = set()
    for t in range(128):
        for j in range(64 // 16):
            row, chunk = (t >> 3) + 16 * j, t & 7
            kernel = (((t >> 3) >> 3) * suite.ATOM_BYTES + ((t >> 3) & 7) * 128
                      + ((chunk ^ ((t >> 3) & 7)) << 4) + j * 2 * suite.ATOM_BYTES)
            assert kernel == suite.swizzled(row, chunk)
            seen.add(kernel)
    assert sorted(seen) == list(range(0, 64 * 128, 16))   # every chunk of 64 rows once


def test_fp8_decoding_matches_torch():
    codes = np.arange(256, dtype=np.uint8)
    for name, dtype in (("e4m3", torch.float8_e4m3fn), ("e5m2", torch.float8_e5m2)):
        want = torch.from_numpy(codes).view(dtype).to(torch.float64).numpy()
        got = suite.decode(name, codes)
        finite = np.isfinite(want)
        assert np.array_equal(got[finite], want[finite]), name


def test_mma_inputs_give_exact_references():
    rng = np.random.default_rng(0)
    for a_type, b_type in (("e4m3", None), ("e5m2", None), ("e4m3", "e5m2"), ("s8", None)):
        a, b = suite.mma_inputs(a_type, b_type, suite.MMA_N, rng)
        assert a.shape == (128, 128) and b.shape == (64, 128)
        ref = suite.mma_reference(a_type, b_type, a, b)
        assert np.array_equal(ref.astype(np.float32).astype(np.float64), ref)  # exact in f32
        da = suite.decode(a_type, a)
        assert np.isfinite(da).all() and np.abs(ref).max() > 0
        assert np.abs(da).max() < (4 if a_type != "s8" else 129)
    a, b = suite.mma_inputs("tf32", None, suite.MMA_N, rng)
    assert a.shape == (128, 32) and not (a.view(np.uint32) & 0x1FFF).any()


@pytest.mark.parametrize("shape", list(suite.LD_ST_SHAPES))
def test_ld_st_case_lines_and_check(shape):
    count, nregs = suite.LD_ST_SHAPES[shape]
    text = suite.build_ld_st(shape).ptx()
    split = ", 8" if shape == "16x32bx2" else ""
    st = lines(text, "tcgen05.st.sync.aligned")
    ld = lines(text, "tcgen05.ld.sync.aligned")
    assert st[0].startswith("tcgen05.st.sync.aligned.32x32b.x16.b32 [")      # the sentinel
    assert st[1].startswith(f"tcgen05.st.sync.aligned.{shape}.x{count}.b32 [")
    assert st[1].count("%f") == nregs and split in st[1]
    assert ld[0].startswith(f"tcgen05.ld.sync.aligned.{shape}.x{count}.b32 {{")
    assert ld[0].count("%f") == nregs and ld[0].endswith(f"]{split};")
    assert ld[1].startswith("tcgen05.ld.sync.aligned.32x32b.x16.b32 {")
    assert len(lines(text, "tcgen05.wait::st")) == 2 and len(lines(text, "tcgen05.wait::ld")) == 1
    # the check: a right image passes, a wrong one fails
    x = suite.ld_st_inputs(shape)
    assert len(np.unique(x)) == x.size and nregs == x.shape[1]
    z = np.full((128, 16), suite.SENTINEL, np.float32)
    lanes = suite.lanes_of(shape)
    for w in range(4):   # any placement of a warp's values in its covered lanes
        values = np.random.default_rng(w).permutation(x[32 * w:32 * w + 32].ravel())
        z[32 * w:32 * w + lanes] = values.reshape(lanes, 16)
    if shape == "32x32b":
        z = x.copy()
    assert suite.check_ld_st(shape, x, x, z) is None
    assert "ld gave back" in suite.check_ld_st(shape, x, x + (np.arange(x.size) == 5)
                                               .reshape(x.shape), z)
    bad = z.copy()
    bad[3, 2] = bad[3, 1]
    assert suite.check_ld_st(shape, x, x, bad) is not None
    if lanes == 16:
        bad = z.copy()
        bad[40, 0] = 0.0
        assert "warp 1" in suite.check_ld_st(shape, x, x, bad)


def test_pack_and_cp_cases():
    text = suite.build_ld_st_pack().ptx()
    assert lines(text, "tcgen05.st.")[0].startswith(
        "tcgen05.st.sync.aligned.32x32b.x8.unpack::16b.b32 [")
    assert lines(text, "tcgen05.ld.")[0].startswith(
        "tcgen05.ld.sync.aligned.32x32b.x8.pack::16b.b32 {")
    text = suite.build_cp_128x128b().ptx()
    desc = SmemDesc(leading_byte_offset=2048, stride_byte_offset=suite.CP_SBO,
                    swizzle="NONE").const_bits()
    assert sum(l.endswith(f", 1, {desc};") for l in lines(text, "mad.wide.u32")) == 1
    assert lines(text, "tcgen05.cp") == ["tcgen05.cp.cta_group::1.128x128b [%b4], %bd0;"]
    assert len(lines(text, "tcgen05.commit")) == 1


def test_every_primitive_is_covered():
    text = "".join(c.build().ptx() for c in suite.CASES)
    for op in ("tcgen05.alloc", "tcgen05.dealloc", "tcgen05.relinquish_alloc_permit",
               "tcgen05.mma.cta_group::1.kind::f16", "tcgen05.mma.cta_group::1.kind::tf32",
               "tcgen05.mma.cta_group::1.kind::f8f6f4", "tcgen05.mma.cta_group::1.kind::i8",
               "tcgen05.commit", "tcgen05.fence::before_thread_sync",
               "tcgen05.fence::after_thread_sync", "tcgen05.wait::ld", "tcgen05.wait::st",
               "tcgen05.ld.sync.aligned.16x256b", "tcgen05.st.sync.aligned.16x64b",
               "tcgen05.cp.cta_group::1.128x256b", "tcgen05.cp.cta_group::1.128x128b",
               "tcgen05.shift.cta_group::1.down"):
        assert op in text, op


def test_prints_every_case():
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "blackwell",
                                                        "tcgen05_suite.py")],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count(".target sm_100a") == len(suite.CASES)
