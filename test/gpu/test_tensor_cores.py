"""The tensor-core examples on the GPU: the Hopper TMA + wgmma GEMM and the
TMA pipeline, each against a float64 reference on random data, with the
output memory poisoned (NaN) before the launch so an element left unwritten
fails. (The Ampere GEMMs: test_ampere.py; Blackwell: test_blackwell.py.)"""
import pytest
import torch

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
