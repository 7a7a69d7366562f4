"""examples/hopper/gemm_tma_wgmma.py: traces at several shapes, assembles for sm_90a,
uses the layer's helpers (TMA loads into 128B-swizzled wgmma tiles, wgmma
with descriptors stepped along K, mbarrier ring), runs on dynamic shared
memory, refuses shapes off the tile, and prints its PTX as a script."""
import os
import subprocess
import sys

import numpy as np
import pytest

from examples.hopper import gemm_tma_wgmma as gemm

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


@pytest.mark.parametrize("M,N,K", [(64, 128, 64), (256, 256, 256), (512, 384, 4096)])
def test_traces_and_assembles(M, N, K, assemble):
    m = gemm.build_gemm(M, N, K).module()
    assemble(m.ptx, "sm_90a")
    assert m.grid == (N // gemm.BN, M // gemm.BM, 1)
    # 3 stages of A and B tiles and 6 barriers: over 48 KiB, so dynamic.
    assert ".extern .shared .align 1024 .b8 dyn_smem[];" in m.ptx
    assert m.smem >= gemm.STAGES * gemm.STAGE_BYTES


def test_uses_the_tensor_core_helpers():
    text = gemm.build_gemm(256, 256, 256).ptx()
    wgmma = [l for l in text.splitlines() if "wgmma.mma_async" in l]
    assert len(wgmma) == gemm.BK // 16
    assert all(".m64n128k16.f32.bf16.bf16" in l and l.rstrip().endswith("1, 1, 1, 0, 0;")
               for l in wgmma)
    loads = [l for l in text.splitlines() if "cp.async.bulk.tensor.2d" in l]
    assert len(loads) == 2 * gemm.STAGES + 2  # the prologue's stages, and the refill
    assert text.count("mbarrier.arrive.expect_tx") == gemm.STAGES + 1
    assert "wgmma.wait_group.sync.aligned 0;" in text


def test_shape_off_the_tile_is_refused():
    with pytest.raises(ValueError, match="N of 128"):
        gemm.build_gemm(64, 100, 64)


def test_reference():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b_t = np.ones((4, 3), dtype=np.float32)
    assert np.array_equal(gemm.reference(a, b_t), np.tile([[3.0], [12.0]], (1, 4)))


def test_script_prints_ptx():
    out = subprocess.run([sys.executable, os.path.join(ROOT, "examples/hopper/gemm_tma_wgmma.py")],
                         capture_output=True, text=True, check=True).stdout
    assert out.startswith(".version") and ".visible .entry gemm(" in out
