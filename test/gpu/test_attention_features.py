"""The flash attention forward's features on the GPU (examples/hopper/
flash_attention.py's general kernel and pyptx.ops.flash_attention):
softmax_scale, grouped- and multi-query K/V, any lengths (1, 17, 127, 129,
1000; Q and K/V apart, causal bottom-right, rows with no key), sliding
windows, the bshd layout, packed sequences with empty ones; each against
a float64 reference, outputs poisoned with NaN before the launch, relative
error of O <= 2e-2 and LSE within 2e-3. The op: autograd gradients
against float64 autograd, torch.compile(fullgraph=True), a CUDA graph,
JAX jit and grad.

Run as a script for compute-sanitizer (small launches):
    compute-sanitizer --tool memcheck python3 test/gpu/test_attention_features.py
"""
import math
import os
import sys

if __name__ == "__main__":
    _ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
    sys.path[:0] = [os.path.join(_ROOT, "python"), _ROOT]

import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402

from examples.hopper import flash_attention as fa  # noqa: E402

SM90 = torch.cuda.is_available() and torch.cuda.get_device_capability() >= (9, 0)
pytestmark = pytest.mark.skipif(not SM90, reason="wgmma and TMA need sm_90a")

O_TOL, LSE_TOL = 2e-2, 2e-3


def randn(*shape, seed=0):
    g = torch.Generator(device="cuda").manual_seed(seed)
    return (torch.randn(*shape, device="cuda", generator=g) * 2 ** 0.5).to(torch.bfloat16)


def visible(sq, sk, causal, window):
    left, right = window[0], 0 if causal else window[1]
    i = torch.arange(sq, device="cuda")[:, None] + (sk - sq)
    j = torch.arange(sk, device="cuda")[None, :]
    seen = torch.ones(sq, sk, dtype=torch.bool, device="cuda")
    if right >= 0:
        seen &= j <= i + right
    if left >= 0:
        seen &= j >= i - left
    return seen


def reference(q, k, v, causal=False, scale=None, window=(-1, -1)):
    """float64 (O, LSE) of (B, H, S, D) q and (B, Hk, Sk, D) k, v; rows with no
    key: O = 0, LSE = +inf (pyptx.pipeline.attention.reference's rules)."""
    scale = 1 / math.sqrt(q.shape[-1]) if scale is None else scale
    group = q.shape[1] // k.shape[1]
    k64, v64 = (x.double().repeat_interleave(group, 1) for x in (k, v))
    s = q.double() @ k64.transpose(-1, -2) * scale
    s = s.masked_fill(~visible(q.shape[2], k.shape[2], causal, window), float("-inf"))
    lse = torch.logsumexp(s, -1)
    empty = torch.isinf(lse) & (lse < 0)
    o = torch.softmax(s, -1).nan_to_num(0.0) @ v64
    return o, lse.masked_fill(empty, float("inf"))


def poisoned(*shapes_dtypes):
    """NaN blocks freed just before the launch: the outputs reuse them."""
    blocks = [torch.full(s, float("nan"), dtype=d, device="cuda") for s, d in shapes_dtypes]
    torch.cuda.synchronize()
    addresses = [b.data_ptr() for b in blocks]
    del blocks
    return addresses


def check(o, lse, ref_o, ref_lse, poisoned_at=None):
    if poisoned_at is not None:
        assert [o.data_ptr(), lse.data_ptr()] == poisoned_at, "outputs not in the poisoned blocks"
    assert not torch.isnan(o).any(), "O elements left unwritten (NaN)"
    assert not torch.isnan(lse).any(), "LSE elements left unwritten (NaN)"
    err = ((o.double() - ref_o).norm() / ref_o.norm().clamp_min(1e-30)).item()
    finite = torch.isfinite(ref_lse)
    assert torch.equal(torch.isinf(lse), ~finite), "rows with no key: LSE must be +inf"
    lse_err = (lse.double() - ref_lse)[finite].abs().max().item() if finite.any() else 0.0
    assert err <= O_TOL, f"O relative error {err:.3e} > {O_TOL}"
    assert lse_err <= LSE_TOL, f"LSE max abs error {lse_err:.3e} > {LSE_TOL}"
    return err, lse_err


def run_dense(B, H, Hk, Sq, Sk, D, causal=False, scale=None, window=(-1, -1), layout="bhsd",
              seed=0):
    q = randn(B, H, Sq, D, seed=seed)
    k, v = randn(B, Hk, Sk, D, seed=seed + 1), randn(B, Hk, Sk, D, seed=seed + 2)
    ref_o, ref_lse = reference(q, k, v, causal, scale, window)
    if layout == "bshd":
        q, k, v = (x.transpose(1, 2).contiguous() for x in (q, k, v))
        ref_o = ref_o.transpose(1, 2)
    at = poisoned((q.shape, torch.bfloat16), ((B, H, Sq), torch.float32))
    o, lse = fa.flash_attention(q, k, v, causal, softmax_scale=scale, window=window,
                                layout=layout)
    torch.cuda.synchronize()
    return check(o, lse, ref_o, ref_lse, at)


DENSE = [
    # B, H, Hk, Sq, Sk, D, causal, scale, window, layout
    (2, 2, 2, 1, 1, 64, False, None, (-1, -1), "bhsd"),
    (1, 2, 2, 17, 17, 128, True, None, (-1, -1), "bhsd"),
    (2, 2, 2, 127, 129, 64, True, None, (-1, -1), "bhsd"),      # bottom-right causal
    (1, 3, 3, 129, 1000, 128, False, 0.05, (-1, -1), "bshd"),   # cross-attention, scale
    (1, 2, 2, 1000, 1000, 128, True, None, (-1, -1), "bhsd"),
    (2, 2, 2, 1000, 127, 64, True, None, (-1, -1), "bhsd"),     # rows with no key
    (2, 8, 2, 1000, 1000, 128, True, None, (-1, -1), "bshd"),   # GQA
    (1, 4, 1, 256, 256, 64, False, 0.3, (-1, -1), "bhsd"),      # MQA, aligned
    (1, 2, 2, 1000, 900, 128, False, None, (64, 32), "bhsd"),   # window
    (2, 4, 2, 513, 513, 64, True, None, (100, -1), "bshd"),     # causal + left window
]


@pytest.mark.parametrize("B,H,Hk,Sq,Sk,D,causal,scale,window,layout", DENSE)
def test_dense_matches_float64(B, H, Hk, Sq, Sk, D, causal, scale, window, layout):
    run_dense(B, H, Hk, Sq, Sk, D, causal, scale, window, layout, seed=Sq + Sk)


def packed(lens_q, lens_k, H, Hk, D, seed=0):
    cu_q = torch.tensor(np.cumsum([0] + lens_q), dtype=torch.int32, device="cuda")
    cu_k = torch.tensor(np.cumsum([0] + lens_k), dtype=torch.int32, device="cuda")
    q = randn(int(cu_q[-1]), H, D, seed=seed)
    k, v = randn(int(cu_k[-1]), Hk, D, seed=seed + 1), randn(int(cu_k[-1]), Hk, D, seed=seed + 2)
    return q, k, v, cu_q, cu_k


def packed_reference(q, k, v, cu_q, cu_k, causal, window, scale=None):
    o = torch.zeros(q.shape, dtype=torch.float64, device="cuda")
    lse = torch.full((q.shape[1], q.shape[0]), float("inf"), dtype=torch.float64,
                     device="cuda")
    for b in range(len(cu_q) - 1):
        (qs, qe), (ks, ke) = cu_q[b:b + 2].tolist(), cu_k[b:b + 2].tolist()
        if qe == qs:
            continue
        if ke == ks:           # no key at all
            continue
        ob, lb = reference(q[qs:qe].transpose(0, 1)[None], k[ks:ke].transpose(0, 1)[None],
                           v[ks:ke].transpose(0, 1)[None], causal, scale, window)
        o[qs:qe], lse[:, qs:qe] = ob[0].transpose(0, 1), lb[0]
    return o, lse


PACKED = [
    # lens_q, lens_k, H, Hk, D, causal, window
    ([1, 17, 0, 127, 129, 1000], [1, 17, 5, 127, 129, 1000], 4, 4, 128, False, (-1, -1)),
    ([1, 17, 0, 127, 129, 1000], [3, 0, 5, 200, 129, 900], 4, 2, 64, True, (-1, -1)),
    ([300, 0, 64, 1000, 5], [300, 2, 0, 1000, 700], 4, 1, 128, False, (100, 20)),
]


@pytest.mark.parametrize("lens_q,lens_k,H,Hk,D,causal,window", PACKED)
def test_packed_matches_float64(lens_q, lens_k, H, Hk, D, causal, window):
    q, k, v, cu_q, cu_k = packed(lens_q, lens_k, H, Hk, D, seed=len(lens_q))
    ref_o, ref_lse = packed_reference(q, k, v, cu_q, cu_k, causal, window)
    at = poisoned((q.shape, torch.bfloat16), ((H, q.shape[0]), torch.float32))
    o, lse = fa.flash_attention(q, k, v, causal, window=window, cu_seqlens_q=cu_q,
                                cu_seqlens_k=cu_k, max_seqlen_q=max(lens_q),
                                max_seqlen_k=max(lens_k))
    torch.cuda.synchronize()
    check(o, lse, ref_o, ref_lse, at)


def test_gqa_reads_kv_without_a_copy():
    """Changing K/V head 1 changes only query heads 4..7 (group 4)."""
    B, H, Hk, S, D = 1, 8, 2, 256, 64
    q, k, v = randn(B, H, S, D), randn(B, Hk, S, D, seed=1), randn(B, Hk, S, D, seed=2)
    o1, _ = fa.flash_attention(q, k, v)
    k[:, 1] = randn(B, S, D, seed=3)
    o2, _ = fa.flash_attention(q, k, v)
    torch.cuda.synchronize()
    assert torch.equal(o1[:, :4], o2[:, :4]) and not torch.equal(o1[:, 4:], o2[:, 4:])


# -- the op ------------------------------------------------------------------------------

def grads64(q, k, v, do, causal, window, scale=None):
    leaves = [x.double().requires_grad_() for x in (q, k, v)]
    o, _ = reference(*leaves, causal, scale, window)
    o.backward(do.double())
    return o.detach(), [x.grad for x in leaves]


@pytest.mark.parametrize("layout,Hk,Sq,Sk,causal,window", [
    ("bhsd", 4, 256, 256, True, (-1, -1)), ("bshd", 2, 129, 300, False, (-1, -1)),
    ("bshd", 1, 1000, 1000, True, (128, -1))])
def test_op_autograd_matches_float64(layout, Hk, Sq, Sk, causal, window):
    from pyptx.ops import flash_attention
    B, H, D = 2, 4, 64
    q, k, v = randn(B, H, Sq, D, seed=1), randn(B, Hk, Sk, D, seed=2), randn(B, Hk, Sk, D, seed=3)
    do = randn(B, H, Sq, D, seed=4)
    ref_o, ref_grads = grads64(q, k, v, do, causal, window)
    t = (lambda x: x.transpose(1, 2).contiguous()) if layout == "bshd" else (lambda x: x)
    leaves = [t(x).requires_grad_() for x in (q, k, v)]
    o = flash_attention(*leaves, causal=causal, window=window, layout=layout)
    o.backward(t(do))
    got = [o] + [x.grad for x in leaves]
    for name, g, want in zip("o q k v".split(), got, [ref_o] + ref_grads):
        assert not torch.isnan(g).any(), name
        err = ((t(want) - g.double()).norm() / want.norm()).item()
        assert err <= O_TOL, f"{name}: relative error {err:.3e}"


def test_op_backward_uses_the_kernel_where_it_exists(monkeypatch):
    """Dense, equal lengths, no window: the Hopper backward kernel, not the
    float32 recomputation (which is made to fail here)."""
    from pyptx.ops import _kernels, attention_torch, flash_attention
    if _kernels.backward_kernel() is None:
        pytest.skip("examples/hopper/flash_attention_bwd.py is not in this tree")

    def refuse(*args):
        raise AssertionError("the float32 recomputation ran")
    monkeypatch.setattr(attention_torch, "math_backward", refuse)
    B, S, H, Hk, D = 2, 512, 8, 2, 128
    leaves = [randn(B, S, h, D, seed=i).requires_grad_() for i, h in enumerate((H, Hk, Hk))]
    do = randn(B, S, H, D, seed=7)
    flash_attention(*leaves, causal=True).backward(do)
    ref_o, ref_grads = grads64(*(x.detach().transpose(1, 2) for x in leaves),
                               do.transpose(1, 2), True, (-1, -1))
    for leaf, want in zip(leaves, ref_grads):
        err = ((leaf.grad.transpose(1, 2).double() - want).norm() / want.norm()).item()
        assert err <= O_TOL, err


def test_op_packed_autograd_matches_float64():
    from pyptx.ops import flash_attention
    lens = [1, 17, 0, 127, 129, 300]
    q, k, v, cu_q, cu_k = packed(lens, lens, 4, 2, 128, seed=5)
    do = randn(*q.shape, seed=9)
    leaves = [x.clone().requires_grad_() for x in (q, k, v)]
    o = flash_attention(*leaves, causal=True, cu_seqlens_q=cu_q, cu_seqlens_k=cu_k,
                        max_seqlen_q=300, max_seqlen_k=300)
    o.backward(do)
    want = [torch.zeros(x.shape, dtype=torch.float64, device="cuda") for x in (q, q, k, v)]
    for b in range(len(lens)):
        s, e = cu_q[b:b + 2].tolist()    # the same offsets for q and k
        if s == e:
            continue
        ref_o, ref_grads = grads64(*(x[s:e].transpose(0, 1)[None] for x in (q, k, v, do)),
                                   True, (-1, -1))
        for w, r in zip(want, [ref_o] + ref_grads):
            w[s:e] = r[0].transpose(0, 1)
    for name, g, w in zip("o q k v".split(), [o] + [x.grad for x in leaves], want):
        assert not torch.isnan(g).any(), name
        err = ((g.double() - w).norm() / w.norm()).item()
        assert err <= O_TOL, f"{name}: relative error {err:.3e}"


def test_op_under_torch_compile_and_cuda_graph():
    from pyptx.ops import flash_attention
    B, S, H, Hk, D = 2, 1000, 8, 2, 128
    q, k, v = randn(B, S, H, D), randn(B, S, Hk, D, seed=1), randn(B, S, Hk, D, seed=2)
    eager = flash_attention(q, k, v, causal=True)

    @torch.compile(fullgraph=True)
    def f(a, b, c):
        return flash_attention(a, b, c, causal=True) * 2

    compiled = f(q, k, v) / 2
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        captured = flash_attention(q, k, v, causal=True)
    captured.fill_(float("nan"))
    graph.replay()
    torch.cuda.synchronize()
    assert torch.equal(compiled, eager) and torch.equal(captured, eager)
    ref, _ = reference(*(x.transpose(1, 2) for x in (q, k, v)), True)
    assert ((eager.transpose(1, 2).double() - ref).norm() / ref.norm()).item() <= O_TOL


def test_op_jax_jit_and_grad():
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp

    from pyptx.ops import flash_attention
    B, S, H, Hk, D = 1, 300, 4, 2, 64
    rng = np.random.default_rng(0)
    q, k, v = (jnp.asarray(rng.standard_normal(s, dtype=np.float32) * 1.4, jnp.bfloat16)
               for s in [(B, S, H, D), (B, S, Hk, D), (B, S, Hk, D)])
    f = jax.jit(lambda a, b, c: flash_attention(a, b, c, causal=True))
    o = np.asarray(f(q, k, v).astype(jnp.float32), np.float64)
    t = [torch.from_numpy(np.asarray(x.astype(jnp.float32))).cuda().transpose(1, 2)
         for x in (q, k, v)]
    w = torch.from_numpy(rng.standard_normal((B, S, H, D), dtype=np.float32)).cuda()
    ref_o, ref_grads = grads64(*t, w.transpose(1, 2), True, (-1, -1))
    ref_o = ref_o.transpose(1, 2).cpu().numpy()
    assert np.linalg.norm(o - ref_o) / np.linalg.norm(ref_o) <= O_TOL
    loss = jax.jit(jax.grad(lambda a, b, c: (flash_attention(a, b, c, causal=True)
                                              .astype(jnp.float32) * jnp.asarray(
                                                  w.cpu().numpy())).sum(), argnums=(0, 1, 2)))
    for g, want in zip(loss(q, k, v), ref_grads):
        want = want.transpose(1, 2).cpu().numpy()
        g = np.asarray(g.astype(jnp.float32), np.float64)
        assert np.linalg.norm(g - want) / np.linalg.norm(want) <= O_TOL


def sanitize_main():
    """Small launches of each feature (for compute-sanitizer)."""
    for case in [(1, 2, 2, 17, 17, 128, True, None, (-1, -1), "bhsd"),
                 (1, 4, 2, 129, 200, 64, False, 0.2, (-1, -1), "bshd"),
                 (1, 2, 2, 300, 127, 64, True, None, (16, -1), "bhsd")]:
        print(case, run_dense(*case))
    q, k, v, cu_q, cu_k = packed([1, 0, 130, 17], [3, 5, 0, 200], 2, 1, 64)
    o, lse = fa.flash_attention(q, k, v, True, cu_seqlens_q=cu_q, cu_seqlens_k=cu_k,
                                max_seqlen_q=130, max_seqlen_k=200)
    torch.cuda.synchronize()
    print("packed", check(o, lse, *packed_reference(q, k, v, cu_q, cu_k, True, (-1, -1))))


if __name__ == "__main__":
    sanitize_main()
