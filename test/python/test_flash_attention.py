"""examples/hopper/flash_attention.py without a GPU: every supported
configuration (head_dim 64/128, causal or not, several sequence lengths)
traces and assembles for sm_90a within the register budget, with no
spills and no serialised wgmma; the PTX has the FlashAttention-3 structure
(producer/consumer split, K and V rings, Q K^T from shared memory, P V
with P in registers, wait_group 1 overlap, ping-pong named barriers, the
diagonal mask only in the first block of a causal CTA); unsupported shapes
are refused at the caller's line, naming the parameter; the NumPy
reference agrees with a naive per-row formula."""
import math
import os
import re
import subprocess
import sys

import numpy as np
import pytest
from conftest import line_of

from examples.hopper import flash_attention as fa

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

CONFIGS = [(1, 2, 512, 64, False), (1, 2, 512, 64, True), (2, 3, 1024, 128, False),
           (2, 3, 1024, 128, True), (1, 1, 128, 64, True), (1, 1, 384, 128, False),
           (4, 16, 16384, 128, True), (4, 16, 16384, 64, False)]
PERSISTENT = [(2, 3, 1024, 128, True), (4, 16, 4096, 64, False)]


def lines(text, needle):
    return [l for l in text.splitlines() if needle in l]


@pytest.mark.parametrize("B,H,S,D,causal,persistent",
                         [c + (False,) for c in CONFIGS] + [c + (True,) for c in PERSISTENT],
                         ids=[f"B{b}H{h}S{s}D{d}{'c' if c else ''}" for b, h, s, d, c in CONFIGS]
                         + [f"B{b}H{h}S{s}D{d}{'c' if c else ''}-persistent"
                            for b, h, s, d, c in PERSISTENT])
def test_assembles_without_spills(B, H, S, D, causal, persistent, assemble):
    k = fa.build_flash_attention(B, H, S, D, causal, persistent=persistent)
    m = k.module()
    assemble(m.ptx, "sm_90a")
    r = k.resources()
    assert r["ok"], r["ptxas_stderr"]
    assert r["registers"] <= 168          # the entry cap: 384 threads, 1 CTA per SM
    assert r["spill_stores_bytes"] == 0 and r["spill_loads_bytes"] == 0
    assert "0 bytes stack frame" in r["ptxas_stderr"]
    assert "serialized" not in r["ptxas_stderr"]     # ptxas keeps the wgmma pipeline
    assert "warning" not in r["ptxas_stderr"].lower()
    assert r["setmaxnreg_values"] == [fa.PRODUCER_REGS, fa.CONSUMER_REGS]
    assert r["smem_per_cta"] <= 227 * 1024
    tiles = S // 128 * B * H
    assert m.grid == ((min(tiles, 132), 1, 1) if persistent else (S // 128, B * H, 1))
    assert m.block == (384, 1, 1)


def wgmmas(text, shape):
    return lines(text, f"wgmma.mma_async.sync.aligned.{shape}.f32.bf16.bf16")


@pytest.mark.parametrize("D", [64, 128])
def test_structure(D):
    k = fa.build_flash_attention(2, 4, 1024, D, causal=False)
    m = k.module()
    text = m.ptx
    assert ".maxntid 384, 1, 1" in text and ".minnctapersm 1" in text
    assert "setmaxnreg.dec.sync.aligned.u32 40;" in text
    assert "setmaxnreg.inc.sync.aligned.u32 232;" in text
    # S = Q K^T: D/16 k16 steps, in the peeled first block and in the loop;
    # descriptors for both operands (no register A), first step overwrites S
    qk = [l for l in wgmmas(text, "m64n128k16") if "{%b" not in l]
    assert len(qk) == 2 * (D // 16)
    assert all(re.search(r"\}, %rd\d+, %rd\d+, [01], 1, 1, 0, 0;$", l.strip()) for l in qk)
    assert sum(l.strip().endswith(", 0, 1, 1, 0, 0;") for l in qk) == 2
    # O += P V: 8 k16 steps over the 128 keys, A = 4 registers of P, V
    # transposed (MN-major), accumulating; in the loop and after it
    pv = [l for l in wgmmas(text, f"m64n{D}k16") if "{%b" in l]
    assert len(pv) == 2 * 8
    assert all(re.search(r"\{%b\d+, %b\d+, %b\d+, %b\d+\}, %rd\d+, 1, 1, 1, 1;$", l.strip())
               for l in pv)
    # the loop overlaps softmax with P V: wait for S alone, then for P V
    assert text.count("wgmma.wait_group.sync.aligned 1;") == 1
    assert text.count("wgmma.wait_group.sync.aligned 0;") == 3
    # ping-pong: consumer 0 opens, each window ends handing over, consumer 0
    # takes the last hand-over
    assert len(lines(text, "bar.arrive 1, 256;")) == 1
    assert len(re.findall(r"bar\.arrive %r\d+, 256;", text)) == 2
    assert len(re.findall(r"bar\.sync %r\d+, 256;", text)) == 3
    # softmax: ex2 of every score (64 per thread per block, twice) and of
    # the two rescale factors in the loop; one FFMA per score
    assert len(lines(text, "ex2.approx.ftz.f32")) == 2 * 64 + 2
    assert len(lines(text, "fma.rn.ftz.f32")) == 2 * 64
    assert len(lines(text, "shfl.sync.bfly.b32")) == 2 * 2 * 2 + 2 * 2   # maxes, final sums
    assert len(lines(text, "cvt.rn.bf16x2.f32")) == 2 * 32 + D // 4      # P twice, O once
    # TMA: one Q box, K and V boxes of 128 rows, rank 3 (64-column panels)
    loads = lines(text, "cp.async.bulk.tensor.3d.shared::cluster.global.tile")
    assert len(loads) == 1 + 2 + 2
    boxes = {d.tensor: d.box for d in m.tma_descs}
    assert boxes == {"Q": (D // 64, 128, 64), "K": (D // 64, 128, 64), "V": (D // 64, 128, 64)}
    assert all(d.swizzle == "128B" for d in m.tma_descs)
    assert len(lines(text, "arrive.expect_tx")) == 1 + 4
    assert all(l.rstrip().endswith(f", {128 * D * 2};") for l in lines(text, "arrive.expect_tx"))
    # barriers: Q, full K/V (1 arrival), empty K/V (one per consumer warpgroup)
    inits = re.findall(r"mbarrier\.init\.shared::cta\.b64 \[[^]]+\], (\d);", text)
    assert sorted(inits) == ["1"] * 5 + ["2"] * 4
    # no causal mask
    assert "0fFF800000" not in text
    # outputs: bf16 pairs of O, and LSE from one lane per row
    assert len(lines(text, "st.global.b32")) == D // 4
    assert len(lines(text, "st.global.f32")) == 2
    assert m.smem == 128 * D * 2 * 5 + 8 * 9      # Q, 2 K and 2 V stages, 9 barriers


def test_causal_masks_only_the_first_block():
    text = fa.build_flash_attention(1, 2, 1024, 128, causal=True).ptx()
    masks = lines(text, "mov.f32 %f")
    masked = [l for l in masks if "0fFF800000" in l]
    assert len(masked) == 64 and all(l.strip().startswith("@%p") for l in masked)
    # all of them before the block loop starts
    loop = text.index("$L__range1:")
    assert all(text.index(l) < loop for l in masked[:1]) and text.rindex("0fFF800000") < loop
    # the comparisons are signed (row - 2*(lane%4) can be negative)
    assert len(lines(text, "setp.lt.s32")) == 64
    # a register block count: the loop bound comes from ctaid.x
    assert "%ctaid.x" in text


def test_persistent_kernel_walks_the_tiles():
    m = fa.build_flash_attention(1, 3, 1024, 64, causal=True, persistent=True,
                                 num_sms=5).module()
    text = m.ptx
    assert m.grid == (5, 1, 1)
    # producer and consumers each loop over tiles ctaid.x, ctaid.x + 5, ... < 24
    heads = re.findall(r"(\$L__range\d+):\n\tsetp\.ge\.u32 %p\d+, %r\d+, (\d+);", text)
    assert [n for _, n in heads].count("24") == 2, heads
    assert len(re.findall(r"add\.u32 (%r\d+), \1, 5;", text)) == 2
    # Q is reloaded per tile once both consumers are done with it: an empty
    # barrier for Q (2 arrivals), waited on by the producer, toggling phases
    inits = re.findall(r"mbarrier\.init\.shared::cta\.b64 \[[^]]+\], (\d);", text)
    assert sorted(inits) == ["1"] * 5 + ["2"] * 5
    q_empty = re.search(r"mbarrier\.init\.shared::cta\.b64 \[(dyn_smem\+\d+)\], 2;", text)[1]
    assert len(lines(text, "mbarrier.try_wait.parity.shared::cta.b64 %p")) >= 6
    assert len([l for l in lines(text, q_empty) if "mbarrier.arrive.shared" in l]) == 1
    assert len([l for l in lines(text, q_empty) if "try_wait" in l]) == 1
    # the ping-pong opens once and closes once, around the tile loop
    assert len(lines(text, "bar.arrive 1, 256;")) == 1
    assert len(re.findall(r"bar\.sync %r\d+, 256;", text)) == 3
    with pytest.raises(fa.AttentionShapeError, match="num_sms"):
        fa.build_flash_attention(1, 3, 1024, 64, persistent=True, num_sms=0)


def test_options_change_the_kernel():
    plain = fa.build_flash_attention(1, 2, 512, 64, pingpong=False).ptx()
    assert "bar.arrive" not in plain and not re.search(r"bar\.sync %r", plain)
    deep = fa.build_flash_attention(1, 2, 512, 64, stages=3).module()
    assert len(re.findall(r"mbarrier\.init\.shared::cta\.b64 \[[^]]+\], 2;", deep.ptx)) == 6


def test_unsupported_shapes_are_refused_at_the_callers_line():
    cases = [
        ((1, 2, 500, 64), {"heads_kv": 3}, "heads=2 is not a multiple of heads_kv=3"),
        ((1, 2, 500, 64), {"softmax_scale": -1.0}, "softmax_scale must be a positive"),
        ((1, 2, 500, 64), {"window": (5,)}, "window must be (left, right)"),
        ((1, 2, 500, 64), {"layout": "sbhd"}, "layout must be 'bhsd' or 'bshd'"),
        ((1, 2, 500, 64), {"persistent": True}, "persistent=True takes equal"),
        ((1, 2, 500, 64), {"varlen": True}, "varlen needs total_q and total_k"),
        ((1, 2, 512, 96), {}, "head_dim=96 is not supported"),
        ((1, 2, 512, 256), {}, "head_dim=256"),
        ((0, 2, 512, 64), {}, "batch must be a positive int"),
        ((1, 2.0, 512, 64), {}, "heads must be a positive int"),
        ((1, 2, 512, 64), {"stages": 5}, "stages=5"),
        ((1, 2, 512, 128), {"stages": 4}, "227 KiB"),
        ((1, 70000, 128, 64), {}, "65535"),
        ((64, 64, 16384, 128), {}, "32-bit element offsets"),
    ]
    for args, kwargs, message in cases:
        with pytest.raises(fa.AttentionShapeError) as info:
            fa.build_flash_attention(*args, **kwargs)  # <- refused build
        err = info.value
        assert isinstance(err, ValueError)
        assert message in str(err), str(err)
        # located at the line of this file that asked for the kernel
        assert os.path.samefile(err.file, __file__)
        assert err.line == line_of(__file__, "# <- refused build"), err.line


def test_flash_attention_checks_its_arrays():
    q = np.zeros((1, 2, 256, 64), np.float32)
    with pytest.raises(fa.AttentionShapeError) as info:
        fa.flash_attention(q, q[:, :1], q)  # <- refused call
    assert "k and v must have one shape" in str(info.value)
    assert info.value.line == line_of(__file__, "# <- refused call")
    with pytest.raises(fa.AttentionShapeError, match="heads=2 is not a multiple of heads_kv=3"):
        fa.flash_attention(q, np.zeros((1, 3, 256, 64)), np.zeros((1, 3, 256, 64)))
    with pytest.raises(fa.AttentionShapeError, match="one head_dim"):
        fa.flash_attention(q, q[..., :32], q[..., :32])
    with pytest.raises(fa.AttentionShapeError, match="cu_seqlens_q, cu_seqlens_k, max_seqlen_q"):
        fa.flash_attention(q[0], q[0], q[0], cu_seqlens_q=np.zeros(3, np.int32))
    with pytest.raises(fa.AttentionShapeError, match=r"\(batch, heads, seq, head_dim\)"):
        fa.flash_attention(q[0], q[0], q[0])


def naive(q, k, v, causal):
    """O and LSE one row at a time, straight from the definitions."""
    B, H, S, D = q.shape
    o = np.zeros((B, H, S, D))
    lse = np.zeros((B, H, S))
    for b in range(B):
        for h in range(H):
            for i in range(S):
                keys = range(i + 1) if causal else range(S)
                logits = [sum(float(x) * float(y) for x, y in zip(q[b, h, i], k[b, h, j]))
                          / math.sqrt(D) for j in keys]
                top = max(logits)
                weights = [math.exp(x - top) for x in logits]
                total = sum(weights)
                lse[b, h, i] = top + math.log(total)
                for w, j in zip(weights, keys):
                    o[b, h, i] += w / total * v[b, h, j].astype(np.float64)
    return o, lse


@pytest.mark.parametrize("causal", [False, True])
def test_reference_matches_the_naive_formula(causal):
    rng = np.random.default_rng(3)
    q, k, v = (rng.standard_normal((2, 2, 24, 16)).astype(np.float32) * 2 for _ in range(3))
    o, lse = fa.reference(q, k, v, causal)
    o_naive, lse_naive = naive(q, k, v, causal)
    assert o.shape == q.shape and lse.shape == q.shape[:3]
    np.testing.assert_allclose(o, o_naive, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(lse, lse_naive, rtol=1e-12, atol=1e-12)
    if causal:   # the first row sees only its own key
        np.testing.assert_allclose(o[:, :, 0], v[:, :, 0], rtol=1e-12)


def test_script_prints_the_ptx():
    out = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "hopper",
                                                       "flash_attention.py"), "1", "1", "256",
                          "64", "causal"], capture_output=True, text=True, check=True).stdout
    assert ".visible .entry flash_attention_fwd(" in out and ".target sm_90a" in out
    assert "0fFF800000" in out   # causal
