"""pyptx.ops.flash_attention without a GPU: bad arguments are refused at
the caller's line (dtypes, devices, head_dim, heads, shapes, cu_seqlens
dtype, order and lengths); the fake implementations give the kernel's
output shapes; the float32 backward recomputation (PyTorch and JAX)
matches float64 autograd of the reference for dense, grouped-query,
windowed, causal with unequal lengths and packed sequences; the key
ranges the kernel visits cover every key a row sees."""
import math
import os

import numpy as np
import pytest
import torch
from conftest import line_of

from pyptx.ops import OpArgumentError, flash_attention
from pyptx.ops import attention_torch as at
from pyptx.pipeline import attention as pa


def bf16(*shape, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g).to(torch.bfloat16)


def refused(match, call):
    with pytest.raises(OpArgumentError, match=match) as info:
        call()
    return info.value


def test_torch_arguments_are_refused_at_the_callers_line():
    q = bf16(1, 256, 4, 64)
    cases = [
        ("q must be bfloat16", lambda: flash_attention(q.float(), q, q)),  # <- refused
        ("one CUDA device", lambda: flash_attention(q, q, q)),
        ("heads_q=4 is not a multiple of heads_kv=3",
         lambda: flash_attention(q, bf16(1, 256, 3, 64), bf16(1, 256, 3, 64))),
        ("head_dim=32", lambda: flash_attention(q[..., :32], q[..., :32], q[..., :32])),
        ("layout must be", lambda: flash_attention(q, q, q, layout="sbhd")),
        ("window must be", lambda: flash_attention(q, q, q, window=(1, 2, 3))),
        ("softmax_scale must be a positive", lambda: flash_attention(q, q, q, softmax_scale=0)),
        ("both cu_seqlens_q and cu_seqlens_k",
         lambda: flash_attention(q[0], q[0], q[0], cu_seqlens_q=torch.zeros(2, dtype=torch.int32))),
        ("cu_seqlens_q must be int32",
         lambda: flash_attention(q[0], q[0], q[0], cu_seqlens_q=torch.zeros(2),
                                 cu_seqlens_k=torch.zeros(2), max_seqlen_q=1, max_seqlen_k=1)),
    ]
    for match, call in cases:
        err = refused(match, call)
        assert os.path.samefile(err.file, __file__), err.file
    err = refused("bfloat16", cases[0][1])
    assert err.line == line_of(__file__, "# <- refused"), err.line


def test_packed_offsets_are_checked_where_they_can_be_read():
    jnp = pytest.importorskip("jax.numpy")
    q = jnp.zeros((10, 2, 64), jnp.bfloat16)
    ok = jnp.asarray([0, 4, 10], jnp.int32)
    for cu, match in [([0, 5, 3], "not decrease"), ([1, 4, 10], "start at 0"),
                      ([0, 4, 12], "past the packed tensor's 10 rows")]:
        refused(match, lambda cu=cu: flash_attention(
            q, q, q, cu_seqlens_q=jnp.asarray(cu, jnp.int32), cu_seqlens_k=ok,
            max_seqlen_q=8, max_seqlen_k=8))
    refused("longer than its max_seqlen 5", lambda: flash_attention(
        q, q, q, cu_seqlens_q=ok, cu_seqlens_k=ok, max_seqlen_q=5, max_seqlen_k=6))
    refused("cu_seqlens_q and cu_seqlens_k must both be", lambda: flash_attention(
        q, q, q, cu_seqlens_q=ok, cu_seqlens_k=ok[:2], max_seqlen_q=6, max_seqlen_k=6))
    refused("must be int32", lambda: flash_attention(
        q, q, q, cu_seqlens_q=ok.astype(jnp.float32), cu_seqlens_k=ok, max_seqlen_q=6,
        max_seqlen_k=6))


def test_fake_implementations_give_the_shapes():
    from torch._subclasses.fake_tensor import FakeTensorMode
    with FakeTensorMode():
        q, k = torch.empty(2, 100, 8, 64, dtype=torch.bfloat16), \
            torch.empty(2, 90, 2, 64, dtype=torch.bfloat16)
        o, lse = torch.ops.pyptx.flash_attention_fwd(q, k, k, None, None, True, 0.125, -1, -1,
                                                     "bshd", 0, 0)
        assert o.shape == q.shape and lse.shape == (2, 8, 100) and lse.dtype == torch.float32
        qp = torch.empty(300, 8, 128, dtype=torch.bfloat16)
        cu = torch.empty(4, dtype=torch.int32)
        o, lse = torch.ops.pyptx.flash_attention_fwd(qp, qp, qp, cu, cu, False, 0.1, -1, -1,
                                                     "bshd", 200, 200)
        assert o.shape == qp.shape and lse.shape == (8, 300)
        grads = torch.ops.pyptx.flash_attention_bwd(q, q, k, k, q, lse, None, None, False, 0.1,
                                                    -1, -1, "bshd")
        assert [g.shape for g in grads] == [q.shape, k.shape, k.shape]


def reference64(q, k, v, seen, scale):
    """float64 O of (B, H, S, D) tensors, K/V heads repeated, -inf where not seen."""
    group = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(group, 1), v.repeat_interleave(group, 1)
    s = (q @ k.transpose(-1, -2) * scale).masked_fill(~seen, float("-inf"))
    p = torch.softmax(s, -1).nan_to_num(0.0)
    return p @ v, torch.logsumexp(s, -1)


CASES = [
    # B, H, Hk, Sq, Sk, causal, window
    (2, 4, 4, 17, 17, False, (-1, -1)),
    (1, 4, 2, 33, 20, True, (-1, -1)),       # GQA, causal, Lq > Lk: rows with no key
    (2, 6, 1, 40, 50, False, (7, 3)),         # MQA, window
    (1, 2, 2, 1, 9, True, (-1, -1)),
]


@pytest.mark.parametrize("B,H,Hk,Sq,Sk,causal,window", CASES)
def test_math_backward_matches_float64_autograd(B, H, Hk, Sq, Sk, causal, window):
    D, scale = 16, 0.3
    q, k, v, do = (bf16(*shape, seed=i).double() for i, shape in enumerate(
        [(B, H, Sq, D), (B, Hk, Sk, D), (B, Hk, Sk, D), (B, H, Sq, D)]))
    seen = at.visible(Sq, Sk, *window, causal, "cpu")
    expect = torch.tensor([[pa.visible(i, j, Sq, Sk, (window[0], 0 if causal else window[1]))
                            for j in range(Sk)] for i in range(Sq)])
    assert torch.equal(seen, expect)
    leaves = [x.clone().requires_grad_() for x in (q, k, v)]
    o, lse = reference64(*leaves, seen, scale)
    o.backward(do)
    grads = at.math_backward(do, q, k, v, o.detach(), lse.detach(), scale, seen)
    for got, leaf in zip(grads, leaves):
        want = leaf.grad
        err = ((got.double() - want).norm() / want.norm().clamp_min(1e-30)).item()
        assert err < 1e-5, err


def test_packed_visibility_is_per_sequence():
    lens_q, lens_k = [3, 0, 5, 1], [2, 4, 5, 0]
    cq = torch.tensor(np.cumsum([0] + lens_q), dtype=torch.int32)
    ck = torch.tensor(np.cumsum([0] + lens_k), dtype=torch.int32)
    for causal, window in [(False, (-1, -1)), (True, (-1, -1)), (False, (1, 0))]:
        seen = at.visible(int(cq[-1]), int(ck[-1]), *window, causal, "cpu", cq, ck)
        want = torch.zeros_like(seen)
        for b, (lq, lk) in enumerate(zip(lens_q, lens_k)):
            for i in range(lq):
                for j in range(lk):
                    want[cq[b] + i, ck[b] + j] = pa.visible(
                        i, j, lq, lk, (window[0], 0 if causal else window[1]))
        assert torch.equal(seen, want), (causal, window)


def test_jax_math_backward_matches_torch():
    pytest.importorskip("jax")
    import jax.numpy as jnp

    from pyptx.ops import attention_jax as aj
    q, k, v, do = (bf16(*shape, seed=i).float() for i, shape in enumerate(
        [(1, 4, 30, 16), (1, 2, 25, 16), (1, 2, 25, 16), (1, 4, 30, 16)]))
    seen = at.visible(30, 25, 5, -1, True, "cpu")
    assert np.array_equal(np.asarray(aj.visible(30, 25, 5, -1, True)), seen.numpy())
    o, lse = reference64(q.double(), k.double(), v.double(), seen, 0.25)
    want = at.math_backward(do, q, k, v, o.float(), lse.float(), 0.25, seen)
    got = aj.math_backward(*(jnp.asarray(x.numpy()) for x in (do, q, k, v, o.float(),
                                                              lse.float())),
                           0.25, jnp.asarray(seen.numpy()))
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), w.numpy(), rtol=2e-4, atol=2e-4)


@pytest.mark.parametrize("Sq,Sk,window", [(1000, 1000, (-1, 0)), (127, 300, (-1, 0)),
                                          (300, 127, (-1, 0)), (1000, 900, (64, 32)),
                                          (129, 129, (100, -1)), (17, 1000, (-1, -1))])
def test_key_blocks_cover_every_visible_key(Sq, Sk, window):
    """The kernel's block range [lo // 128, ceil(hi / 128)) of each Q block holds
    every key its rows see, and skips blocks none of them sees."""
    for m0 in range(0, Sq, 128):
        last = min(m0 + 127, Sq - 1)
        lo, hi = pa.key_range(m0, last, Sq, Sk, window)
        blocks = range(lo // 128, -(-hi // 128)) if hi > lo else range(0)
        seen = {j // 128 for i in range(m0, last + 1) for j in range(Sk)
                if pa.visible(i, j, Sq, Sk, window)}
        assert seen <= set(blocks)
        assert set(blocks) == seen or not seen and not blocks


def test_float64_reference_rows_without_keys():
    q = np.ones((1, 1, 4, 8))
    o, lse = pa.reference(q, q[:, :, :2], q[:, :, :2], causal=True)
    # bottom-right causal with 4 queries and 2 keys: rows 0 and 1 see nothing
    assert np.all(o[0, 0, :2] == 0) and np.all(np.isinf(lse[0, 0, :2]))
    assert np.allclose(lse[0, 0, 2], math.log(1) + 8 / math.sqrt(8))
