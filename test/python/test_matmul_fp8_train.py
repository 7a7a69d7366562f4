"""pyptx.ops.matmul_fp8_dynamic without a GPU: argument errors at the
caller's line; the custom op's fake implementation and autograd formula on
meta tensors (the shapes, dtypes and layouts torch.compile sees); the
quantiser against float64 maths (scales, e4m3 rounding, padding); and the
op's forward and backward wiring (which operand is transposed, quantised
along which axis, padded how) with the FP8 kernel replaced by a float64
emulation of it that also asserts the kernel's input contract, in PyTorch
(eager and torch.compile(fullgraph=True)) and JAX (jit of grad). The GPU
half is test/gpu/test_matmul_fp8_train.py."""
import importlib

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import pyptx.ops as ops  # noqa: E402
from pyptx.pipeline.fp8_gemm import scale_shapes  # noqa: E402

ft = importlib.import_module("pyptx.ops.matmul_fp8_train")
MatmulError = importlib.import_module("pyptx.ops.matmul").MatmulError
SCALINGS = ("tensor", "row", "block")
E4M3_EPS = 2.0 ** -4      # 3 mantissa bits: round to nearest is within 2^-4 relative
# Each operand is within E4M3_EPS relative per element, so a product's
# relative Frobenius error is at most about sqrt(2) * E4M3_EPS (0.088) for
# errors uncorrelated with the data, plus the bf16 output's rounding.
QUANT_BOUND = 2 ** 0.5 * E4M3_EPS + 1e-2


def bf(*shape, scale=1.0):
    return (torch.randn(*shape, dtype=torch.float64) * scale).to(torch.bfloat16)


def rel(x, ref):
    x, ref = (t.detach().double() if isinstance(t, torch.Tensor)
              else torch.as_tensor(np.asarray(t, np.float64)) for t in (x, ref))
    assert not torch.isnan(x).any()
    return ((x - ref).norm() / ref.norm()).item()


# -- errors --------------------------------------------------------------------------------

@pytest.mark.parametrize("args,kw,match", [
    ((bf(4, 64).half(), bf(64, 16)), {}, "bfloat16 or float32"),
    ((bf(4, 64), bf(32, 16)), {}, "must equal"),
    ((bf(4, 64), bf(64, 16, 2)), {}, r"b \(K, N\)"),
    ((bf(4, 64), bf(64, 16)), dict(scaling="blocks"), "scaling must be one of"),
    ((bf(4, 64), bf(64, 16)), dict(out_dtype=torch.float16), "out_dtype"),
    ((bf(4, 40), bf(40, 16)), {}, "multiples of 16"),
    ((bf(4, 64), bf(64, 24)), {}, "multiples of 16"),
    ((bf(0, 64), bf(64, 16)), {}, "empty"),
    ((bf(4, 64), bf(64, 16)), {}, "one CUDA device"),
])
def test_bad_input_is_refused_at_the_callers_line(args, kw, match):
    with pytest.raises(MatmulError, match=match) as info:
        ops.matmul_fp8_dynamic(*args, **kw)
    assert str(info.value).startswith(__file__.rstrip("c") + ":")
    assert "pyptx.ops.matmul_fp8_dynamic" in str(info.value)


def test_not_a_tensor():
    with pytest.raises(MatmulError, match="torch.Tensor or a jax.Array"):
        ops.matmul_fp8_dynamic([[1.0]], [[1.0]])
    with pytest.raises(MatmulError, match="b must be a torch.Tensor"):
        ops.matmul_fp8_dynamic(bf(4, 64), np.zeros((64, 16)))


# -- the fake implementation and the autograd formula (meta tensors) -----------------------

@pytest.mark.parametrize("weight", [True, False])
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float32])
def test_fake_shapes_and_gradient_layouts(weight, dtype):
    op = ft.torch_op()
    M, N, K = 1000, 1008, 1008
    a = torch.empty(M, K, device="meta", dtype=dtype, requires_grad=True)
    w = torch.empty(N, K, device="meta", dtype=dtype, requires_grad=True)
    b = torch.empty(K, N, device="meta", dtype=dtype, requires_grad=True)
    bb = w.t() if weight else b
    out = op(a, bb, "block", dtype == torch.float32)
    assert out.shape == (M, N) and out.dtype == dtype
    out.backward(torch.empty_like(out))
    leaf = w if weight else b
    assert a.grad.shape == a.shape and a.grad.dtype == dtype
    assert leaf.grad.shape == leaf.shape and leaf.grad.dtype == dtype
    assert leaf.grad.is_contiguous()      # dW made in the weight's layout: no copy


# -- the quantiser against float64 maths ------------------------------------------------------

def to_e4m3_f64(q):
    """q (float64, |q| <= 448) rounded to the nearest e4m3 value, ties to
    even: 3 mantissa bits, exponent at least -6 (below: subnormals, spacing
    2^-9)."""
    e = np.floor(np.log2(np.maximum(np.abs(q), 2.0 ** -6)))
    spacing = 2.0 ** (e - 3)
    return np.round(q / spacing) * spacing


def groups_f64(x, rows, cols):
    """x (R, C) float64 zero-padded to whole groups and seen as
    (R / rows, rows, C / cols, cols)."""
    R, C = x.shape
    Rp, Cp = -(-R // rows) * rows, -(-C // cols) * cols
    xp = np.zeros((Rp, Cp))
    xp[:R, :C] = x
    return xp.reshape(Rp // rows, rows, Cp // cols, cols)


@pytest.mark.parametrize("group,cols", [((None, None), None), ((1, None), 200),
                                        ((1, 128), 256), ((128, 128), 384)])
@pytest.mark.parametrize("transposed", [False, True])
def test_quantizer_vs_float64(group, cols, transposed):
    R, C = 300, 200
    # rows and columns of very different magnitudes: the scales differ
    base = torch.randn(C, R) if transposed else torch.randn(R, C)
    x = base.t() if transposed else base                       # a strided view too
    x = x * torch.logspace(-3, 3, R)[:, None] * torch.logspace(0, 2, C)[None, :]
    x8, s = ft.quantize_e4m3(x, group, cols)
    Ct = cols or C
    assert x8.dtype == torch.float8_e4m3fn and x8.shape == (R, Ct) and x8.is_contiguous()
    assert s.dtype == torch.float32
    x64 = x.double().numpy()
    rows_per, cols_per = group[0] or R, group[1] or Ct
    g = groups_f64(np.pad(x64, ((0, 0), (0, Ct - C))), rows_per, cols_per)
    amax = np.abs(g).max(axis=(1, 3))
    want_s = np.maximum(amax, 1e-12) / 448           # an all-zero group's scale is floored
    want_s = want_s.reshape(-1) if group[1] is None else want_s
    assert s.shape == want_s.shape
    np.testing.assert_allclose(s.double().numpy(), want_s, rtol=2e-7)
    # x8 is x / s rounded to e4m3 (the quotient in f32, as the op computes it)
    full_s = np.repeat(np.repeat(s.double().numpy().reshape(g.shape[0], g.shape[2]),
                                 rows_per, 0), cols_per, 1)[:R, :Ct]
    q = (np.pad(x64, ((0, 0), (0, Ct - C))) / full_s).astype(np.float32).astype(np.float64)
    got = x8.double().numpy()
    np.testing.assert_array_equal(got, to_e4m3_f64(np.clip(q, -448, 448)))
    assert (got[:, C:] == 0).all()                            # the padding is zeros
    # each group's largest element maps to 448; dequantised within 2^-4
    # relative (normal e4m3) or half the subnormal spacing 2^-10 * s
    back = got * full_s
    err = np.abs(back[:, :C] - x64)
    assert (err <= np.maximum(E4M3_EPS * np.abs(x64), 2.0 ** -10 * full_s[:, :C])).all()
    got_amax = np.abs(groups_f64(got, rows_per, cols_per)).max(axis=(1, 3))
    assert (got_amax[amax > 0] == 448).all() and (got_amax[amax == 0] == 0).all()


@pytest.mark.parametrize("group,cols", [((None, None), 208), ((1, None), 200),
                                        ((1, 128), 256), ((128, 128), 256)])
@pytest.mark.parametrize("seed", [0, 8])
def test_jax_quantizer_matches_the_torch_one(group, cols, seed):
    """The JAX path quantises with the same maths: the same scales bit for
    bit, the same bytes except where the quotient x / scale is exactly
    halfway between two e4m3 values: XLA's CPU conversion to float8_e4m3fn
    breaks such a tie its own way (seed 8, one group: 0.359375 -> 0.34375,
    where round-to-nearest-even and PyTorch give 0.375); there both are
    the tie's neighbours."""
    jnp = pytest.importorskip("jax.numpy")
    torch.manual_seed(seed)
    x = torch.randn(300, 200) * torch.logspace(-2, 2, 300)[:, None]
    x8, s = ft.quantize_e4m3(x, group, cols)
    j8, js = ft.quantize_e4m3(jnp.asarray(x.numpy()), group, cols)
    assert j8.dtype == jnp.float8_e4m3fn and j8.shape == tuple(x8.shape)
    np.testing.assert_array_equal(np.asarray(js), s.numpy())
    got, want = np.asarray(j8.astype(jnp.float32)), x8.float().numpy()
    differ = got != want
    if differ.any():
        R, C = x.shape
        rows_per, cols_per = group[0] or R, group[1] or cols
        s2 = s.numpy().reshape(-1 if group[0] else 1, cols // cols_per)
        full_s = np.repeat(np.repeat(s2, rows_per, 0), cols_per, 1)[:R, :cols]
        q = np.pad(x.numpy(), ((0, 0), (0, cols - C))) / full_s     # f32, as both divide
        assert np.array_equal(((got + want) / 2)[differ], np.clip(q, -448, 448)[differ])


def test_padded_k():
    assert ft.padded_k(1008, "row") == 1008 and ft.padded_k(1008, "block") == 1024
    assert ft.padded_k(48, "tensor") == 128 and ft.padded_k(48, "block") == 128
    assert ft.padded_k(200, "tensor") == 208


# -- forward and backward wiring with the kernel emulated in float64 -------------------------

def emulated_kernel(calls, np_=np):
    """A float64 stand-in for the FP8 kernel that asserts its contract (e4m3
    K-major contiguous operands, K a multiple of 16 and >= 128, scale shapes
    of the scheme) and records each product's shape."""
    def launch(M, N, K, scaling, out_f32, x8, w8, sx, sw):
        calls.append((M, N, K, scaling))
        assert K % 16 == 0 and K >= 128 and N % 8 == 0
        assert tuple(x8.shape) == (M, K) and tuple(w8.shape) == (N, K)
        want_sx, want_sw = scale_shapes(scaling, M, N, K)
        assert tuple(sx.shape) == want_sx and tuple(sw.shape) == want_sw
        if np_ is np:                                              # PyTorch tensors
            assert x8.dtype == w8.dtype == torch.float8_e4m3fn
            assert x8.is_contiguous() and w8.is_contiguous()
            c = _deq_torch(x8, sx, 1, M, K) @ _deq_torch(w8, sw, 128, N, K).T
            return c.to(torch.float32 if out_f32 else torch.bfloat16)
        import jax.numpy as jnp
        assert x8.dtype == w8.dtype == jnp.float8_e4m3fn
        c = _deq_jax(x8, sx, 1, M, K) @ _deq_jax(w8, sw, 128, N, K).T
        return c.astype(jnp.float32 if out_f32 else jnp.bfloat16)
    return launch


def _deq_torch(x8, s, rows_per, R, K):
    x, s = x8.double(), s.double()
    if s.dim() == 1:
        return x * (s[:, None] if s.shape[0] == R and R > 1 else s.reshape(1, 1))
    full = s.repeat_interleave(rows_per, 0).repeat_interleave(128, 1)
    return x * full[:R, :K]


def _deq_jax(x8, s, rows_per, R, K):
    import jax.numpy as jnp
    x, s = x8.astype(jnp.float32), s.astype(jnp.float32)   # JAX on the CPU: x64 is off
    if s.ndim == 1:
        return x * (s[:, None] if s.shape[0] == R and R > 1 else s.reshape(1, 1))
    full = jnp.repeat(jnp.repeat(s, rows_per, axis=0), 128, axis=1)
    return x * full[:R, :K]


def reference_product(x, y, scaling):
    """float64 x @ y of the operands quantised as the op does (its
    quantiser is checked against float64 maths above)."""
    Kp = ft.padded_k(x.shape[1], scaling)
    gx, gw = ft.GROUPS[scaling]
    x8, sx = ft.quantize_e4m3(x, gx, Kp)
    w8, sw = ft.quantize_e4m3(y.t(), gw, Kp)
    return _deq_torch(x8, sx, 1, x.shape[0], Kp) @ _deq_torch(w8, sw, 128, y.shape[1], Kp).T


@pytest.mark.parametrize("scaling", SCALINGS)
@pytest.mark.parametrize("weight", [True, False])
def test_forward_and_backward_wiring(scaling, weight, monkeypatch):
    calls = []
    monkeypatch.setattr(ft, "_launch", emulated_kernel(calls))
    M, N, K = 200, 144, 208                    # M and K off 16 / 128: padded contractions
    a = bf(M, K).requires_grad_()
    w = bf(N, K, scale=K ** -0.5).requires_grad_()
    b = bf(K, N, scale=K ** -0.5).requires_grad_()
    bb = w.t() if weight else b
    g = bf(M, N)
    out = ft.torch_op()(a, bb, scaling, False)
    out.backward(g)
    leaf = w if weight else b
    da, dleaf = a.grad, leaf.grad
    assert da.dtype == dleaf.dtype == torch.bfloat16 and dleaf.is_contiguous()
    Kp, Mp = ft.padded_k(K, scaling), ft.padded_k(M, scaling)
    dw_shape = (N, K, Mp) if weight else (K, N, Mp)
    assert calls == [(M, N, Kp, scaling), (M, K, ft.padded_k(N, scaling), scaling),
                     dw_shape + (scaling,)]
    # each product against float64 of its quantised operands (the kernel's part: bf16 out)
    db = dleaf.t() if weight else dleaf
    assert rel(out.detach(), reference_product(a.detach(), bb.detach(), scaling)) < 4e-3
    assert rel(da, reference_product(g, bb.detach().t(), scaling)) < 4e-3
    want_db = (reference_product(g.t(), a.detach(), scaling).t() if weight
               else reference_product(a.detach().t(), g, scaling))
    assert rel(db, want_db) < 4e-3
    # and against PyTorch's float64 autograd of the unquantised a @ b
    a64, bb64 = a.detach().double().requires_grad_(), bb.detach().double().requires_grad_()
    out64 = a64 @ bb64
    out64.backward(g.double())
    assert rel(out.detach(), out64.detach()) < QUANT_BOUND
    assert rel(da, a64.grad) < QUANT_BOUND and rel(db, bb64.grad) < QUANT_BOUND


def test_f32_operands_give_f32_gradients(monkeypatch):
    monkeypatch.setattr(ft, "_launch", emulated_kernel([]))
    a = torch.randn(64, 128, requires_grad=True)
    w = torch.randn(32, 128, requires_grad=True)
    out = ft.torch_op()(a.reshape(64, 128), w.t(), "row", True)
    assert out.dtype == torch.float32
    out.sum().backward()
    assert a.grad.dtype == w.grad.dtype == torch.float32


def test_compiles_forward_and_backward_without_graph_breaks(monkeypatch):
    monkeypatch.setattr(ft, "_launch", emulated_kernel([]))
    a = bf(96, 256).requires_grad_()
    w = bf(128, 256, scale=1 / 16).requires_grad_()

    op = ft.torch_op()            # made before tracing, as pyptx.ops does at import

    def f(a, w):
        return op(a, w.t(), "block", False).float().square().sum()

    eager = f(a, w)
    eager.backward()
    ga, gw = a.grad, w.grad
    a.grad = w.grad = None
    torch._dynamo.reset()
    compiled = torch.compile(f, fullgraph=True, backend="aot_eager")(a, w)
    compiled.backward()
    assert rel(compiled.detach(), eager.detach()) < 1e-6
    assert rel(a.grad, ga) < 1e-6 and rel(w.grad, gw) < 1e-6


# -- JAX -------------------------------------------------------------------------------------

def test_jax_errors_at_the_callers_line():
    jnp = pytest.importorskip("jax.numpy")
    a = jnp.zeros((4, 64), jnp.bfloat16)
    for b, kw, match in ((jnp.zeros((64, 24), jnp.bfloat16), {}, "multiples of 16"),
                         (jnp.zeros((64, 16), jnp.float16), {}, "bfloat16 or float32"),
                         (jnp.zeros((64, 16), jnp.bfloat16), dict(scaling="x"), "scaling")):
        with pytest.raises(MatmulError, match=match) as info:
            ops.matmul_fp8_dynamic(a, b, **kw)
        assert str(info.value).startswith(__file__.rstrip("c") + ":")


@pytest.mark.parametrize("scaling", ["row", "block"])
def test_jax_jit_grad_wiring(scaling, monkeypatch):
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp
    calls = []
    monkeypatch.setattr(ft, "_launch", emulated_kernel(calls, np_=jnp))
    rng = np.random.default_rng(1)
    M, N, K = 100, 160, 272
    a64, b64 = rng.standard_normal((M, K)), rng.standard_normal((K, N)) / K ** 0.5
    g = rng.standard_normal((M, N))
    a, b = jnp.asarray(a64, jnp.bfloat16), jnp.asarray(b64, jnp.bfloat16)

    def loss(a, b):
        y = ops.matmul_fp8_dynamic(a, b, scaling=scaling)
        return (y.astype(jnp.float32) * jnp.asarray(g, jnp.float32)).sum()
    da, db = jax.jit(jax.grad(loss, argnums=(0, 1)))(a, b)
    assert da.dtype == db.dtype == jnp.bfloat16 and db.shape == (K, N)
    Kp, Np, Mp = (ft.padded_k(x, scaling) for x in (K, N, M))
    assert calls == [(M, N, Kp, scaling), (M, K, Np, scaling), (K, N, Mp, scaling)]
    a_, b_ = np.asarray(a, np.float64), np.asarray(b, np.float64)
    assert rel(da, g @ b_.T) < QUANT_BOUND and rel(db, a_.T @ g) < QUANT_BOUND
    y = jax.jit(lambda a, b: ops.matmul_fp8_dynamic(a, b, scaling=scaling))(a, b)
    assert y.dtype == jnp.bfloat16 and rel(y, a_ @ b_) < QUANT_BOUND
