"""JAX side of ``pyptx.ops.flash_attention``: a ``jax.custom_vjp`` per
static configuration whose forward is the kernel (an XLA FFI call, so it
runs under jax.jit) and whose backward recomputes the gradients from the
saved LSE in float32 (``jnp``; the Hopper backward kernel takes PyTorch
tensors)."""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from ._kernels import kernel_call

_OPS: dict = {}


def readable_values(cu):
    """cu's values as a list, or None for a tracer (under jax.jit)."""
    try:
        return [int(x) for x in np.asarray(cu)]
    except (jax.errors.ConcretizationTypeError, jax.errors.TracerArrayConversionError):
        return None


def _as_bhsd(x, packed, layout):
    if packed:
        return jnp.swapaxes(x, 0, 1)[None]
    return jnp.swapaxes(x, 1, 2) if layout == "bshd" else x


def _from_bhsd(x, packed, layout):
    if packed:
        return jnp.swapaxes(x[0], 0, 1)
    return jnp.swapaxes(x, 1, 2) if layout == "bshd" else x


def visible(sq, sk, left, right, causal, cu_q=None, cu_k=None):
    """(sq, sk) bool: the keys each row sees (as attention_torch.visible)."""
    right = 0 if causal else right
    tq, tk = jnp.arange(sq), jnp.arange(sk)
    if cu_q is None:
        i, j = (tq + (sk - sq))[:, None], tk[None, :]
        seen = jnp.ones((sq, sk), bool)
    else:
        batch = cu_q.shape[0] - 1
        seg_q = jnp.minimum(jnp.searchsorted(cu_q[1:], tq, side="right"), batch - 1)
        seg_k = jnp.minimum(jnp.searchsorted(cu_k[1:], tk, side="right"), batch - 1)
        len_q, len_k = cu_q[1:] - cu_q[:-1], cu_k[1:] - cu_k[:-1]
        i = (tq - cu_q[seg_q] + len_k[seg_q] - len_q[seg_q])[:, None]
        j = (tk - cu_k[seg_k])[None, :]
        seen = (seg_q[:, None] == seg_k[None, :]) & (tq < cu_q[-1])[:, None] \
            & (tk < cu_k[-1])[None, :]
    if right >= 0:
        seen &= j <= i + right
    if left >= 0:
        seen &= j >= i - left
    return seen


def math_backward(do, q, k, v, o, lse, scale, seen):
    """f32 gradients of (batch, heads, seq, D) arrays (attention_torch.math_backward)."""
    B, H, Sq, D = q.shape
    group = H // k.shape[1]
    qf, of, dof = (x.astype(jnp.float32) for x in (q, o, do))
    kf, vf = (jnp.repeat(x.astype(jnp.float32), group, axis=1) for x in (k, v))
    s = qf @ jnp.swapaxes(kf, -1, -2) * scale
    p = jnp.where(seen, jnp.exp(s - lse.astype(jnp.float32)[..., None]), 0.0)
    dv = jnp.swapaxes(p, -1, -2) @ dof
    dp = dof @ jnp.swapaxes(vf, -1, -2)
    ds = p * (dp - (dof * of).sum(-1, keepdims=True))
    dq = ds @ kf * scale
    dk = jnp.swapaxes(ds, -1, -2) @ qf * scale
    Sk = k.shape[2]
    dk, dv = (x.reshape(B, H // group, group, Sk, D).sum(2) for x in (dk, dv))
    return dq, dk, dv


def _make(static):
    causal, scale, left, right, layout, _, _ = static

    @jax.custom_vjp
    def attention(q, k, v, cu_q, cu_k):
        return kernel_call(q, k, v, cu_q, cu_k, static)

    def forward(q, k, v, cu_q, cu_k):
        o, lse = kernel_call(q, k, v, cu_q, cu_k, static)
        return (o, lse), (q, k, v, o, lse, cu_q, cu_k)

    def backward(saved, grads):
        q, k, v, o, lse, cu_q, cu_k = saved
        packed = cu_q is not None
        qb, kb, vb, ob, dob = (_as_bhsd(x, packed, layout) for x in (q, k, v, o, grads[0]))
        lseb = lse[None] if packed else lse
        seen = visible(qb.shape[2], kb.shape[2], left, right, causal, cu_q, cu_k)
        dq, dk, dv = math_backward(dob, qb, kb, vb, ob, lseb, scale, seen)
        return tuple(_from_bhsd(g, packed, layout).astype(x.dtype)
                     for g, x in zip((dq, dk, dv), (q, k, v))) + (None, None)

    attention.defvjp(forward, backward)
    return attention


def apply(q, k, v, cu_q, cu_k, static):
    """(O, LSE) through the custom_vjp of `static`."""
    op = _OPS.get(static)
    if op is None:
        op = _OPS[static] = _make(static)
    return op(q, k, v, cu_q, cu_k)
