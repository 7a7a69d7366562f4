"""``pyptx.ops.matmul``: C = act(a @ b + bias) + residual on Hopper, through
pyptx.pipeline.hopper_gemm's kernel, for PyTorch (an autograd-aware
``torch.library`` custom op: torch.compile(fullgraph=True) traces it) and
JAX (a ``jax.custom_vjp``: jax.jit and jax.grad).

a: (..., K) bf16; b: (K, N) bf16 (a linear layer's weight w (N, K) passes
as ``w.T``: that view is read as it lies, K-major, without a copy); bias:
(N,) bf16; residual: (..., N) bf16; activation: None, "gelu" (tanh form)
or "silu"; out_dtype: bf16 (default), f32, or e4m3 (torch.float8_e4m3fn /
jnp.float8_e4m3fn) with out_scale, a one-element f32 tensor: the call then
returns (c8, amax), c8 = e4m3((act(a @ b + bias) + residual) / out_scale)
saturated at +-448 and amax its largest |value| before scaling (f32 (1,);
NaN if one is), what delayed scaling keeps for the next call's scale. An
e4m3 output has no gradient.

Shapes the kernel does not take directly are padded (a copy, the fallback):
K and N to multiples of 8 (TMA's 16-byte rows) and to at least 64, the
output sliced back. A kernel is built once per shape and options (cached);
plan_gemm picks its tiles. Split-K plans (small M x N, long K) sum the f32
partial products and apply the epilogue with framework ops.

Backward (both frameworks) runs the same kernels with the transposed
layouts: dA = dZ B^T (B read as a K-major operand, no copy), dB = A^T dZ
(A^T copied to row-major), dZ = dC act'(Z) with Z = a @ b + bias computed
again (not kept from the forward), dbias = sum of dZ over rows.
"""
from __future__ import annotations

import functools
import os
import sys

from ..pipeline.hopper_gemm import build_gemm, plan_gemm
from ..errors import PyptxError
from ..types import bf16, e4m3, f32

ACTIVATIONS = (None, "gelu", "silu")
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class MatmulError(PyptxError, ValueError):
    """Bad input to pyptx.ops.matmul; the message starts at the caller's line."""


def _caller():
    """file:line of the first frame outside pyptx and the frameworks."""
    frame = sys._getframe(1)
    while frame is not None:
        name = frame.f_code.co_filename
        if not (name.startswith(_PACKAGE_DIR) or "/torch/" in name or "/jax/" in name
                or "/jaxlib/" in name):
            return f"{name}:{frame.f_lineno}"
        frame = frame.f_back
    return "?"


def _fail(message):
    raise MatmulError(f"{_caller()}: pyptx.ops.matmul: {message}")


def _round_up(x, m):
    return -(-x // m) * m


OUT_TYPES = {"bf16": bf16, "f32": f32, "e4m3": e4m3}
E4M3_MAX = 448.0


def call_plan(M, N, K, b_major, activation, out):
    """plan_gemm's keywords for one call: its fused=True (ping-pong where
    the plan allows) only for an epilogue that runs after the main loop, a
    SiLU. A bias alone is preloaded into the accumulator and a
    residual comes through the ring (build_gemm's residual_from "ring"),
    so little trails the loop: cooperative measured 1.13x against
    ping-pong's 1.03x (1024 x 4096 x 4096 + bias + residual, H100, pairs
    against cuBLAS + the PyTorch ops). An e4m3 output stays cooperative:
    with ping-pong it measured 509 against 712 TFLOP/s (bias + GELU at
    4096 x 14336 x 4096). GELU stays cooperative too: its math, twice
    SiLU's, interleaves with the cooperative kernel's two store chunks
    (ping-pong stores one) and measured 1.097x against ping-pong's 1.090x
    (4096 x 14336 x 4096 + bias; SiLU: ping-pong 1.156x against 1.087x)."""
    return plan_gemm(M, N, K, b_major, fused=activation == "silu" and out != "e4m3")


@functools.lru_cache(maxsize=None)
def gemm_kernel(M, N, K, b_major, bias, activation, residual, out):
    """The kernel and its split-K count for one call shape and output
    ("bf16", "f32" or "e4m3"; cached). With split-K the epilogue is left to
    the caller."""
    plan = call_plan(M, N, K, b_major, activation, out)
    split = plan["split_k"]
    if split > 1:
        return build_gemm(M, N, K, b_major=b_major, out_dtype=f32, bn=plan["bn"],
                          split_k=split), split
    return build_gemm(M, N, K, b_major=b_major, out_dtype=OUT_TYPES[out],
                      bn=plan["bn"], bias=bias, activation=activation,
                      residual=residual, schedule=plan["schedule"]), 1


def padded_shape(M, N, K):
    """(N, K) as the kernel takes them: multiples of 8, at least 64."""
    return max(_round_up(N, 8), 64), max(_round_up(K, 8), 64)


def check_operand_shapes(a_shape, b_shape, fail):
    """a (..., K) and b (K, N), or fail(message)."""
    if len(a_shape) < 1 or len(b_shape) != 2:
        fail(f"a must be (..., K) and b (K, N); got a {tuple(a_shape)}, b {tuple(b_shape)}")
    if a_shape[-1] != b_shape[0]:
        fail(f"a's last dimension ({a_shape[-1]}) must equal b's first ({b_shape[0]}); "
             f"got a {tuple(a_shape)}, b {tuple(b_shape)}")


def check_args(a_shape, b_shape, a_dtype, b_dtype, bias, residual, activation, out_dtype,
               is_bf16, is_f32, is_e4m3=lambda d: False, out_scale=None):
    """Shapes and dtypes (framework-neutral): a clear MatmulError."""
    check_operand_shapes(a_shape, b_shape, _fail)
    if not is_bf16(a_dtype) or not is_bf16(b_dtype):
        _fail(f"a and b must be bfloat16; got {a_dtype} and {b_dtype}")
    N = b_shape[1]
    if bias is not None:
        if tuple(bias.shape) != (N,) or not is_bf16(bias.dtype):
            _fail(f"bias must be a bfloat16 vector of N={N}; got {tuple(bias.shape)} "
                  f"{bias.dtype}")
    if residual is not None:
        want = tuple(a_shape[:-1]) + (N,)
        if tuple(residual.shape) != want or not is_bf16(residual.dtype):
            _fail(f"residual must be bfloat16 of the output's shape {want}; got "
                  f"{tuple(residual.shape)} {residual.dtype}")
    if activation not in ACTIVATIONS:
        _fail(f"activation must be None, 'gelu' or 'silu'; got {activation!r}")
    if not (is_bf16(out_dtype) or is_f32(out_dtype) or is_e4m3(out_dtype)):
        _fail(f"out_dtype must be bfloat16, float32 or float8_e4m3fn; got {out_dtype}")
    if is_e4m3(out_dtype) != (out_scale is not None):
        _fail("out_scale (one float32: C ~= c8 * out_scale) goes with out_dtype "
              "float8_e4m3fn, and only with it" if out_scale is None else
              f"out_scale is only taken with out_dtype float8_e4m3fn; got out_dtype {out_dtype}")
    if out_scale is not None and (tuple(out_scale.shape) not in ((), (1,))
                                  or not is_f32(out_scale.dtype)):
        _fail(f"out_scale must be one float32 (shape () or (1,)); got "
              f"{tuple(out_scale.shape)} {out_scale.dtype}")


def matmul(a, b, bias=None, activation=None, residual=None, out_dtype=None, out_scale=None):
    """act(a @ b + bias) + residual, on PyTorch CUDA tensors or JAX arrays
    (see the module doc); with out_dtype e4m3, (c8, amax)."""
    if type(a).__module__.startswith("torch"):
        return _matmul_torch(a, b, bias, activation, residual, out_dtype, out_scale)
    if type(a).__module__.startswith(("jax", "jaxlib")):
        return _matmul_jax(a, b, bias, activation, residual, out_dtype, out_scale)
    _fail(f"a must be a torch.Tensor or a jax.Array; got {type(a).__name__}")


# -- the activations' values and derivatives (framework ops, for split-K and backward)

GELU_K, GELU_C = 0.7978845608028654, 0.044715


def act_value(np_, z, activation):
    if activation == "gelu":
        return 0.5 * z * (1 + np_.tanh(GELU_K * (z + GELU_C * z * z * z)))
    if activation == "silu":
        return z / (1 + np_.exp(-z))
    return z


def act_grad(np_, z, activation):
    if activation == "gelu":
        t = np_.tanh(GELU_K * (z + GELU_C * z * z * z))
        return 0.5 * (1 + t) + 0.5 * z * (1 - t * t) * GELU_K * (1 + 3 * GELU_C * z * z)
    s = 1 / (1 + np_.exp(-z))
    return s * (1 + z * (1 - s))


# -- PyTorch -----------------------------------------------------------------------------

def _run_torch(a, b, bias, activation, residual, out, out_scale=None):
    """The kernels on (M, K) a and (K, N) b (any strides): C (M, N) of
    `out` ("bf16", "f32"; "e4m3": (C, amax))."""
    import torch
    import torch.nn.functional as F
    M, K = a.shape
    N = b.shape[1]
    a = a.contiguous()
    if b.stride(0) == 1 and b.stride(1) == K and N > 1:
        b_major, bop = "K", b.t()          # b is the transpose of a row-major (N, K)
    else:
        b_major, bop = "MN", b.contiguous()
    Np, Kp = padded_shape(M, N, K)
    if Kp != K:
        a = F.pad(a, (0, Kp - K))
        bop = F.pad(bop, (0, Kp - K) if b_major == "K" else (0, 0, 0, Kp - K))
    if Np != N:
        bop = F.pad(bop, (0, 0, 0, Np - N) if b_major == "K" else (0, Np - N))
        bias = F.pad(bias, (0, Np - N)) if bias is not None else None
        residual = F.pad(residual, (0, Np - N)) if residual is not None else None
    if residual is not None:
        residual = residual.contiguous()
    k, split = gemm_kernel(M, Np, Kp, b_major, bias is not None, activation,
                           residual is not None, out)
    amax = None
    if split > 1:
        z = k(a, bop).view(split, M, Np).sum(0)
        if bias is not None:
            z = z + bias.float()
        z = act_value(torch, z, activation)
        if residual is not None:
            z = z + residual.float()
        if out == "e4m3":          # the kernel's e4m3 epilogue, in PyTorch ops
            amax = z.abs().amax().reshape(1)
            c = (z / out_scale.reshape(())).clamp(-E4M3_MAX, E4M3_MAX).to(torch.float8_e4m3fn)
        else:
            c = z.to(torch.float32 if out == "f32" else torch.bfloat16)
    else:
        extra = [t for t in (bias, residual) if t is not None]
        if out == "e4m3":
            amax = torch.zeros(1, dtype=torch.float32, device=a.device)
            extra += [out_scale.reshape(1), amax]
        c = k(a, bop, *extra)
    c = c[:, :N].contiguous() if Np != N else c
    return c if out != "e4m3" else (c, amax)


@functools.lru_cache(maxsize=None)
def torch_op():
    """The ``pyptx_ops::matmul`` custom op (made on first use) with its fake
    implementation and autograd formula."""
    import torch

    @torch.library.custom_op("pyptx_ops::matmul", mutates_args=(), schema=(
        "(Tensor a, Tensor b, Tensor? bias, Tensor? residual, str? activation, "
        "bool out_f32) -> Tensor"))
    def op(a, b, bias, residual, activation, out_f32):
        return _run_torch(a, b, bias, activation, residual, "f32" if out_f32 else "bf16")

    @op.register_fake
    def _(a, b, bias, residual, activation, out_f32):
        return a.new_empty((a.shape[0], b.shape[1]),
                           dtype=torch.float32 if out_f32 else torch.bfloat16)

    def setup_context(ctx, inputs, output):
        a, b, bias, residual, activation, _ = inputs
        ctx.save_for_backward(a, b, bias)
        ctx.activation, ctx.has_residual = activation, residual is not None

    def backward(ctx, grad):
        a, b, bias = ctx.saved_tensors
        g = grad.to(torch.bfloat16)
        dz = g
        if ctx.activation:
            z = op(a, b, bias, None, None, True)           # the pre-activation, again
            dz = (grad.float() * act_grad(torch, z, ctx.activation)).to(torch.bfloat16)
        da = op(dz, b.t(), None, None, None, False) if ctx.needs_input_grad[0] else None
        db = op(a.t(), dz, None, None, None, False) if ctx.needs_input_grad[1] else None
        dbias = dz.float().sum(0).to(torch.bfloat16) if bias is not None else None
        return da, db, dbias, (g if ctx.has_residual else None), None, None

    op.register_autograd(backward, setup_context=setup_context)
    return op


@functools.lru_cache(maxsize=None)
def torch_op_e4m3():
    """The ``pyptx_ops::matmul_e4m3`` custom op: the e4m3 output and its
    amax (no autograd: an e4m3 output has no gradient)."""
    import torch

    @torch.library.custom_op("pyptx_ops::matmul_e4m3", mutates_args=(), schema=(
        "(Tensor a, Tensor b, Tensor? bias, Tensor? residual, str? activation, "
        "Tensor out_scale) -> (Tensor, Tensor)"))
    def op(a, b, bias, residual, activation, out_scale):
        return _run_torch(a, b, bias, activation, residual, "e4m3", out_scale)

    @op.register_fake
    def _(a, b, bias, residual, activation, out_scale):
        return (a.new_empty((a.shape[0], b.shape[1]), dtype=torch.float8_e4m3fn),
                a.new_empty((1,), dtype=torch.float32))
    return op


# Made at import when PyTorch is already loaded, so that torch.compile finds
# the ops made (tracing their creation would break the graph).
_TORCH_OP = torch_op() if "torch" in sys.modules else None
_TORCH_OP_E4M3 = torch_op_e4m3() if "torch" in sys.modules else None


def _matmul_torch(a, b, bias, activation, residual, out_dtype, out_scale):
    import torch
    out_dtype = torch.bfloat16 if out_dtype is None else out_dtype
    for name, t in (("b", b), ("bias", bias), ("residual", residual), ("out_scale", out_scale)):
        if t is not None and not isinstance(t, torch.Tensor):
            _fail(f"{name} must be a torch.Tensor like a; got {type(t).__name__}")
    fp8 = out_dtype == torch.float8_e4m3fn
    check_args(a.shape, b.shape, a.dtype, b.dtype, bias, residual, activation, out_dtype,
               lambda d: d == torch.bfloat16, lambda d: d == torch.float32,
               lambda d: d == torch.float8_e4m3fn, out_scale)
    if fp8 and torch.is_grad_enabled() and any(
            t is not None and t.requires_grad for t in (a, b, bias, residual)):
        _fail("an e4m3 output has no gradient: call it under torch.no_grad() or on "
              "tensors that do not require grad")
    devices = {t.device for t in (a, b, bias, residual, out_scale) if t is not None}
    if len(devices) != 1 or next(iter(devices)).type != "cuda":
        _fail(f"every tensor must be on one CUDA device; got {sorted(map(str, devices))}")
    lead = a.shape[:-1]
    a2 = a.reshape(-1, a.shape[-1])
    r2 = residual.reshape(-1, b.shape[1]) if residual is not None else None
    if fp8:
        c, amax = (_TORCH_OP_E4M3 or torch_op_e4m3())(a2, b, bias, r2, activation,
                                                      out_scale.reshape(1))
        return c.reshape(*lead, b.shape[1]), amax
    c = (_TORCH_OP or torch_op())(a2, b, bias, r2, activation, out_dtype == torch.float32)
    return c.reshape(*lead, b.shape[1])


# -- JAX ---------------------------------------------------------------------------------

def _run_jax(a, b, bias, activation, residual, out, b_major="MN", out_scale=None):
    """The kernels on (M, K) a and b ((K, N), or (N, K) with b_major "K"):
    C of `out` ("bf16", "f32"; "e4m3": (C, amax))."""
    import jax.numpy as jnp
    M, K = a.shape
    N = b.shape[1] if b_major == "MN" else b.shape[0]
    Np, Kp = padded_shape(M, N, K)
    if Kp != K:
        a = jnp.pad(a, ((0, 0), (0, Kp - K)))
        b = jnp.pad(b, ((0, 0), (0, Kp - K)) if b_major == "K" else ((0, Kp - K), (0, 0)))
    if Np != N:
        b = jnp.pad(b, ((0, Np - N), (0, 0)) if b_major == "K" else ((0, 0), (0, Np - N)))
        bias = jnp.pad(bias, (0, Np - N)) if bias is not None else None
        residual = jnp.pad(residual, ((0, 0), (0, Np - N))) if residual is not None else None
    k, split = gemm_kernel(M, Np, Kp, b_major, bias is not None, activation,
                           residual is not None, out)
    amax = None
    if split > 1:
        z = k(a, b).reshape(split, M, Np).sum(0)
        if bias is not None:
            z = z + bias.astype(jnp.float32)
        z = act_value(jnp, z, activation)
        if residual is not None:
            z = z + residual.astype(jnp.float32)
        if out == "e4m3":          # the kernel's e4m3 epilogue, in JAX ops
            amax = jnp.abs(z).max().reshape(1)
            c = jnp.clip(z / out_scale.reshape(()), -E4M3_MAX, E4M3_MAX).astype(
                jnp.float8_e4m3fn)
        else:
            c = z.astype(jnp.float32 if out == "f32" else jnp.bfloat16)
    else:
        extra = [t for t in (bias, residual) if t is not None]
        if out == "e4m3":          # the kernel returns C and the amax it raised
            c, amax = k(a, b, *extra, out_scale.reshape(1), jnp.zeros((1,), jnp.float32))
        else:
            c = k(a, b, *extra)
    c = c[:, :N] if Np != N else c
    return c if out != "e4m3" else (c, amax)


@functools.lru_cache(maxsize=None)
def jax_fn():
    """The custom_vjp function (made on first use)."""
    import jax
    import jax.numpy as jnp

    @functools.partial(jax.custom_vjp, nondiff_argnums=(4, 5))
    def mm(a, b, bias, residual, activation, out_f32):
        return _run_jax(a, b, bias, activation, residual, "f32" if out_f32 else "bf16")

    def fwd(a, b, bias, residual, activation, out_f32):
        return mm(a, b, bias, residual, activation, out_f32), (a, b, bias, residual)

    def bwd(activation, out_f32, saved, grad):
        a, b, bias, residual = saved
        dz = grad.astype(jnp.bfloat16)
        if activation:
            z = _run_jax(a, b, bias, None, None, "f32")
            dz = (grad.astype(jnp.float32) * act_grad(jnp, z, activation)).astype(jnp.bfloat16)
        da = _run_jax(dz, b, None, None, None, "bf16", b_major="K")   # dZ (M,N) . B (K,N)^T
        db = _run_jax(jnp.transpose(a), dz, None, None, None, "bf16")
        dbias = dz.astype(jnp.float32).sum(0).astype(jnp.bfloat16) if bias is not None else None
        dres = grad.astype(residual.dtype) if residual is not None else None
        return da, db, dbias, dres

    mm.defvjp(fwd, bwd)
    return mm


def _matmul_jax(a, b, bias, activation, residual, out_dtype, out_scale):
    import jax.numpy as jnp
    out_dtype = jnp.bfloat16 if out_dtype is None else jnp.dtype(out_dtype)
    check_args(a.shape, b.shape, a.dtype, b.dtype, bias, residual, activation, out_dtype,
               lambda d: d == jnp.bfloat16, lambda d: d == jnp.float32,
               lambda d: d == jnp.float8_e4m3fn, out_scale)
    lead = a.shape[:-1]
    a2 = a.reshape(-1, a.shape[-1])
    r2 = residual.reshape(-1, b.shape[1]) if residual is not None else None
    if out_dtype == jnp.float8_e4m3fn:       # no custom_vjp: no gradient
        c, amax = _run_jax(a2, b, bias, activation, r2, "e4m3", out_scale=out_scale)
        return c.reshape(*lead, b.shape[1]), amax
    c = jax_fn()(a2, b, bias, r2, activation, out_dtype == jnp.float32)
    return c.reshape(*lead, b.shape[1])
