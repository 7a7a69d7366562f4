"""The Hopper attention backward for every case the forward takes
(examples/hopper/flash_attention_bwd_seq.py) on the GPU: Q and K/V lengths
apart (1, 17, 127, 129, 1000 on either side; causal aligned bottom-right),
sliding windows with and without causal, the (batch, seq, heads, D) layout,
packed variable-length batches with empty sequences, grouped K/V heads in
each; D = 64 and 128. Random bf16 Q, K, V, dO (never zeros), O and LSE from
a float64 forward (LSE = +inf for a row that sees no key, as the forward
kernel gives), dQ, dK, dV against the float64 backward (relative error <=
2e-2 each); the outputs NaN-poisoned (out= tensors) and the f32 dQ
accumulator's and stats' blocks freed NaN-filled before each launch, so an
element left unwritten or unzeroed fails. The op's autograd
(pyptx.ops.flash_attention) on packed and cross-attention inputs, its
backward the kernels' (the float32 fallback is gone), in PyTorch and under
jax.jit(jax.grad) (packed and cross-attention).

Run as a script for compute-sanitizer (one packed and one window case, small):
    compute-sanitizer --tool memcheck python3 test/gpu/test_attention_bwd_features.py
"""
import math
import os
import sys

if __name__ == "__main__":  # run as a script (under compute-sanitizer): find the sources
    _ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
    sys.path[:0] = [os.path.join(_ROOT, "python"), _ROOT]

import pytest  # noqa: E402
import torch  # noqa: E402

from examples.hopper import flash_attention_bwd_seq as fs  # noqa: E402
from test_attention_features import visible as seen_mask  # noqa: E402  (the forward tests' mask)

SM90 = torch.cuda.is_available() and torch.cuda.get_device_capability() >= (9, 0)
pytestmark = pytest.mark.skipif(not SM90, reason="wgmma and TMA need sm_90a")

TOL = 2e-2


def randn(*shape, seed, scale=1.0):
    g = torch.Generator(device="cuda").manual_seed(seed)
    return (torch.randn(*shape, device="cuda", generator=g) * scale).to(torch.bfloat16)


def forward64(q, k, v, causal, window, scale=None):
    """(O bf16, LSE f32) of (B, H, Sq, D) q and (B, Hkv, Sk, D) k, v in
    float64; a row that sees no key: O = 0, LSE = +inf."""
    group = q.shape[1] // k.shape[1]
    scale = scale if scale is not None else 1 / math.sqrt(q.shape[-1])
    k64, v64 = (x.double().repeat_interleave(group, 1) for x in (k, v))
    s = q.double() @ k64.transpose(-1, -2) * scale
    s = s.masked_fill(~seen_mask(s.shape[-2], s.shape[-1], causal, window), float("-inf"))
    lse = torch.logsumexp(s, -1)
    o = torch.softmax(s, -1).nan_to_num(0.0) @ v64
    return o.to(torch.bfloat16), lse.masked_fill(lse == float("-inf"), float("inf")).float()


def poison_accumulators(cfg):
    """Frees NaN-filled blocks of the dQ accumulator's and the stats' sizes,
    so that the preprocess kernel's outputs start as NaN."""
    blocks = [torch.full((cfg.acc_rows, cfg.head_dim), float("nan"), device="cuda"),
              torch.full((cfg.acc_rows // 64, 128), float("nan"), device="cuda")]
    torch.cuda.synchronize()
    del blocks


def rel_err(x, ref):
    diff = (x.double() - ref).norm().item()
    scale = ref.norm().item()
    return diff / scale if scale else diff


def check(got, refs):
    errors = {}
    for name, x, ref in zip(("dQ", "dK", "dV"), got, refs):
        assert x.shape == ref.shape and x.dtype == torch.bfloat16, name
        assert not torch.isnan(x).any(), f"{name}: elements left unwritten (NaN)"
        errors[name] = rel_err(x, ref)
    assert all(e <= TOL for e in errors.values()), f"relative errors {errors} > {TOL}"
    return errors


def nan_like(x):
    return torch.full_like(x, float("nan"))


def run_dense(B, H, Hkv, Sq, Sk, D, causal, window=(-1, -1), layout="bhsd", scale=None,
              seed=0):
    q = randn(B, H, Sq, D, seed=seed, scale=2 ** 0.5)
    k = randn(B, Hkv, Sk, D, seed=seed + 1, scale=2 ** 0.5)
    v = randn(B, Hkv, Sk, D, seed=seed + 2)
    do = randn(B, H, Sq, D, seed=seed + 3)
    o, lse = forward64(q, k, v, causal, window, scale)
    refs = fs.reference(q, k, v, do, causal, scale, window)
    t = (lambda x: x.transpose(1, 2).contiguous()) if layout == "bshd" else (lambda x: x)
    args = [t(x) for x in (q, k, v, o, do)]
    out = tuple(nan_like(x) for x in args[:3])
    cfg = fs.config_of(*args[:3], causal=causal, softmax_scale=scale, window=window,
                       layout=layout)
    poison_accumulators(cfg)
    got = fs.flash_attention_backward(*args, lse, causal=causal, softmax_scale=scale,
                                      window=window, layout=layout, out=out)
    torch.cuda.synchronize()
    assert all(a.data_ptr() == b.data_ptr() for a, b in zip(got, out))
    back = (lambda x: x.transpose(1, 2)) if layout == "bshd" else (lambda x: x)
    return check([back(x) for x in got], refs)


CROSS = [  # B, H, Hkv, Sq, Sk, D, causal
    (1, 2, 2, 1, 1000, 128, True),      # decoding against a KV cache
    (1, 2, 2, 1000, 1, 64, False),
    (2, 2, 1, 17, 129, 128, True),
    (1, 4, 2, 129, 17, 64, True),       # causal, seq_q > seq_k: the first rows see nothing
    (1, 2, 2, 127, 1000, 64, False),
    (1, 2, 2, 1000, 127, 128, True),
    (1, 3, 3, 1000, 129, 128, False),
    (2, 4, 2, 17, 1, 128, True),
    (1, 2, 2, 129, 1000, 64, True),
    (1, 8, 2, 1000, 17, 128, False),
]


@pytest.mark.parametrize("B,H,Hkv,Sq,Sk,D,causal", CROSS)
def test_unequal_lengths(B, H, Hkv, Sq, Sk, D, causal):
    run_dense(B, H, Hkv, Sq, Sk, D, causal, seed=Sq + Sk + D)


WINDOWS = [  # B, H, Hkv, Sq, Sk, D, causal, window
    (1, 2, 2, 1000, 1000, 128, True, (100, -1)),
    (1, 2, 1, 512, 512, 64, False, (64, 64)),
    (1, 2, 2, 300, 700, 128, False, (50, 10)),
    (2, 4, 2, 1024, 1024, 64, True, (256, -1)),
    (1, 2, 2, 700, 300, 64, False, (0, 0)),
    (1, 2, 2, 1000, 1000, 128, False, (-1, 130)),
]


@pytest.mark.parametrize("B,H,Hkv,Sq,Sk,D,causal,window", WINDOWS)
def test_windows(B, H, Hkv, Sq, Sk, D, causal, window):
    run_dense(B, H, Hkv, Sq, Sk, D, causal, window, seed=window[0] + Sq)


@pytest.mark.parametrize("B,H,Hkv,S,D,causal", [(2, 4, 2, 1024, 128, True),
                                                (1, 2, 2, 1000, 64, False)])
def test_bshd_layout(B, H, Hkv, S, D, causal):
    run_dense(B, H, Hkv, S, S, D, causal, layout="bshd", scale=0.1, seed=S)


def run_packed(lens_q, lens_k, H, Hkv, D, causal, window=(-1, -1), seed=0):
    cu_q, cu_k = ([0] for _ in range(2))
    for a, b in zip(lens_q, lens_k):
        cu_q.append(cu_q[-1] + a)
        cu_k.append(cu_k[-1] + b)
    tq, tk = cu_q[-1], cu_k[-1]
    q = randn(tq, H, D, seed=seed, scale=2 ** 0.5)
    k = randn(tk, Hkv, D, seed=seed + 1, scale=2 ** 0.5)
    v = randn(tk, Hkv, D, seed=seed + 2)
    do = randn(tq, H, D, seed=seed + 3)
    o = torch.zeros_like(q)
    lse = torch.full((H, tq), float("inf"), device="cuda")
    refs = [torch.zeros(x.shape, dtype=torch.float64, device="cuda") for x in (q, k, v)]
    for b in range(len(lens_q)):
        (s, e), (s2, e2) = (cu_q[b], cu_q[b + 1]), (cu_k[b], cu_k[b + 1])
        if e == s:
            continue
        bh = [x.transpose(0, 1)[None] for x in (q[s:e], k[s2:e2], v[s2:e2], do[s:e])]
        if e2 == s2:      # no keys: no output, no gradient
            continue
        ob, lseb = forward64(*bh[:3], causal, window)
        o[s:e], lse[:, s:e] = ob[0].transpose(0, 1), lseb[0]
        for ref, g, (a, z) in zip(refs, fs.reference(*bh, causal, None, window),
                                  ((s, e), (s2, e2), (s2, e2))):
            ref[a:z] = g[0].transpose(0, 1)
    cuq, cuk = (torch.tensor(c, dtype=torch.int32, device="cuda") for c in (cu_q, cu_k))
    out = tuple(nan_like(x) for x in (q, k, v))
    cfg = fs.config_of(q, k, v, causal=causal, window=window, cu_seqlens_q=cuq,
                       cu_seqlens_k=cuk, max_seqlen_q=max(lens_q), max_seqlen_k=max(lens_k))
    poison_accumulators(cfg)
    got = fs.flash_attention_backward(q, k, v, o, do, lse, causal=causal, window=window,
                                      cu_seqlens_q=cuq, cu_seqlens_k=cuk,
                                      max_seqlen_q=max(lens_q), max_seqlen_k=max(lens_k),
                                      out=out)
    torch.cuda.synchronize()
    return check(got, refs)


PACKED = [  # lens_q, lens_k, H, Hkv, D, causal, window
    ([1000, 0, 17, 129, 64], [1000, 0, 17, 129, 64], 4, 2, 128, True, (-1, -1)),
    ([300, 1, 0, 700], [300, 1, 0, 700], 2, 2, 64, False, (-1, -1)),
    ([127, 500, 3], [300, 200, 129], 4, 1, 128, True, (-1, -1)),
    ([256, 0, 90], [100, 40, 300], 2, 2, 64, False, (32, 8)),
    ([640, 1, 333], [640, 1, 333], 8, 2, 64, True, (100, -1)),
    ([5, 0, 0], [0, 7, 0], 2, 1, 128, False, (-1, -1)),
]


@pytest.mark.parametrize("lens_q,lens_k,H,Hkv,D,causal,window", PACKED)
def test_packed(lens_q, lens_k, H, Hkv, D, causal, window):
    run_packed(lens_q, lens_k, H, Hkv, D, causal, window, seed=sum(lens_q) + D)


def test_repeat_launches_repeat_dk_dv():
    """dK, dV: no atomics, bit for bit; dQ: f32 bulk adds in any order."""
    q, k, v, do = (randn(1, 2, 300, 64, seed=i) for i in range(4))
    o, lse = forward64(q, k[:, :, :200], v[:, :, :200], True, (-1, -1))
    runs = [fs.flash_attention_backward(q, k[:, :, :200].contiguous(),
                                        v[:, :, :200].contiguous(), o, do, lse, causal=True)
            for _ in range(2)]
    torch.cuda.synchronize()
    assert torch.equal(runs[0][1], runs[1][1]) and torch.equal(runs[0][2], runs[1][2])
    assert rel_err(runs[1][0], runs[0][0].double()) < 1e-2


def test_op_backward_is_the_kernels(monkeypatch):
    """pyptx.ops.flash_attention's gradients for packed and cross-attention
    inputs, with the float32 recomputation made to fail if called."""
    from pyptx.ops import attention_torch, flash_attention

    def refuse(*_):
        raise AssertionError("the float32 fallback ran")
    monkeypatch.setattr(attention_torch, "math_backward", refuse)
    lens = [200, 0, 77, 500]
    cu = torch.tensor([0, 200, 200, 277, 777], dtype=torch.int32, device="cuda")
    q, k, v = (randn(777, h, 64, seed=i).requires_grad_() for i, h in enumerate((4, 2, 2)))
    do = randn(777, 4, 64, seed=9)
    flash_attention(q, k, v, causal=True, cu_seqlens_q=cu, cu_seqlens_k=cu,
                    max_seqlen_q=max(lens), max_seqlen_k=max(lens)).backward(do)
    for b in range(len(lens)):
        s, e = int(cu[b]), int(cu[b + 1])
        if e == s:
            continue
        bh = [x.detach()[s:e].transpose(0, 1)[None] for x in (q, k, v)]
        refs = fs.reference(*bh, do[s:e].transpose(0, 1)[None], True)
        for x, ref in zip((q, k, v), refs):
            assert rel_err(x.grad[s:e].transpose(0, 1)[None], ref) <= TOL
    # cross-attention, bshd: (B, S, H, D)
    q = randn(2, 100, 4, 128, seed=20).requires_grad_()
    k, v = (randn(2, 333, 1, 128, seed=21 + i).requires_grad_() for i in range(2))
    do = randn(2, 100, 4, 128, seed=23)
    flash_attention(q, k, v, causal=True).backward(do)
    refs = fs.reference(*(x.detach().transpose(1, 2) for x in (q, k, v)), do.transpose(1, 2),
                        True)
    for x, ref in zip((q, k, v), refs):
        assert rel_err(x.grad.transpose(1, 2), ref) <= TOL


def test_op_jax_grad_is_the_kernels():
    """jax.jit(jax.grad) through pyptx.ops.flash_attention: packed sequences
    (the rows after the last sequence get zero gradients) and bshd
    cross-attention with a window, against the float64 backward."""
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp
    import numpy as np

    from pyptx.ops import flash_attention

    def to_jax(x):
        return jnp.asarray(x.float().cpu().numpy(), jnp.bfloat16)

    def to_torch(x):
        return torch.from_numpy(np.asarray(x.astype(jnp.float32))).cuda().double()
    lens, total = [150, 0, 300, 1], 460          # 9 rows after the last sequence
    cu = [0, 150, 150, 450, 451]
    q, k, v, do = (randn(total, h, 64, seed=30 + i) for i, h in enumerate((4, 2, 2, 4)))

    def loss(a, b, c, cu_):
        o = flash_attention(a, b, c, causal=True, cu_seqlens_q=cu_, cu_seqlens_k=cu_,
                            max_seqlen_q=max(lens), max_seqlen_k=max(lens))
        return (o.astype(jnp.float32) * to_jax(do).astype(jnp.float32)).sum()
    grads = jax.jit(jax.grad(loss, argnums=(0, 1, 2)))(
        *(to_jax(x) for x in (q, k, v)), jnp.asarray(cu, jnp.int32))
    grads = [to_torch(g) for g in grads]
    for b in range(len(lens)):
        s_, e = cu[b], cu[b + 1]
        if e == s_:
            continue
        refs = fs.reference(*(x[s_:e].transpose(0, 1)[None] for x in (q, k, v, do)), True)
        for g, ref in zip(grads, refs):
            assert rel_err(g[s_:e].transpose(0, 1)[None], ref) <= TOL
    assert all(not g[451:].any() for g in grads)
    q, do = randn(1, 200, 4, 128, seed=40), randn(1, 200, 4, 128, seed=41)
    k, v = randn(1, 77, 2, 128, seed=42), randn(1, 77, 2, 128, seed=43)

    def cross(a, b, c):
        o = flash_attention(a, b, c, window=(30, 5))
        return (o.astype(jnp.float32) * to_jax(do).astype(jnp.float32)).sum()
    grads = jax.jit(jax.grad(cross, argnums=(0, 1, 2)))(*(to_jax(x) for x in (q, k, v)))
    refs = fs.reference(*(x.transpose(1, 2) for x in (q, k, v, do)), False, None, (30, 5))
    for g, ref in zip(grads, refs):
        assert rel_err(to_torch(g).transpose(1, 2), ref) <= TOL


if __name__ == "__main__":
    print("packed", run_packed([100, 0, 33], [70, 5, 130], 2, 1, 64, True, (40, -1)))
    print("window", run_dense(1, 2, 2, 200, 150, 128, False, (30, 20)))
