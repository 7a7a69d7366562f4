"""examples/hopper/grouped_gemm.py without a GPU: both kernels trace and
assemble for sm_90a without spills; the uniform kernel walks one 128 x N
tile per CTA with a deep ring and an MN-major B; the variable-token kernel
builds its schedule from the offsets in shared memory and stores partial
tiles with row predicates; bad shapes are refused; the references agree."""
import os
import subprocess
import sys

import numpy as np
import pytest

from examples.hopper import grouped_gemm as gg
from pyptx.types import f32

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def lines(text, needle):
    return [l for l in text.splitlines() if needle in l]


@pytest.mark.parametrize("G,M,N,K,kw", [(8, 2048, 64, 2048, {}), (3, 384, 128, 256,
                                                                  dict(out_dtype=f32)),
                                        (2, 128, 256, 192, {})])
def test_uniform_assembles(G, M, N, K, kw, assemble):
    k = gg.build_grouped_gemm_uniform(G, M, N, K, **kw)
    m = k.module()
    assemble(m.ptx, "sm_90a")
    r = k.resources()
    assert r["ok"] and r["spill_stores_bytes"] == 0 and r["registers"] <= 168
    assert r["smem_per_cta"] <= 227 * 1024
    assert m.grid == (min(132, G * M // 128), 1, 1)
    wgmma = lines(m.ptx, f"wgmma.mma_async.sync.aligned.m64n{N}k16.f32.bf16.bf16")
    assert len(wgmma) == 8 and all(l.rstrip().endswith(", 0, 1;") for l in wgmma)


def test_uniform_ring_is_deep_for_n64():
    k = gg.build_grouped_gemm_uniform(8, 2048, 64, 2048)
    assert k.config.stages == 8
    text = k.ptx()
    assert ", 24576;" in lines(text, "arrive.expect_tx")[0]   # 128x64 + 64x64 bf16


@pytest.mark.parametrize("T,N,K,G,kw", [(4096, 768, 2048, 8, {}),
                                        (4096, 768, 2048, 8, dict(epilogue="direct")),
                                        (1000, 512, 256, 128, dict(out_dtype=f32)),
                                        (65536, 1536, 2048, 64, {})])
def test_variable_tokens_assembles(T, N, K, G, kw, assemble):
    k = gg.build_grouped_gemm(T, N, K, G, **kw)
    m = k.module()
    assemble(m.ptx, "sm_90a")
    r = k.resources()
    assert r["ok"] and r["spill_stores_bytes"] == 0 and r["registers"] <= 168
    assert r["smem_per_cta"] <= 227 * 1024
    assert m.grid == (132, 1, 1)


def test_variable_tokens_structure():
    text = gg.build_grouped_gemm(4096, 768, 2048, 8).ptx()
    # the schedule: offsets read once per expert, tile counts in shared memory
    assert len(lines(text, "ld.global.u32")) == 2
    assert "bar.sync 0;" in text
    # full tiles: TMA store; partial: predicated stores (two rows per thread)
    assert len(lines(text, "cp.async.bulk.tensor.3d.global.shared::cta")) == 2  # 2 chunks
    stores = lines(text, "st.global.b32")
    assert len(stores) == 64 and all(l.strip().startswith("@%p") for l in stores)


def test_bad_shapes_are_refused():
    with pytest.raises(ValueError, match="64 <= N <= 256"):
        gg.build_grouped_gemm_uniform(8, 2048, 320, 2048)
    with pytest.raises(ValueError, match="multiples of 8"):
        gg.build_grouped_gemm_uniform(8, 100, 64, 2044)
    with pytest.raises(ValueError, match="multiples of 8"):
        gg.build_grouped_gemm(1024, 300, 2048, 8)
    with pytest.raises(ValueError, match="K >= 64"):
        gg.build_grouped_gemm(1024, 256, 56, 8)
    with pytest.raises(ValueError, match="G \\* N >= 256"):
        gg.build_grouped_gemm(1024, 64, 256, 2)


@pytest.mark.parametrize("G,M,N,K", [(8, 100, 96, 200), (3, 300, 200, 1000), (2, 64, 64, 64)])
def test_uniform_at_any_shape_assembles(G, M, N, K, assemble):
    """M, N, K off the tiles: rows guarded at each group's end, columns at N
    (B then comes as 64-column boxes), k tiles ceil(K/64)."""
    k = gg.build_grouped_gemm_uniform(G, M, N, K)
    assert k.config.bn == -(-N // 64) * 64 and k.config.k_tiles == -(-K // 64)
    text = k.ptx()
    assert lines(text, "@%p") and ("tensor.2d" in text) == (N % 64 != 0 or N == 64)
    assemble(k.module().ptx, "sm_90a")
    r = k.resources()
    assert r["ok"] and r["spill_stores_bytes"] == 0


@pytest.mark.parametrize("T,N,K,G,kw", [(1000, 1000, 1000, 8, {}), (100, 200, 72, 3, {}),
                                         (640, 320, 136, 4, dict(out_dtype=f32))])
def test_variable_tokens_at_any_shape_assemble(T, N, K, G, kw, assemble):
    """N, K off the tiles: column tiles ceil(N/256), stores guarded at column
    N; a TMA epilogue only where N is whole 64-column stripes."""
    k = gg.build_grouped_gemm(T, N, K, G, **kw)
    assert k.config.k_tiles == -(-K // 64) and k.config.a_rows == min(128, T)
    text = k.ptx()
    assert ("cp.async.bulk.tensor.3d.global" in text) == (N % 64 == 0 and not kw)
    assemble(k.module().ptx, "sm_90a")
    r = k.resources()
    assert r["ok"] and r["spill_stores_bytes"] == 0
    with pytest.raises(ValueError, match="G <= 384"):
        gg.build_grouped_gemm(1024, 256, 2048, 400)


def test_references():
    rng = np.random.default_rng(0)
    G, M, N, K = 3, 4, 5, 6
    a = rng.standard_normal((G * M, K))
    b = rng.standard_normal((G * K, N))
    ref = gg.reference_uniform(a, b, G)
    assert np.allclose(ref[M:2 * M], a[M:2 * M] @ b[K:2 * K])
    bt = rng.standard_normal((G * N, K))
    offs = [2, 2, 7]
    out = gg.reference(a[:9], bt, offs)
    assert np.allclose(out[2:7], a[2:7] @ bt[2 * N:3 * N].T)
    assert np.isnan(out[7:]).all()


def test_script_prints_ptx():
    out = subprocess.run([sys.executable, os.path.join(ROOT, "examples/hopper/grouped_gemm.py")],
                         capture_output=True, text=True, check=True).stdout
    assert ".visible .entry grouped_gemm_uniform(" in out
    assert ".visible .entry grouped_gemm(" in out
