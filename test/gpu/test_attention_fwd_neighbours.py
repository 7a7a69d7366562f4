"""The attention forward's tail blocks on the GPU: a K/V block that runs past
a sequence's end may read the next sequence's rows (packed sequences) or
the next head's or batch's; those keys are masked, and an Inf or NaN
planted there must still not reach this sequence's O or LSE (0 * Inf in
P V would). Each case plants Inf and NaN in every Q, K and V row outside the
checked sequence, computes the checked sequence with the kernel and compares it
with a float64 reference of that sequence alone; outputs poisoned with
NaN first."""
import math

import numpy as np
import pytest
import torch

from examples.hopper import flash_attention as fa

SM90 = torch.cuda.is_available() and torch.cuda.get_device_capability() >= (9, 0)
pytestmark = pytest.mark.skipif(not SM90, reason="wgmma and TMA need sm_90a")

O_TOL, LSE_TOL = 2e-2, 2e-3


def randn(*shape, seed=0):
    g = torch.Generator(device="cuda").manual_seed(seed)
    return (torch.randn(*shape, device="cuda", generator=g) * 2 ** 0.5).to(torch.bfloat16)


def plant(x, keep):
    """Inf and NaN (alternating columns) everywhere in x but where keep is True."""
    bad = torch.full_like(x, float("inf"))
    bad[..., 1::2] = float("nan")
    return torch.where(keep, x, bad)


def reference(q, k, v, causal):
    """float64 (O, LSE) of one (Sq, D) query block against (Sk, D) keys,
    causal aligned bottom-right."""
    s = q.double() @ k.double().T / math.sqrt(q.shape[-1])
    if causal:
        i = torch.arange(q.shape[0], device="cuda")[:, None] + (k.shape[0] - q.shape[0])
        s = s.masked_fill(torch.arange(k.shape[0], device="cuda")[None, :] > i, float("-inf"))
    return torch.softmax(s, -1) @ v.double(), torch.logsumexp(s, -1)


def poisoned(o_shape, lse_shape):
    blocks = [torch.full(o_shape, float("nan"), dtype=torch.bfloat16, device="cuda"),
              torch.full(lse_shape, float("nan"), dtype=torch.float32, device="cuda")]
    torch.cuda.synchronize()
    del blocks


def check(o, lse, ref_o, ref_lse):
    assert torch.isfinite(o).all(), "a neighbour's Inf/NaN reached O"
    assert torch.isfinite(lse).all(), "a neighbour's Inf/NaN reached LSE"
    err = ((o.double() - ref_o).norm() / ref_o.norm()).item()
    lse_err = (lse.double() - ref_lse).abs().max().item()
    assert err <= O_TOL, f"O relative error {err:.3e} > {O_TOL}"
    assert lse_err <= LSE_TOL, f"LSE max abs error {lse_err:.3e} > {LSE_TOL}"


@pytest.mark.parametrize("lens,causal", [
    ([100, 300], False),          # one block, the rest of it in the next sequence
    ([1000, 129], True),          # the tail block of a long sequence
    ([17, 5, 1000], False),       # short sequences inside one block
    ([129, 1000], False),
])
def test_packed_neighbour_rows_do_not_leak(lens, causal):
    H, Hk, D = 4, 2, 128
    cu = torch.tensor(np.cumsum([0] + lens), dtype=torch.int32, device="cuda")
    total = int(cu[-1])
    q = randn(total, H, D)
    k, v = randn(total, Hk, D, seed=1), randn(total, Hk, D, seed=2)
    for b, n in enumerate(lens):
        start, end = int(cu[b]), int(cu[b + 1])
        rows = torch.zeros(total, 1, 1, dtype=torch.bool, device="cuda")
        rows[start:end] = True
        qb, kb, vb = plant(q, rows), plant(k, rows), plant(v, rows)
        poisoned((total, H, D), (H, total))
        o, lse = fa.flash_attention(qb, kb, vb, causal, cu_seqlens_q=cu, cu_seqlens_k=cu,
                                    max_seqlen_q=max(lens), max_seqlen_k=max(lens))
        torch.cuda.synchronize()
        group = H // Hk
        for h in range(H):
            ref_o, ref_lse = reference(q[start:end, h], k[start:end, h // group],
                                       v[start:end, h // group], causal)
            check(o[start:end, h], lse[h, start:end], ref_o, ref_lse)


@pytest.mark.parametrize("layout,S,causal", [("bhsd", 1000, False), ("bhsd", 129, True),
                                             ("bhsd", 4097, False),
                                             ("bshd", 1000, False), ("bshd", 4097, True)])
def test_next_head_and_batch_rows_do_not_leak(layout, S, causal):
    """Only batch 0, K/V head 0 and its query heads 0..1 are finite: those must be right."""
    B, H, Hk, D = 2, 4, 2, 64
    q = randn(B, H, S, D)
    k, v = randn(B, Hk, S, D, seed=1), randn(B, Hk, S, D, seed=2)
    keep = torch.zeros(B, Hk, 1, 1, dtype=torch.bool, device="cuda")
    keep[0, 0] = True
    keep_q = keep.repeat_interleave(H // Hk, 1)
    args = (plant(q, keep_q), plant(k, keep), plant(v, keep))
    if layout == "bshd":
        args = tuple(x.transpose(1, 2).contiguous() for x in args)
    poisoned(args[0].shape, (B, H, S))
    o, lse = fa.flash_attention(*args, causal, layout=layout)
    torch.cuda.synchronize()
    if layout == "bshd":
        o = o.transpose(1, 2)
    for h in range(H // Hk):
        ref_o, ref_lse = reference(q[0, h], k[0, 0], v[0, 0], causal)
        check(o[0, h], lse[0, h], ref_o, ref_lse)
