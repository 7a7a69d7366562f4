"""Where pyptx.ops finds its kernels: the repository's examples (imported
lazily, the repository root put on sys.path when they are not importable
yet)."""
from __future__ import annotations

import math
import os
import sys

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))


def examples_kernel():
    """examples.hopper.flash_attention (the repository root on sys.path if
    it is not importable yet)."""
    try:
        from examples.hopper import flash_attention
    except ImportError:
        if not os.path.isdir(os.path.join(_ROOT, "examples", "hopper")):
            raise ImportError("pyptx.ops.flash_attention needs the repository's examples/ "
                              "(examples/hopper/flash_attention.py) importable") from None
        sys.path.append(_ROOT)
        from examples.hopper import flash_attention
    return flash_attention


def backward_kernel():
    """examples.hopper.flash_attention_bwd_seq.flash_attention_backward: the
    Hopper backward for every case the forward takes."""
    examples_kernel()
    from examples.hopper.flash_attention_bwd_seq import flash_attention_backward
    return flash_attention_backward


def backward_call(do, q, k, v, o, lse, cu_q, cu_k, static):
    """(dQ, dK, dV) from the backward kernels for contiguous arrays in the
    forward's layout (what the framework ops call)."""
    causal, scale, left, right, layout, max_q, max_k = static
    packed = cu_q is not None
    if scale == 1 / math.sqrt(q.shape[-1]):
        scale = None
    return backward_kernel()(q, k, v, o, do, lse, causal=causal, softmax_scale=scale,
                             window=(left, right), layout=layout, cu_seqlens_q=cu_q,
                             cu_seqlens_k=cu_k, max_seqlen_q=max_q if packed else None,
                             max_seqlen_k=max_k if packed else None)


def kernel_call(q, k, v, cu_q, cu_k, static):
    """(O, LSE) from the forward kernel for contiguous arrays (what the
    framework ops call)."""
    causal, scale, left, right, layout, max_q, max_k = static
    fa = examples_kernel()
    packed = cu_q is not None
    if scale == 1 / math.sqrt(q.shape[-1]):
        scale = None     # the default: the kernel of the plain call
    return fa.flash_attention(q, k, v, causal, softmax_scale=scale, window=(left, right),
                              layout=layout, cu_seqlens_q=cu_q, cu_seqlens_k=cu_k,
                              max_seqlen_q=max_q if packed else None,
                              max_seqlen_k=max_k if packed else None)
