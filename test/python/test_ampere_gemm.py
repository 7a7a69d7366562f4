"""examples/ampere/gemm.py: the one-warp sm_80 bf16 GEMM (fragments loaded
straight from global memory, one mma.sync m16n8k16 per K step, no shared
memory) traces, ptxas -arch=sm_80 accepts it, its PTX has the structure it
is written for, bad shapes fail clearly, the script prints its PTX, and the
NumPy reference the Ampere GEMMs share is the float64 product. The GPU run
is test/gpu/test_ampere.py."""
import os
import re
import subprocess
import sys

import numpy as np
import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from examples.ampere import gemm  # noqa: E402

MMA = "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"


def body(text):
    start = text.index("{")
    return [line.strip() for line in text[start:].splitlines()
            if line.strip() and not line.strip().startswith((".", "{", "}"))]


def count(lines, opcode):
    return sum(re.sub(r"^@!?%p\d+ ", "", line).split(" ")[0] == opcode for line in lines)


@pytest.mark.parametrize("M,N,K", [(16, 8, 16), (48, 24, 80), (1024, 512, 4096)])
def test_traces_and_assembles_for_sm80(M, N, K, assemble):
    m = gemm.build_gemm(M, N, K).module()
    assert gemm.ARCH == "sm_80" and m.arch == "sm_80"
    assert "\n.target sm_80\n" in m.ptx
    assert m.grid == (N // 8, M // 16, 1) and m.block == (32, 1, 1)
    assert m.smem == 0
    assemble(m.ptx, "sm_80")


def test_ptx_structure():
    K = 64
    text = gemm.build_gemm(32, 16, K).ptx()
    lines = body(text)
    assert ".shared" not in text and "ldmatrix" not in text and "cp.async" not in text
    loop = lines[lines.index("$L__range0:"):lines.index("$L__range0_end:")]
    assert loop[1].startswith("setp.ge.u32 %p0, ") and loop[1].endswith(f", {K // 16};")
    # Per K step: 4 A and 2 B registers loaded, one mma on them.
    loads = [line for line in loop if line.startswith("ld.global.b32")]
    assert len(loads) == 6 and count(lines, "ld.global.b32") == 6
    assert count(loop, MMA) == count(lines, MMA) == 1
    mma = next(line for line in loop if line.startswith(MMA))
    a_regs = re.findall(r"%b\d+", mma)
    assert a_regs == [re.search(r"(%b\d+),", line).group(1) for line in loads]
    # A at rows g, g+8 and columns 2t, 2t+8 (bytes +16); B_T at columns 2t, 2t+8.
    offsets = [re.search(r"\[%rd\d+(\+\d+)?\]", line).group(1) or "+0" for line in loads]
    assert offsets == ["+0", f"+{8 * K * 2}", "+16", f"+{8 * K * 2 + 16}", "+0", "+16"]
    assert count(loop, "add.u64") == 2          # both pointers step 32 bytes
    assert all(line.endswith(", 32;") for line in loop if line.startswith("add.u64"))
    # Epilogue: rows g and g+8 of C, two f32 each.
    stores = [line for line in lines if line.startswith("st.global.v2.f32")]
    base = re.search(r"\[(%rd\d+)\]", stores[0]).group(1)
    assert len(stores) == 2 and stores[1].startswith(f"st.global.v2.f32 [{base}+{8 * 16 * 4}]")
    assert count(lines, "mov.f32") == 4 and lines[-1] == "ret;"


@pytest.mark.parametrize("M,N,K,name", [(100, 8, 16, "M=100"), (16, 12, 16, "N=12"),
                                        (16, 8, 24, "K=24"), (0, 8, 16, "M=0"),
                                        (16.0, 8, 16, "M=16.0")])
def test_bad_shapes_are_rejected(M, N, K, name):
    with pytest.raises(ValueError, match=f"gemm: {name} must be a positive multiple of"):
        gemm.build_gemm(M, N, K)


def test_script_prints_ptx():
    path = os.path.join(ROOT, "examples", "ampere", "gemm.py")
    proc = subprocess.run([sys.executable, path], capture_output=True, text=True, cwd="/")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == gemm.build_gemm(64, 64, 64).ptx()
    proc = subprocess.run([sys.executable, path, "32", "16", "48"], capture_output=True,
                          text=True, cwd="/")
    assert proc.returncode == 0 and proc.stdout == gemm.build_gemm(32, 16, 48).ptx()


def test_deterministic():
    first = gemm.build_gemm(64, 32, 64).ptx()
    gemm.build_gemm(16, 8, 16).ptx()
    assert gemm.build_gemm(64, 32, 64).ptx() == first


def test_reference_is_the_float64_product():
    rng = np.random.default_rng(1)
    a = gemm.round_to_bf16(rng.standard_normal((16, 32), dtype=np.float32))
    b_t = gemm.round_to_bf16(rng.standard_normal((8, 32), dtype=np.float32))
    want = np.array([[sum(float(a[i, k]) * float(b_t[j, k]) for k in range(32))
                      for j in range(8)] for i in range(16)])
    got = gemm.reference(a, b_t)
    assert got.dtype == np.float64 and got.shape == (16, 8)
    assert np.allclose(got, want, rtol=1e-12, atol=1e-12)


def test_round_to_bf16():
    x = np.array([1.0, 1 + 2**-8, 1 + 3 * 2**-8, 1 + 2**-8 + 2**-20, 1 + 2**-7, -2.5],
                 np.float32)
    # Halfway cases go to the even mantissa; values already in bf16 stay.
    assert gemm.round_to_bf16(x).tolist() == [1.0, 1.0, 1 + 2**-6, 1 + 2**-7, 1 + 2**-7, -2.5]
