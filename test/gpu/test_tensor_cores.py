"""The tensor-core examples on the GPU: the Hopper TMA + wgmma GEMM, the
Ampere mma.sync GEMM (sm_80 code on a Hopper card) and the TMA pipeline,
each against a float64 reference on random data, with the output memory
poisoned (NaN) before the launch so an element left unwritten fails; and
the Blackwell tcgen05 examples' SASS (cuobjdump of ptxas -arch=sm_100a)."""
import os
import re
import shutil
import subprocess

import pytest
import torch

from examples.ampere import gemm as ampere_gemm
from examples.blackwell import tcgen05_alloc_mma, tcgen05_cp_shift, tcgen05_ld_st
from examples.hopper import gemm_tma_wgmma as hopper_gemm
from examples.hopper import tma_pipeline

SM90 = torch.cuda.get_device_capability() >= (9, 0)


def poison(*shapes):
    """Fills the caching allocator's next blocks of these float32 shapes with
    NaN, so outputs allocated next start as NaN."""
    blocks = [torch.full(s, float("nan"), device="cuda") for s in shapes]
    torch.cuda.synchronize()
    del blocks


def check(out, ref, tol):
    out = out.double()
    assert not torch.isnan(out).any(), "output elements left unwritten (still NaN)"
    err = ((out - ref).norm() / ref.norm()).item()
    assert err < tol, f"relative error {err:.3e} >= {tol}"
    return err


@pytest.mark.skipif(not SM90, reason="wgmma and the TMA need sm_90a")
@pytest.mark.parametrize("M,N,K", [(64, 128, 64), (256, 256, 256), (512, 384, 1024),
                                   (1024, 1024, 4096)])
def test_hopper_gemm(M, N, K):
    a = torch.randn(M, K, device="cuda").to(torch.bfloat16)
    b_t = torch.randn(N, K, device="cuda").to(torch.bfloat16)
    k = hopper_gemm.build_gemm(M, N, K)
    poison((M, N))
    c = k(a, b_t)
    torch.cuda.synchronize()
    check(c, a.double() @ b_t.double().T, 1e-5)


@pytest.mark.parametrize("M,N,K", [(128, 128, 32), (256, 384, 96), (512, 256, 1024),
                                   (1024, 768, 512)])
def test_ampere_gemm(M, N, K):
    a = torch.randn(M, K, device="cuda").to(torch.bfloat16)
    b_t = torch.randn(N, K, device="cuda").to(torch.bfloat16)
    k = ampere_gemm.build_gemm(M, N, K)
    poison((M, N))
    c = k(a, b_t)
    torch.cuda.synchronize()
    check(c, a.double() @ b_t.double().T, 1e-5)


@pytest.mark.skipif(not SM90, reason="the TMA needs sm_90")
@pytest.mark.parametrize("M,N", [(128, 16), (256, 256), (384, 48), (512, 1024)])
def test_tma_pipeline(M, N):
    x = torch.randn(M, N, device="cuda")
    k = tma_pipeline.build_tma_pipeline(M, N)
    poison((M, N), (M,))
    y, s = k(x)
    torch.cuda.synchronize()
    assert torch.equal(y, x)
    check(s, x.double().sum(dim=1), 1e-6)


def _sass_opcodes(text, tmp_path):
    ptxas = shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"
    cuobjdump = shutil.which("cuobjdump") or "/usr/local/cuda/bin/cuobjdump"
    if not os.access(cuobjdump, os.X_OK):
        pytest.fail("cuobjdump not found (the GPU machine has the CUDA toolkit)")
    src, cubin = tmp_path / "k.ptx", tmp_path / "k.cubin"
    src.write_text(text)
    subprocess.run([ptxas, "-arch=sm_100a", "-o", str(cubin), str(src)], check=True)
    sass = subprocess.run([cuobjdump, "-sass", str(cubin)], check=True,
                          capture_output=True, text=True).stdout
    return set(re.findall(r"/\*[0-9a-f]{4}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_]*)", sass))


@pytest.mark.parametrize("build,expected", [
    (lambda: tcgen05_alloc_mma.build_tcgen05_alloc_mma(64, 64), ("UTC", "MMA")),
    (lambda: tcgen05_ld_st.build_tcgen05_ld_st(32), ("LDTM", "STTM")),
    (lambda: tcgen05_cp_shift.build_tcgen05_cp_shift(True), ("UTC", "CP")),
])
def test_blackwell_examples_hold_tcgen05_sass(build, expected, tmp_path):
    opcodes = _sass_opcodes(build().ptx(), tmp_path)
    tensor_memory = sorted(o for o in opcodes if o.startswith(("UTC", "LDTM", "STTM")))
    print("tcgen05 SASS:", tensor_memory)
    for part in expected:
        assert any(part in o for o in tensor_memory), (part, sorted(opcodes))
