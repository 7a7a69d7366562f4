"""The Ampere mma.sync GEMMs on the GPU (sm_80 PTX, assembled for the card
in hand: on an H100 ptxas -arch=sm_90): examples/ampere/gemm.py (one warp,
no shared memory), gemm_pipelined.py (cp.async ring, 2-8 stages) and
gemm_highperf.py (each configuration, f32 and bf16 out). Random bf16
inputs, a float64 reference, the output memory poisoned (all bits set: NaN
as f32 and as bf16) before each launch so an element left unwritten fails;
a second launch must give the same bits (a race would not); and the
high-performance kernel's SASS has the instructions it is written for."""
import os
import re
import shutil
import subprocess

import pytest
import torch

from examples.ampere import gemm, gemm_highperf, gemm_pipelined
from pyptx.types import bf16


def poison(nbytes):
    """Fills the caching allocator's next block of nbytes with 0xFF bytes,
    so an output allocated next starts as NaN (f32 and bf16 alike)."""
    block = torch.full((nbytes,), 255, dtype=torch.uint8, device="cuda")
    torch.cuda.synchronize()
    del block


def run_checked(k, M, N, K, tol, out_bytes=4):
    a = torch.randn(M, K, device="cuda").to(torch.bfloat16)
    b_t = torch.randn(N, K, device="cuda").to(torch.bfloat16)
    poison(M * N * out_bytes)
    c = k(a, b_t)
    torch.cuda.synchronize()
    out = c.double()
    assert not torch.isnan(out).any(), "output elements left unwritten (still NaN)"
    ref = a.double() @ b_t.double().T
    err = ((out - ref).norm() / ref.norm()).item()
    assert err < tol, f"relative error {err:.3e} >= {tol}"
    poison(M * N * out_bytes)
    again = k(a, b_t)
    torch.cuda.synchronize()
    assert torch.equal(again, c), "a second launch on the same inputs differs (a race?)"
    return err


@pytest.mark.parametrize("M,N,K", [(16, 8, 16), (48, 24, 80), (256, 136, 512)])
def test_one_warp_gemm(M, N, K):
    run_checked(gemm.build_gemm(M, N, K), M, N, K, 1e-5)


@pytest.mark.parametrize("stages", [2, 3, 4])
@pytest.mark.parametrize("M,N,K", [(128, 128, 32), (256, 384, 96), (512, 256, 1024),
                                   (1024, 768, 512)])
def test_pipelined_gemm(M, N, K, stages):
    run_checked(gemm_pipelined.build_gemm(M, N, K, stages), M, N, K, 1e-5)


HIGHPERF_SHAPES = [(1, 1, 1), (1, 1, 2), (3, 5, 7), (12, 2, 5), (8, 8, 128)]  # in tiles


@pytest.mark.parametrize("config", list(gemm_highperf.CONFIGS))
@pytest.mark.parametrize("tiles", HIGHPERF_SHAPES)
def test_highperf_gemm(config, tiles):
    cfg = gemm_highperf.CONFIGS[config]
    M, N, K = tiles[0] * cfg.bm, tiles[1] * cfg.bn, tiles[2] * cfg.bk
    run_checked(gemm_highperf.build_gemm(M, N, K, config), M, N, K, 1e-5)


@pytest.mark.parametrize("config", ["128x128", "128x256"])
def test_highperf_gemm_bf16_out(config):
    M, N, K = 1024, 1024, 1024
    k = gemm_highperf.build_gemm(M, N, K, config, out_dtype=bf16)
    err = run_checked(k, M, N, K, 5e-3, out_bytes=2)
    assert err > 1e-4   # bf16 rounding shows: the output is bf16, not f32


def test_highperf_gemm_4096():
    run_checked(gemm_highperf.build_gemm(4096, 4096, 4096), 4096, 4096, 4096, 1e-5)


@pytest.mark.parametrize("build", [gemm.build_gemm, gemm_pipelined.build_gemm,
                                   gemm_highperf.build_gemm])
def test_run_on_gpu_helper(build):
    """gemm.run_on_gpu (what test/gpu/sanitize_kernels.py calls) on each kernel."""
    err, scale = gemm.run_on_gpu(256, 256, 256, build=build)
    assert scale > 10 and err <= 1e-5 * scale, (err, scale)


def test_highperf_sass(tmp_path):
    """ptxas -arch=sm_90 (what the launch does on an H100): HMMA tensor-core
    instructions, LDSM (ldmatrix), LDGSTS (cp.async), and no local memory."""
    ptxas = shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"
    cuobjdump = shutil.which("cuobjdump") or "/usr/local/cuda/bin/cuobjdump"
    if not os.access(cuobjdump, os.X_OK):
        pytest.fail("cuobjdump not found (the GPU machine has the CUDA toolkit)")
    src, cubin = tmp_path / "k.ptx", tmp_path / "k.cubin"
    src.write_text(gemm_highperf.build_gemm(1024, 1024, 1024).ptx())
    subprocess.run([ptxas, "-arch=sm_90", "-o", str(cubin), str(src)], check=True)
    sass = subprocess.run([cuobjdump, "-sass", str(cubin)], check=True, capture_output=True,
                          text=True).stdout
    ops = re.findall(r"/\*[0-9a-f]{4}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)", sass)
    names = {op.split(".")[0] for op in ops}
    hmma = sum(op.startswith("HMMA.16816.F32.BF16") for op in ops)
    print("SASS:", hmma, "HMMA.16816.F32.BF16,", sum(op.startswith("LDSM") for op in ops),
          "LDSM,", sum(op.startswith("LDGSTS") for op in ops), "LDGSTS")
    assert hmma == 64                        # 2 K steps x 4 x 8 per warp, the loop once
    assert {"LDSM", "LDGSTS", "BAR"} <= names
    assert not names & {"LDL", "STL"}, "local memory (spills)"
