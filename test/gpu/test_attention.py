"""The Hopper flash attention forward (examples/hopper/flash_attention.py) on
the GPU: random bf16 Q, K, V (normal, scaled so that the softmax is neither
flat nor one-hot), a float64 reference, both outputs (O and LSE) poisoned
with NaN before each launch (an element left unwritten fails), relative
error of O <= 2e-2 and LSE within 2e-3; D = 64 and 128, causal and not,
B > 1 and H > 1, odd block counts. Causal masking is also checked on its
own (changing future keys and values must not change a row); launches
repeat bit for bit; the kernel runs under torch.compile, in a CUDA graph
and from JAX (jax.jit); its SASS has HGMMA and no local memory.

Run as a script for compute-sanitizer (one small launch of each variant):
    compute-sanitizer --tool memcheck python3 test/gpu/test_attention.py
"""
import math
import os
import re
import sys

if __name__ == "__main__":  # run as a script (under compute-sanitizer): find the sources
    _ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
    sys.path[:0] = [os.path.join(_ROOT, "python"), _ROOT]

import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402

from examples.hopper import flash_attention as fa  # noqa: E402

SM90 = torch.cuda.get_device_capability() >= (9, 0)
pytestmark = pytest.mark.skipif(not SM90, reason="wgmma and TMA need sm_90a")

O_TOL, LSE_TOL = 2e-2, 2e-3


def inputs(B, H, S, D, seed=0):
    g = torch.Generator(device="cuda").manual_seed(seed)
    # logits q.k/sqrt(D) ~ N(0, 4): peaked rows, never uniform ones
    return [(torch.randn(B, H, S, D, device="cuda", generator=g) * 2 ** 0.5).to(torch.bfloat16)
            for _ in range(3)]


def reference(q, k, v, causal):
    """fa.reference's formula in float64 on the GPU (the same bf16 values)."""
    q64, k64, v64 = q.double(), k.double(), v.double()
    s = q64 @ k64.transpose(-1, -2) / math.sqrt(q.shape[-1])
    if causal:
        n = s.shape[-1]
        s = s.masked_fill(~torch.ones(n, n, dtype=torch.bool, device=s.device).tril(),
                          float("-inf"))
    m = s.amax(-1, keepdim=True)
    e = (s - m).exp()
    total = e.sum(-1, keepdim=True)
    return (e / total) @ v64, (m + total.log())[..., 0]


def poisoned(*shapes_dtypes):
    """Frees NaN-filled blocks of these shapes and dtypes, so that the next
    allocations of them (the kernel's outputs) start as NaN; their addresses."""
    blocks = [torch.full(shape, float("nan"), dtype=dtype, device="cuda")
              for shape, dtype in shapes_dtypes]
    torch.cuda.synchronize()
    addresses = [b.data_ptr() for b in blocks]
    del blocks
    return addresses


def poison_outputs(B, H, S, D):
    return poisoned(((B * H * S, D), torch.bfloat16), ((B * H * S,), torch.float32))


def check(o, lse, q, k, v, causal, poisoned_at=None):
    if poisoned_at is not None:
        assert [o.data_ptr(), lse.data_ptr()] == poisoned_at, \
            "the outputs did not reuse the poisoned blocks"
    assert o.shape == q.shape and o.dtype == torch.bfloat16
    assert lse.shape == q.shape[:3] and lse.dtype == torch.float32
    assert not torch.isnan(o).any(), "O elements left unwritten (still NaN)"
    assert not torch.isnan(lse).any(), "LSE elements left unwritten (still NaN)"
    ref_o, ref_lse = reference(q, k, v, causal)
    err = ((o.double() - ref_o).norm() / ref_o.norm()).item()
    lse_err = (lse.double() - ref_lse).abs().max().item()
    assert err <= O_TOL, f"O relative error {err:.3e} > {O_TOL}"
    assert lse_err <= LSE_TOL, f"LSE max abs error {lse_err:.3e} > {LSE_TOL}"
    return err, lse_err


CASES = [
    # B, H, S, D, causal
    (1, 1, 128, 64, False),          # one block: no loop iteration
    (1, 1, 128, 128, True),
    (2, 3, 512, 64, False),
    (2, 3, 512, 64, True),
    (1, 2, 1024, 128, False),
    (1, 2, 1024, 128, True),
    (2, 2, 384, 128, True),          # 3 blocks: the rings wrap unevenly
    (1, 1, 2048, 64, True),
    (2, 4, 1024, 128, False),
]


@pytest.mark.parametrize("B,H,S,D,causal", CASES)
def test_matches_float64(B, H, S, D, causal):
    q, k, v = inputs(B, H, S, D, seed=S + D)
    kern = fa.build_flash_attention(B, H, S, D, causal)
    at = poison_outputs(B, H, S, D)
    o, lse = fa.run(kern, q, k, v)
    torch.cuda.synchronize()
    check(o, lse, q, k, v, causal, at)


PERSISTENT_CASES = [
    # B, H, S, D, causal, num_sms: few CTAs, so each walks several tiles
    (2, 3, 512, 64, True, 5),
    (1, 2, 1024, 128, False, 3),
    (2, 2, 384, 128, True, 132),     # fewer tiles than SMs
    (1, 4, 2048, 64, False, 7),
]


@pytest.mark.parametrize("B,H,S,D,causal,num_sms", PERSISTENT_CASES)
def test_persistent_matches_float64(B, H, S, D, causal, num_sms):
    q, k, v = inputs(B, H, S, D, seed=S + D + 1)
    kern = fa.build_flash_attention(B, H, S, D, causal, persistent=True, num_sms=num_sms)
    at = poison_outputs(B, H, S, D)
    o, lse = fa.run(kern, q, k, v)
    torch.cuda.synchronize()
    check(o, lse, q, k, v, causal, at)


@pytest.mark.parametrize("options", [dict(pingpong=False), dict(stages=3),
                                     dict(persistent=True, pingpong=False, stages=3)])
def test_options_match_float64(options):
    q, k, v = inputs(2, 2, 768, 128, seed=7)
    at = poison_outputs(2, 2, 768, 128)
    o, lse = fa.flash_attention(q, k, v, causal=True, **options)
    torch.cuda.synchronize()
    check(o, lse, q, k, v, True, at)


def test_reference_agrees_with_numpy():
    q, k, v = inputs(1, 2, 256, 64, seed=1)
    for causal in (False, True):
        o, lse = reference(q, k, v, causal)
        o_np, lse_np = fa.reference(*(x.float().cpu().numpy() for x in (q, k, v)), causal)
        np.testing.assert_allclose(o.cpu().numpy(), o_np, rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(lse.cpu().numpy(), lse_np, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("D", [64, 128])
def test_causal_rows_ignore_future_keys(D):
    """Rows before position t must not change, bit for bit, when the keys and
    values from t on change; rows from t on must."""
    B, H, S, t = 1, 2, 1024, 448
    q, k, v = inputs(B, H, S, D, seed=3)
    kern = fa.build_flash_attention(B, H, S, D, causal=True)
    o1, lse1 = fa.run(kern, q, k, v)
    k2, v2 = k.clone(), v.clone()
    k2[:, :, t:] = torch.randn_like(k2[:, :, t:], dtype=torch.float32).to(torch.bfloat16) * 3
    v2[:, :, t:] = torch.randn_like(v2[:, :, t:], dtype=torch.float32).to(torch.bfloat16) * 3
    o2, lse2 = fa.run(kern, q, k2, v2)
    torch.cuda.synchronize()
    assert torch.equal(o1[:, :, :t], o2[:, :, :t]) and torch.equal(lse1[:, :, :t], lse2[:, :, :t])
    assert not torch.equal(o1[:, :, t:], o2[:, :, t:])
    check(o2, lse2, q, k2, v2, True)
    # and the unmasked kernel does see them
    o3, _ = fa.flash_attention(q, k, v, causal=False)
    o4, _ = fa.flash_attention(q, k2, v2, causal=False)
    assert not torch.equal(o3[:, :, :t], o4[:, :, :t])


@pytest.mark.parametrize("persistent", [False, True])
def test_repeated_launches_agree(persistent):
    """Same inputs, three launches: bit-identical outputs (a race would move
    them), and the same bits from both schedules."""
    q, k, v = inputs(2, 8, 2048, 128, seed=4)
    kern = fa.build_flash_attention(2, 8, 2048, 128, causal=True, persistent=persistent)
    outs = [fa.run(kern, q, k, v) for _ in range(3)]
    other = fa.flash_attention(q, k, v, causal=True, persistent=not persistent)
    torch.cuda.synchronize()
    for o, lse in outs[1:] + [other]:
        assert torch.equal(o, outs[0][0]) and torch.equal(lse, outs[0][1])


def test_torch_compile_fullgraph():
    q, k, v = inputs(2, 2, 512, 64, seed=5)
    kern = fa.build_flash_attention(2, 2, 512, 64, causal=True)

    @torch.compile(fullgraph=True)
    def f(a, b, c):
        o, lse = fa.run(kern, a, b, c)
        return o * 2, lse

    o, lse = f(q, k, v)
    torch.cuda.synchronize()
    check(o / 2, lse, q, k, v, True)


def test_cuda_graph_replay():
    q, k, v = inputs(1, 4, 1024, 128, seed=6)
    kern = fa.build_flash_attention(1, 4, 1024, 128, causal=False)
    fa.run(kern, q, k, v)  # module loaded before capture
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        o, lse = fa.run(kern, q, k, v)
    o.fill_(float("nan"))
    lse.fill_(float("nan"))
    for x, y in zip((q, k, v), inputs(1, 4, 1024, 128, seed=60)):
        x.copy_(y)
    graph.replay()
    torch.cuda.synchronize()
    check(o, lse, q, k, v, False)


def test_jax_jit():
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp
    B, H, S, D = 1, 2, 512, 128
    kern = fa.build_flash_attention(B, H, S, D, causal=True)
    f = jax.jit(lambda a, b, c: fa.run(kern, a, b, c))
    rng = np.random.default_rng(8)
    arrays = [jnp.asarray(rng.standard_normal((B, H, S, D), dtype=np.float32) * 1.4,
                          jnp.bfloat16) for _ in range(3)]
    o, lse = f(*arrays)
    ref_o, ref_lse = fa.reference(*(np.asarray(a.astype(jnp.float32)) for a in arrays), True)
    o64 = np.asarray(o.astype(jnp.float32), np.float64)
    assert not np.isnan(o64).any()
    assert np.linalg.norm(o64 - ref_o) / np.linalg.norm(ref_o) <= O_TOL
    assert np.abs(np.asarray(lse, np.float64) - ref_lse).max() <= LSE_TOL


@pytest.mark.parametrize("D,causal", [(64, False), (128, True)])
def test_sass_has_hgmma_and_no_local_memory(D, causal):
    sass = fa.build_flash_attention(4, 16, 4096, D, causal).sass()
    opcodes = set(re.findall(r"/\*[0-9a-f]{4}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)", sass))
    assert any(o.startswith("HGMMA") for o in opcodes), sorted(opcodes)
    assert not any(o.startswith(("LDL", "STL")) for o in opcodes), sorted(opcodes)
    assert any(o.startswith("MUFU.EX2") for o in opcodes), sorted(opcodes)


def sanitize_main():
    """``compute-sanitizer --tool memcheck|racecheck python3 test/gpu/test_attention.py``:
    one small launch of each variant."""
    for B, H, S, D, causal, options in [
            (1, 2, 256, 64, False, {}), (1, 2, 384, 128, True, {}),
            (1, 1, 256, 128, False, {}), (2, 1, 256, 64, True, {}),
            (1, 2, 384, 128, True, dict(persistent=True, num_sms=2)),
            (2, 1, 256, 64, False, dict(persistent=True, num_sms=3))]:
        q, k, v = inputs(B, H, S, D, seed=9)
        o, lse = fa.flash_attention(q, k, v, causal=causal, **options)
        torch.cuda.synchronize()
        err, lse_err = check(o, lse, q, k, v, causal)
        print(f"B{B} H{H} S{S} D{D} causal={causal} {options}: O rel err {err:.2e}, "
              f"LSE max abs err {lse_err:.2e}")


if __name__ == "__main__":
    sanitize_main()
