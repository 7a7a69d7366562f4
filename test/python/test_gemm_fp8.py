"""The Hopper FP8 GEMM (examples/hopper/gemm_fp8.py, pyptx.pipeline.fp8_gemm
and .scales) traced on the CPU: every scaling and tile configuration
assembles with ptxas -arch=sm_90a without spills or serialised wgmmas;
the instructions each scaling adds; the shape rules; the float64
reference and the quantiser; pyptx.ops.matmul_fp8's argument errors at
the caller's line."""
import re

import numpy as np
import pytest

from examples.hopper import gemm_fp8 as g8
from pyptx.pipeline.fp8_gemm import plan_gemm_fp8
from pyptx.types import f32

CONFIGS = [
    ((8192, 8192, 8192), dict(scaling="tensor")),            # bn 256, 2-CTA cluster, TMA out
    ((8192, 8192, 8192), dict(scaling="row")),
    ((8192, 8192, 8192), dict(scaling="block")),             # bn 128, 2-CTA cluster
    ((8192, 8192, 8192), dict(scaling="block", promotion_chunk=1)),
    ((512, 1024, 512), dict(scaling="row", cluster=2, bn=128)),
    ((1000, 1000, 1008), dict(scaling="row")),               # partial row/column tiles
    ((77, 264, 160), dict(scaling="block")),                 # partial k tile, direct out
    ((1, 256, 128), dict(scaling="tensor")),
    ((200, 392, 384), dict(scaling="block", out_dtype=f32)),
    ((384, 520, 256), dict(scaling="row", bn=256)),
    ((8192, 8192, 8192), dict(scaling="block", bn=192, promotion_chunk=1)),
    ((1000, 1000, 1008), dict(scaling="block", bn=192, promotion_chunk=1)),   # tails
]


def _id(config):
    (M, N, K), kw = config
    return f"{M}x{N}x{K}-" + ",".join(f"{k}={v}" for k, v in kw.items())


def _assembles_cleanly(k, assemble):
    assemble(k.module().ptx, "sm_90a")
    r = k.resources()
    assert r["ok"], r["ptxas_stderr"]
    assert r["spill_stores_bytes"] == 0 and r["spill_loads_bytes"] == 0
    assert r["smem_per_cta"] <= 227 * 1024
    assert "serialized" not in r["ptxas_stderr"]    # ptxas keeps the wgmma pipeline


@pytest.mark.parametrize("config", CONFIGS, ids=_id)
def test_every_configuration_assembles(config, assemble):
    shape, kw = config
    _assembles_cleanly(g8.build_gemm_fp8(*shape, **kw), assemble)


@pytest.mark.parametrize("T,N,K,G", [(4096, 768, 2048, 8), (100, 128, 144, 3)])
def test_grouped_assembles(T, N, K, G, assemble):
    _assembles_cleanly(g8.build_grouped_gemm_fp8(T, N, K, G), assemble)


def _count(text, needle):
    return sum(needle in line for line in text.splitlines())


def test_fp8_wgmma_k32_and_128_wide_k_tiles():
    k = g8.build_gemm_fp8(1024, 1024, 1024, scaling="tensor", bn=256, cluster=1)
    text = k.ptx()
    assert _count(text, "wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3") == 8  # 2 x 4
    assert _count(text, "wgmma.mma_async.sync.aligned.m64n256k16") == 0
    # the producer's K coordinate steps by 128 elements (one 128-byte row)
    assert re.search(r"shl\.b32\s+%r\d+, %r\d+, 7;|mul\.lo\.u32\s+%r\d+, %r\d+, 128;", text)
    assert k.config.bk == 128 and k.config.stages == 4


def _wgmma_scale_d(text):
    return [l.rstrip(";").split(",")[-3].strip() for l in text.splitlines()
            if "wgmma.mma_async" in l]


def test_block_scales_promote_every_k_tile():
    """DeepGEMM's order (promotion_chunk=1): each k tile's wgmmas, its
    scales, wait_group 0, the promotion, in a loop over the k tiles."""
    text = g8.build_gemm_fp8(1024, 1024, 1024, scaling="block", promotion_chunk=1).ptx()
    # every k tile restarts its partial: the first wgmma of each does not add D
    assert _wgmma_scale_d(text) == ["0", "1", "1", "1"]
    assert _count(text, "wgmma.wait_group.sync.aligned 0") == 1
    assert _count(text, "wgmma.wait_group.sync.aligned 1") == 0
    assert _count(text, "fma.rn.f32") == 64      # acc += partial * s, 64 x 128 / 128 a thread
    assert _count(text, "ld.global.f32") == 3    # sa of its two rows, sb


def test_192_column_block_tiles_scale_each_64_column_segment():
    """bn 192 (promotion_chunk 1): three 64-column segments, each inside one
    B block whatever the tile's start, each with its own B scale (clamped
    to the last block where the last tile passes N); 96 fma a k tile."""
    k = g8.build_gemm_fp8(1024, 1000, 1024, scaling="block", bn=192, promotion_chunk=1)
    text = k.ptx()
    assert k.config.epi_cols == 64 and k.config.bn == 192
    assert _count(text, "fma.rn.f32") == 96
    assert _count(text, "ld.global.f32") == 2 + 3          # sa of two rows, sb of 3 segments
    assert _count(text, "min.u32") == 3                    # the segments' blocks, clamped
    assert _wgmma_scale_d(text) == ["0", "1", "1", "1"]


@pytest.mark.parametrize("K,issues,waits", [(128, 1, 0), (384, 3, 2), (1024, 8, 7),
                                            (2176, 9, 7)])
def test_overlapped_promotion_alternates_two_partials(K, issues, waits):
    """The default (runs of 8 k tiles): in a run, k tile k's wgmmas go into
    partial k % 2 and run while tile k-1 is promoted after wait_group 1;
    runs end with wait_group 0 (so a loop over runs carries no wgmma), a
    rest of k tiles is one shorter run."""
    text = g8.build_gemm_fp8(256, 256, K, scaling="block").ptx()
    assert _wgmma_scale_d(text) == ["0", "1", "1", "1"] * issues
    wgmmas = [l for l in text.splitlines() if "wgmma.mma_async" in l]
    partials = [l.split("{")[1].split(",")[0] for l in wgmmas[::4]]
    names = partials[:2]                          # each run starts with the first partial
    assert partials == [names[i % 8 % 2] for i in range(issues)]
    assert len(set(partials)) == min(2, issues)
    assert _count(text, "wgmma.wait_group.sync.aligned 1") == waits
    assert _count(text, "ld.global.f32") == 3 * issues    # one set of scales per promotion


def test_epilogue_scales():
    tensor = g8.build_gemm_fp8(512, 512, 512, scaling="tensor", bn=256, cluster=1).ptx()
    assert _count(tensor, "ld.global.f32") == 2 and _count(tensor, "mul.f32") == 129
    row = g8.build_gemm_fp8(512, 512, 512, scaling="row", bn=256, cluster=1).ptx()
    assert _count(row, "ld.global.v2.f32") == 32 and _count(row, "mul.f32") == 256


def test_row_scales_guard_partial_tiles():
    text = g8.build_gemm_fp8(1000, 1000, 1008, scaling="row").ptx()
    assert _count(text, "min.u32") == 2          # rows past M read row M - 1's scale
    assert re.search(r"@%p\d+ ld\.global\.v2\.f32", text)   # columns past N not read


@pytest.mark.parametrize("M,N,K,kw,match", [
    (128, 128, 120, {}, "multiple of 16"),
    (128, 100, 128, {}, "N of 8"),
    (128, 128, 64, {}, "at least 128"),
    (128, 128, 128, dict(scaling="blocks"), "scaling must be"),
    (512, 512, 512, dict(scaling="block", bn=256), "with block scales 128"),
    (512, 512, 512, dict(scaling="block", bn=192, promotion_chunk=8),
     "192 with promotion_chunk 1"),
    (128, 512, 512, dict(cluster=2), "cluster must be"),
    (512, 512, 512, dict(cluster=4), "cluster must be"),
])
def test_shapes_off_the_rules_are_refused(M, N, K, kw, match):
    with pytest.raises(ValueError, match=match):
        g8.build_gemm_fp8(M, N, K, **kw)


def test_grouped_rules():
    with pytest.raises(ValueError, match="multiple of 128"):
        g8.build_grouped_gemm_fp8(1000, 200, 256, 4)
    with pytest.raises(ValueError, match="G <="):
        g8.build_grouped_gemm_fp8(1000, 256, 256, 400)


def test_plan():
    assert plan_gemm_fp8(8192, 8192, 8192, "tensor") == {"bn": 256, "cluster": 2}
    # block scales: the width whose waves cover fewer columns (8192: 32 waves
    # of 128 columns > 21 of 192; 4096: 8 x 128 < 6 x 192)
    assert plan_gemm_fp8(8192, 8192, 8192, "block") == {"bn": 192, "cluster": 2,
                                                         "promotion_chunk": 1}
    assert plan_gemm_fp8(4096, 4096, 4096, "block") == {"bn": 128, "cluster": 2,
                                                         "promotion_chunk": 8}
    assert g8.build_gemm_fp8(8192, 8192, 8192, scaling="block").config.bn == 192
    # an explicit overlapped promotion (two partials) keeps 128 columns
    assert g8.build_gemm_fp8(8192, 8192, 8192, scaling="block",
                             promotion_chunk=8).config.bn == 128
    assert plan_gemm_fp8(1000, 1000, 1008, "row")["cluster"] == 1
    assert plan_gemm_fp8(128, 4096, 4096, "tensor")["bn"] == 128


def test_reference_and_scale_shapes():
    rng = np.random.default_rng(0)
    M, N, K = 3, 130, 260
    a, b = rng.standard_normal((M, K)), rng.standard_normal((N, K))
    sa, sb = rng.random((M, 3)) + 0.5, rng.random((2, 3)) + 0.5
    assert g8.scale_shapes("block", M, N, K) == ((M, 3), (2, 3))
    full_a = np.repeat(sa, 128, axis=1)[:, :K]
    full_b = np.repeat(np.repeat(sb, 128, axis=0), 128, axis=1)[:N, :K]
    np.testing.assert_allclose(g8.reference(a, b, sa, sb, "block"),
                               (a * full_a) @ (b * full_b).T, rtol=1e-12)
    np.testing.assert_allclose(g8.reference(a, b, np.array([2.0]), np.array([3.0]), "tensor"),
                               6 * a @ b.T, rtol=1e-12)
    ra, rb = rng.random(M), rng.random(N)
    np.testing.assert_allclose(g8.reference(a, b, ra, rb, "row"),
                               ra[:, None] * (a @ b.T) * rb[None, :], rtol=1e-12)


@pytest.mark.parametrize("scaling,block_rows", [("tensor", 1), ("row", 1), ("block", 1),
                                                ("block", 128)])
def test_quantize_roundtrip(scaling, block_rows):
    torch = pytest.importorskip("torch")
    if not hasattr(torch, "float8_e4m3fn"):
        pytest.skip("this PyTorch has no float8_e4m3fn")
    x = torch.randn(200, 300) * 3
    x8, s = g8.quantize(x, scaling, block_rows=block_rows)
    assert x8.dtype == torch.float8_e4m3fn and s.dtype == torch.float32
    back = g8.dequantize(x8.double().numpy(), s.numpy(), scaling, block_rows=block_rows)
    err = np.linalg.norm(back - x.double().numpy()) / np.linalg.norm(x.double().numpy())
    assert err < 0.04                              # e4m3: 3 mantissa bits
    assert np.abs(x8.float().numpy()).max() <= 448


# -- pyptx.ops.matmul_fp8 argument errors (CPU tensors: the checks run before any launch)

def _args(M=64, N=256, K=128, scaling="row"):
    torch = pytest.importorskip("torch")
    a = torch.zeros(M, K, dtype=torch.float8_e4m3fn)
    w = torch.zeros(N, K, dtype=torch.float8_e4m3fn)
    sa_shape, sb_shape = g8.scale_shapes(scaling, M, N, K)
    return a, w.t(), torch.ones(sa_shape), torch.ones(sb_shape)


def _refused(match, *args, **kw):
    from pyptx.ops import matmul_fp8
    from pyptx.ops.matmul import MatmulError
    with pytest.raises(MatmulError, match=match) as info:
        matmul_fp8(*args, **kw)
    assert str(info.value).startswith(f"{__file__}:")     # at the caller's line
    assert "pyptx.ops.matmul_fp8" in str(info.value)


def test_op_refuses_bad_dtypes():
    a, b, sa, sb = _args()
    _refused("float8_e4m3fn", a.float(), b, sa, sb)
    _refused("float32", a, b, sa.double(), sb)
    _refused("out_dtype", a, b, sa, sb, out_dtype=a.dtype)


def test_op_refuses_bad_shapes_and_layouts():
    torch = pytest.importorskip("torch")
    a, b, sa, sb = _args()
    _refused("must be \\(M, K\\)", a, b[:64], sa, sb)
    _refused("column-major", a, b.contiguous(), sa, sb)
    a2, b2, sa2, sb2 = _args(K=136)
    _refused("multiple of 16", a2, b2, sa2, sb2)


def test_op_refuses_scales_of_no_scheme():
    torch = pytest.importorskip("torch")
    a, b, sa, sb = _args()
    _refused("name no scheme", a, b, sa, torch.ones(255))
    _refused("name no scheme", a, b, torch.ones(64, 2), torch.ones(2, 2))
    _refused("name no scheme", a, b, torch.ones(()), sb)


def test_op_refuses_cpu_tensors():
    a, b, sa, sb = _args(scaling="block")
    _refused("one CUDA device", a, b, sa, sb)
