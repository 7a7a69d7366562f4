"""The examples (examples/{ampere,hopper,blackwell}/{rms_norm,layer_norm,
softmax,swiglu}.py): each traces at two shapes for its arch, ptxas accepts
it, the PTX has the structure the kernel is written for, traces are
deterministic, and each NumPy reference matches a float64 computation."""
import importlib
import os
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

ARCHS = {"ampere": "sm_80", "hopper": "sm_90a", "blackwell": "sm_100a"}
NAMES = ("rms_norm", "layer_norm", "softmax", "swiglu")
# (B, N): one warp per row (vector v2 loads, no shared memory), and 256
# threads per row (8 warps: cross-warp reduction through shared memory).
SHAPES = ((3, 64), (4, 4096))
CASES = [(a, n) for a in ARCHS for n in NAMES]


def example(arch, name):
    return importlib.import_module(f"examples.{arch}.{name}")


def build(arch, name, B, N):
    return getattr(example(arch, name), f"build_{name}")(B, N)


def body(text):
    start = text.index("{")
    return [l.strip() for l in text[start:].splitlines()
            if l.strip() and not l.strip().startswith((".", "{", "}"))]


def count(lines, prefix):
    return sum(l.split(" ")[0] == prefix or l.startswith(prefix + " ")
               for l in (re.sub(r"^@!?%p\d+ ", "", l) for l in lines))


@pytest.fixture(scope="module")
def ptxas_path():
    path = shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"
    if not os.access(path, os.X_OK):
        pytest.skip("ptxas not found (PATH or /usr/local/cuda/bin/ptxas)")
    return path


@pytest.mark.parametrize("arch,name", CASES)
@pytest.mark.parametrize("B,N", SHAPES)
def test_traces_and_assembles(arch, name, B, N, ptxas_path, tmp_path):
    mod = example(arch, name)
    assert mod.ARCH == ARCHS[arch]
    m = build(arch, name, B, N).module()
    text = m.ptx
    assert f"\n.target {ARCHS[arch]}\n" in text
    assert re.search(rf"\.visible \.entry {name}\(", text)
    src = tmp_path / f"{name}.ptx"
    src.write_text(text)
    proc = subprocess.run([ptxas_path, f"-arch={ARCHS[arch]}", str(src), "-o",
                           str(tmp_path / f"{name}.cubin")], capture_output=True, text=True)
    assert proc.returncode == 0, f"ptxas rejected {arch}/{name} {B}x{N}:\n{proc.stderr}"
    lines = body(text)
    assert lines[-1] == "ret;"

    if name == "swiglu":
        assert m.block == (256, 1, 1) and m.grid == (-(-B * N // 4 // 256), 1, 1)
        assert count(lines, "ld.global.nc.v4.f32") == 2
        assert count(lines, "st.global.v4.f32") == 1
        assert count(lines, "ex2.approx.ftz.f32") == 4
        assert count(lines, "rcp.approx.ftz.f32") == 4
        return

    # Row kernels: one CTA per row, the row in registers.
    assert m.grid == (B, 1, 1)
    threads = m.block[0]
    assert threads % 32 == 0 and N % threads == 0
    per_thread = N // threads
    vec = 4 if N % 128 == 0 else 2
    ld = f"ld.global.v{vec}.f32"
    assert count(lines, ld) == per_thread // vec
    assert count(lines, f"st.global.v{vec}.f32") == per_thread // vec
    reductions = {"rms_norm": 1, "layer_norm": 2, "softmax": 2}[name]
    assert count(lines, "shfl.sync.bfly.b32") == 5 * reductions
    warps = threads // 32
    if warps > 1:
        assert re.search(rf"\.shared \.align \d+ \.b8 smem_0\[{4 * warps * reductions}\];", text)
        assert count(lines, "bar.sync") == reductions
        assert count(lines, "st.shared.f32") == reductions
    else:
        assert ".shared" not in text and count(lines, "bar.sync") == 0
    if name in ("rms_norm", "layer_norm"):
        assert count(lines, "rsqrt.approx.ftz.f32") == 1
        params = 1 if name == "rms_norm" else 2
        assert count(lines, f"ld.global.nc.v{vec}.f32") == params * per_thread // vec
    else:
        assert count(lines, "ex2.approx.ftz.f32") == per_thread
        assert count(lines, "rcp.approx.ftz.f32") == 1


@pytest.mark.parametrize("arch,name", CASES)
def test_deterministic(arch, name):
    first = build(arch, name, 8, 1024).ptx()
    build(arch, "softmax" if name != "softmax" else "rms_norm", 2, 256).ptx()  # in between
    assert build(arch, name, 8, 1024).ptx() == first


@pytest.mark.parametrize("arch,name", CASES)
def test_script_prints_ptx(arch, name):
    path = os.path.join(ROOT, "examples", arch, f"{name}.py")
    proc = subprocess.run([sys.executable, path, "2", "256"], capture_output=True,
                          text=True, cwd="/")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == build(arch, name, 2, 256).ptx()


def _f64_expected(name, args):
    a = [np.asarray(x, np.float64) for x in args]
    if name == "rms_norm":
        x, w = a
        return x / np.sqrt((x ** 2).mean(-1, keepdims=True) + 1e-6) * w
    if name == "layer_norm":
        x, w, b = a
        mu = x.mean(-1, keepdims=True)
        var = ((x - mu) ** 2).mean(-1, keepdims=True)
        return (x - mu) / np.sqrt(var + 1e-5) * w + b
    if name == "softmax":
        (x,) = a
        e = np.exp(x - x.max(-1, keepdims=True))
        return e / e.sum(-1, keepdims=True)
    g, u = a
    return g / (1 + np.exp(-g)) * u


@pytest.mark.parametrize("arch,name", CASES)
def test_reference_matches_float64(arch, name):
    rng = np.random.default_rng(1234)
    B, N = 5, 96
    x = (rng.standard_normal((B, N)) * 3 + 0.5).astype(np.float32)
    args = {"rms_norm": [x, rng.standard_normal(N).astype(np.float32)],
            "layer_norm": [x, rng.standard_normal(N).astype(np.float32),
                           rng.standard_normal(N).astype(np.float32)],
            "softmax": [x],
            "swiglu": [x, rng.standard_normal((B, N)).astype(np.float32)]}[name]
    got = example(arch, name).reference(*args)
    assert got.dtype == np.float32 and got.shape == (B, N)
    np.testing.assert_allclose(got, _f64_expected(name, args), rtol=1e-5, atol=1e-6)
    if name == "softmax":
        np.testing.assert_allclose(got.sum(-1), 1.0, rtol=1e-5)


def test_shape_checks():
    from examples.common.rms_norm import build_rms_norm
    from examples.common.swiglu import build_swiglu
    with pytest.raises(ValueError):
        build_rms_norm(4, 100)
    with pytest.raises(ValueError):
        build_rms_norm(4, 1024, threads=48)
    with pytest.raises(ValueError):
        build_swiglu(4, 100)
