"""pyptx.aot on the GPU: kernels exported with `python -m pyptx.aot` (run
in-process) or pyptx.aot.export, built with gcc/g++ into test/gpu/
aot_main.cpp (memory from the CUDA runtime, the kernel through the exported
launcher alone: no Python in the program), run as a separate process on
random inputs, outputs poisoned with NaN before each launch, checked against
float64 references and against pyptx's own PyTorch launch of the kernel."""
import os
import shutil
import subprocess

import numpy as np
import torch

from pyptx import Tile, kernel, ptx, reg
from pyptx.aot import export
from pyptx.aot.__main__ import main as aot_main
from pyptx.kernel import _find_tool
from pyptx.types import f32, pred, u32, u64

MAIN_CPP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "aot_main.cpp")


def cuda_root():
    ptxas = _find_tool("ptxas")
    for root in (os.environ.get("CUDA_HOME"), ptxas and os.path.dirname(os.path.dirname(ptxas)),
                 "/usr/local/cuda"):
        if root and os.path.exists(os.path.join(root, "include", "cuda.h")):
            return root
    raise AssertionError("no CUDA toolkit with include/cuda.h")


def build(out_dir, prefix, call):
    """The test program for the launcher <out_dir>/<prefix>.c: gcc for the
    launcher (C11), g++ for the program, the static CUDA runtime, -ldl."""
    cuda = cuda_root()
    gcc, gxx = shutil.which("gcc"), shutil.which("g++")
    assert gcc and gxx, "gcc/g++ not found"
    obj, exe = os.path.join(out_dir, f"{prefix}.o"), os.path.join(out_dir, f"{prefix}_main")
    for cmd in (
            [gcc, "-std=c11", "-O2", "-Wall", "-Wextra", "-Werror", f"-I{cuda}/include", "-c",
             os.path.join(out_dir, f"{prefix}.c"), "-o", obj],
            [gxx, "-std=c++17", "-O2", "-Wall", "-Werror", f"-I{out_dir}", f"-I{cuda}/include",
             f'-DKERNEL_HEADER="{prefix}.h"', f"-DCALL={call}",
             f"-DLAST_ERROR={prefix}_last_error", f"-DUNLOAD={prefix}_unload", MAIN_CPP, obj,
             f"-L{cuda}/lib64", "-lcudart_static", "-ldl", "-lpthread", "-lrt", "-o", exe]):
        proc = subprocess.run(cmd, capture_output=True, text=True)
        assert proc.returncode == 0, f"{' '.join(cmd)}\n{proc.stderr}"
    return exe


def run(exe, tmp_path, inputs, outputs):
    """Runs `exe` on `inputs` (numpy arrays, in parameter order), then the
    `outputs` ((dtype, shape) pairs); returns the outputs as numpy arrays."""
    args = []
    for index, array in enumerate(inputs):
        path = tmp_path / f"in{index}.bin"
        np.ascontiguousarray(array).tofile(path)
        args.append(f"in={path}")
    out_paths = []
    for index, (dtype, shape) in enumerate(outputs):
        path = tmp_path / f"out{index}.bin"
        args.append(f"out={int(np.prod(shape)) * np.dtype(dtype).itemsize}={path}")
        out_paths.append((path, dtype, shape))
    proc = subprocess.run([exe, *args], capture_output=True, text=True)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr
    return [np.fromfile(path, dtype).reshape(shape) for path, dtype, shape in out_paths]


def bf16_bits(t):
    return t.contiguous().view(torch.int16).cpu().numpy()


def from_bf16_bits(bits):
    return torch.from_numpy(bits).view(torch.bfloat16)


def test_rms_norm_from_c(tmp_path):
    B, N = 64, 4096
    out = tmp_path / "out"
    assert aot_main(["examples.hopper.rms_norm:build_rms_norm", "--shape", f"B={B}",
                     f"N={N}", "-o", str(out), "--spills", "error"]) == 0
    exe = build(str(out), "rms_norm", "rms_norm_launch(0, d[0], d[1], d[2])")
    x = torch.randn(B, N, device="cuda")
    w = torch.randn(N, device="cuda")
    (y,) = run(exe, tmp_path, [x.cpu().numpy(), w.cpu().numpy()], [(np.float32, (B, N))])
    xd, wd = x.double().cpu(), w.double().cpu()
    expected = xd / torch.sqrt((xd * xd).mean(-1, keepdim=True) + 1e-6) * wd
    y = torch.from_numpy(y)
    assert not torch.isnan(y).any()
    assert torch.allclose(y.double(), expected, rtol=1e-5, atol=1e-5)
    # The same kernel launched by pyptx from PyTorch gives the same bits.
    from examples.hopper.rms_norm import build_rms_norm
    assert torch.equal(build_rms_norm(B, N)(x, w).cpu(), y)


def test_hopper_gemm_from_c(tmp_path):
    """TMA descriptors encoded by the launcher, a 2-CTA cluster, 229 KB of
    dynamic shared memory (opted into at load)."""
    M, N, K = 1024, 1024, 512
    out = tmp_path / "out"
    assert aot_main(["examples.hopper.gemm:build_gemm", "--shape", f"M={M}", f"N={N}",
                     f"K={K}", "cluster=2", "-o", str(out), "--name", "hgemm"]) == 0
    exe = build(str(out), "hgemm", "hgemm_launch(0, d[0], d[1], d[2])")
    a = torch.randn(M, K, device="cuda").to(torch.bfloat16)
    b = torch.randn(N, K, device="cuda").to(torch.bfloat16)
    (c_bits,) = run(exe, tmp_path, [bf16_bits(a), bf16_bits(b)], [(np.int16, (M, N))])
    c = from_bf16_bits(c_bits)
    assert not torch.isnan(c).any()
    expected = a.double() @ b.double().T
    assert torch.allclose(c.double(), expected.cpu(), rtol=1e-2, atol=0.1)
    from examples.hopper.gemm import build_gemm
    assert torch.equal(build_gemm(M, N, K, cluster=2)(a, b).cpu(), c)


@kernel(arch="sm_90a", in_specs=(Tile("N", f32),), out_specs=(Tile("N", f32),),
        grid=lambda N: (N // 128, 1, 1), block=(128, 1, 1),
        raw_params=[("u32", "n"), ("f32", "alpha"), ("u32", "N")])
def scale(X, Y):
    """Y[i] = alpha * X[i] for i < n (n and alpha come from C; N is baked)."""
    px, py = ptx.global_ptrs(X, Y)
    n = ptx.param(u32, "n")
    alpha = ptx.param(f32, "alpha")
    tid = reg.from_(ptx.special.tid.x(), u32)
    cta = reg.from_(ptx.special.ctaid.x(), u32)
    i = reg.scalar(u32)
    ptx.inst.mad.lo.u32(i, cta, 128, tid)
    outside = reg.scalar(pred)
    ptx.inst.setp.ge.u32(outside, i, n)
    ptx.ret(pred=outside)
    offset = reg.scalar(u64)
    ptx.inst.mul.wide.u32(offset, i, 4)
    px += offset
    py += offset
    x = reg.scalar(f32)
    ptx.ld(x, ptx.addr(px))
    ptx.mul(x, x, alpha)
    ptx.st(ptx.addr(py), x)
    ptx.ret()


def test_raw_scalars_from_c(tmp_path):
    N, n, alpha = 1 << 16, 40000, 2.5
    paths = export(scale.compile(N=N, spills="error"), str(tmp_path / "out"))
    exe = build(os.path.dirname(paths["source"]), "scale",
                f"scale_launch(0, d[0], d[1], {n}u, {alpha}f)")
    x = torch.randn(N)
    (y,) = run(exe, tmp_path, [x.numpy()], [(np.float32, (N,))])
    y = torch.from_numpy(y)
    assert torch.equal(y[:n], x[:n] * alpha)         # one f32 multiply each
    assert torch.isnan(y[n:]).all()                  # beyond n: the poison, untouched
