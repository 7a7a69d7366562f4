"""PyTorch side of ``pyptx.ops.flash_attention``: the forward and backward
as ``torch.library`` custom ops (fake implementations give the shapes, so
torch.compile traces them whole) and the ``torch.autograd.Function`` that
pairs them."""
from __future__ import annotations

from typing import Optional

import torch

from ._kernels import backward_call, kernel_call

Tensor = torch.Tensor


def readable_values(cu):
    """cu's values as a list, or None where reading them is not allowed
    (torch.compile tracing, CUDA graph capture)."""
    if torch.compiler.is_compiling() or torch.cuda.is_current_stream_capturing():
        return None
    return [int(x) for x in cu.tolist()]


def _lse_shape(q, packed, layout):
    if packed:
        return (q.shape[1], q.shape[0])
    return (q.shape[0], q.shape[2], q.shape[1]) if layout == "bshd" else tuple(q.shape[:3])


@torch.library.custom_op("pyptx::flash_attention_fwd", mutates_args=())
def flash_attention_fwd(q: Tensor, k: Tensor, v: Tensor, cu_q: Optional[Tensor],
                        cu_k: Optional[Tensor], causal: bool, scale: float, left: int,
                        right: int, layout: str, max_q: int,
                        max_k: int) -> tuple[Tensor, Tensor]:
    """(O, LSE) from the forward kernel."""
    o, lse = kernel_call(q, k, v, cu_q, cu_k, (causal, scale, left, right, layout, max_q,
                                               max_k))
    return o, lse


@flash_attention_fwd.register_fake
def _(q, k, v, cu_q, cu_k, causal, scale, left, right, layout, max_q, max_k):
    return torch.empty_like(q), q.new_empty(_lse_shape(q, cu_q is not None, layout),
                                            dtype=torch.float32)


@torch.library.custom_op("pyptx::flash_attention_bwd", mutates_args=())
def flash_attention_bwd(do: Tensor, q: Tensor, k: Tensor, v: Tensor, o: Tensor, lse: Tensor,
                        cu_q: Optional[Tensor], cu_k: Optional[Tensor], causal: bool,
                        scale: float, left: int, right: int, layout: str, max_q: int = 0,
                        max_k: int = 0) -> tuple[Tensor, Tensor, Tensor]:
    """(dQ, dK, dV) in q, k, v's layouts and dtype, from the backward kernels."""
    return backward_call(do, q, k, v, o, lse, cu_q, cu_k, (causal, scale, left, right,
                                                            layout, max_q, max_k))


@flash_attention_bwd.register_fake
def _(do, q, k, v, o, lse, cu_q, cu_k, causal, scale, left, right, layout, max_q=0, max_k=0):
    return torch.empty_like(q), torch.empty_like(k), torch.empty_like(v)


def visible(sq, sk, left, right, causal, device, cu_q=None, cu_k=None):
    """(sq, sk) bool: which keys each query row sees (dense: FlashAttention's
    bottom-right rule; packed: the same within each sequence). With
    math_backward, the float32 reference the tests compare the kernels
    with (it materialises seq_q x seq_k)."""
    right = 0 if causal else right
    tq = torch.arange(sq, device=device)
    tk = torch.arange(sk, device=device)
    if cu_q is None:
        i, j = (tq + (sk - sq))[:, None], tk[None, :]
        seen = torch.ones(sq, sk, dtype=torch.bool, device=device)
    else:
        cq, ck = cu_q.long(), cu_k.long()
        batch = cq.shape[0] - 1
        seg_q = torch.searchsorted(cq[1:], tq, right=True).clamp(max=batch - 1)
        seg_k = torch.searchsorted(ck[1:], tk, right=True).clamp(max=batch - 1)
        len_q, len_k = cq[1:] - cq[:-1], ck[1:] - ck[:-1]
        i = (tq - cq[seg_q] + len_k[seg_q] - len_q[seg_q])[:, None]
        j = (tk - ck[seg_k])[None, :]
        seen = (seg_q[:, None] == seg_k[None, :]) & (tq < cq[-1])[:, None] \
            & (tk < ck[-1])[None, :]
    if right >= 0:
        seen &= j <= i + right
    if left >= 0:
        seen &= j >= i - left
    return seen


def math_backward(do, q, k, v, o, lse, scale, seen):
    """f32 (dQ, dK, dV) of (batch, heads, seq, D) arrays recomputed from the
    LSE: P = exp(S*scale - LSE) where seen, dV = P^T dO, dS = P (dO V^T -
    rowsum(dO o O)), dQ = dS K * scale, dK = dS^T Q * scale; K/V gradients
    summed over each group of query heads."""
    B, H, Sq, D = q.shape
    group = H // k.shape[1]
    qf, of, dof = q.float(), o.float(), do.float()
    kf, vf = (x.float().repeat_interleave(group, 1) for x in (k, v))
    s = qf @ kf.transpose(-1, -2) * scale
    p = torch.exp(s - lse.float()[..., None]).masked_fill(~seen, 0.0)
    dv = p.transpose(-1, -2) @ dof
    dp = dof @ vf.transpose(-1, -2)
    ds = p * (dp - (dof * of).sum(-1, keepdim=True))
    dq = ds @ kf * scale
    dk = ds.transpose(-1, -2) @ qf * scale
    Sk = k.shape[2]
    dk, dv = (x.view(B, H // group, group, Sk, D).sum(2) for x in (dk, dv))
    return dq, dk, dv


class FlashAttention(torch.autograd.Function):
    """O, LSE = flash_attention_fwd(...); the backward calls
    flash_attention_bwd (LSE gets no gradient)."""

    @staticmethod
    def forward(ctx, q, k, v, cu_q, cu_k, static):
        o, lse = torch.ops.pyptx.flash_attention_fwd(q, k, v, cu_q, cu_k, *static)
        ctx.save_for_backward(q, k, v, o, lse, cu_q, cu_k)
        ctx.static = static
        ctx.mark_non_differentiable(lse)
        return o, lse

    @staticmethod
    def backward(ctx, do, _dlse):
        q, k, v, o, lse, cu_q, cu_k = ctx.saved_tensors
        dq, dk, dv = torch.ops.pyptx.flash_attention_bwd(do.contiguous(), q, k, v, o, lse,
                                                         cu_q, cu_k, *ctx.static)
        return dq, dk, dv, None, None, None


def apply(q, k, v, cu_q, cu_k, static):
    """FlashAttention.apply on contiguous q, k, v: (O, LSE)."""
    q, k, v = (x.contiguous() for x in (q, k, v))
    return FlashAttention.apply(q, k, v, cu_q, cu_k, static)
