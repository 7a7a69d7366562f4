"""``pyptx.ops.matmul_fp8``: C = (scale_a * a) @ (scale_b * b) for e4m3 a and
b on Hopper, through pyptx.pipeline.fp8_gemm's kernels, as a
``torch.library`` custom op with a fake implementation (eager, CUDA graphs,
torch.compile(fullgraph=True) without a graph break).

a: (M, K) float8_e4m3fn; b: (K, N) float8_e4m3fn, column-major (``w.t()``
of a row-major (N, K) weight: what ``torch._scaled_mm`` takes), read as
it lies. The scales are float32 CUDA tensors, and their shapes say the
scheme:

- per tensor: scale_a and scale_b with one element each (``()`` or
  ``(1,)``);
- row-wise: scale_a (M,) or (M, 1), one per row of a; scale_b (N,) or
  (1, N), one per column of b (row of the weight);
- block (DeepGEMM's): scale_a (M, ceil(K/128)), one per 1 x 128 block of
  a; scale_b (ceil(N/128), ceil(K/128)), one per 128 x 128 block of the
  weight w = b.t() (the layout DeepGEMM takes).

out_dtype: torch.bfloat16 (default) or torch.float32. K must be a multiple
of 16 (fp8 rows 16-byte aligned for TMA); K < 128 is padded to 128 and N
to a multiple of 8 (a copy of b, the fallback). Inputs that are already
e4m3 have no gradient: for training, ``matmul_fp8_dynamic``
(ops.matmul_fp8_train) quantises bf16/f32 operands each call and runs the
backward through these kernels.
Bad input raises MatmulError at the caller's line before any launch.
"""
from __future__ import annotations

import functools
import sys

from ..pipeline.fp8_gemm import BK, BLOCK, build_gemm_fp8, cdiv
from ..types import bf16, f32
from .matmul import MatmulError, _caller


def _fail(message):
    raise MatmulError(f"{_caller()}: pyptx.ops.matmul_fp8: {message}")


@functools.lru_cache(maxsize=None)
def gemm_fp8_kernel(M, N, K, scaling, out_f32):
    """The kernel for one call shape and scheme (cached)."""
    return build_gemm_fp8(M, N, K, scaling=scaling, out_dtype=f32 if out_f32 else bf16)


def scaling_of(M, N, K, sa_shape, sb_shape):
    """The scheme ("tensor", "row", "block") that scale shapes name, or None."""
    sa, sb = tuple(sa_shape), tuple(sb_shape)
    numel = [functools.reduce(lambda x, y: x * y, s, 1) for s in (sa, sb)]
    if numel == [1, 1] and len(sa) <= 1 and len(sb) <= 1:
        return "tensor"
    if sa in ((M,), (M, 1)) and sb in ((N,), (1, N)):
        return "row"
    if sa == (M, cdiv(K, BLOCK)) and sb == (cdiv(N, BLOCK), cdiv(K, BLOCK)):
        return "block"
    return None


def check_args(a, b, scale_a, scale_b, out_dtype):
    """Every check that needs no data; returns the scheme."""
    import torch
    for name, t in (("a", a), ("b", b), ("scale_a", scale_a), ("scale_b", scale_b)):
        if not isinstance(t, torch.Tensor):
            _fail(f"{name} must be a torch.Tensor; got {type(t).__name__}")
    if a.dim() != 2 or b.dim() != 2 or a.shape[1] != b.shape[0]:
        _fail(f"a must be (M, K) and b (K, N); got a {tuple(a.shape)}, b {tuple(b.shape)}")
    if a.dtype != torch.float8_e4m3fn or b.dtype != torch.float8_e4m3fn:
        _fail(f"a and b must be torch.float8_e4m3fn; got {a.dtype} and {b.dtype}")
    if scale_a.dtype != torch.float32 or scale_b.dtype != torch.float32:
        _fail(f"scale_a and scale_b must be float32; got {scale_a.dtype} and {scale_b.dtype}")
    if out_dtype not in (torch.bfloat16, torch.float32):
        _fail(f"out_dtype must be torch.bfloat16 or torch.float32; got {out_dtype}")
    (M, K), N = a.shape, b.shape[1]
    if min(M, N, K) == 0:
        _fail(f"empty operands: M={M} N={N} K={K}")
    if K % 16:
        _fail(f"K={K} must be a multiple of 16 (16-byte aligned fp8 rows for TMA)")
    if b.stride(0) != 1 or (N > 1 and b.stride(1) != K):
        _fail(f"b must be column-major, the transpose of a row-major (N, K) weight w "
              f"(pass w.t()); got strides {tuple(b.stride())}")
    scaling = scaling_of(M, N, K, scale_a.shape, scale_b.shape)
    if scaling is None:
        kb, nb = cdiv(K, BLOCK), cdiv(N, BLOCK)
        _fail(f"scale shapes {tuple(scale_a.shape)} and {tuple(scale_b.shape)} name no "
              f"scheme for M={M} N={N} K={K}: per tensor () and (); row-wise ({M},) and "
              f"({N},); block ({M}, {kb}) and ({nb}, {kb})")
    devices = {t.device for t in (a, b, scale_a, scale_b)}
    if len(devices) != 1 or next(iter(devices)).type != "cuda":
        _fail(f"a, b and the scales must be on one CUDA device; got "
              f"{sorted(map(str, devices))}")
    return scaling


def _run(a, b, scale_a, scale_b, scaling, out_f32):
    """The kernel on a (M, K), b (K, N) column-major, scales of `scaling`."""
    import torch
    import torch.nn.functional as F
    (M, K), N = a.shape, b.shape[1]
    w = b.t()                                  # (N, K) row-major: no copy
    a = a.contiguous()
    # checked here, on real tensors (torch.compile's tracing has no offsets);
    # allocations are 256-byte aligned, a view's offset is in bytes for fp8
    for name, t in (("a", a), ("b", w)):
        if t.storage_offset() % 16:
            _fail(f"{name} must start 16-byte aligned (TMA); it is a view at storage "
                  f"offset {t.storage_offset()}")
    # the kernel's scale tensors: (1,), (M,)/(N,), or the block matrices
    sa = scale_a.reshape(-1) if scaling != "block" else scale_a
    sb = scale_b.reshape(-1) if scaling != "block" else scale_b
    sa, sb = sa.contiguous(), sb.contiguous()
    if sb.storage_offset() % 4:
        sb = sb.clone()                        # row-wise sb is read in 8-byte pairs
    Kp, Np = max(K, BK), -(-N // 8) * 8
    if Kp != K or Np != N:
        # fp8 has no pad kernel in every PyTorch: pad the bytes
        a = F.pad(a.view(torch.uint8), (0, Kp - K)).view(torch.float8_e4m3fn)
        w = F.pad(w.view(torch.uint8), (0, Kp - K, 0, Np - N)).view(torch.float8_e4m3fn)
        if scaling == "row" and Np != N:
            sb = F.pad(sb, (0, Np - N))
    c = gemm_fp8_kernel(M, Np, Kp, scaling, out_f32)(a, w, sa, sb)
    return c[:, :N].contiguous() if Np != N else c


@functools.lru_cache(maxsize=None)
def torch_op():
    """The ``pyptx_ops::matmul_fp8`` custom op (made on first use) with its
    fake implementation."""
    import torch

    @torch.library.custom_op("pyptx_ops::matmul_fp8", mutates_args=(), schema=(
        "(Tensor a, Tensor b, Tensor scale_a, Tensor scale_b, str scaling, bool out_f32) "
        "-> Tensor"))
    def op(a, b, scale_a, scale_b, scaling, out_f32):
        return _run(a, b, scale_a, scale_b, scaling, out_f32)

    @op.register_fake
    def _(a, b, scale_a, scale_b, scaling, out_f32):
        return a.new_empty((a.shape[0], b.shape[1]),
                           dtype=torch.float32 if out_f32 else torch.bfloat16)

    return op


# Made at import when PyTorch is already loaded, so that torch.compile finds
# the op made (tracing its creation would break the graph).
_TORCH_OP = torch_op() if "torch" in sys.modules else None


def matmul_fp8(a, b, scale_a, scale_b, out_dtype=None):
    """(scale_a * a) @ (scale_b * b) in out_dtype (see the module doc)."""
    import torch
    out_dtype = torch.bfloat16 if out_dtype is None else out_dtype
    scaling = check_args(a, b, scale_a, scale_b, out_dtype)
    return (_TORCH_OP or torch_op())(a, b, scale_a, scale_b, scaling,
                                     out_dtype == torch.float32)
