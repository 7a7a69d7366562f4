"""The Hopper GEMM at every shape of the benchmark's sweep (Llama-3-8B and
-70B projections at M = 1 .. 16384) and at odd shapes (M, N, K off the
tiles), through the kernels pyptx.ops.matmul plans (bn, split-K): random
bf16 data, the output memory poisoned with NaN (an element left unwritten
fails), relative error to float64 <= 1e-2. Also the fused epilogues (bias,
GELU, SiLU, residual; bf16 and f32 out) against float64."""
import importlib
import os
import sys

import pytest
import torch

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))

from gemm import ODD_SHAPES, SWEEP  # noqa: E402  (benchmarks/gemm.py)
from test_gemm import check, poisoned  # noqa: E402

mm = importlib.import_module("pyptx.ops.matmul")
SM90 = torch.cuda.get_device_capability() >= (9, 0)
pytestmark = pytest.mark.skipif(not SM90, reason="wgmma, TMA and clusters need sm_90a")


def _ids(case):
    return f"{case[0]}-{case[1]}-{case[2]}x{case[3]}x{case[4]}"


@pytest.mark.parametrize("case", SWEEP + ODD_SHAPES, ids=_ids)
def test_planned_kernel_vs_float64(case):
    _, _, M, N, K = case
    a = torch.randn(M, K, device="cuda").to(torch.bfloat16)
    w = torch.randn(N, K, device="cuda").to(torch.bfloat16)
    k, split = mm.gemm_kernel(M, N, K, "K", False, None, False, "bf16")
    dtype = torch.float32 if split > 1 else torch.bfloat16
    at = poisoned((split * M, N), dtype)
    c = k(a, w)
    torch.cuda.synchronize()
    assert c.shape == (split * M, N)
    assert c.data_ptr() == at and not torch.isnan(c).any(), "unwritten output"
    out = c.double().view(split, M, N).sum(0)
    ref = a.double() @ w.double().T
    err = ((out - ref).norm() / ref.norm()).item()
    assert err < 1e-2, f"relative error {err:.3e}"


@pytest.mark.parametrize("M,N,K", [(16, 2048, 4096), (1, 2048, 8192), (100, 1000, 3072)])
def test_split_k_plans_vs_float64(M, N, K):
    """Shapes whose plan splits K (few column tiles, long K): every part's
    partial sums written (poisoned workspace), their sum right."""
    k, split = mm.gemm_kernel(M, N, K, "K", False, None, False, "bf16")
    assert split > 1
    a = torch.randn(M, K, device="cuda").to(torch.bfloat16)
    w = torch.randn(N, K, device="cuda").to(torch.bfloat16)
    at = poisoned((split * M, N), torch.float32)
    c = k(a, w)
    torch.cuda.synchronize()
    assert c.data_ptr() == at and not torch.isnan(c).any(), "unwritten partial sums"
    check(c.double().view(split, M, N).sum(0), a.double() @ w.double().T, 1e-2)


@pytest.mark.parametrize("M,N,K", [(1000, 1000, 1008), (1, 1000, 1008), (300, 200, 64)])
def test_mn_major_b_at_odd_shapes(M, N, K):
    a = torch.randn(M, K, device="cuda").to(torch.bfloat16)
    b = torch.randn(K, N, device="cuda").to(torch.bfloat16)
    k, split = mm.gemm_kernel(M, N, K, "MN", False, None, False, "bf16")
    at = poisoned((split * M, N), torch.float32 if split > 1 else torch.bfloat16)
    c = k(a, b)
    torch.cuda.synchronize()
    check(c.double().view(split, M, N).sum(0), a.double() @ b.double(), 1e-2)
    assert c.data_ptr() == at


EPILOGUES = [
    # M, N, K, bias, activation, residual, f32 out
    (1000, 1000, 1008, True, "gelu", True, False),
    (4096, 4096, 1024, True, "gelu", False, False),
    (512, 1024, 256, False, "silu", True, False),
    (300, 520, 200, True, "silu", True, True),
    (777, 640, 320, False, None, True, True),
    # no activation: bias + residual preloaded into the accumulator
    (1000, 1000, 1008, True, None, True, False),
    (4096, 4096, 1024, True, None, False, False),
]


@pytest.mark.parametrize("M,N,K,bias,act,res,out_f32", EPILOGUES)
def test_fused_epilogue_vs_float64(M, N, K, bias, act, res, out_f32):
    a = torch.randn(M, K, device="cuda").to(torch.bfloat16)
    w = (torch.randn(N, K, device="cuda") / K ** 0.5).to(torch.bfloat16)
    vb = torch.randn(N, device="cuda").to(torch.bfloat16)
    r = torch.randn(M, N, device="cuda").to(torch.bfloat16)
    from pyptx.pipeline.hopper_gemm import build_gemm
    from pyptx.types import bf16, f32
    k = build_gemm(M, N, K, out_dtype=f32 if out_f32 else bf16, bias=bias, activation=act,
                   residual=res)
    at = poisoned((M, N), torch.float32 if out_f32 else torch.bfloat16)
    c = k(a, w, *([vb] if bias else []), *([r] if res else []))
    torch.cuda.synchronize()
    z = a.double() @ w.double().T + (vb.double() if bias else 0)
    z = mm.act_value(torch, z, act)
    ref = z + (r.double() if res else 0)
    check(c, ref, 2e-3 if out_f32 else 1e-2, at)


@pytest.mark.parametrize("M,N,K", [(1, 4096, 14336), (16, 1000, 1008), (128, 4000, 4096),
                                   (200, 96, 200)])
def test_32_column_tiles_vs_float64(M, N, K):
    """The small-M plan's 32-column tiles (128 CTAs streaming B at N =
    4096), also with tails of M, N and K."""
    from pyptx.pipeline.hopper_gemm import build_gemm
    a = torch.randn(M, K, device="cuda").to(torch.bfloat16)
    w = torch.randn(N, K, device="cuda").to(torch.bfloat16)
    ref = a.double() @ w.double().T
    k = build_gemm(M, N, K, bn=32)
    at = poisoned((M, N), torch.bfloat16)
    c = k(a, w)
    torch.cuda.synchronize()
    check(c, ref, 1e-2, at)


@pytest.mark.parametrize("b_major", ["K", "MN"])
def test_cluster_pair_with_a_partial_last_row_of_tiles(b_major):
    """M = 520: the last cluster's second CTA has no rows (all its loads
    past A's edge, all its stores clipped)."""
    from pyptx.pipeline.hopper_gemm import build_gemm
    M, N, K = 520, 768, 136
    a = torch.randn(M, K, device="cuda").to(torch.bfloat16)
    b = torch.randn(N, K, device="cuda").to(torch.bfloat16)
    if b_major == "MN":
        b = b.T.contiguous()
    ref = a.double() @ (b.double().T if b_major == "K" else b.double())
    for epilogue in ("tma", "direct"):
        k = build_gemm(M, N, K, b_major=b_major, cluster=2, epilogue=epilogue)
        at = poisoned((M, N), torch.bfloat16)
        c = k(a, b)
        torch.cuda.synchronize()
        check(c, ref, 1e-2, at)


@pytest.mark.parametrize("counts,N,K,kw", [
    ([100, 0, 300, 1, 77, 260], 1000, 1000, {}),            # N, K off the tiles
    ([130, 7, 400], 200, 72, dict(out_dtype="f32")),
    ([64] * 6, 320, 136, {})])
def test_grouped_variable_tokens_at_any_shape(counts, N, K, kw):
    from examples.hopper import grouped_gemm as gg
    from pyptx.types import f32
    from test_gemm import moe_reference
    kw = {**kw, "out_dtype": f32} if kw.get("out_dtype") else kw
    G, T = len(counts), sum(counts) + 5
    a = torch.randn(T, K, device="cuda").to(torch.bfloat16)
    b = torch.randn(G, N, K, device="cuda").to(torch.bfloat16)
    offs = torch.tensor([sum(counts[:g + 1]) for g in range(G)], dtype=torch.int32,
                        device="cuda")
    k = gg.build_grouped_gemm(T, N, K, G, **kw)
    dtype = torch.float32 if kw.get("out_dtype") else torch.bfloat16
    at = poisoned((T, N), dtype)
    c = k(a, b.view(G * N, K), offs)
    torch.cuda.synchronize()
    rows = sum(counts)
    check(c, moe_reference(a, b, counts), 1e-4 if kw.get("out_dtype") else 1e-2, at,
          rows=rows)
    assert torch.isnan(c[rows:].float()).all()


@pytest.mark.parametrize("G,M,N,K", [(8, 100, 96, 200), (3, 300, 200, 1000), (2, 64, 64, 64),
                                     (4, 257, 256, 136)])
def test_grouped_uniform_at_any_shape(G, M, N, K):
    from examples.hopper import grouped_gemm as gg
    a = torch.randn(G * M, K, device="cuda").to(torch.bfloat16)
    b = torch.randn(G * K, N, device="cuda").to(torch.bfloat16)
    ref = torch.bmm(a.double().view(G, M, K), b.double().view(G, K, N)).reshape(G * M, N)
    k = gg.build_grouped_gemm_uniform(G, M, N, K)
    at = poisoned((G * M, N), torch.bfloat16)
    c = k(a, b)
    torch.cuda.synchronize()
    check(c, ref, 1e-2, at)
