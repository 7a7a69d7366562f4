"""examples/hopper/flash_attention_bwd.py without a GPU: the three kernels of
every supported configuration (head_dim 64/128, causal or not, grouped
heads) trace and assemble for sm_90a, the main kernel within the register
budget with no spills and no serialised wgmma; its PTX has the structure
the docstring describes (the five products with their shapes and
operand forms, dQ by red.global.add.v2.f32, the causal mask only in the two
peeled diagonal steps); bad shapes are refused at the caller's line; the
float64 reference agrees with torch autograd."""
import math
import re
import warnings

import pytest
import torch
from conftest import line_of

from examples.hopper import flash_attention_bwd as fb
from examples.hopper import flash_attention_bwd_rows as fbr
from pyptx.errors import KernelWarning

CONFIGS = [  # B, H, Hkv, S, D, causal
    (1, 2, 2, 256, 64, False), (1, 2, 2, 256, 64, True), (2, 3, 3, 1024, 128, False),
    (2, 3, 3, 1024, 128, True), (1, 1, 1, 128, 128, True), (4, 16, 16, 8192, 128, True),
    (1, 8, 2, 512, 128, False), (1, 8, 2, 512, 128, True), (2, 4, 1, 256, 64, True),
    # partial last blocks: Q (seq % 64), K/V (seq % 128), both, tiny
    (2, 2, 2, 1000, 128, True), (1, 4, 2, 4097, 64, False), (1, 1, 1, 17, 128, True),
    (1, 2, 2, 192, 64, True), (1, 1, 1, 1, 64, False)]


def ids(c):
    b, h, hkv, s, d, causal = c
    return f"B{b}H{h}kv{hkv}S{s}D{d}{'c' if causal else ''}"


@pytest.mark.parametrize("B,H,Hkv,S,D,causal", CONFIGS, ids=[ids(c) for c in CONFIGS])
def test_assembles_without_spills(B, H, Hkv, S, D, causal, assemble):
    with warnings.catch_warnings():
        warnings.simplefilter("error", KernelWarning)     # the hazard checker's findings
        kern = fb.Kernels(fb.Config(B, H, Hkv, S, D, causal))
        kern.main.ptx()
    for k in (kern.preprocess, kern.convert):
        assemble(k.module().ptx, "sm_90a")
    m = kern.main.module()
    assemble(m.ptx, "sm_90a")
    r = kern.main.resources()
    assert r["ok"], r["ptxas_stderr"]
    assert r["registers"] <= 168
    assert r["spill_stores_bytes"] == 0 and r["spill_loads_bytes"] == 0, r["ptxas_stderr"]
    assert "serialized" not in r["ptxas_stderr"]
    assert "warning" not in r["ptxas_stderr"].lower()
    assert r["setmaxnreg_values"] == [fb.PRODUCER_REGS, fb.CONSUMER_REGS]
    assert r["smem_per_cta"] <= 227 * 1024
    assert m.grid == (-(-S // 128), Hkv, B)
    assert m.block == (384, 1, 1)


def wgmmas(text, shape):
    return [line for line in text.splitlines()
            if f"wgmma.mma_async.sync.aligned.{shape}.f32.bf16.bf16" in line]


@pytest.mark.parametrize("D", [64, 128])
def test_main_kernel_structure(D):
    text = fb.kernels_for(1, 2, 2, 512, D, True).main.ptx()
    # per step (two peeled masked steps and the loop's: three copies):
    # S^T and dP^T, D/16 k-steps each, and dQ (8 k-steps over 128 K rows for
    # D=128, 4 over the warpgroup's 64 for D=64), A and B descriptors:
    n64 = wgmmas(text, "m64n64k16")
    from_smem = [line for line in n64 if "}, {" not in line]
    assert len(from_smem) == 3 * (2 * D // 16 + (8 if D == 128 else 4))
    # dV and dK: 4 k-steps each, A in registers ({...} operand), B N-major
    acc = [line for line in wgmmas(text, f"m64n{D}k16") if "}, {" in line]
    assert len(acc) == 3 * 2 * 4 and all(line.rstrip(";").endswith(", 1") for line in acc)
    # dQ: 8 st.shared.v4 of the fragment, one thread's bulk reduce of the chunk
    assert len(re.findall(r"st\.shared\.v4\.f32", text)) == 3 * 8
    assert len(re.findall(r"cp\.reduce\.async\.bulk\.global\.shared::cta\.bulk_group\.add"
                          r"\.f32 \[%rd\d+\], \[%r\d+\], 16384", text)) == 3
    assert "red.global" not in text
    assert len(re.findall(r"stmatrix\.sync\.aligned\.m8n8\.x4\.shared::cta\.b16", text)) == 3 * 4
    # the mask: 32 predicated movs of -inf in each of the two peeled steps only
    assert len(re.findall(r"@%p\d+ mov\.f32 %f\d+, 0fFF800000", text)) == 2 * 32
    assert text.count("ex2.approx.ftz.f32") == 3 * 32
    assert "setmaxnreg.dec.sync.aligned.u32 24" in text
    assert "setmaxnreg.inc.sync.aligned.u32 240" in text


@pytest.mark.parametrize("D", [64, 128])
def test_non_causal_has_no_mask_and_one_step(D):
    text = fb.kernels_for(1, 2, 2, 512, D, False).main.ptx()
    assert "0fFF800000" not in text
    assert text.count("cp.reduce.async.bulk") == 1


@pytest.mark.parametrize("D", [64, 128])
def test_red_variant_adds_from_registers(D, assemble):
    kern = fb.kernels_for(1, 2, 2, 512, D, True, dq_reduce="red")
    text = kern.main.ptx()
    assert len(re.findall(r"red\.global\.add\.v2\.f32", text)) == 3 * 16
    assert "cp.reduce" not in text and "st.shared.v4" not in text
    assemble(text, "sm_90a")
    assemble(kern.convert.ptx(), "sm_90a")
    r = kern.main.resources()
    assert r["spill_stores_bytes"] == 0 and r["spill_loads_bytes"] == 0, r["ptxas_stderr"]


def test_refusals_name_the_problem_at_the_callers_line():
    here = line_of(__file__, "fb.kernels_for(1, 3, 2, 256, 64)  # heads")
    with pytest.raises(fb.AttentionShapeError, match="heads_q=3 is not a multiple") as e:
        fb.kernels_for(1, 3, 2, 256, 64)  # heads
    assert e.value.line == here and e.value.file == __file__
    with pytest.raises(fb.AttentionShapeError, match="head_dim=96"):
        fb.kernels_for(1, 2, 2, 256, 96)
    with pytest.raises(fb.AttentionShapeError, match="seq must be a positive int"):
        fb.kernels_for(1, 2, 2, 0, 64)
    with pytest.raises(fb.AttentionShapeError, match="dq_reduce='tma'"):
        fb.kernels_for(1, 2, 2, 256, 64, dq_reduce="tma")
    q = torch.zeros(1, 2, 128, 64, dtype=torch.bfloat16)
    with pytest.raises(fb.AttentionShapeError, match=r"lse must have shape \(1, 2, 128\)"):
        fb.flash_attention_backward(q, q, q, q, q, torch.zeros(1, 2, 64), causal=False)


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("group", [1, 2])
def test_reference_matches_autograd(causal, group):
    g = torch.Generator().manual_seed(0)
    B, H, S, D = 2, 4, 48, 16
    q = torch.randn(B, H, S, D, generator=g, dtype=torch.float64, requires_grad=True)
    k = torch.randn(B, H // group, S, D, generator=g, dtype=torch.float64, requires_grad=True)
    v = torch.randn(B, H // group, S, D, generator=g, dtype=torch.float64, requires_grad=True)
    do = torch.randn(B, H, S, D, generator=g, dtype=torch.float64)
    o = torch.nn.functional.scaled_dot_product_attention(
        q, k.repeat_interleave(group, 1), v.repeat_interleave(group, 1), is_causal=causal,
        scale=0.3)
    grads = torch.autograd.grad(o, (q, k, v), do)
    ours = fb.reference(q.detach(), k.detach(), v.detach(), do, causal, softmax_scale=0.3)
    for a, b in zip(ours, grads):
        torch.testing.assert_close(a, b, rtol=1e-10, atol=1e-10)
    assert not math.isclose(ours[0].norm().item(), 0.0)


@pytest.mark.parametrize("S,q_tail,kv_tail", [(1000, True, True), (192, False, True),
                                              (4097, True, True), (1024, False, False)])
def test_partial_blocks_take_a_masked_branch(S, q_tail, kv_tail):
    cfg = fb.Config(1, 2, 2, S, 128, True)
    assert (bool(cfg.q_tail), bool(cfg.kv_tail)) == (q_tail, kv_tail)
    assert cfg.seq_pad == -(-S // 64) * 64 and m_grid(cfg) == (-(-S // 128), 2, 1)
    text = fb.kernels_for(1, 2, 2, S, 128, True).main.ptx()
    steps = len(re.findall(r"red\.global|cp\.reduce\.async\.bulk", text))
    # with a partial block: one loop whose body is a masked and a plain step;
    # without: the two peeled diagonal steps and the loop's
    assert steps == (2 if q_tail or kv_tail else 3)
    # the masked step: causal (32), past-seq columns (32), past-seq K rows (32)
    masks = len(re.findall(r"@%p\d+ mov\.f32 %f\d+, 0fFF800000", text))
    assert masks == (32 + 32 * q_tail + 32 * kv_tail if q_tail or kv_tail else 64)


def m_grid(cfg):
    return fb.build_main(cfg).module().grid


def test_script_prints_ptx(capsys):
    fb.main(["1", "1", "256", "64", "causal"])
    out = capsys.readouterr().out
    assert out.count(".entry") == 3 and "flash_attention_bwd" in out


@pytest.mark.parametrize("chunked", [True, False])
def test_row_kernels_assemble_and_print(chunked, assemble, capsys):
    rows = fbr.QRows(3, 1000, 128, scale=0.1, chunked=chunked)
    assert (rows.seq_pad, rows.acc_rows) == (1024, 3072)
    for build in (fbr.build_preprocess, fbr.build_convert):
        k = build(rows)
        assemble(k.ptx(), "sm_90a")
        assert k.module().grid[0] * k.module().block[0] in (
            rows.acc_rows * 128 // 8, rows.acc_rows * 128 // (4 if chunked else 8))
    fbr.main([])
    assert capsys.readouterr().out.count(".entry") == 2


def test_row_reference_layout():
    g = torch.Generator().manual_seed(1)
    rows = fbr.QRows(2, 70, 64, scale=0.5)
    o, do = (torch.randn(2, 70, 64, generator=g) for _ in range(2))
    lse = torch.randn(2, 70, generator=g)
    stats, to_dq = fbr.reference(o, do, lse, rows)
    assert stats.shape == (2 * 128 // 64, 128)
    # head 1's second block: rows 64..69 valid, then padding (zeros)
    torch.testing.assert_close(stats[3, 64:70], (o[1, 64:].double() * do[1, 64:]).sum(-1))
    torch.testing.assert_close(stats[3, :6], -lse[1, 64:].double() * fbr.LOG2E)
    assert not stats[3, 70 - 64:64].any() and not stats[3, 64 + 6:].any()
    acc = torch.arange(2 * 128 * 64, dtype=torch.float32).reshape(256, 64)
    dq = to_dq(acc)
    assert dq.shape == (140, 64) and dq[70, 0] == 0.5 * acc[128, 0]
