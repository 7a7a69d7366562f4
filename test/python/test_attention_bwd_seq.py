"""examples/hopper/flash_attention_bwd_seq.py without a GPU: the backward for
unequal lengths, windows, the bshd layout and packed sequences. Its three
kernels trace without hazard warnings and assemble for sm_90a, the main
kernel without spills; the block bounds and the element mask (the kernel's
own arithmetic, run on ints) agree with the forward's visibility rule for
every K/V block and Q block of many shapes; the float64 reference agrees
with torch autograd; the entry point sends each case to the right kernels;
bad arguments are refused at the caller's line."""
import re
import warnings

import pytest
import torch
from conftest import line_of

from examples.hopper import flash_attention_bwd_seq as fs
from pyptx.errors import KernelWarning
from pyptx.pipeline.attention import visible

BM, BN = 64, 128

CONFIGS = [  # B, H, Hkv, Sq, Sk, D, causal, window, layout, varlen
    (1, 2, 2, 1000, 127, 128, True, (-1, -1), "bhsd", False),
    (2, 4, 2, 17, 1000, 64, True, (-1, -1), "bhsd", False),
    (1, 2, 1, 129, 1, 128, False, (-1, -1), "bshd", False),
    (1, 2, 2, 1, 129, 64, False, (-1, -1), "bhsd", False),
    (2, 4, 4, 4096, 4096, 128, False, (-1, -1), "bshd", False),
    (1, 4, 2, 1024, 1024, 128, True, (256, 0), "bhsd", False),
    (1, 2, 2, 1000, 1000, 64, False, (100, 37), "bshd", False),
    (3, 8, 2, 1024, 1024, 128, True, (-1, -1), "bhsd", True),
    (3, 4, 4, 256, 384, 64, False, (64, -1), "bhsd", True),
]


def make(c):
    B, H, Hkv, Sq, Sk, D, causal, window, layout, varlen = c
    totals = dict(total_q=B * Sq - 5, total_k=B * Sk + 3) if varlen else {}
    return fs.SeqConfig(B, H, Hkv, Sq, D, causal, seq_k=Sk, window=window, layout=layout,
                        varlen=varlen, **totals)


def ids(c):
    B, H, Hkv, Sq, Sk, D, causal, window, layout, varlen = c
    return (f"B{B}H{H}kv{Hkv}Sq{Sq}Sk{Sk}D{D}{'c' if causal else ''}"
            f"{'w%d_%d' % window if window != (-1, -1) else ''}{layout}{'-varlen' * varlen}")


@pytest.mark.parametrize("config", CONFIGS, ids=ids)
def test_assembles_without_spills(config, assemble):
    cfg = make(config)
    with warnings.catch_warnings():
        warnings.simplefilter("error", KernelWarning)
        kern = fs.Kernels(cfg)
        texts = [k.ptx() for k in (kern.preprocess, kern.main, kern.convert)]
    for text in texts:
        assemble(text, "sm_90a")
    r = kern.main.resources()
    assert r["ok"], r["ptxas_stderr"]
    assert r["spill_stores_bytes"] == 0 and r["spill_loads_bytes"] == 0, r["ptxas_stderr"]
    assert "warning" not in r["ptxas_stderr"].lower()
    assert r["smem_per_cta"] <= 227 * 1024
    B, H, Hkv, Sq, Sk = config[:5]
    assert kern.main.module().grid == (-(-Sk // BN), Hkv, B)
    assert kern.preprocess.module().grid == (-(-Sq // BM), H, B)
    # five products per step, in the plain and (where needed) the masked copy
    steps = texts[1].count("cp.reduce.async.bulk.global")
    masked = "0fFF800000" in texts[1]
    assert steps == (2 if masked else 1)
    assert texts[1].count("ex2.approx.ftz.f32") == 32 * steps
    # packed: one ld.global of each offset pair per kernel, and an early ret
    if cfg.varlen:
        assert "@%p0 ret;" in texts[1] and texts[1].count("ld.global.s32") == 4


def test_plain_bshd_has_no_mask():
    text = fs.build_main(make(CONFIGS[4])).ptx()
    assert "0fFF800000" not in text and "tensor.5d" in text and "selp.s32" not in text


def brute_force(sq, sk, window, kv_tail, q_tail):
    """Every K/V block's Q-block range, masked-block test and element mask
    (block_bounds, block_masked, band_limits on ints) against visible()."""
    for n in range(-(-sk // BN)):
        k0 = n * BN
        diag, m_lo, m_hi, full_lo, full_hi = fs.block_bounds(k0, sq, sk, window, kv_tail,
                                                             q_tail)
        for m in range(-(-sq // BM)):
            rows = range(m * BM, min(m * BM + BM, sq))
            keys = range(k0, min(k0 + BN, sk))
            seen = [[visible(i, j, sq, sk, window) for i in rows] for j in keys]
            if any(map(any, seen)):
                assert m_lo <= m < m_hi, (n, m, m_lo, m_hi)
            if not m_lo <= m < m_hi:
                continue
            if not fs.block_masked(m * BM, full_lo, full_hi):
                assert len(rows) == BM and len(keys) == BN and all(map(all, seen)), (n, m)
            for j in range(k0, k0 + BN):
                low, high = fs.band_limits(j, m * BM, diag, sq, sk, window, kv_tail, q_tail)
                for c in range(BM):
                    i = m * BM + c
                    want = j < sk and i < sq and visible(i, j, sq, sk, window)
                    got = not ((low is not None and c < low) or (high is not None and c > high))
                    assert got == want, (n, m, j, c)


@pytest.mark.parametrize("sq,sk", [(1, 1), (17, 129), (129, 17), (127, 1000), (1000, 127),
                                   (256, 256), (1, 1000), (1000, 1)])
@pytest.mark.parametrize("window", [(-1, -1), (-1, 0), (50, 10), (100, 0), (0, 0), (-1, 70)])
def test_bounds_and_mask_match_visibility(sq, sk, window):
    brute_force(sq, sk, window, sk % BN != 0, sq % BM != 0)
    brute_force(sq, sk, window, True, True)          # packed: both tails always possible


@pytest.mark.parametrize("causal,window", [(False, (-1, -1)), (True, (-1, -1)),
                                           (False, (5, 3)), (True, (7, -1))])
@pytest.mark.parametrize("sq,sk", [(20, 33), (33, 20)])
def test_reference_matches_autograd(causal, window, sq, sk):
    g = torch.Generator().manual_seed(sq + sk)
    q = torch.randn(2, 4, sq, 16, generator=g, dtype=torch.float64, requires_grad=True)
    k, v = (torch.randn(2, 2, sk, 16, generator=g, dtype=torch.float64, requires_grad=True)
            for _ in range(2))
    do = torch.randn(2, 4, sq, 16, generator=g, dtype=torch.float64)
    seen = torch.tensor([[visible(i, j, sq, sk, (window[0], 0 if causal else window[1]))
                          for j in range(sk)] for i in range(sq)])
    s = (q @ k.repeat_interleave(2, 1).transpose(-1, -2) * 0.3).masked_fill(~seen, -torch.inf)
    o = torch.softmax(s, -1).nan_to_num(0.0) @ v.repeat_interleave(2, 1)
    grads = torch.autograd.grad(o, (q, k, v), do)
    ours = fs.reference(q.detach(), k.detach(), v.detach(), do, causal, 0.3, window)
    for a, b in zip(ours, grads):
        torch.testing.assert_close(a, b, rtol=1e-10, atol=1e-10)
    assert ours[0].abs().sum() > 0


def test_entry_point_chooses_the_kernels(monkeypatch):
    calls = []
    monkeypatch.setattr(fs.dense, "flash_attention_backward",
                        lambda *a, **k: calls.append("dense"))
    monkeypatch.setattr(fs.Kernels, "__call__", lambda self, *a: calls.append(self.cfg))
    monkeypatch.setattr(fs, "_KERNELS", {})
    monkeypatch.setattr(fs.Kernels, "__init__", lambda self, cfg, arch: setattr(self, "cfg", cfg))

    def run(q, k, **kw):
        fs.flash_attention_backward(q, k, k, q, q, None, causal=True, **kw)
        return calls[-1]
    bf = torch.bfloat16
    assert run(torch.empty(1, 4, 256, 64, dtype=bf), torch.empty(1, 2, 256, 64, dtype=bf)) \
        == "dense"
    cfg = run(torch.empty(1, 4, 300, 64, dtype=bf), torch.empty(1, 2, 200, 64, dtype=bf))
    assert (cfg.seq, cfg.keys, cfg.heads_kv, cfg.varlen) == (300, 200, 2, False)
    cfg = run(torch.empty(1, 256, 4, 64, dtype=bf), torch.empty(1, 256, 4, 64, dtype=bf),
              layout="bshd")
    assert cfg.layout == "bshd" and cfg.key_window == (-1, 0)
    cfg = run(torch.empty(1, 4, 256, 64, dtype=bf), torch.empty(1, 4, 256, 64, dtype=bf),
              window=(32, -1))
    assert cfg.key_window == (32, 0)
    cu = torch.tensor([0, 100, 100, 700], dtype=torch.int32)
    cfg = run(torch.empty(700, 8, 128, dtype=bf), torch.empty(700, 2, 128, dtype=bf),
              cu_seqlens_q=cu, cu_seqlens_k=cu, max_seqlen_q=600, max_seqlen_k=600)
    assert (cfg.varlen, cfg.total_q, cfg.seq, cfg.keys, cfg.batch) == (True, 700, 640, 640, 3)
    assert cfg.total_pad == (700 + 3 * 64) // 64 * 64


def test_refusals_at_the_callers_line():
    here = line_of(__file__, "fs.Kernels(fs.SeqConfig(1, 2, 2, 100, 64, dq_reduce=\"red\"))")
    with pytest.raises(fs.dense.AttentionShapeError, match="dq_reduce='red'") as e:
        fs.Kernels(fs.SeqConfig(1, 2, 2, 100, 64, dq_reduce="red"))
    assert e.value.line == here and e.value.file == __file__
    here = line_of(__file__, "fs.Kernels(fs.SeqConfig(1, 3, 2, 100, 64, seq_k=50))")
    with pytest.raises(fs.dense.AttentionShapeError, match="heads_q=3") as e:
        fs.Kernels(fs.SeqConfig(1, 3, 2, 100, 64, seq_k=50))
    assert e.value.line == here and e.value.file == __file__
    with pytest.raises(fs.dense.AttentionShapeError, match="window"):
        fs.Kernels(fs.SeqConfig(1, 2, 2, 100, 64, window=(-2, 0)))


def test_accumulator_offsets_are_disjoint_per_sequence():
    """Packed: each sequence's accumulator blocks (Sequence.acc_head, the
    kernels' arithmetic on ints) are disjoint, inside total_pad, per head."""
    lens = [0, 1, 63, 64, 65, 0, 200, 17, 0]
    starts = [0]
    for n in lens:
        starts.append(starts[-1] + n)
    cfg = fs.SeqConfig(len(lens), 2, 1, 256, 64, varlen=True, total_q=starts[-1],
                       total_k=starts[-1])
    for h in range(2):
        end = h * cfg.total_pad
        for b, n in enumerate(lens):
            seq = fs.Sequence.__new__(fs.Sequence)
            seq.cfg, seq.b, seq.q_start, seq.seq_q = cfg, b, starts[b], n
            first = seq.acc_head(h)
            assert first % BM == 0 and first >= end
            end = first + -(-n // BM) * BM
        assert end <= (h + 1) * cfg.total_pad


def test_script_prints_ptx(capsys):
    fs.main(["1", "2", "1", "100", "33", "64", "causal", "16", "-1"])
    out = capsys.readouterr().out
    assert out.count(".entry") == 3 and "flash_attention_bwd_seq" in out
    assert re.search(r"cp\.async\.bulk\.tensor\.5d", out)


def test_jax_backward_is_the_kernels():
    """jax.grad through pyptx.ops.flash_attention traces to kernel launches
    (forward, preprocess, main, convert), no jnp recomputation (no
    dot_general); the main kernel's accumulator comes back as an output."""
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp

    from pyptx.ops import flash_attention
    q, k = jnp.ones((300, 4, 64), jnp.bfloat16), jnp.ones((300, 2, 64), jnp.bfloat16)
    cu = jnp.array([0, 100, 100, 300], jnp.int32)

    def loss(a, b, c, cu_):
        return flash_attention(a, b, c, causal=True, cu_seqlens_q=cu_, cu_seqlens_k=cu_,
                               max_seqlen_q=200, max_seqlen_k=200).astype(jnp.float32).sum()
    text = str(jax.make_jaxpr(jax.grad(loss, argnums=(0, 1, 2)))(q, k, k, cu))
    assert text.count("pyptx_launch") == 4 and "dot_general" not in text
    assert re.search(r"bf16\[1,300,2,64\] \w+:bf16\[1,300,2,64\] \w+:f32\[\d+,64\] = ffi_call",
                     text)
