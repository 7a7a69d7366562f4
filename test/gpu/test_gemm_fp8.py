"""The Hopper FP8 GEMM (examples/hopper/gemm_fp8.py) on the GPU: each scaling
(per tensor, row-wise, DeepGEMM's block scales) at shapes on and off the
tiles, with 1- and 2-CTA clusters, 128- and 256-column tiles, bf16 and f32
out; the grouped (MoE) kernel with block scales; pyptx.ops.matmul_fp8
eagerly, under torch.compile(fullgraph=True) and in a CUDA graph. Inputs
are random normal data quantised to e4m3, the outputs' memory poisoned
with NaN (an element left unwritten fails), the reference float64 of the
dequantised inputs."""
import numpy as np
import pytest
import torch

from examples.hopper import gemm_fp8 as g8
from pyptx.ops import matmul_fp8
from test_gemm import check, poisoned  # noqa: E402  (test/gpu/test_gemm.py)

SM90 = torch.cuda.get_device_capability() >= (9, 0)
pytestmark = pytest.mark.skipif(not SM90, reason="FP8 wgmma, TMA and clusters need sm_90a")
TOL = 1e-2       # bf16 rounding of the output (~1e-3) and fp8 wgmma's internal sums


def quantised(M, N, K, scaling):
    a8, sa = g8.quantize(torch.randn(M, K, device="cuda"), scaling)
    w8, sb = g8.quantize(torch.randn(N, K, device="cuda") * 0.25, scaling,
                         block_rows=g8.BLOCK if scaling == "block" else 1)
    return a8, w8, sa, sb


def reference(a8, w8, sa, sb, scaling):
    host = [x.cpu().double().numpy() for x in (a8, w8, sa, sb)]
    return torch.from_numpy(g8.reference(*host, scaling)).cuda()


def run(M, N, K, scaling, out=torch.bfloat16, **options):
    from pyptx.types import bf16, f32
    a8, w8, sa, sb = quantised(M, N, K, scaling)
    k = g8.build_gemm_fp8(M, N, K, scaling=scaling,
                          out_dtype=bf16 if out == torch.bfloat16 else f32, **options)
    at = poisoned((M, N), out)
    c = k(a8, w8, sa, sb)
    torch.cuda.synchronize()
    assert c.shape == (M, N) and c.dtype == out
    return check(c, reference(a8, w8, sa, sb, scaling), TOL, poisoned_at=at), k


SHAPES = [(256, 512, 1024), (1000, 1000, 1008), (77, 264, 160), (1, 256, 128),
          (300, 136, 4096), (2048, 2048, 1024)]


@pytest.mark.parametrize("scaling", g8.SCALINGS)
@pytest.mark.parametrize("M,N,K", SHAPES, ids=lambda v: str(v))
def test_planned_kernel_vs_float64(scaling, M, N, K):
    run(M, N, K, scaling)


@pytest.mark.parametrize("scaling", g8.SCALINGS)
def test_cluster_pair_multicast(scaling):
    _, k = run(512, 1024, 512, scaling, cluster=2)
    assert k.config.cluster == 2


@pytest.mark.parametrize("scaling", ["tensor", "row"])
@pytest.mark.parametrize("bn", [128, 256])
def test_tile_widths_and_a_partial_last_column_tile(scaling, bn):
    _, k = run(384, 264 + bn, 256, scaling, bn=bn)
    assert k.config.bn == bn


@pytest.mark.parametrize("scaling", g8.SCALINGS)
def test_f32_out_through_direct_stores(scaling):
    run(200, 392, 384, scaling, out=torch.float32)


@pytest.mark.parametrize("K", [128, 384, 1152, 2176])
@pytest.mark.parametrize("chunk", [8, 1, 3])
def test_block_promotion_orders(K, chunk):
    """Overlapped promotion in runs of `chunk` k tiles (and serial, 1), with
    k tile counts that take every path (1; 3; 9; 17: runs and a rest)."""
    run(256, 384, K, "block", promotion_chunk=chunk)


@pytest.mark.parametrize("M,N,K,kw", [(256, 1152, 512, {}), (1000, 1000, 1008, {}),
                                      (512, 768, 384, dict(cluster=2))])
def test_192_column_block_scaled_tiles(M, N, K, kw):
    """Tiles of 192 columns: their 64-column segments start on and off the
    128-column B blocks (tiles at 0, 192, 384, ...), the last tile passes N."""
    _, k = run(M, N, K, "block", bn=192, promotion_chunk=1, **kw)
    assert k.config.bn == 192


def test_block_scales_vary_along_k():
    """Each 128 of K has its own scales: A's scales of one k block times 16
    change C as the reference says (and by far more than the tolerance)."""
    M, N, K = 256, 256, 512
    a8, w8, sa, sb = quantised(M, N, K, "block")
    k = g8.build_gemm_fp8(M, N, K, scaling="block")
    sa2 = sa.clone()
    sa2[:, 1] *= 16.0
    c = k(a8, w8, sa2, sb)
    torch.cuda.synchronize()
    check(c, reference(a8, w8, sa2, sb, "block"), TOL)
    plain = reference(a8, w8, sa, sb, "block")
    assert ((c.double() - plain).norm() / plain.norm()).item() > 0.1


def test_grouped_block_scaled_vs_float64():
    T, N, K, G = 1000, 256, 512, 5
    offs = torch.tensor([300, 300, 555, 900, 990], dtype=torch.int32, device="cuda")
    a8, sa = g8.quantize(torch.randn(T, K, device="cuda"), "block")
    w8, sb = g8.quantize(torch.randn(G * N, K, device="cuda") * 0.25, "block",
                         block_rows=g8.BLOCK)
    k = g8.build_grouped_gemm_fp8(T, N, K, G)
    at = poisoned((T, N), torch.bfloat16)
    c = k(a8, w8, sa, sb, offs)
    torch.cuda.synchronize()
    host = [x.cpu().double().numpy() for x in (a8, w8, sa, sb)]
    ref = torch.from_numpy(g8.reference_grouped(*host, offs.cpu().numpy())).cuda()
    rows = int(offs[-1])
    check(c, ref, TOL, poisoned_at=at, rows=rows)
    assert torch.isnan(c[rows:].float()).all(), "rows past the last expert were written"


@pytest.mark.parametrize("scaling", g8.SCALINGS)
@pytest.mark.parametrize("M,N,K", [(512, 768, 1024), (50, 1001, 96)])
def test_op_vs_float64_and_scaled_mm(scaling, M, N, K):
    a8, w8, sa, sb = quantised(M, N, K, scaling)
    if scaling == "row":
        sa_op, sb_op = sa[:, None], sb[None, :]          # torch._scaled_mm's shapes
    else:
        sa_op, sb_op = (sa.reshape(()), sb.reshape(())) if scaling == "tensor" else (sa, sb)
    c = matmul_fp8(a8, w8.t(), sa_op, sb_op)
    torch.cuda.synchronize()
    check(c, reference(a8, w8, sa, sb, scaling), TOL)
    if scaling != "block" and N % 16 == 0:
        theirs = torch._scaled_mm(a8, w8.t(), scale_a=sa_op, scale_b=sb_op,
                                  out_dtype=torch.bfloat16)
        check(c, theirs.double(), TOL)


def test_op_refuses_misaligned_views_at_the_callers_line():
    from pyptx.ops.matmul import MatmulError
    a8, w8, sa, sb = quantised(64, 256, 128, "tensor")
    flat = torch.zeros(8 + 256 * 128, dtype=torch.float8_e4m3fn, device="cuda")
    for a, b in ((flat[8:8 + 64 * 128].view(64, 128), w8.t()),
                 (a8, flat[8:].view(256, 128).t())):
        with pytest.raises(MatmulError, match="16-byte aligned") as info:
            matmul_fp8(a, b, sa, sb)
        assert str(info.value).startswith(f"{__file__}:")


def test_op_compiles_without_graph_breaks():
    a8, w8, sa, sb = quantised(256, 512, 256, "row")
    f = torch.compile(lambda a, b, x, y: matmul_fp8(a, b, x, y) * 2, fullgraph=True)
    c = f(a8, w8.t(), sa, sb)
    check(c, 2 * reference(a8, w8, sa, sb, "row"), TOL)


def test_op_in_a_cuda_graph_reads_the_scales_at_replay():
    a8, w8, sa, sb = quantised(256, 512, 256, "tensor")
    matmul_fp8(a8, w8.t(), sa, sb)                       # build and load first
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        c = matmul_fp8(a8, w8.t(), sa, sb)
    sa.mul_(3.0)
    graph.replay()
    torch.cuda.synchronize()
    check(c, reference(a8, w8, sa, sb, "tensor"), TOL)


def test_reference_matches_dequantised_matmul():
    """The float64 reference agrees with PyTorch's float64 matmul of the
    dequantised inputs (so the tests above compare against the maths)."""
    a8, w8, sa, sb = quantised(130, 260, 384, "block")
    full_a = sa.double().repeat_interleave(128, 1)[:, :384]
    full_b = sb.double().repeat_interleave(128, 0).repeat_interleave(128, 1)[:260, :384]
    want = (a8.double() * full_a) @ (w8.double() * full_b).T
    got = reference(a8, w8, sa, sb, "block")
    np.testing.assert_allclose(got.cpu().numpy(), want.cpu().numpy(), rtol=1e-12, atol=1e-12)
