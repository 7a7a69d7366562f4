"""examples/hopper/gemm.py (the persistent warp-specialised GEMM) without a
GPU: every variant traces and assembles for sm_90a within the register
budget (no spills), and the PTX has the structure the design needs: the
producer/consumer split with setmaxnreg, the TMA ring with full/empty
mbarriers, m64n256k16 wgmmas with one group left in flight, the cluster's
multicast loads and remote frees, the stmatrix + TMA-store epilogue; the
tile order covers every tile once; shapes off the tile are refused."""
import os
import re
import subprocess
import sys

import pytest

from examples.hopper import gemm
from pyptx.types import bf16, f32

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

VARIANTS = [
    dict(cluster=1), dict(cluster=2),
    dict(cluster=1, epilogue="direct"), dict(cluster=2, epilogue="direct"),
    dict(cluster=2, out_dtype=f32), dict(cluster=1, out_dtype=f32, stages=2),
]


def lines(text, needle):
    return [l for l in text.splitlines() if needle in l]


@pytest.mark.parametrize("b_major", ["K", "MN"])
@pytest.mark.parametrize("kw", VARIANTS + [dict(cluster=1, mn_b_rank=2, l2_promotion="none", prefetch=False)], ids=lambda kw: ",".join(f"{k}={v}" for k, v in
                                                                  kw.items()))
def test_assembles_without_spills(kw, b_major, assemble):
    k = gemm.build_gemm(512, 768, 320, b_major=b_major, **kw)
    m = k.module()
    assemble(m.ptx, "sm_90a")
    r = k.resources()
    assert r["ok"], r["ptxas_stderr"]
    assert r["registers"] <= 168          # the entry cap of 384 threads x 1 CTA/SM
    assert r["spill_stores_bytes"] == 0 and r["spill_loads_bytes"] == 0
    assert "stack frame" in r["ptxas_stderr"] and "0 bytes stack frame" in r["ptxas_stderr"]
    assert r["smem_per_cta"] <= 227 * 1024
    assert r["setmaxnreg_values"] == [gemm.PRODUCER_REGS, gemm.CONSUMER_REGS]
    assert "serialized" not in r["ptxas_stderr"]   # ptxas keeps the wgmma pipeline


def test_structure_of_the_two_cta_kernel():
    k = gemm.build_gemm(1024, 1024, 512, cluster=2)
    m = k.module()
    text = m.ptx
    assert m.block == (384, 1, 1) and m.cluster == (2, 1, 1)
    assert m.grid == (32, 1, 1)           # 32 tiles of 128 x 256: 16 2-CTA clusters
    assert ".reqnctapercluster 2, 1, 1" in text and ".maxntid 384, 1, 1" in text
    assert "setmaxnreg.dec.sync.aligned.u32 40;" in text
    assert "setmaxnreg.inc.sync.aligned.u32 232;" in text
    # the k-loop: a peeled first k tile (scale-d 0 on its first wgmma) and the loop
    wgmma = lines(text, "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16")
    assert len(wgmma) == 8
    assert sum(l.rstrip().endswith(", 0, 1, 1, 0, 0;") for l in wgmma) == 1
    assert "wgmma.wait_group.sync.aligned 1;" in text
    assert "wgmma.wait_group.sync.aligned 0;" in text
    # 4 stages: full barriers count the producer, empty ones the 2 consumer
    # warpgroups of both CTAs
    assert k.config.stages == 4 and k.config.epi_cols == 128
    assert len(re.findall(r"mbarrier\.init\.shared::cta\.b64 \[[^]]+\], 1;", text)) == 4
    assert len(re.findall(r"mbarrier\.init\.shared::cta\.b64 \[[^]]+\], 4;", text)) == 4
    assert "fence.mbarrier_init.release.cluster;" in text
    assert text.count("barrier.cluster.arrive;") == 2       # after init, before leaving
    # A is this CTA's; B is half-loaded by each CTA and multicast to both
    loads = lines(text, "cp.async.bulk.tensor.2d.shared::cluster.global.tile")
    assert len(loads) == 2 and sum(".multicast::cluster" in l for l in loads) == 1
    assert lines(text, ".multicast::cluster")[0].rstrip().endswith("], 3;")
    assert "mbarrier.arrive.expect_tx.shared::cta.b64 %bd0, [" in text
    assert ", 49152;" in lines(text, "arrive.expect_tx")[0]
    assert len(lines(text, "mapa.shared::cluster.u32")) == 2
    assert len(lines(text, "mbarrier.arrive.shared::cluster.b64")) == 2
    # epilogue: 16 stmatrix.x4 per tile, in two 128-column chunks, each
    # fenced and leaving by a TMA store of a 3-d box once the last one read
    assert len(lines(text, "stmatrix.sync.aligned.m8n8.x4.shared::cta.b16")) == 16
    assert text.count("fence.proxy.async.shared::cta;") == 2
    assert len(lines(text, "cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group")) == 2
    assert text.count("cp.async.bulk.wait_group.read 0;") == 2
    c_desc = [d for d in m.tma_descs if d.tensor == "C"][0]
    assert c_desc.box == (2, 64, 64)
    assert m.smem <= 227 * 1024


def test_one_cta_kernel_arrives_locally():
    text = gemm.build_gemm(512, 512, 128, cluster=1, epilogue="direct").ptx()
    assert "barrier.cluster" not in text and "mapa" not in text
    assert ".multicast::cluster" not in text
    assert len(re.findall(r"mbarrier\.init\.shared::cta\.b64 \[[^]]+\], 2;", text)) == 4
    assert len(lines(text, "mbarrier.arrive.shared::cta.b64")) == 2
    assert len(lines(text, "st.global.b32")) == 64        # 32 column groups x 2 rows
    assert "cvt.rn.bf16x2.f32" in text


def test_f32_output_stores_pairs():
    text = gemm.build_gemm(512, 512, 128, out_dtype=f32).ptx()
    stores = lines(text, "st.global.v2.f32")
    assert len(stores) == 64
    assert "[%rd" in stores[1] and "+16384]" in stores[1]  # 8 rows down: 8 * 512 * 4


def test_mn_major_b_is_transposed_and_striped():
    # one rank-3 box of the tile's 4 stripes per k tile, no cluster
    m = gemm.build_gemm(512, 512, 128, b_major="MN").module()
    assert m.cluster == (1, 1, 1)
    wgmma = lines(m.ptx, "wgmma.mma_async")
    assert all(l.rstrip().endswith(", 0, 1;") for l in wgmma)      # trans-b = 1
    assert len(lines(m.ptx, "cp.async.bulk.tensor.3d.shared::cluster")) == 1
    b_desc = [d for d in m.tma_descs if d.tensor == "B"][0]
    assert b_desc.box == (4, 64, 64) and b_desc.swizzle == "128B"
    assert b_desc.l2_promotion == "256B"
    # asked for: one rank-2 box per 64-column stripe
    m = gemm.build_gemm(512, 512, 128, b_major="MN", mn_b_rank=2).module()
    loads = lines(m.ptx, "cp.async.bulk.tensor.2d.shared::cluster")
    assert len(loads) == 1 + 4 and "+24576]" in loads[-1]
    assert [d.box for d in m.tma_descs if d.tensor == "B"] == [(64, 64)]


def test_default_cluster_follows_the_tile_count():
    # more than 2 tiles per SM: 2-CTA clusters; one wave or an MN-major B: none
    assert gemm.build_gemm(4096, 4096, 64).module().cluster == (2, 1, 1)
    assert gemm.build_gemm(2048, 2048, 64).module().cluster == (1, 1, 1)
    assert gemm.build_gemm(4096, 4096, 64, b_major="MN").module().cluster == (1, 1, 1)
    assert gemm.build_gemm(1024, 1024, 64, num_sms=4).module().cluster == (2, 1, 1)


def test_prefetch_and_group_options():
    text = gemm.build_gemm(1024, 1024, 128).ptx()
    assert len(lines(text, "prefetch.tensormap")) == 3        # A, B and C descriptors
    assert "prefetch" not in gemm.build_gemm(1024, 1024, 128, prefetch=False).ptx()
    grouped = gemm.build_gemm(2048, 1024, 128, group_m=2).ptx()
    assert ", 8;" in " ".join(lines(grouped, "div.u32"))      # 2 rows x 4 column tiles


def test_tile_order_is_grouped_and_complete():
    order = gemm.tile_order(16, 8, 8)
    assert sorted(order) == [(m, n) for m in range(16) for n in range(8)]
    assert order[:9] == [(m, 0) for m in range(8)] + [(0, 1)]


def test_kernel_tile_order_matches_python():
    """The kernel's schedule arithmetic is the Python mirror's: read it off
    the PTX's constants (group 8, 16 column tiles -> divisor 128)."""
    text = gemm.build_gemm(4096, 4096, 64).ptx()
    assert gemm.build_gemm(4096, 4096, 64).module().grid == (132, 1, 1)   # persistent
    assert "div.u32" in text and ", 128;" in " ".join(lines(text, "div.u32"))


@pytest.mark.parametrize("M,N,K,kw,match", [
    (512, 300, 128, {}, "multiples of 8"), (256, 256, 100, {}, "multiples of 8"),
    (256, 256, 56, {}, "at least 64"), (256, 40, 128, dict(b_major="MN"), "N >= 64"),
    (100, 512, 128, dict(cluster=2), "cluster needs M >= 128"),
    (256, 512, 640, dict(split_k=3), "split_k must divide the 10 k tiles"),
    (256, 512, 640, dict(split_k=2), "out_dtype=f32"),
    (256, 512, 128, dict(activation="relu"), "activation")])
def test_shape_or_option_off_the_rules_is_refused(M, N, K, kw, match):
    with pytest.raises(ValueError, match=match):
        gemm.build_gemm(M, N, K, **kw)


@pytest.mark.parametrize("M,N,K,kw", [
    (1, 4096, 4096, {}), (16, 1000, 1008, {}), (1000, 1000, 1008, {}),
    (1000, 4096, 1000 + 8, dict(b_major="MN")), (300, 200, 64, dict(bn=128)),
    (4096, 14336, 4096, dict(activation="silu", bias=True, residual=True)),
    (1000, 1000, 1008, dict(out_dtype=f32, activation="gelu", bias=True)),
    (16, 4096, 4096, dict(out_dtype=f32, split_k=4, bn=128)),
    (1, 4096, 4096, dict(bn=64)), (128, 1000, 1008, dict(bn=64, b_major="MN")),
    (16, 1000, 1008, dict(bn=32)), (128, 4096, 14336, {}),
    (520, 768, 136, dict(cluster=2, b_major="MN", residual=True))])
def test_any_shape_assembles_without_spills(M, N, K, kw, assemble):
    k = gemm.build_gemm(M, N, K, **kw)
    assemble(k.module().ptx, "sm_90a")
    r = k.resources()
    assert r["ok"], r["ptxas_stderr"]
    assert r["spill_stores_bytes"] == 0 and r["spill_loads_bytes"] == 0
    assert "serialized" not in r["ptxas_stderr"]


def test_small_matrices_cut_the_boxes_and_count_the_bytes():
    """M < 128 and N < 256 (K-major B): the boxes are cut to the matrices and
    each stage expects only the bytes that come; tails are predicated."""
    k = gemm.build_gemm(16, 200, 1000, bn=256)
    assert (k.config.a_rows, k.config.b_cols) == (16, 200)
    text = k.ptx()
    assert lines(text, "arrive.expect_tx")[0].endswith(f", {(16 + 200) * 64 * 2};")
    assert k.config.epilogue == "direct" and k.config.k_tiles == 16    # 1000 = 15 x 64 + 40
    assert lines(text, "@%p") and lines(text, "st.global")


def test_c_off_the_stripes_is_stored_by_tma_one_stripe_at_a_time():
    """N = 1000 (not whole 64-column stripes): the TMA epilogue with a rank-2
    C descriptor, one store per stripe (two 128-column chunks of two
    stripes), the last stripe clipped by the TMA unit; no direct stores."""
    k = gemm.build_gemm(4096, 1000, 4096)
    assert k.config.epilogue == "tma" and k.out_specs[0].tma_box == (64, 64)
    text = k.ptx()
    stores = lines(text, "cp.async.bulk.tensor.2d.global.shared::cta")
    assert len(stores) == 4 and not lines(text, "tensor.3d.global")
    assert not lines(text, "st.global")
    assert gemm.build_gemm(4096, 1024, 4096).out_specs[0].tma_box == (64, 128)   # rank 3


def test_split_k_writes_partial_sums_per_part():
    k = gemm.build_gemm(16, 4096, 4096, out_dtype=f32, split_k=4, bn=128)
    assert k.config.k_tiles == 16 and k.module().grid == (128, 1, 1)   # 32 tiles x 4 parts
    assert k.out_specs[0].shape == (64, 4096)


def test_fused_epilogue_instructions():
    plain = gemm.build_gemm(512, 512, 128).ptx()
    text = gemm.build_gemm(512, 512, 128, bias=True, activation="gelu", residual=True,
                           residual_from="global").ptx()
    assert "tanh.approx.f32" not in plain
    assert len(lines(text, "tanh.approx.f32")) == 128            # one per accumulator
    assert len(lines(text, "ld.global.b32")) == 32 + 64          # bias pairs, residual pairs
    silu = gemm.build_gemm(512, 512, 128, activation="silu").ptx()
    assert len(lines(silu, "tanh.approx.f32")) == 128 and "ld.global" not in silu
    # silu(x) = h + h tanh(h), h = x / 2: one mul, one tanh, one fma each
    assert len(lines(silu, "mul.f32")) == len(lines(silu, "fma.rn.f32")) == 128
    # the residual tile goes to L2 when the producer starts the tile
    assert "bulk.prefetch" not in plain
    prefetch = lines(text, "cp.async.bulk.prefetch.tensor.2d.L2.global.tile")
    assert len(prefetch) == 1 and "R_tmap" in text


def test_activation_epilogue_is_interleaved_with_the_store_chunks():
    """bias + GELU at bn 256 (two 128-column TMA-store chunks): each chunk's
    math comes right before its stmatrix, so the second chunk's overlaps the
    first chunk's store; the bias is halved (two muls a pair) into one fma
    per accumulator: no add.f32 left, 5 FP32 ops + 1 tanh each."""
    text = gemm.build_gemm(4096, 14336, 4096, bias=True, activation="gelu", bn=256).ptx()
    body = text.splitlines()
    after = max(i for i, ln in enumerate(body) if "wgmma.wait_group.sync.aligned 0" in ln)
    body = body[after:]
    tanh = [i for i, ln in enumerate(body) if "tanh.approx.f32" in ln]
    stores = [i for i, ln in enumerate(body) if "cp.async.bulk.tensor.3d.global" in ln]
    assert len(tanh) == 128 and len(stores) == 2
    assert sum(i < stores[0] for i in tanh) == 64             # the first chunk's half
    assert tanh[-1] > stores[0]
    epi = "\n".join(body)
    assert "add.f32" not in epi
    assert len(lines(epi, "fma.rn.f32")) == 128 * 3           # h, tanh's argument, output
    assert len(lines(epi, "mul.f32")) == 128 * 2 + 32 * 2     # h^2, (..) h; the bias halves


@pytest.mark.parametrize("schedule,bn", [("cooperative", 256), ("pingpong", 128)])
def test_a_linear_epilogue_is_preloaded_into_the_accumulator(schedule, bn):
    """bias + residual without an activation: loaded into the accumulator
    before the main loop (every load ahead of the first wgmma, every wgmma
    accumulating, scale-d 1), nothing left after it; with an activation
    the loads stay after the main loop and a tile's first wgmma zeroes."""
    def wgmma_scale_d(text):
        return [ln.rstrip(";").split(",")[-5].strip() for ln in lines(text, "wgmma.mma_async")]

    def first(text, what):
        return next(i for i, ln in enumerate(text.splitlines()) if what in ln)
    kw = dict(schedule=schedule, bn=bn, residual_from="global")
    text = gemm.build_gemm(1000, 1000, 1008, bias=True, residual=True, **kw).ptx()
    loads = lines(text, "ld.global.b32")
    assert len(loads) == (bn // 8) * (1 + 2) * (2 if schedule == "pingpong" else 1)
    assert first(text, "ld.global.b32") < first(text, "wgmma.mma_async")
    assert set(wgmma_scale_d(text)) == {"1"}
    # per accumulator register a mov of the bias and an add of the residual:
    # 128 registers a thread either way (64 x 256 or two 64 x 128 halves)
    assert len(lines(text, "mov.f32")) == len(lines(text, "add.f32")) == 128
    act = gemm.build_gemm(1000, 1000, 1008, bias=True, residual=True, activation="gelu",
                          **kw).ptx()
    assert first(act, "ld.global.b32") > first(act, "wgmma.mma_async")
    assert "0" in wgmma_scale_d(act)


def test_a_residual_from_shared_memory():
    """residual_from="smem": after each tile's k-tile loads the producer
    loads the 128 x bn residual tile by one rank-3 TMA box into shared
    memory (a one-stage ring, 3 ring stages at bn 256); the epilogue adds
    it with one ldmatrix.x4 per 16 columns, no global loads of it (the bias
    is still preloaded); ping-pong and N off the 64-column stripes are
    refused."""
    k = gemm.build_gemm(1000, 1024, 1008, bias=True, residual=True, residual_from="smem")
    text = k.ptx()
    assert k.config.stages == 3 and k.config.residual_smem and k.config.epi_cols == 64
    assert len(lines(text, "ldmatrix.sync.aligned.m8n8.x4.shared.b16")) == 256 // 16
    assert len(lines(text, "ld.global.b32")) == 32                 # the bias pairs only
    text_lines = [ln.strip() for ln in text.splitlines()]
    loads = [i for i, ln in enumerate(text_lines)
             if ln.startswith("cp.async.bulk.tensor") and ".shared::cluster.global" in ln]
    # A and B (2-D) in the k loop, then the residual's one 3-D box
    assert [".3d." in text_lines[i] for i in loads] == [False, False, True]
    assert "bulk.prefetch" not in text
    r = k.resources()
    assert r["ok"] and r["spill_stores_bytes"] == 0 and r["smem_per_cta"] <= 227 * 1024
    # issued once a lap of k tiles is in: in the k loop, under k == stages - 1
    between = text_lines[loads[1] + 1:loads[2]]
    assert re.fullmatch(r"setp\.eq\.u32 %p\d+, %r\d+, 2;", between[0])
    assert between[1].endswith("bra $L__if3_false;") and text_lines[loads[2] + 1] == \
        "$L__if3_false:"
    assert len(lines(text, "prefetch.tensormap")) == 4        # A, B, C and R
    for M, N, kw in [(1024, 1000, {}), (64, 1024, {}), (1024, 128, {}),
                     (1024, 1024, dict(bn=32))]:
        with pytest.raises(ValueError, match="cooperative schedule, N a multiple of 64"):
            gemm.build_gemm(M, N, 1024, residual=True, residual_from="smem", **kw)
    with pytest.raises(ValueError, match="cooperative schedule"):
        gemm.build_gemm(1024, 1024, 1024, residual=True, residual_from="smem",
                        schedule="pingpong", bn=128)


@pytest.mark.parametrize("bn,stages_used", [(256, 2), (128, 1), (64, 1)])
def test_a_residual_through_the_ring(bn, stages_used):
    """The default for a cooperative kernel: after each tile's k-tile loads
    the producer acquires the ring's next stage(s) and loads the tile's
    64-column stripes there (128 x 64 boxes: one in a stage's A buffer, bn /
    128 in its B buffer); the consumers wait for those stages after the
    main loop, add the stripes with one ldmatrix.x4 per 16 columns, meet at
    their named barrier and free the stages. No global loads or L2 prefetch
    of the residual, no shared memory of its own (4 stages at bn 256)."""
    k = gemm.build_gemm(1000, 1000, 1008, bn=bn, bias=True, residual=True)
    text = k.ptx()
    text_lines = [ln.strip() for ln in text.splitlines()]
    plain = gemm.build_gemm(1000, 1000, 1008, bn=bn, bias=True)
    assert k.config.stages == plain.config.stages and not k.config.residual_smem
    assert k.resources()["smem_per_cta"] == plain.resources()["smem_per_cta"]
    assert len(lines(text, "ld.global.b32")) == bn // 8          # the bias pairs only
    assert len(lines(text, "ldmatrix.sync.aligned.m8n8.x4.shared.b16")) == bn // 16
    assert "bulk.prefetch" not in text
    # the producer: A and B in the k loop, then per used stage an expect_tx
    # of its stripes' bytes and their boxes, on the stripe descriptor
    loads = [i for i, ln in enumerate(text_lines)
             if ln.startswith("cp.async.bulk.tensor.2d.shared::cluster.global")]
    assert len(loads) == 2 + bn // 64
    # stripe i at column col + 64 i of the tile's row, on R's stripe descriptor
    coords = [re.search(r"\[(%rd\d+), \{([^}]*)\}\]", text_lines[i]).groups()
              for i in loads[2:]]
    assert len({d for d, _ in coords}) == 1 and len({c.split(",")[1] for _, c in coords}) == 1
    assert len({c.split(",")[0] for _, c in coords}) == bn // 64
    assert len(lines(text, "prefetch.tensormap")) == 4              # A, B, C and R
    expect = [ln for ln in text_lines if ln.startswith("mbarrier.arrive.expect_tx")]
    stripe = 128 * 64 * 2
    want = [min(bn // 64, 3) * stripe] + ([stripe] if bn == 256 else [])
    assert [int(ln.rstrip(";").split(",")[-1]) for ln in expect[1:]] == want
    assert len(expect) == 1 + stages_used
    # the consumers: every ldmatrix before the named barrier that frees the stages
    bar = next(i for i, ln in enumerate(text_lines)
               if re.fullmatch(r"bar\.sync %r\d+, 128;", ln))
    ld = [i for i, ln in enumerate(text_lines) if ln.startswith("ldmatrix")]
    arrives = [i for i, ln in enumerate(text_lines[bar:bar + 6]) if "mbarrier.arrive" in ln]
    assert max(ld) < bar and len(arrives) == stages_used
    r = k.resources()
    assert r["ok"] and r["spill_stores_bytes"] == 0
    # a 2-CTA cluster: the same stages, their frees to both CTAs
    c2 = gemm.build_gemm(1024, 1024, 1024, bn=bn, residual=True, cluster=2).ptx()
    assert len(lines(c2, "ldmatrix.sync.aligned.m8n8.x4.shared.b16")) == bn // 16
    # global where the ring does not apply (ping-pong, M < 128, one stage), refused if asked
    pp = gemm.build_gemm(1000, 1000, 1008, bn=128, residual=True, schedule="pingpong").ptx()
    assert "ldmatrix" not in pp and lines(pp, "ld.global.b32")
    assert "ldmatrix" not in gemm.build_gemm(100, 1000, 1008, bn=128, residual=True).ptx()
    with pytest.raises(ValueError, match="residual_from='ring' needs the cooperative"):
        gemm.build_gemm(100, 1000, 1008, bn=128, residual=True, residual_from="ring")
    assert "ldmatrix" not in gemm.build_gemm(512, 512, 64, residual=True, stages=1).ptx()
    with pytest.raises(ValueError, match="2 ring stages or more"):
        gemm.build_gemm(512, 512, 64, residual=True, stages=1, residual_from="ring")
    with pytest.raises(ValueError, match="residual_from must be one of global, smem, ring"):
        gemm.build_gemm(1024, 1024, 1024, residual=True, residual_from="L2")


def test_fused_epilogue_applies_what_was_not_preloaded():
    """apply() skips only what preload() emitted: a linear epilogue built
    without preload (as a kernel of one's own would) still adds its bias."""
    from pyptx import kernel, ptx, reg
    from pyptx.pipeline import FusedEpilogue, fragment_row_col
    from pyptx.types import bf16 as bf, f32 as f, u32
    from pyptx import Tile

    def build(preload):
        @kernel(in_specs=(Tile(64, bf),), out_specs=(), grid=(1, 1, 1), block=(128, 1, 1),
                arch="sm_90a")
        def k(Bias):
            (p,) = ptx.global_ptrs(Bias)
            lane = reg.from_(ptx.special.tid.x(), u32)
            acc = reg.wgmma_frag(m=64, n=64, dtype=f)
            epi = FusedEpilogue(bias=p)
            frag = fragment_row_col(lane)
            if preload:
                epi.preload(acc, 64, 0, 0, frag)
            else:
                for x in acc:
                    ptx.inst.mov.f32(x, 0.0)          # (a main loop's result)
            epi.apply(acc, 64, 0, 0, frag)
            ptx.ret()
        return k.ptx()
    assert len(lines(build(False), "add.f32")) == 32
    assert len(lines(build(True), "mov.f32")) == 32 and not lines(build(True), "add.f32")


def test_e4m3_output_scales_counts_and_stores_bytes():
    """out_dtype e4m3: per 64 x 256 fragment 128 abs + max.NaN + mul (the
    scale's reciprocal), 64 saturating e4m3x2 conversions and 2-byte
    stores, and one warp-wide max and one global red per warp and tile; the
    row tail guards the max (rows past M hold act(bias), not outputs)."""
    from pyptx.types import e4m3
    k = gemm.build_gemm(512, 512, 128, out_dtype=e4m3, bias=True, activation="gelu")
    assert k.tensor_names == ["A", "B", "Bias", "OutScale", "Amax", "C"]
    assert k.writes == ("Amax",) and k.config.epilogue == "direct"
    text = k.ptx()
    assert len(lines(text, "cvt.rn.satfinite.e4m3x2.f32")) == 64
    assert len(lines(text, "st.global.b16")) == 64 and not lines(text, ".global.shared::cta")
    assert len(lines(text, "abs.f32")) == len(lines(text, "max.NaN.f32")) == 128
    assert len(lines(text, "rcp.rn.f32")) == 1
    assert len(lines(text, "redux.sync.max.u32")) == 1
    red = lines(text, "red.global.max.u32")
    assert len(red) == 1 and red[0].lstrip().startswith("@%p")
    tail = gemm.build_gemm(1000, 512, 128, out_dtype=e4m3).ptx()
    assert all(x.lstrip().startswith("@%p") for x in lines(tail, "max.NaN.f32"))
    assert not any(x.lstrip().startswith("@") for x in lines(text, "max.NaN.f32"))
    with pytest.raises(ValueError, match="split_k"):
        gemm.build_gemm(16, 4096, 4096, out_dtype=e4m3, split_k=4, bn=128)


def test_plan_gemm_heuristic():
    C = "cooperative"
    assert gemm.plan_gemm(8192, 8192, 8192) == {"bn": 256, "split_k": 1, "schedule": C}
    # 128 tiles
    assert gemm.plan_gemm(128, 4096, 4096) == {"bn": 32, "split_k": 1, "schedule": C}
    assert gemm.plan_gemm(1, 4096, 14336) == {"bn": 32, "split_k": 1, "schedule": C}
    # 96 tiles
    assert gemm.plan_gemm(16, 6144, 4096) == {"bn": 64, "split_k": 1, "schedule": C}
    assert gemm.plan_gemm(1, 4096, 14336, "MN")["bn"] == 64     # 64-column stripes
    assert gemm.plan_gemm(16, 10240, 8192) == {"bn": 128, "split_k": 1, "schedule": C}    # 80 tiles
    # 112 tiles
    assert gemm.plan_gemm(16, 28672, 4096) == {"bn": 256, "split_k": 1, "schedule": C}
    # 16 tiles x 8
    assert gemm.plan_gemm(16, 2048, 4096) == {"bn": 128, "split_k": 8, "schedule": C}
    assert gemm.plan_gemm(16384, 4096, 4096)["split_k"] == 1
    assert gemm.plan_gemm(1000, 1000, 1008)["split_k"] == 1    # K short
    # a fused epilogue at K <= 4096 with many tiles: ping-pong, 128 columns
    pp = {"bn": 128, "split_k": 1, "schedule": "pingpong"}
    assert gemm.plan_gemm(4096, 14336, 4096, fused=True) == pp
    assert gemm.plan_gemm(1024, 4096, 4096, fused=True) == pp
    assert gemm.plan_gemm(4096, 4096, 14336, fused=True)["schedule"] == "cooperative"
    assert gemm.plan_gemm(16, 4096, 4096, fused=True)["schedule"] == "cooperative"
    assert gemm.plan_gemm(4096, 4096, 4096, "MN", fused=True)["schedule"] == "cooperative"


def test_bad_options_are_refused():
    with pytest.raises(ValueError, match="epilogue"):
        gemm.build_gemm(256, 256, 64, cluster=1, out_dtype=f32, epilogue="tma")
    with pytest.raises(ValueError, match="227 KiB"):
        gemm.build_gemm(256, 256, 64, cluster=1, stages=4, epilogue="tma", epi_cols=256)
    with pytest.raises(ValueError, match="epi_cols"):
        gemm.build_gemm(256, 256, 64, cluster=1, epi_cols=96)


def test_three_stages_keep_the_whole_tile_epilogue():
    k = gemm.build_gemm(512, 512, 128, stages=3)
    text = k.ptx()
    assert k.config.epi_cols == 256
    assert len(lines(text, "cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group")) == 1
    with pytest.raises(ValueError, match="b_major"):
        gemm.build_gemm(256, 256, 64, b_major="N")


def test_reference():
    import numpy as np
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.ones((4, 3), dtype=np.float32)
    assert np.array_equal(gemm.reference(a, b), np.tile([[3.0], [12.0]], (1, 4)))
    assert np.array_equal(gemm.reference(a, b.T, "MN"), gemm.reference(a, b))
    bias, res = np.array([1.0, -2.0, 0.5, 0.0]), np.full((2, 4), 3.0)
    z = gemm.reference(a, b) + bias
    assert np.allclose(gemm.reference(a, b, bias=bias, activation="silu", residual=res),
                       z / (1 + np.exp(-z)) + 3.0)
    gelu = gemm.reference(a, b, bias=bias, activation="gelu")
    assert np.allclose(gelu, 0.5 * z * (1 + np.tanh(0.7978845608 * (z + 0.044715 * z ** 3))))


def test_script_prints_ptx():
    out = subprocess.run([sys.executable, os.path.join(ROOT, "examples/hopper/gemm.py")],
                         capture_output=True, text=True, check=True).stdout
    assert out.startswith(".version") and ".visible .entry gemm(" in out
    assert bf16.name == "bf16"


@pytest.mark.parametrize("b_major", ["K", "MN"])
def test_every_descriptor_keeps_only_the_start_address_field(b_major):
    """In a 2-CTA cluster the shared addresses carry the CTA's rank above bit
    23; each wgmma descriptor takes bits 4-17 of its address (bfe 4, 14)
    before the constant fields are added, so the rank cannot reach the
    leading-byte-offset field (the bug an MN-major B had)."""
    text = gemm.build_gemm(512, 768, 320, b_major=b_major, cluster=2).ptx()
    fields = set(re.findall(r"bfe\.u32 (%r\d+), %r\d+, 4, 14;", text))
    descs = re.findall(r"mad\.wide\.u32 %rd\d+, (%r\d+), 1, \d+;", text)
    assert len(descs) == 4                       # A and B, first and later k tiles
    assert all(r in fields for r in descs)
    assert "shr.u64" not in text and "262143" not in text     # no separate mask


@pytest.mark.parametrize("shape,kw", [
    ((16, 64, 4096), dict(bn=64)),                         # one tile
    ((100, 200, 256), {}),                                 # one row of tiles: group 1
    ((16, 256, 4096), dict(bn=256, split_k=8, out_dtype=f32))])   # one tile, split
def test_scheduler_divides_by_no_known_one(shape, kw):
    """Trace-time-known quotients (one tile row, one N tile, one tile) are
    computed in Python: no div / rem / mul by 1."""
    text = gemm.build_gemm(*shape, **kw).ptx()
    assert not re.search(r"(div|rem|mul\.lo)\.[us]32 %r\d+, %r\d+, 1;", text)
