"""The general flash attention kernel (examples/hopper/flash_attention.py
beyond equal 128-multiple lengths: GQA, any lengths, windows, bshd, packed
sequences) without a GPU: each assembles for sm_90a within the register
budget, without spills or serialised wgmma; its tensor maps are 5-D with
the sequence as a dimension of its own and the strides of the layout; K/V
boxes take the head h // group; masks, -inf guards and predicated stores
appear only where the configuration needs them; packed sequences read
their offsets and end CTAs past their sequence."""
import re
import warnings

import pytest

from examples.hopper import flash_attention as fa
from pyptx.errors import KernelWarning
from pyptx.pipeline.attention import SequenceTensorMap

LOAD5 = "cp.async.bulk.tensor.5d.shared::cluster.global.tile"


def lines(text, needle):
    return [l for l in text.splitlines() if needle in l]


CONFIGS = [
    dict(batch=2, heads=4, seq=1000, head_dim=128),
    dict(batch=2, heads=32, seq=4096, head_dim=128, heads_kv=8, causal=True),
    dict(batch=1, heads=3, seq=129, head_dim=64, seq_k=1000, layout="bshd", softmax_scale=0.05),
    dict(batch=1, heads=2, seq=1000, head_dim=128, seq_k=900, window=(64, 32)),
    dict(batch=3, heads=4, seq=1024, head_dim=64, causal=True, varlen=True, total_q=2000,
         total_k=2100, seq_k=1000, heads_kv=2),
    # partial blocks: a one-key tail and a one-row last Q block (an idle warpgroup)
    dict(batch=15, heads=16, seq=4097, head_dim=128),
    dict(batch=2, heads=4, seq=4097, head_dim=64, causal=True),
    dict(batch=2, heads=2, seq=17, head_dim=64),
    dict(batch=2, heads=2, seq=129, head_dim=128, layout="bshd"),
    dict(batch=3, heads=4, seq=1024, head_dim=128, varlen=True, total_q=2000, total_k=2000),
]


@pytest.mark.parametrize("kw", CONFIGS, ids=lambda kw: "-".join(f"{k}{v}" for k, v in kw.items()
                                                             if k not in ("batch", "head_dim")))
def test_assembles_without_spills(kw, assemble):
    k = fa.build_flash_attention(**kw)
    with warnings.catch_warnings():
        warnings.simplefilter("error", KernelWarning)     # the hazard checker's findings
        m = k.module()
    assemble(m.ptx, "sm_90a")
    r = k.resources()
    assert r["ok"], r["ptxas_stderr"]
    assert r["registers"] <= 168 and r["spill_stores_bytes"] == 0
    assert "serialized" not in r["ptxas_stderr"]
    assert r["setmaxnreg_values"] == [fa.PRODUCER_REGS, fa.CONSUMER_REGS]
    cfg = k.config
    assert m.grid == (-(-cfg.seq // 128), cfg.batch * cfg.heads, 1)
    assert all(isinstance(d, SequenceTensorMap) for d in m.tma_descs)
    assert len(lines(m.ptx, LOAD5)) == 1 + 2 + 2       # Q, K and V as in the basic kernel


def test_tensor_maps_follow_the_layout():
    e, D = 2, 128
    bshd = SequenceTensorMap("Q", fa.bf16, 128, D, seq_axis=1)
    dims, strides, box = bshd.geometry((2, 1000, 8, D))
    assert dims == [64, 1000, 2, 8, 2] and box == [64, 128, 2, 1, 1]
    assert strides == [8 * D * e, 64 * e, D * e, 1000 * 8 * D * e]
    bhsd = SequenceTensorMap("K", fa.bf16, 128, D, seq_axis=2)
    dims, strides, _ = bhsd.geometry((2, 8, 1000, D))
    assert dims == [64, 1000, 2, 8, 2]
    assert strides == [D * e, 64 * e, 1000 * D * e, 8 * 1000 * D * e]
    assert bshd.nbytes == 128 * D * e                   # what the mbarrier expects


def test_gqa_boxes_take_the_head_of_the_group():
    text = fa.build_flash_attention(2, 32, 4096, 128, heads_kv=8).ptx()
    assert "div.u32" in text and re.search(r"div\.u32 %r\d+, %r\d+, 4;", text)
    # aligned, non-causal: no mask, no -inf guard, unpredicated O stores
    assert "0fFF800000" not in text and "selp.f32" not in text
    assert not any(l.strip().startswith("@") for l in lines(text, "st.global.b32"))


def test_masks_and_guards_where_needed():
    odd = fa.build_flash_attention(2, 4, 1000, 128).ptx()
    # the key tail: one compare and -inf per score of the first block, the only
    # one that crosses it (104 keys: 112 columns, 56 registers a thread)
    assert len([l for l in lines(odd, "mov.f32") if "0fFF800000" in l]) == 112 // 2
    # rows past the sequence are not stored; rows with no key get LSE = +inf
    assert all(l.strip().startswith("@") for l in lines(odd, "st.global.b32"))
    assert "0f7F800000" in odd
    # per-score compares with a column immediate: lt for the right edge / tail,
    # gt for a window's left edge
    right = re.compile(r"setp\.lt\.s32 %p\d+, %s\d+, \d+;")
    left = re.compile(r"setp\.gt\.s32 %p\d+, %s\d+, \d+;")
    window = fa.build_flash_attention(1, 2, 1000, 128, seq_k=900, window=(64, 32)).ptx()
    # (+1 gt: the tile's "sees any key" test, n_blocks > 0, as seq_q > seq_k)
    assert len(left.findall(window)) == 2 * 64 + 1 and len(right.findall(window)) == 2 * 64
    causal = fa.build_flash_attention(1, 2, 1000, 128, causal=True).ptx()
    assert len(right.findall(causal)) == 2 * 64 and not left.findall(causal)


def test_partial_blocks_cost_less():
    """The key tail known at trace time (S = 4097: one key) runs P V over one
    k-step and its softmax over 16 columns; a warpgroup whose rows all lie
    past the end (the last Q block has 1 row) drains the rings instead."""
    text = fa.build_flash_attention(1, 2, 4097, 128).ptx()
    pv_steps = [l for l in lines(text, "wgmma.mma_async") if "{%b" in l]
    # P V: one k-step for the first block, 8 in the loop and 8 for the last block
    assert len(pv_steps) == 1 + 8 + 8
    # exponents: 8 of the first block's 16 columns, 64 + 2 (alpha) in two later steps
    assert len(lines(text, "ex2.approx")) == 8 + 2 * (64 + 2)
    aligned = fa.build_flash_attention(1, 2, 4096, 128, layout="bshd").ptx()
    assert len([l for l in lines(aligned, "wgmma.mma_async") if "{%b" in l]) == 2 * 8
    # 4097 rows: the last Q block has 1 <= 64 rows; 1000 rows: 104 > 64, none idle
    assert fa.Config(1, 2, 4097, 128, layout="bshd").may_idle
    assert not fa.Config(1, 2, 1000, 128, layout="bshd").may_idle


def test_packed_sequences_read_their_offsets():
    text = fa.build_flash_attention(3, 4, 1024, 64, varlen=True, total_q=2000, total_k=2100,
                                    seq_k=1000).ptx()
    assert len(lines(text, "ld.global.u32")) == 4      # start and end of q and k
    assert re.search(r"@%p\d+ ret;", text)             # a block past its sequence ends
    assert ".param .u64 CuSeqlensQ" in text and ".param .u64 CuSeqlensK" in text
