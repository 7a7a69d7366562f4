"""``pyptx.ops.matmul_fp8_dynamic``: a @ b through the Hopper FP8 (e4m3) GEMM
with scales computed at each call from the operands' absolute maxima
(dynamic scaling, as torchao's Float8Linear and DeepSeek-V3's training
do), differentiable: the backward quantises the incoming gradient the same
way and runs both gradient products through the same FP8 kernels.

a: (..., K) and b: (K, N), bfloat16 or float32 (a linear layer's weight w
(N, K) passes as ``w.t()``). scaling names where one scale applies (each
maps its group's largest |x| to 448, e4m3's largest finite value):

- "tensor": one scale for each operand;
- "row": one per row of a and one per row of w = b.t() (per column of b);
- "block": DeepGEMM's, one per 1 x 128 block of a and per 128 x 128 block
  of w.

Every product C = X @ Y runs as the kernel's C = (sx X8) (sw W8)^T with X8
(M, K) and W8 = Y^T (N, K) both K-major (FP8 wgmma's rule) and their
scales along the contraction. Quantising writes a new e4m3 operand: X8
row-major from X, W8 from Y^T, contiguous in either case (so an operand
whose rows are not along the contraction is transposed by that same copy,
in 1-byte elements). Per call:

- forward, C = a @ b: a -> a8 (its layout), b -> w8 (a copy of w's
  layout; a transpose when b is row-major);
- dA = dC @ w: dC -> dC8 (its layout), w^T = b -> (K, N) e4m3 along N (a
  transpose when b is ``w.t()``);
- dB: when b is ``w.t()``, dW = dC^T @ a (dC^T and a^T quantised along
  M: both transposed), returned as its (K, N) view dW.t(), the weight's
  layout; else dB = a^T @ dC (the same two transposes).

Shapes: K and N multiples of 16 (the e4m3 rows of each product are 16-byte
aligned for TMA); any M (the dB product's contraction over M is zero-padded
in its quantise copy, as is any K below 128; block scaling pads each
contraction to a multiple of 128). out_dtype: a's dtype by default, or
bf16 / f32; the gradients come in the dtypes of a and b.

Where it runs: a ``torch.library`` custom op with a fake implementation
and an autograd formula (eager, CUDA graphs: the scales are computed on
the device at each replay; torch.compile(fullgraph=True) without a graph
break), and a ``jax.custom_vjp`` (jax.jit, jax.grad). Bad input raises
MatmulError at the caller's line before any launch.
"""
from __future__ import annotations

import functools
import sys
from types import SimpleNamespace

from ..pipeline.fp8_gemm import BK, BLOCK, SCALINGS, cdiv
from .matmul import MatmulError, _caller, check_operand_shapes
from .matmul_fp8 import gemm_fp8_kernel

E4M3_MAX = 448.0
SCALE_FLOOR = 1e-12     # the amax of an all-zero group: its scale stays finite
# (rows, columns) of the group one scale covers, for the left operand X and
# the right one W = Y^T of a product; None: the whole extent
GROUPS = {"tensor": ((None, None), (None, None)),
          "row": ((1, None), (1, None)),
          "block": ((1, BLOCK), (BLOCK, BLOCK))}


def _fail(message):
    raise MatmulError(f"{_caller()}: pyptx.ops.matmul_fp8_dynamic: {message}")


def padded_k(K: int, scaling: str) -> int:
    """The contraction the kernel runs for K: a multiple of 128 for block
    scales (each scale block whole), else of 16 and at least 128 (one
    swizzled row per TMA box). The padding is zeros: it adds nothing."""
    if scaling == "block":
        return cdiv(K, BLOCK) * BLOCK
    return max(cdiv(K, 16) * 16, BK)


# -- quantising (framework ops) -------------------------------------------------------------

@functools.lru_cache(maxsize=None)
def framework(name: str):
    """The few array operations the quantiser needs, for "torch" or "jax"."""
    if name == "torch":
        import torch
        import torch.nn.functional as F
        return SimpleNamespace(
            f32=lambda x: x.float(), t=lambda x: x.t(),
            pad=lambda x, rows, cols: F.pad(x, (0, cols, 0, rows)),
            block_amax=lambda x4: x4.abs().amax(dim=(1, 3), keepdim=True),
            floor=lambda x: x.clamp(min=SCALE_FLOOR),
            clip=lambda x: x.clamp(-E4M3_MAX, E4M3_MAX),
            e4m3=lambda x: x.to(torch.float8_e4m3fn).contiguous())
    import jax.numpy as jnp
    return SimpleNamespace(
        f32=lambda x: x.astype(jnp.float32), t=lambda x: x.T,
        pad=lambda x, rows, cols: jnp.pad(x, ((0, rows), (0, cols))),
        block_amax=lambda x4: jnp.abs(x4).max(axis=(1, 3), keepdims=True),
        floor=lambda x: jnp.maximum(x, SCALE_FLOOR),
        clip=lambda x: jnp.clip(x, -E4M3_MAX, E4M3_MAX),
        e4m3=lambda x: x.astype(jnp.float8_e4m3fn))


def _framework_of(x):
    return framework("torch" if type(x).__module__.startswith("torch") else "jax")


def quantize_e4m3(x, group, cols=None):
    """(x8, scale) for a 2-D float array x (R, C) (a torch tensor or a JAX
    array): scale holds one f32 per group of (rows, columns) = `group`
    (None: the whole extent), amax(|group|) / 448 (floored at 1e-12;
    computed as amax times f32(1/448), within an ulp), and
    x8 = clamp(x / scale, +-448) in e4m3, row-major (R, cols): columns
    past C (to `cols`) are zeros. scale's shape is what the kernel takes:
    (1,) for one group, (R,) for one per row, else (ceil(R / rows),
    cols / columns); with column groups, cols must be a multiple of them."""
    fw = _framework_of(x)
    R, C = x.shape
    cols = C if cols is None else cols
    rows_per, cols_per = group[0] or R, group[1] or cols
    if cols % cols_per:
        raise ValueError(f"quantize_e4m3: cols={cols} must be a multiple of the group's "
                         f"{cols_per} columns")
    Rp = cdiv(R, rows_per) * rows_per
    x = fw.f32(x)
    if Rp != R or cols != C:
        x = fw.pad(x, Rp - R, cols - C)
    x4 = x.reshape(Rp // rows_per, rows_per, cols // cols_per, cols_per)
    # times the reciprocal (not / 448): XLA rewrites a division by a constant
    # that way on some backends; written so, both frameworks agree bit for bit
    scale = fw.floor(fw.block_amax(x4)) * (1 / E4M3_MAX)
    x8 = fw.e4m3(fw.clip(x4 / scale).reshape(Rp, cols)[:R])
    scale = scale.reshape(Rp // rows_per, cols // cols_per)
    return x8, (scale.reshape(-1) if group[1] is None else scale)


def _launch(M, N, K, scaling, out_f32, x8, w8, sx, sw):
    """The FP8 kernel on x8 (M, K) and w8 (N, K): C (M, N) (tests on the CPU
    stand in a float64 emulation here)."""
    return gemm_fp8_kernel(M, N, K, scaling, out_f32)(x8, w8, sx, sw)


def product(x, y, scaling, out_f32):
    """x (M, K) @ y (K, N) for float arrays: x quantised to X8 along its rows,
    y^T to W8 (N, K) along its rows, then the FP8 kernel (bf16 out, or f32)."""
    fw = _framework_of(x)
    (M, K), N = x.shape, y.shape[1]
    Kp = padded_k(K, scaling)
    x_group, w_group = GROUPS[scaling]
    x8, sx = quantize_e4m3(x, x_group, Kp)
    w8, sw = quantize_e4m3(fw.t(y), w_group, Kp)
    return _launch(M, N, Kp, scaling, out_f32, x8, w8, sx, sw)


def check_args(a_shape, b_shape, a_dtype, b_dtype, scaling, out_dtype, is_float):
    """Shapes, dtypes and the scheme (framework-neutral): a clear MatmulError."""
    check_operand_shapes(a_shape, b_shape, _fail)
    if not is_float(a_dtype) or not is_float(b_dtype):
        _fail(f"a and b must be bfloat16 or float32 (they are quantised to e4m3 here); "
              f"got {a_dtype} and {b_dtype}")
    if scaling not in SCALINGS:
        _fail(f"scaling must be one of {', '.join(map(repr, SCALINGS))}; got {scaling!r}")
    if not is_float(out_dtype):
        _fail(f"out_dtype must be bfloat16 or float32; got {out_dtype}")
    K, N = b_shape
    M = 1
    for d in a_shape[:-1]:
        M *= d
    if min(M, N, K) == 0:
        _fail(f"empty operands: a {tuple(a_shape)}, b {tuple(b_shape)}")
    if K % 16 or N % 16:
        _fail(f"K={K} and N={N} must be multiples of 16 (the e4m3 rows of the forward and "
              f"of both gradient products are 16-byte aligned for TMA)")


def matmul_fp8_dynamic(a, b, scaling="row", out_dtype=None):
    """a @ b through the FP8 GEMM with scales computed at each call,
    differentiable in a and b, on PyTorch CUDA tensors or JAX arrays (see
    the module doc)."""
    if type(a).__module__.startswith("torch"):
        return _matmul_torch(a, b, scaling, out_dtype)
    if type(a).__module__.startswith(("jax", "jaxlib")):
        return _matmul_jax(a, b, scaling, out_dtype)
    _fail(f"a must be a torch.Tensor or a jax.Array; got {type(a).__name__}")


# -- PyTorch -----------------------------------------------------------------------------

@functools.lru_cache(maxsize=None)
def torch_op():
    """The ``pyptx_ops::matmul_fp8_dynamic`` custom op (made on first use)
    with its fake implementation and autograd formula."""
    import torch

    @torch.library.custom_op("pyptx_ops::matmul_fp8_dynamic", mutates_args=(),
                             schema="(Tensor a, Tensor b, str scaling, bool out_f32) -> Tensor")
    def op(a, b, scaling, out_f32):
        return product(a, b, scaling, out_f32)

    @op.register_fake
    def _(a, b, scaling, out_f32):
        return a.new_empty((a.shape[0], b.shape[1]),
                           dtype=torch.float32 if out_f32 else torch.bfloat16)

    def setup_context(ctx, inputs, output):
        a, b, scaling, _ = inputs
        ctx.save_for_backward(a, b)
        ctx.scaling = scaling

    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        da = db = None
        if ctx.needs_input_grad[0]:
            da = op(grad, b.t(), ctx.scaling, a.dtype == torch.float32)
        if ctx.needs_input_grad[1]:
            b_f32 = b.dtype == torch.float32
            if b.stride(0) == 1 and b.shape[1] > 1:    # b = w.t(): dW, in w's layout
                db = op(grad.t(), a, ctx.scaling, b_f32).t()
            else:
                db = op(a.t(), grad, ctx.scaling, b_f32)
        return da, db, None, None

    op.register_autograd(backward, setup_context=setup_context)
    return op


# Made at import when PyTorch is already loaded, so that torch.compile finds
# the op made (tracing its creation would break the graph).
_TORCH_OP = torch_op() if "torch" in sys.modules else None


def _matmul_torch(a, b, scaling, out_dtype):
    import torch
    out_dtype = a.dtype if out_dtype is None else out_dtype
    if not isinstance(b, torch.Tensor):
        _fail(f"b must be a torch.Tensor like a; got {type(b).__name__}")
    floats = (torch.bfloat16, torch.float32)
    check_args(a.shape, b.shape, a.dtype, b.dtype, scaling, out_dtype, lambda d: d in floats)
    if a.device != b.device or a.device.type != "cuda":
        _fail(f"a and b must be on one CUDA device; got {a.device} and {b.device}")
    lead = a.shape[:-1]
    c = (_TORCH_OP or torch_op())(a.reshape(-1, a.shape[-1]), b, scaling,
                                  out_dtype == torch.float32)
    return c.reshape(*lead, b.shape[1])


# -- JAX ---------------------------------------------------------------------------------

@functools.lru_cache(maxsize=None)
def jax_fn():
    """The custom_vjp function (made on first use)."""
    import jax
    import jax.numpy as jnp

    @functools.partial(jax.custom_vjp, nondiff_argnums=(2, 3))
    def mm(a, b, scaling, out_f32):
        return product(a, b, scaling, out_f32)

    def fwd(a, b, scaling, out_f32):
        return mm(a, b, scaling, out_f32), (a, b)

    def bwd(scaling, out_f32, saved, grad):
        a, b = saved
        da = product(grad, b.T, scaling, a.dtype == jnp.float32)
        db = product(a.T, grad, scaling, b.dtype == jnp.float32)
        return da, db

    mm.defvjp(fwd, bwd)
    return mm


def _matmul_jax(a, b, scaling, out_dtype):
    import jax.numpy as jnp
    out_dtype = a.dtype if out_dtype is None else jnp.dtype(out_dtype)
    floats = (jnp.bfloat16, jnp.float32)
    check_args(a.shape, b.shape, a.dtype, b.dtype, scaling, out_dtype, lambda d: d in floats)
    lead = a.shape[:-1]
    c = jax_fn()(a.reshape(-1, a.shape[-1]), b, scaling, out_dtype == jnp.float32)
    return c.reshape(*lead, b.shape[1])
