"""The ping-pong schedule of the Hopper GEMM (build_gemm(schedule="pingpong"))
without a GPU: every fused epilogue, both output types, both B layouts,
tails of M and N, 1- and 2-CTA clusters trace and assemble for sm_90a with
no spill and no serialized wgmma; the PTX has the structure the schedule
needs (whole 128-row tiles per warpgroup: two m64n128k16 per k16 step on
the two A halves; one empty arrival per CTA; the turns on named barriers
3 and 4 around the issue of the main loop, given before the last wait; the
stage skip of the other consumer's tile); bad options are refused."""
import re

import pytest

from examples.hopper import gemm
from pyptx.types import f32


def lines(text, needle):
    return [l for l in text.splitlines() if needle in l]


@pytest.mark.parametrize("M,N,K,kw", [
    (4096, 4096, 4096, dict(bias=True, activation="gelu", cluster=2)),
    (4096, 4096, 4096, dict(activation="silu", cluster=1)),
    (1024, 4096, 4096, dict(bias=True, residual=True)),
    (1000, 1000, 1008, dict(bias=True, activation="gelu", residual=True)),   # tails, stripes
    (1000, 1000, 1008, dict(out_dtype=f32, activation="silu", residual=True)),
    (520, 768, 136, dict(b_major="MN", cluster=2, residual=True)),
    (300, 200, 64, dict(bn=64, out_dtype=f32, bias=True)),
    (4096, 4096, 4096, {}),
])
def test_assembles_without_spills(M, N, K, kw, assemble):
    k = gemm.build_gemm(M, N, K, bn=kw.pop("bn", 128), schedule="pingpong", **kw)
    assert k.config.pingpong
    assemble(k.module().ptx, "sm_90a")
    r = k.resources()
    assert r["ok"], r["ptxas_stderr"]
    assert r["spill_stores_bytes"] == 0 and r["spill_loads_bytes"] == 0
    assert "0 bytes stack frame" in r["ptxas_stderr"]
    assert "serialized" not in r["ptxas_stderr"]
    assert r["smem_per_cta"] <= 227 * 1024


def _consumer(text):
    """The consumer warpgroups' part of the kernel (after setmaxnreg.inc)."""
    return text[text.index("setmaxnreg.inc"):]


def test_structure():
    k = gemm.build_gemm(2048, 2048, 1024, bn=128, cluster=2, schedule="pingpong",
                        bias=True, activation="gelu")
    text = k.ptx()
    cfg = k.config
    assert cfg.stages == 6 and cfg.epi_cols == 128
    # full barriers count the producer; empty ones one consumer in each CTA
    assert len(re.findall(r"mbarrier\.init\.shared::cta\.b64 \[[^]]+\], 1;", text)) == 6
    assert len(re.findall(r"mbarrier\.init\.shared::cta\.b64 \[[^]]+\], 2;", text)) == 6
    body = _consumer(text)
    wgmma = lines(body, "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16")
    assert len(wgmma) == 16                 # 4 k16 steps x 2 halves, peeled + loop
    # the first k16 step of the peeled tile starts both accumulators from zero
    assert sum(l.rstrip().endswith(", 0, 1, 1, 0, 0;") for l in wgmma) == 2
    # the second half reads A 64 rows (8192 bytes, 512 in descriptor units) in
    assert lines(body, "add.u64") and any(l.rstrip().endswith(", 512;")
                                          for l in lines(body, "add.u64"))
    # two accumulators of 64 registers each: %f0..%f127 written by the wgmmas
    regs = {int(x) for l in wgmma for x in re.findall(r"%f(\d+)", l)}
    assert regs == set(range(128))
    # the turns: consumer 0 starts on barrier 3; take = bar.sync (own id), give
    # = bar.arrive (the other's), after the k-loop and before the last wait
    assert lines(body, "bar.arrive 3, 256;")[0].lstrip().startswith("@%p")
    take = body.index(lines(body, "bar.sync %r")[0])
    give = body.index(lines(body, "bar.arrive %r")[0])
    loop_end = body.index("$L__range3_end:")
    last_wait = body.index("wgmma.wait_group.sync.aligned 0;")
    first_wait = body.index("mbarrier.try_wait")
    assert take < first_wait < loop_end < give < last_wait
    # the epilogue (tanh per element) comes after the turn is given
    assert body.index("tanh.approx.f32") > last_wait
    assert len(lines(body, "tanh.approx.f32")) == 128            # two 64 x 128 halves
    # two TMA stores per tile (one per half), through this warpgroup's slice
    assert len(lines(body, "cp.async.bulk.tensor.3d.global.shared::cta")) == 2


def _run_skip(text, cursor, phase):
    """Interprets the PTX of the skip (the else branch of the consumer's
    tile: setp, selp, add, sub, xor on the cursor and phase registers)."""
    body = text[text.index("$L__if3_false:") + len("$L__if3_false:"):]
    body = body[:body.index("$L__if3_end:")]
    regs, preds = {}, {}
    cursor_reg = re.search(r"setp\.eq\.u32 %p\d+, (%r\d+),", body).group(1)
    phase_reg = re.search(r"xor\.b32 (%r\d+),", body).group(1)
    regs[cursor_reg], regs[phase_reg] = cursor, phase

    def val(x):
        return regs[x] if x.startswith("%r") else int(x)
    for line in body.strip().splitlines():
        m = re.match(r"\s*(@!?%p\d+ )?(\S+) (.*);", line)
        guard, op, args = m.group(1), m.group(2), [a.strip() for a in m.group(3).split(",")]
        if guard and not preds[guard.strip()[1:]] ^ guard.startswith("@!"):
            continue
        if op.startswith("setp"):
            cmp = {"eq": lambda a, b: a == b, "ge": lambda a, b: a >= b}[op.split(".")[1]]
            preds[args[0]] = cmp(val(args[1]), val(args[2]))
        elif op == "selp.u32":
            regs[args[0]] = val(args[1]) if preds[args[3]] else val(args[2])
        else:
            fn = {"add.u32": lambda a, b: a + b, "sub.u32": lambda a, b: a - b,
                  "xor.b32": lambda a, b: a ^ b}[op]
            regs[args[0]] = fn(val(args[1]), val(args[2]))
    return regs[cursor_reg], regs[phase_reg]


@pytest.mark.parametrize("k_tiles,stages", [(16, 6), (12, 6), (7, 3), (4, 6), (6, 3), (9, 4),
                                            (8, 6), (3, 3), (5, 4)])
def test_skip_equals_k_tiles_advances(k_tiles, stages):
    """The PTX of PingPongConsumer.skip, interpreted from every cursor (0..n,
    as PipelineState keeps it) and phase, leaves the ring where k_tiles
    advances (PipelineState.advance's four instructions) would: the next
    advance gives the same stage and phase."""
    k = gemm.build_gemm(512, 512, 64 * k_tiles, bn=128, cluster=1, schedule="pingpong",
                        stages=stages)
    assert k.config.k_tiles == k_tiles and k.config.stages == stages
    text = _consumer(k.ptx())

    def advance(cursor, phase):
        if cursor == stages:
            cursor, phase = 0, phase ^ 1
        return cursor + 1, phase, cursor

    for start in range(stages + 1):
        for phase in (0, 1):
            c1, p1 = start, phase
            for _ in range(k_tiles):
                c1, p1, _ = advance(c1, p1)
            c2, p2 = _run_skip(text, start, phase)
            assert advance(c1, p1)[1:] == advance(c2, p2)[1:], (start, phase)


def test_pingpong_defaults_to_one_cta():
    """A 2-CTA cluster is the cooperative default for many tiles, not the
    ping-pong one's (it measured slower with 128-column tiles)."""
    assert gemm.build_gemm(4096, 4096, 4096, bn=128).config.cluster == 2
    assert gemm.build_gemm(4096, 4096, 4096, bn=128, schedule="pingpong").config.cluster == 1


def test_cooperative_default_is_unchanged():
    a = gemm.build_gemm(1024, 1024, 512, bn=128, cluster=1).ptx()
    b = gemm.build_gemm(1024, 1024, 512, bn=128, cluster=1, schedule="cooperative").ptx()
    assert a == b and "bar.arrive" not in a


@pytest.mark.parametrize("kw,match", [
    (dict(schedule="pingpong", bn=256), "bn 128 or 64"),
    (dict(schedule="pingpong", bn=128, split_k=2, out_dtype=f32), "split_k 1"),
    (dict(schedule="stream"), "schedule must be one of"),
])
def test_bad_options_are_refused(kw, match):
    with pytest.raises(ValueError, match=match):
        gemm.build_gemm(256, 256, 256, **kw)
