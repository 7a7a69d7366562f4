"""JAX side of ``pyptx.ops.flash_attention``: a ``jax.custom_vjp`` per
static configuration whose forward and backward are the Hopper kernels
(XLA FFI calls, so they run under jax.jit). ``math_backward`` (float32
``jnp`` from the saved LSE) is the reference the tests compare with."""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from ._kernels import backward_call, kernel_call

_OPS: dict = {}


def readable_values(cu):
    """cu's values as a list, or None for a tracer (under jax.jit)."""
    try:
        return [int(x) for x in np.asarray(cu)]
    except (jax.errors.ConcretizationTypeError, jax.errors.TracerArrayConversionError):
        return None


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
    @jax.custom_vjp
    def attention(q, k, v, cu_q, cu_k):
        return kernel_call(q, k, v, cu_q, cu_k, static)

    def forward(q, k, v, cu_q, cu_k):
        o, lse = kernel_call(q, k, v, cu_q, cu_k, static)
        return (o, lse), (q, k, v, o, lse, cu_q, cu_k)

    def backward(saved, grads):
        q, k, v, o, lse, cu_q, cu_k = saved
        return tuple(backward_call(grads[0], q, k, v, o, lse, cu_q, cu_k, static)) + \
            (None, None)

    attention.defvjp(forward, backward)
    return attention


def apply(q, k, v, cu_q, cu_k, static):
    """(O, LSE) through the custom_vjp of `static`."""
    op = _OPS.get(static)
    if op is None:
        op = _OPS[static] = _make(static)
    return op(q, k, v, cu_q, cu_k)
