"""pyptx.ops.matmul on the GPU: forward against float64 (batch dimensions,
padded shapes, a weight passed as w.T, f32 out, the fused epilogue);
backward against float64 autograd at small sizes and against PyTorch's
autograd at a large one; torch.compile(fullgraph=True) forward and
backward; JAX under jax.jit and jax.grad; the e4m3 output with its amax
(PyTorch eager and compiled, JAX); clear errors for bad input."""
import importlib

import pytest
import torch
import torch.nn.functional as F

import pyptx.ops as ops

mm = importlib.import_module("pyptx.ops.matmul")
SM90 = torch.cuda.get_device_capability() >= (9, 0)
pytestmark = pytest.mark.skipif(not SM90, reason="wgmma, TMA and clusters need sm_90a")


def rel(x, ref):
    x, ref = x.double(), ref.double()
    assert not torch.isnan(x).any()
    return ((x - ref).norm() / ref.norm()).item()


def torch_reference(a, b, bias, activation, residual):
    z = a @ b + (bias if bias is not None else 0)
    if activation == "gelu":
        z = F.gelu(z, approximate="tanh")
    elif activation == "silu":
        z = F.silu(z)
    return z + (residual if residual is not None else 0)


@pytest.mark.parametrize("shape_a,N,weight,kw", [
    ((2, 3, 200), 1000, True, {}),                        # batch dimensions
    ((513, 999), 1001, False, {}),                        # K, N not multiples of 8: padded
    ((64, 40), 72, True, dict(activation="gelu")),        # K < 64: padded
    ((1000, 1008), 1000, True, dict(bias=True, activation="silu", residual=True)),
    ((16, 4096), 4096, True, dict(bias=True, activation="gelu", residual=True)),  # bn 64
    ((16, 4096), 2048, True, dict(bias=True, activation="gelu", residual=True)),  # split-K
    ((1024, 4096), 4096, True, dict(bias=True, activation="gelu", residual=True)),  # ping-pong
    ((128, 1024), 512, False, dict(out_dtype=torch.float32, bias=True)),
])
def test_forward_vs_float64(shape_a, N, weight, kw):
    K = shape_a[-1]
    a = torch.randn(*shape_a, device="cuda").to(torch.bfloat16)
    if weight:
        w = (torch.randn(N, K, device="cuda") / K ** 0.5).to(torch.bfloat16)
        b = w.T                                              # read K-major, no copy
    else:
        b = (torch.randn(K, N, device="cuda") / K ** 0.5).to(torch.bfloat16)
    bias = torch.randn(N, device="cuda").to(torch.bfloat16) if kw.get("bias") else None
    res = (torch.randn(*shape_a[:-1], N, device="cuda").to(torch.bfloat16)
           if kw.get("residual") else None)
    out_dtype = kw.get("out_dtype", torch.bfloat16)
    c = ops.matmul(a, b, bias=bias, activation=kw.get("activation"), residual=res,
                   out_dtype=out_dtype)
    assert c.shape == (*shape_a[:-1], N) and c.dtype == out_dtype
    ref = torch_reference(a.double(), b.double(), None if bias is None else bias.double(),
                          kw.get("activation"), None if res is None else res.double())
    assert rel(c, ref) < 1e-2


@pytest.mark.parametrize("activation", [None, "gelu", "silu"])
@pytest.mark.parametrize("weight", [True, False])
def test_backward_vs_float64(activation, weight):
    """Gradients of a, the weight (w, passed as w.T) or b, the bias and the
    residual, against float64 autograd on the same bf16 inputs."""
    M, N, K = 96, 136, 200
    a = torch.randn(M, K, device="cuda").to(torch.bfloat16).requires_grad_()
    w = (torch.randn(N, K, device="cuda") / K ** 0.5).to(torch.bfloat16).requires_grad_()
    b = (torch.randn(K, N, device="cuda") / K ** 0.5).to(torch.bfloat16).requires_grad_()
    bias = torch.randn(N, device="cuda").to(torch.bfloat16).requires_grad_()
    res = torch.randn(M, N, device="cuda").to(torch.bfloat16).requires_grad_()
    g = torch.randn(M, N, device="cuda", dtype=torch.float64)
    leaves = [a, w if weight else b, bias, res]

    def grads(out):
        for t in leaves:
            t.grad = None
        (out.double() * g).sum().backward()
        return [t.grad for t in leaves]

    bb = w.T if weight else b
    got = grads(ops.matmul(a, bb, bias=bias, activation=activation, residual=res))
    want = grads(torch_reference(a.double(), bb.double(), bias.double(), activation,
                                 res.double()))
    for x, y in zip(got, want):
        assert rel(x, y) < 2e-2


def test_backward_vs_pytorch_at_a_large_shape():
    M, N, K = 2048, 4096, 4096
    a = torch.randn(M, K, device="cuda").to(torch.bfloat16).requires_grad_()
    w = (torch.randn(N, K, device="cuda") / K ** 0.5).to(torch.bfloat16).requires_grad_()
    bias = torch.randn(N, device="cuda").to(torch.bfloat16).requires_grad_()
    g = torch.randn(M, N, device="cuda").to(torch.bfloat16)
    ops.matmul(a, w.T, bias=bias, activation="gelu").backward(g)
    ours = [a.grad, w.grad, bias.grad]
    a.grad = w.grad = bias.grad = None
    F.gelu(F.linear(a, w, bias), approximate="tanh").backward(g)
    for x, y in zip(ours, [a.grad, w.grad, bias.grad]):
        assert rel(x, y) < 2e-2


def test_torch_compile_fullgraph():
    M, N, K = 256, 512, 384
    a = torch.randn(M, K, device="cuda").to(torch.bfloat16).requires_grad_()
    w = (torch.randn(N, K, device="cuda") / K ** 0.5).to(torch.bfloat16).requires_grad_()

    def f(a, w):
        return ops.matmul(a, w.T, activation="silu").float().square().sum()

    eager = f(a, w)
    eager.backward()
    ga, gw = a.grad, w.grad
    a.grad = w.grad = None
    compiled = torch.compile(f, fullgraph=True)(a, w)
    compiled.backward()
    assert rel(compiled, eager) < 1e-3
    assert rel(a.grad, ga) < 1e-2 and rel(w.grad, gw) < 1e-2


def test_bad_input_is_named_at_the_callers_line():
    a = torch.randn(64, 128, device="cuda").to(torch.bfloat16)
    b = torch.randn(128, 64, device="cuda").to(torch.bfloat16)
    with pytest.raises(mm.MatmulError, match=r"test_matmul_op.py:\d+: .*bfloat16"):
        ops.matmul(a.float(), b)
    with pytest.raises(mm.MatmulError, match="must equal"):
        ops.matmul(a, b[:64])
    with pytest.raises(mm.MatmulError, match="one CUDA device"):
        ops.matmul(a, b.cpu())
    with pytest.raises(mm.MatmulError, match="bias"):
        ops.matmul(a, b, bias=torch.zeros(3, device="cuda", dtype=torch.bfloat16))
    with pytest.raises(mm.MatmulError, match="activation"):
        ops.matmul(a, b, activation="relu")


E4M3 = torch.float8_e4m3fn


def e4m3_reference(z, scale):
    """float64 z -> (torch's e4m3 of z / scale, saturated, as float64; amax)."""
    return (z / scale).clamp(-448, 448).to(E4M3).double(), z.abs().max().item()


@pytest.mark.parametrize("shape_a,N,kw", [
    ((512, 4096), 4096, dict(activation="gelu")),
    ((1024, 4096), 4096, dict(bias=True, activation="gelu")),
    ((1000, 1008), 1000, dict(bias=True, activation="silu", residual=True)),   # tails, padded N
    ((2, 3, 200), 1000, dict(bias=True)),                                      # batch dims
    ((16, 4096), 2048, dict(residual=True)),                                   # split-K
])
def test_e4m3_output_and_amax_vs_float64(shape_a, N, kw):
    """The e4m3 output against torch's e4m3 of the float64 result: at least
    97% of the bytes equal (f32 sums and tanh.approx move values near a
    rounding boundary), the rest within one e4m3 step plus the activation's
    error (tanh.approx is off by about 2^-11 absolute, so the activation of
    x by up to |x| 2^-11, then divided by the scale); values past 448 *
    scale saturate; amax within 1e-3 of float64's; the output memory is
    poisoned (e4m3 NaN bytes) before."""
    K = shape_a[-1]
    a = torch.randn(*shape_a, device="cuda").to(torch.bfloat16)
    w = (torch.randn(N, K, device="cuda") / K ** 0.5).to(torch.bfloat16)
    bias = torch.randn(N, device="cuda").to(torch.bfloat16) if kw.get("bias") else None
    res = (torch.randn(*shape_a[:-1], N, device="cuda").to(torch.bfloat16)
           if kw.get("residual") else None)
    ref = torch_reference(a.double(), w.double().T, None if bias is None else bias.double(),
                          kw.get("activation"), None if res is None else res.double())
    pre = a.double() @ w.double().T + (0 if bias is None else bias.double())
    scale = torch.tensor([ref.abs().max().item() / 600], device="cuda")   # some saturate
    poison = torch.full((2 * ref.numel() + (1 << 20),), 0x7F, dtype=torch.uint8, device="cuda")
    del poison                                      # the allocator hands these bytes out next
    c, amax = ops.matmul(a, w.T, bias=bias, activation=kw.get("activation"), residual=res,
                         out_dtype=E4M3, out_scale=scale)
    assert c.shape == ref.shape and c.dtype == E4M3 and amax.shape == (1,)
    want, want_amax = e4m3_reference(ref, scale.double())
    got = c.double()
    assert not torch.isnan(got).any()
    assert abs(amax.item() - want_amax) <= 1e-3 * want_amax
    same = (got == want).double().mean().item()
    assert same >= 0.97, same
    # one e4m3 step at want: 2^(exponent - 3), subnormals 2^-9 (frexp, exact
    # at powers of two where the GPU's log2 fell just short of the integer)
    _, exponent = torch.frexp(want.abs().clamp(min=2.0 ** -6))
    step = torch.ldexp(torch.ones_like(want), exponent - 4)
    act_err = pre.abs() * 2.0 ** -10 / scale.double() if kw.get("activation") else 0
    assert ((got - want).abs() <= step + act_err + 1e-12).all()
    assert (got.abs() == 448).any() and got.abs().max().item() == 448


def test_e4m3_output_propagates_nan_and_compiles():
    a = torch.randn(256, 512, device="cuda").to(torch.bfloat16)
    w = (torch.randn(512, 512, device="cuda") / 512 ** 0.5).to(torch.bfloat16)
    scale = torch.ones(1, device="cuda")
    c, amax = ops.matmul(a, w.T, out_dtype=E4M3, out_scale=scale)
    compiled = torch.compile(lambda a, w: ops.matmul(a, w.T, activation="gelu", out_dtype=E4M3,
                                                     out_scale=scale), fullgraph=True)
    c2, amax2 = compiled(a, w)
    c3, amax3 = ops.matmul(a, w.T, activation="gelu", out_dtype=E4M3, out_scale=scale)
    assert torch.equal(c2.view(torch.uint8), c3.view(torch.uint8))
    assert amax2.item() == amax3.item() > 0
    a[7, 3] = float("nan")
    _, amax = ops.matmul(a, w.T, out_dtype=E4M3, out_scale=scale)
    assert torch.isnan(amax).all()
    with pytest.raises(mm.MatmulError, match="no gradient"):
        ops.matmul(a.requires_grad_(), w.T, out_dtype=E4M3, out_scale=scale)


def jax_operands(M, N, K, seed):
    """bf16 JAX a (M, K) and b (K, N) (scaled by 1/sqrt(K)), and the rng."""
    import jax.numpy as jnp
    import numpy as np
    rng = np.random.default_rng(seed)
    a = jnp.asarray(rng.standard_normal((M, K)), jnp.bfloat16)
    b = jnp.asarray(rng.standard_normal((K, N)) / K ** 0.5, jnp.bfloat16)
    return a, b, rng


def test_jax_e4m3_output(jax_gpu):
    jax = jax_gpu
    import jax.numpy as jnp
    import numpy as np
    M, N, K = 300, 512, 256
    a, b, _ = jax_operands(M, N, K, seed=1)
    z = np.asarray(a, np.float64) @ np.asarray(b, np.float64)
    scale = jnp.asarray([np.abs(z).max() / 448], jnp.float32)
    c, amax = jax.jit(lambda a, b, s: ops.matmul(a, b, out_dtype=jnp.float8_e4m3fn,
                                                 out_scale=s))(a, b, scale)
    assert c.dtype == jnp.float8_e4m3fn and c.shape == (M, N)
    assert abs(float(amax[0]) - np.abs(z).max()) <= 1e-3 * np.abs(z).max()
    got = np.asarray(c, np.float64) * float(scale[0])
    assert np.linalg.norm(got - z) / np.linalg.norm(z) < 0.05     # e4m3: 2^-4 per element


def test_jax_jit_and_grad(jax_gpu):
    jax = jax_gpu
    import jax.numpy as jnp
    import numpy as np
    M, N, K = 200, 264, 136
    a, b, rng = jax_operands(M, N, K, seed=0)
    bias = jnp.asarray(rng.standard_normal(N), jnp.bfloat16)
    g = rng.standard_normal((M, N))

    out = jax.jit(lambda a, b, bias: ops.matmul(a, b, bias=bias, activation="gelu"))(a, b, bias)
    a64, b64, bias64 = (np.asarray(x, np.float64) for x in (a, b, bias))
    z = a64 @ b64 + bias64
    ref = mm.act_value(np, z, "gelu")
    out64 = np.asarray(out, np.float64)
    assert np.linalg.norm(out64 - ref) / np.linalg.norm(ref) < 1e-2

    def loss(a, b, bias):
        y = ops.matmul(a, b, bias=bias, activation="gelu")
        return (y.astype(jnp.float32) * jnp.asarray(g, jnp.float32)).sum()
    da, db, dbias = jax.jit(jax.grad(loss, argnums=(0, 1, 2)))(a, b, bias)
    dz = g * mm.act_grad(np, z, "gelu")
    for got, want in ((da, dz @ b64.T), (db, a64.T @ dz), (dbias, dz.sum(0))):
        got = np.asarray(got, np.float64)
        assert np.linalg.norm(got - want) / np.linalg.norm(want) < 2e-2
