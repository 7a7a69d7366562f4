"""The Hopper flash attention backward (examples/hopper/flash_attention_bwd.py)
on the GPU: random bf16 Q, K, V, dO (normal, scaled so that the softmax is
neither flat nor one-hot), O and LSE from a float64 forward, dQ, dK, dV
against the float64 attention backward (relative error <= 2e-2 each);
outputs poisoned with NaN before each launch (out= tensors filled with NaN,
and the freed blocks the f32 dQ accumulator and the stats reuse), so an
element left unwritten or an accumulator left unzeroed fails. D = 64 and
128, causal and not, S = 128, 256, 384, 1024 and odd lengths (1, 17, 127,
129, 192, 333, 1000: partial last Q and K/V blocks), grouped-query attention
(multi-query too), a softmax_scale. A second launch repeats dK and dV bit
for bit and dQ up to the order of its f32 atomic adds. The main kernel's
SASS has HGMMA and no local memory. The preprocess and convert kernels on
their own: stats against their float64 formula, the accumulator zeroed,
dQ from a known accumulator in either layout.

Run as a script for compute-sanitizer (one small launch of each variant):
    compute-sanitizer --tool memcheck python3 test/gpu/test_attention_bwd.py
"""
import math
import os
import re
import sys

if __name__ == "__main__":  # run as a script (under compute-sanitizer): find the sources
    _ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
    sys.path[:0] = [os.path.join(_ROOT, "python"), _ROOT]

import pytest  # noqa: E402
import torch  # noqa: E402

from examples.hopper import flash_attention_bwd as fb  # noqa: E402
from examples.hopper import flash_attention_bwd_rows as fbr  # noqa: E402

SM90 = torch.cuda.get_device_capability() >= (9, 0)
pytestmark = pytest.mark.skipif(not SM90, reason="wgmma and TMA need sm_90a")

TOL = 2e-2


def inputs(B, H, Hkv, S, D, seed=0):
    g = torch.Generator(device="cuda").manual_seed(seed)

    def randn(*shape, scale=1.0):
        return (torch.randn(*shape, device="cuda", generator=g) * scale).to(torch.bfloat16)
    # logits q.k/sqrt(D) ~ N(0, 4): peaked rows, never uniform ones
    q = randn(B, H, S, D, scale=2 ** 0.5)
    k = randn(B, Hkv, S, D, scale=2 ** 0.5)
    v = randn(B, Hkv, S, D)
    do = randn(B, H, S, D)
    return q, k, v, do


def forward64(q, k, v, causal, scale=None):
    """(O bf16, LSE f32) of the float64 forward."""
    group = q.shape[1] // k.shape[1]
    q64 = q.double()
    k64 = k.double().repeat_interleave(group, 1)
    v64 = v.double().repeat_interleave(group, 1)
    scale = scale if scale is not None else 1 / math.sqrt(q.shape[-1])
    s = q64 @ k64.transpose(-1, -2) * scale
    if causal:
        n = s.shape[-1]
        s = s.masked_fill(~torch.ones(n, n, dtype=torch.bool, device="cuda").tril(),
                          float("-inf"))
    lse = torch.logsumexp(s, -1)
    o = torch.softmax(s, -1) @ v64
    return o.to(torch.bfloat16), lse.float()


def poison_accumulators(B, H, S, D):
    """Frees NaN-filled blocks of the f32 dQ accumulator's and the stats'
    sizes, so that the preprocess kernel's outputs start as NaN."""
    rows = B * H * (-(-S // 64) * 64)
    blocks = [torch.full((rows, D), float("nan"), device="cuda"),
              torch.full((rows // 64, 128), float("nan"), device="cuda")]
    torch.cuda.synchronize()
    del blocks


def nan_like(*shape):
    return torch.full(shape, float("nan"), dtype=torch.bfloat16, device="cuda")


def rel_err(x, ref):
    """||x - ref|| / ||ref||; the absolute error where ref is exactly zero
    (seq = 1: one key, P = 1, so dS, dQ and dK are 0)."""
    diff = (x.double() - ref).norm().item()
    scale = ref.norm().item()
    return diff / scale if scale else diff


def run_and_check(B, H, Hkv, S, D, causal, scale=None, seed=0, use_out=True, **options):
    q, k, v, do = inputs(B, H, Hkv, S, D, seed)
    o, lse = forward64(q, k, v, causal, scale)
    poison_accumulators(B, H, S, D)
    out = (nan_like(B, H, S, D), nan_like(B, Hkv, S, D), nan_like(B, Hkv, S, D)) \
        if use_out else None
    dq, dk, dv = fb.flash_attention_backward(q, k, v, o, do, lse, causal=causal,
                                             softmax_scale=scale, out=out, **options)
    torch.cuda.synchronize()
    if use_out:
        assert all(a.data_ptr() == b.data_ptr() for a, b in zip((dq, dk, dv), out))
    refs = fb.reference(q, k, v, do, causal, scale)
    errors = {}
    for name, x, ref in zip(("dQ", "dK", "dV"), (dq, dk, dv), refs):
        assert x.shape == ref.shape and x.dtype == torch.bfloat16, name
        assert not torch.isnan(x).any(), f"{name}: elements left unwritten (NaN)"
        errors[name] = rel_err(x, ref)
    assert all(e <= TOL for e in errors.values()), f"relative errors {errors} > {TOL}"
    return errors, (q, k, v, o, do, lse), (dq, dk, dv)


CASES = [
    # B, H, Hkv, S, D, causal
    (1, 1, 1, 128, 64, False),       # one K/V block, two Q blocks
    (1, 1, 1, 128, 128, True),
    (2, 3, 3, 256, 64, False),
    (2, 3, 3, 256, 64, True),
    (1, 2, 2, 256, 128, False),
    (1, 2, 2, 256, 128, True),
    (1, 2, 2, 1024, 128, False),
    (1, 2, 2, 1024, 128, True),
    (2, 2, 2, 1024, 64, True),
    (1, 2, 2, 384, 128, True),       # 6 Q blocks: the 2-stage ring wraps unevenly
]


@pytest.mark.parametrize("B,H,Hkv,S,D,causal", CASES)
def test_matches_float64(B, H, Hkv, S, D, causal):
    run_and_check(B, H, Hkv, S, D, causal, seed=S + D + causal)


GQA_CASES = [
    (1, 4, 1, 256, 128, True),       # multi-query
    (2, 4, 2, 256, 64, False),
    (1, 8, 2, 512, 128, False),
    (1, 6, 2, 384, 64, True),
]


@pytest.mark.parametrize("B,H,Hkv,S,D,causal", GQA_CASES)
def test_grouped_query_matches_float64(B, H, Hkv, S, D, causal):
    run_and_check(B, H, Hkv, S, D, causal, seed=H * 7 + Hkv)


@pytest.mark.parametrize("B,H,Hkv,S,D,causal", [(2, 3, 3, 256, 64, True),
                                                (1, 2, 2, 1024, 128, False),
                                                (1, 4, 2, 384, 128, True)])
def test_red_variant_matches_float64(B, H, Hkv, S, D, causal):
    run_and_check(B, H, Hkv, S, D, causal, seed=5, dq_reduce="red")


def test_three_stages():
    run_and_check(1, 2, 2, 1024, 128, True, seed=6, stages=3)


ODD_CASES = [
    # B, H, Hkv, S, D, causal: partial last Q and/or K/V blocks, tiny problems
    (1, 1, 1, 1, 64, False),
    (1, 1, 1, 17, 128, True),
    (1, 2, 2, 127, 64, True),
    (1, 2, 2, 129, 128, False),
    (2, 2, 2, 1000, 128, True),
    (1, 3, 3, 1000, 64, False),
    (1, 2, 2, 192, 128, True),       # whole Q blocks, a partial K/V block
    (1, 4, 2, 333, 128, True),       # GQA with partial blocks
]


@pytest.mark.parametrize("B,H,Hkv,S,D,causal", ODD_CASES)
def test_odd_lengths_match_float64(B, H, Hkv, S, D, causal):
    run_and_check(B, H, Hkv, S, D, causal, seed=S * 3 + D)


def test_odd_length_red_variant():
    run_and_check(1, 2, 2, 1000, 128, True, seed=11, dq_reduce="red")


def test_softmax_scale_and_new_outputs():
    run_and_check(1, 2, 2, 256, 128, True, scale=0.05, use_out=False)


def test_repeat_launches():
    errors, args, first = run_and_check(1, 2, 2, 512, 128, False, seed=3)
    q, k, v, o, do, lse = args
    again = fb.flash_attention_backward(q, k, v, o, do, lse, causal=False)
    torch.cuda.synchronize()
    assert torch.equal(again[1], first[1]) and torch.equal(again[2], first[2])
    # dQ: f32 atomic adds in any order, then rounded to bf16
    assert rel_err(again[0], first[0].double()) < 1e-2


def test_refuses_bad_groups():
    q, k, v, do = inputs(1, 3, 2, 128, 64)
    o, lse = torch.zeros_like(q), torch.zeros(1, 3, 128, device="cuda")
    with pytest.raises(fb.AttentionShapeError, match="not a multiple of heads_kv"):
        fb.flash_attention_backward(q, k, v, o, do, lse, causal=False)


def chunk_order(acc, D):
    """A row-major (acc_rows, D) accumulator in the main kernel's chunk order
    (flash_attention_bwd_rows's docstring): flat float index of (r, c) is
    ((block * D/64 + c // 64) * 1024 + piece * 128 + thread) * 4 + k."""
    r = torch.arange(acc.shape[0], device=acc.device)[:, None]
    c = torch.arange(D, device=acc.device)[None, :]
    rr, cc = r % 64, c % 64
    thread = 32 * (rr // 16) + 4 * (rr % 8) + (cc % 8) // 2
    k = 2 * ((rr % 16) // 8) + cc % 2
    chunk = (r // 64) * (D // 64) + c // 64
    index = ((chunk * 1024 + (cc // 8) * 128 + thread) * 4 + k).reshape(-1)
    out = torch.empty_like(acc).reshape(-1)
    out[index] = acc.reshape(-1)
    return out.reshape(acc.shape)


@pytest.mark.parametrize("chunked", [True, False])
@pytest.mark.parametrize("D", [64, 128])
def test_row_kernels_match_reference(chunked, D):
    rows = fbr.QRows(3, 200, D, scale=0.3, chunked=chunked)
    g = torch.Generator(device="cuda").manual_seed(D)
    o, do = (torch.randn(rows.rows, D, device="cuda", generator=g).to(torch.bfloat16)
             for _ in range(2))
    lse = torch.randn(rows.rows, device="cuda", generator=g)
    poison_accumulators(3, 1, 200, D)
    stats, acc = fbr.build_preprocess(rows)(o, do, lse)
    ref_stats, to_dq = fbr.reference(o.view(3, 200, D), do.view(3, 200, D), lse.view(3, 200),
                                     rows)
    torch.cuda.synchronize()
    torch.testing.assert_close(stats.double(), ref_stats, rtol=1e-5, atol=1e-4)
    assert acc.shape == (rows.acc_rows, D) and not acc.isnan().any() and not acc.any()
    values = torch.randn(rows.acc_rows, D, device="cuda", generator=g)
    given = chunk_order(values, D) if chunked else values
    dq = torch.full((rows.rows, D), float("nan"), dtype=torch.bfloat16, device="cuda")
    fbr.build_convert(rows)(given, out=dq)
    torch.cuda.synchronize()
    assert rel_err(dq, to_dq(values)) < 1e-2


@pytest.mark.parametrize("D,causal,dq_reduce", [(64, False, "bulk"), (128, True, "bulk"),
                                               (128, False, "red")])
def test_sass_has_hgmma_and_no_local_memory(D, causal, dq_reduce):
    sass = fb.kernels_for(2, 4, 4, 1024, D, causal, dq_reduce=dq_reduce).main.sass()
    opcodes = set(re.findall(r"/\*[0-9a-f]{4}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)", sass))
    assert any(o.startswith("HGMMA") for o in opcodes), sorted(opcodes)
    assert not any(o.startswith(("LDL", "STL")) for o in opcodes), sorted(opcodes)
    assert any(o.startswith("MUFU.EX2") for o in opcodes), sorted(opcodes)
    # "red": dQ by per-thread reductions (REDG); "bulk": none, the bulk unit adds
    assert any(o.startswith("RED") for o in opcodes) == (dq_reduce == "red"), sorted(opcodes)


if __name__ == "__main__":
    for case in CASES[:2] + GQA_CASES[:1]:
        print(case, run_and_check(*case)[0])
