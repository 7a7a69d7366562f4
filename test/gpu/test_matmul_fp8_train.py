"""pyptx.ops.matmul_fp8_dynamic on the GPU: the forward and both gradients
against float64 of the quantised operands (each product's e4m3 operands
and scales, made by the op's quantiser: the kernel's own error) and
against PyTorch's float64 autograd of a @ b on the unquantised inputs
(the quantisation's error too), for each scaling, at K = 4096, at odd
shapes, with a row-major b and f32 operands; torch.compile(fullgraph=True)
of forward + backward; a CUDA graph replayed on new data; JAX under
jax.jit(jax.grad(...)). Random normal inputs; the output blocks are
poisoned with NaN before each run (an element left unwritten fails where
the output reuses one).

Bounds. The kernel's own error (bf16 output rounding, 2^-9 relative, and
the FP8 tensor cores' accumulation) is held to 1e-2 relative Frobenius, as
test_gemm_fp8.py holds the kernels. Against the unquantised inputs: e4m3
has 3 mantissa bits, so each quantised element is within 2^-4 relative of
its input; errors of the two operands that do not correlate with the data
add in quadrature, so a product's relative Frobenius error is at most about
sqrt(2) * 2^-4 = 0.088 (about 0.037 expected: the mean relative rounding
error of e4m3 is ~0.026 per operand), plus the kernel's 1e-2."""
import importlib

import numpy as np
import pytest
import torch

import pyptx.ops as ops

ft = importlib.import_module("pyptx.ops.matmul_fp8_train")
SM90 = torch.cuda.get_device_capability() >= (9, 0)
pytestmark = pytest.mark.skipif(not SM90, reason="FP8 wgmma, TMA and clusters need sm_90a")
SCALINGS = ("tensor", "row", "block")
KERNEL_TOL = 1e-2
QUANT_BOUND = 2 ** 0.5 * 2.0 ** -4 + KERNEL_TOL


def rel(x, ref):
    x, ref = x.detach().double(), ref.detach().double()
    assert not torch.isnan(x).any(), "elements left unwritten (NaN)"
    return ((x - ref).norm() / ref.norm()).item()


def poison(*shapes_dtypes, copies=3):
    """Frees NaN-filled blocks of these shapes, so that the allocations of
    the outputs that follow start as NaN."""
    blocks = [torch.full(s, float("nan"), dtype=d, device="cuda")
              for s, d in shapes_dtypes for _ in range(copies)]
    torch.cuda.synchronize()
    del blocks


def dequantized_product(x, y, scaling):
    """float64 x @ y of the operands as the op quantises them (X8 along
    x's rows, W8 along y's columns; scales broadcast over their groups)."""
    Kp = ft.padded_k(x.shape[1], scaling)
    gx, gw = ft.GROUPS[scaling]
    x8, sx = ft.quantize_e4m3(x, gx, Kp)
    w8, sw = ft.quantize_e4m3(y.t(), gw, Kp)

    def deq(q, s, rows_per):
        q, s = q.double(), s.double()
        if s.dim() == 1:
            return q * (s[:, None] if s.numel() == q.shape[0] and q.shape[0] > 1
                        else s.reshape(1, 1))
        full = s.repeat_interleave(rows_per, 0).repeat_interleave(128, 1)
        return q * full[:q.shape[0], :q.shape[1]]
    return deq(x8, sx, 1) @ deq(w8, sw, 128).T


def run_and_check(M, N, K, scaling, weight=True, dtype=torch.bfloat16, batch=None):
    """Forward and backward through the op against both references; the
    six relative errors."""
    shape_a = (batch, M // batch, K) if batch else (M, K)
    a = torch.randn(*shape_a, device="cuda").to(dtype).requires_grad_()
    w = (torch.randn(N, K, device="cuda") / K ** 0.5).to(dtype).requires_grad_()
    b = (torch.randn(K, N, device="cuda") / K ** 0.5).to(dtype).requires_grad_()
    bb = w.t() if weight else b
    g = torch.randn(*shape_a[:-1], N, device="cuda").to(dtype)
    poison(((M, N), dtype), ((M, K), dtype), ((N, K) if weight else (K, N), dtype))
    out = ops.matmul_fp8_dynamic(a, bb, scaling=scaling)
    out.backward(g)
    torch.cuda.synchronize()
    leaf = w if weight else b
    assert out.shape == (*shape_a[:-1], N) and out.dtype == dtype
    assert a.grad.dtype == leaf.grad.dtype == dtype and leaf.grad.is_contiguous()
    a2, g2 = a.detach().reshape(M, K), g.reshape(M, N)
    dbb = w.grad.t() if weight else b.grad
    errs = {
        "out": rel(out.reshape(M, N), dequantized_product(a2, bb.detach(), scaling)),
        "da": rel(a.grad.reshape(M, K), dequantized_product(g2, bb.detach().t(), scaling)),
        "db": rel(dbb, dequantized_product(g2.t(), a2, scaling).t() if weight
                  else dequantized_product(a2.t(), g2, scaling)),
    }
    a64 = a.detach().double().requires_grad_()
    bb64 = bb.detach().double().requires_grad_()
    out64 = a64 @ bb64
    out64.backward(g.double())
    errs.update(out_vs_torch=rel(out, out64), da_vs_torch=rel(a.grad, a64.grad),
                db_vs_torch=rel(dbb, bb64.grad))
    print(f"\n{scaling} M={M} N={N} K={K} weight={weight} {dtype}: "
          + ", ".join(f"{k} {v:.2e}" for k, v in errs.items()))
    for k, v in errs.items():
        assert v < (QUANT_BOUND if k.endswith("torch") else KERNEL_TOL), (k, v)
    return errs


@pytest.mark.parametrize("scaling", SCALINGS)
def test_forward_and_gradients_at_k4096(scaling):
    run_and_check(1024, 1536, 4096, scaling)


@pytest.mark.parametrize("scaling", SCALINGS)
def test_odd_shapes(scaling):
    """M = 1000 (dW's contraction over M padded in its quantise copy), N and
    K = 1008 (partial tiles; block scales: a partial 128 block, K padded)."""
    run_and_check(1000, 1008, 1008, scaling)


def test_row_major_b_f32_operands_and_batch_dimensions():
    run_and_check(512, 384, 640, "row", weight=False, dtype=torch.float32, batch=4)


def test_torch_compile_fullgraph_forward_and_backward():
    M, N, K = 512, 768, 1024
    a = torch.randn(M, K, device="cuda").to(torch.bfloat16).requires_grad_()
    w = (torch.randn(N, K, device="cuda") / K ** 0.5).to(torch.bfloat16).requires_grad_()

    def f(a, w):
        return ops.matmul_fp8_dynamic(a, w.t(), scaling="block").float().square().sum()

    eager = f(a, w)
    eager.backward()
    ga, gw = a.grad, w.grad
    a.grad = w.grad = None
    compiled = torch.compile(f, fullgraph=True)(a, w)
    compiled.backward()
    assert rel(compiled, eager) < 1e-3
    assert rel(a.grad, ga) < 1e-2 and rel(w.grad, gw) < 1e-2


def test_cuda_graph_replay_quantises_the_new_data():
    """Forward and backward captured once; replayed after new values are
    copied into the inputs, it gives what an eager call on them gives
    (the scales are computed on the device at each replay)."""
    M, N, K = 256, 512, 768
    a = torch.randn(M, K, device="cuda").to(torch.bfloat16).requires_grad_()
    w = (torch.randn(N, K, device="cuda") / K ** 0.5).to(torch.bfloat16).requires_grad_()
    g = torch.randn(M, N, device="cuda").to(torch.bfloat16)

    def step():
        out = ops.matmul_fp8_dynamic(a, w.t(), scaling="row")
        out.backward(g)
        return out

    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(2):                    # warm-up: kernels built and loaded
            a.grad = w.grad = None
            step()
    torch.cuda.current_stream().wait_stream(side)
    a.grad = w.grad = None
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = step()
    with torch.no_grad():
        a.copy_(torch.randn(M, K, device="cuda") * 5)
        w.copy_(torch.randn(N, K, device="cuda") / K ** 0.5)
        g.copy_(torch.randn(M, N, device="cuda"))
    graph.replay()
    torch.cuda.synchronize()
    got = [out.clone(), a.grad.clone(), w.grad.clone()]
    a.grad = w.grad = None
    want = [step(), a.grad, w.grad]
    for x, y in zip(got, want):
        assert rel(x, y) < 1e-6


@pytest.mark.parametrize("scaling", ["tensor", "block"])
def test_jax_jit_grad(scaling, jax_gpu):
    jax = jax_gpu
    import jax.numpy as jnp
    M, N, K = 384, 512, 1024
    rng = np.random.default_rng(0)
    a = jnp.asarray(rng.standard_normal((M, K)), jnp.bfloat16)
    b = jnp.asarray(rng.standard_normal((K, N)) / K ** 0.5, jnp.bfloat16)
    g = rng.standard_normal((M, N))

    def loss(a, b):
        y = ops.matmul_fp8_dynamic(a, b, scaling=scaling)
        return (y.astype(jnp.float32) * jnp.asarray(g, jnp.float32)).sum()
    da, db = jax.jit(jax.grad(loss, argnums=(0, 1)))(a, b)
    out = jax.jit(lambda a, b: ops.matmul_fp8_dynamic(a, b, scaling=scaling))(a, b)
    a64, b64 = np.asarray(a, np.float64), np.asarray(b, np.float64)
    errs = {}
    for name, got, want in (("out", out, a64 @ b64), ("da", da, g @ b64.T),
                            ("db", db, a64.T @ g)):
        got = np.asarray(got, np.float64)
        assert not np.isnan(got).any()
        errs[name] = np.linalg.norm(got - want) / np.linalg.norm(want)
    # and against the same products in PyTorch's op (same quantiser, same kernels)
    ta = torch.from_numpy(a64).cuda().to(torch.bfloat16).requires_grad_()
    tb = torch.from_numpy(b64).cuda().to(torch.bfloat16).requires_grad_()
    tout = ops.matmul_fp8_dynamic(ta, tb, scaling=scaling)
    (tout.float() * torch.from_numpy(g).cuda().float()).sum().backward()
    for name, x, y in (("out", out, tout), ("da", da, ta.grad), ("db", db, tb.grad)):
        errs[name + "_vs_torch_op"] = rel(torch.from_numpy(np.asarray(x, np.float64)).cuda(), y)
    print(f"\njax {scaling}: " + ", ".join(f"{k} {v:.2e}" for k, v in errs.items()))
    for k, v in errs.items():
        assert v < (KERNEL_TOL if k.endswith("torch_op") else QUANT_BOUND), (k, v)
