"""Kernels that write their inputs, from PyTorch (issue 18, part 1): eager,
torch.compile(fullgraph=True) with the write visible and ordered, and
torch.library.opcheck of every example's custom op. Inputs random; results
checked exactly where the kernel's arithmetic is exact (x + 1, 2 * x in
f32), else against float64."""
import os
import sys

import pytest
import torch

from examples.common.inplace import build_add_one, build_add_one_copy, build_scale_tma
from pyptx.runtime.torch import launcher, torch_dtype

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "python"))
from test_param_effects import EXAMPLES, _build  # noqa: E402

N = 1 << 20


@pytest.fixture(scope="module")
def add_one():
    return build_add_one(N)


def test_eager_kernel_writes_its_input(add_one):
    x = torch.randn(N, device="cuda")
    x0 = x.clone()
    assert add_one(x) is None
    torch.cuda.synchronize()
    assert torch.equal(x, x0 + 1)


def test_torch_compile_keeps_the_write_and_its_order(add_one):
    # The case: the write was lost (t stayed 0, the result was 0).
    f = torch.compile(lambda t: (add_one(t), t * 2)[1], fullgraph=True)
    t = torch.zeros(N, device="cuda")
    out = f(t)
    assert torch.equal(t, torch.ones_like(t)) and torch.equal(out, 2 * torch.ones_like(t))
    for _ in range(2):  # random inputs, the compiled graph again
        t = torch.randn(N, device="cuda")
        t0 = t.clone()
        out = f(t)
        assert torch.equal(t, t0 + 1) and torch.equal(out, (t0 + 1) * 2)


def test_torch_compile_output_and_write_in_program_order():
    k = build_add_one_copy(N)
    # y is t before the kernel; the read of t after it sees the write.
    f = torch.compile(lambda t: k(t) * 3 + t, fullgraph=True)
    t = torch.randn(N, device="cuda")
    t0 = t.clone()
    out = f(t)
    assert torch.equal(t, t0 + 1)
    # the compiled graph may fuse the arithmetic (another rounding order)
    assert torch.allclose(out, t0 * 3 + (t0 + 1), rtol=1e-6, atol=1e-5)


def test_torch_compile_tma_store_in_place():
    k = build_scale_tma(64, 64)
    f = torch.compile(lambda t: (k(t), t.double().sum())[1], fullgraph=True)
    x = torch.randn(64, 64, device="cuda")
    x0 = x.clone()
    total = f(x)
    assert torch.equal(x, 2 * x0)
    assert torch.allclose(total, (2 * x0).double().sum())


def _input(name, tile, inputs):
    """A random tensor for `tile`; `offs` of a grouped GEMM: cumulative row
    ends that cover every row (so each output element is written); the
    cu_seqlens of packed attention: offsets from 0 to Q's (K's) tokens."""
    dtype = torch_dtype(tile.dtype)
    if dtype.is_floating_point:
        return torch.randn(tile.dims, device="cuda").to(dtype)
    if name.startswith("CuSeqlens"):
        tokens = inputs[0 if name.endswith("Q") else 1].shape[-3]
        return torch.linspace(0, tokens, tile.dims[0], device="cuda").round().to(dtype)
    rows, (groups,) = inputs[0].shape[0], tile.dims
    return torch.linspace(rows / groups, rows, groups, device="cuda").round().to(dtype)


def _arch_runs_here(arch):
    major, minor = torch.cuda.get_device_capability()
    need = int(arch[3:].rstrip("a")) // 10
    return need == major if arch.endswith("a") else need <= major


@pytest.mark.parametrize("key", [k for k, v in EXAMPLES.items() if v[0] is not None])
def test_opcheck_every_example_op(key):
    args, kwargs, _ = EXAMPLES[key]
    k = _build(key, args, kwargs)
    m = k.module()
    if not _arch_runs_here(m.arch):
        pytest.skip(f"{m.arch} kernel: not for this {torch.cuda.get_device_name()}")
    inputs = []
    for name, tile in zip(k.tensor_names, k.in_specs):
        inputs.append(_input(name, tile, inputs))
    op = launcher(k).op_for(*inputs)
    torch.library.opcheck(op, tuple(inputs))
