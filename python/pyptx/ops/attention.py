"""``pyptx.ops.flash_attention``: the Hopper flash attention kernel
(examples/hopper/flash_attention.py) as an operation a model trains with.

    o = flash_attention(q, k, v, causal=True)                     # (B, S, H, D)
    o = flash_attention(q, k, v, layout="bhsd", window=(256, 0))  # (B, H, S, D)
    o = flash_attention(q, k, v, cu_seqlens_q=cu, cu_seqlens_k=cu,
                        max_seqlen_q=m, max_seqlen_k=m)           # (total, H, D)

PyTorch: a ``torch.autograd.Function`` whose forward and backward are
``torch.library`` custom ops (``pyptx::flash_attention_fwd`` / ``_bwd``)
with fake implementations, so it runs eagerly, under
``torch.compile(fullgraph=True)`` and in CUDA graphs. JAX: a
``jax.custom_vjp`` (jit, grad). The backward is the Hopper backward
kernels for every case the forward takes (examples/hopper/flash_attention_bwd.py
for equal-length (batch, heads, seq, D) PyTorch tensors without a window,
flash_attention_bwd_seq.py for the rest and for JAX arrays).

Arguments are checked before anything is launched, and a mistake raises
:class:`OpArgumentError` (a ValueError) located at the caller's line:
dtypes (bf16 q, k, v; int32 cu_seqlens), devices, head_dim (64, 128),
heads_q not a multiple of heads_kv, shapes that do not fit together,
cu_seqlens not increasing from 0 or longer than max_seqlen (read from the
device in eager PyTorch calls and concrete JAX arrays only: under
torch.compile, CUDA graph capture or jax.jit the values are not known).
"""
from __future__ import annotations

import math
import os
import sys

from ..errors import KernelError
from ._kernels import examples_kernel

_PYPTX_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_SKIP = ("/torch/", "/jax/", "/jaxlib/", "<frozen", "/examples/hopper/", "/contextlib.py")


class OpArgumentError(KernelError, ValueError):
    """Bad arguments to a pyptx op, located at the caller's line."""


def _refuse(message):
    frame = sys._getframe(1)
    while frame is not None and (frame.f_code.co_filename.startswith(_PYPTX_DIR)
                                 or any(s in frame.f_code.co_filename for s in _SKIP)):
        frame = frame.f_back
    where = (frame.f_code.co_filename, frame.f_lineno) if frame else ("", 0)
    raise OpArgumentError(f"flash_attention: {message}", *where, 0)


# -- argument checks ---------------------------------------------------------------------

def _check(q, k, v, cu_q, cu_k, max_q, max_k, causal, softmax_scale, window, layout,
           torch_side):
    """The kernel's arguments (a dict) after every check that does not need
    the data; refuses at the caller's line."""
    fa = examples_kernel()
    if layout not in ("bshd", "bhsd"):
        _refuse(f"layout must be 'bshd' or 'bhsd', not {layout!r}")
    if (not isinstance(window, (tuple, list)) or len(window) != 2
            or not all(type(w) is int and w >= -1 for w in window)):
        _refuse(f"window must be (left, right), ints >= -1 (-1: unbounded), not {window!r}")
    if softmax_scale is not None and (type(softmax_scale) not in (int, float)
                                      or not 0 < softmax_scale < math.inf):
        _refuse(f"softmax_scale must be a positive finite number, not {softmax_scale!r}")
    if causal not in (True, False):
        _refuse(f"causal must be True or False, not {causal!r}")
    names = ("q", "k", "v")
    for name, x in zip(names, (q, k, v)):
        if str(x.dtype) not in ("bfloat16", "torch.bfloat16"):
            _refuse(f"{name} must be bfloat16, not {x.dtype}")
    for name, x in (("cu_seqlens_q", cu_q), ("cu_seqlens_k", cu_k)):
        if x is not None and str(x.dtype) not in ("int32", "torch.int32"):
            _refuse(f"{name} must be int32, not {x.dtype}")
    for name, value in (("max_seqlen_q", max_q), ("max_seqlen_k", max_k)):
        if value is not None and (type(value) is not int or value < 0):
            _refuse(f"{name} must be a non-negative int, not {value!r}")
    args = fa.kernel_arguments(q, k, v, causal=causal, softmax_scale=softmax_scale,
                               window=tuple(window), layout=layout, cu_seqlens_q=cu_q,
                               cu_seqlens_k=cu_k, max_seqlen_q=max_q, max_seqlen_k=max_k,
                               refuse=_refuse, bm=fa.BM)
    if args["head_dim"] not in fa.HEAD_DIMS:
        _refuse(f"head_dim={args['head_dim']} is not supported (64 or 128)")
    if args["heads"] % args["heads_kv"]:
        _refuse(f"heads_q={args['heads']} is not a multiple of heads_kv={args['heads_kv']}")
    if torch_side:
        tensors = [(n, x) for n, x in zip(names + ("cu_seqlens_q", "cu_seqlens_k"),
                                          (q, k, v, cu_q, cu_k)) if x is not None]
        devices = {str(x.device) for _, x in tensors}
        if len(devices) != 1 or q.device.type != "cuda":
            _refuse("q, k, v (and cu_seqlens) must be on one CUDA device; got "
                    + ", ".join(f"{n} on {x.device}" for n, x in tensors))
    return args


def _check_offsets(name, cu, total, max_len, as_list):
    """cu_seqlens values (when they can be read): from 0, increasing, ending
    within the packed tensor, no sequence longer than max_len."""
    values = as_list(cu)
    if values is None:
        return
    if values[0] != 0 or any(b < a for a, b in zip(values, values[1:])):
        _refuse(f"{name} must start at 0 and not decrease; got {values[:8]}"
                + (" ..." if len(values) > 8 else ""))
    if values[-1] > total:
        _refuse(f"{name} ends at {values[-1]}, past the packed tensor's {total} rows")
    longest = max(b - a for a, b in zip(values, values[1:]))
    if longest > max_len:
        _refuse(f"{name} has a sequence of {longest} rows, longer than its max_seqlen "
                f"{max_len}")


def flash_attention(q, k, v, causal: bool = False, softmax_scale=None, window=(-1, -1),
                    layout: str = "bshd", cu_seqlens_q=None, cu_seqlens_k=None,
                    max_seqlen_q=None, max_seqlen_k=None, return_lse: bool = False):
    """Attention O = softmax(Q K^T * scale) V (scale = 1/sqrt(D) unless
    given) of bf16 PyTorch tensors or JAX arrays, differentiable in q, k, v.

    layout "bshd" (batch, seq, heads, D), as FlashAttention takes it, or
    "bhsd" (batch, heads, seq, D), as sdpa does; k and v may have fewer
    heads (dividing q's: grouped-/multi-query) and another length. causal
    is aligned bottom-right (query i sees keys j <= i + seq_k - seq_q);
    window=(left, right) keeps keys i + seq_k - seq_q - left <= j <=
    i + seq_k - seq_q + right (-1: unbounded). Packed sequences: q (total_q,
    heads, D), k and v (total_k, heads_kv, D), cu_seqlens_q/k int32
    (batch+1 cumulative offsets) and max_seqlen_q/k. A row that sees no key
    gets zeros. return_lse: also the f32 log-sum-exp of each row ((batch,
    heads, seq_q); packed: (heads, total_q)); it gets no gradient."""
    torch_side = type(q).__module__.startswith("torch")
    if (cu_seqlens_q is None) != (cu_seqlens_k is None):
        _refuse("pass both cu_seqlens_q and cu_seqlens_k, or neither")
    window = tuple(window) if isinstance(window, (tuple, list)) else window
    args = _check(q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k, causal,
                  softmax_scale, window, layout, torch_side)
    scale = 1 / math.sqrt(args["head_dim"]) if softmax_scale is None else float(softmax_scale)
    static = (bool(causal), scale, int(window[0]), int(window[1]), layout,
              int(max_seqlen_q or 0), int(max_seqlen_k or 0))
    if torch_side:
        from . import attention_torch
        if cu_seqlens_q is not None:
            as_list = attention_torch.readable_values
            _check_offsets("cu_seqlens_q", cu_seqlens_q, q.shape[0], max_seqlen_q, as_list)
            _check_offsets("cu_seqlens_k", cu_seqlens_k, k.shape[0], max_seqlen_k, as_list)
        o, lse = attention_torch.apply(q, k, v, cu_seqlens_q, cu_seqlens_k, static)
    else:
        from . import attention_jax
        if cu_seqlens_q is not None:
            as_list = attention_jax.readable_values
            _check_offsets("cu_seqlens_q", cu_seqlens_q, q.shape[0], max_seqlen_q, as_list)
            _check_offsets("cu_seqlens_k", cu_seqlens_k, k.shape[0], max_seqlen_k, as_list)
        o, lse = attention_jax.apply(q, k, v, cu_seqlens_q, cu_seqlens_k, static)
    return (o, lse) if return_lse else o
