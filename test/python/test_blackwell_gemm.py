"""examples/blackwell/gemm.py (the persistent warp-specialised tcgen05 GEMM,
1-SM and 2-SM) without a GPU: every variant traces and assembles for
sm_100a with no spills and fits shared memory; the PTX has the structure
the design needs (TMA ring with full/empty barriers, one MMA thread with
four kind::f16 MMAs per k tile and the descriptors stepped 32 bytes,
commits freeing stages and filling double-buffered accumulators, epilogue
warps loading their lane quarter with 32x32b, the pair's cta_group::2
forms); the schedule covers every tile once; a NumPy model of the kernel's
arithmetic (k tiles of 64, MMAs of K 16, two accumulators, bf16 epilogue)
gives A @ B.T; shapes off the tile are refused."""
import os
import re
import subprocess
import sys

import numpy as np
import pytest

from examples.blackwell import gemm
from pyptx.hw.tcgen05_desc import InstrDesc, SmemDesc
from pyptx.types import bf16, f32
from test_seeds import body

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
B128 = SmemDesc(leading_byte_offset=16, stride_byte_offset=1024, swizzle="128B").const_bits()


def lines(text, needle):
    return [l for l in body(text) if needle in l]


VARIANTS = [
    dict(), dict(out_dtype=f32), dict(bn=128), dict(bn=64, epi_cols=64),
    dict(cta_group=2), dict(cta_group=2, out_dtype=f32), dict(cta_group=2, bn=128, stages=3),
    dict(epi_cols=16, stages=2),
    dict(epilogue="tma"), dict(epilogue="tma", epi_cols=64), dict(epilogue="tma", out_dtype=f32),
    dict(epilogue="tma", cta_group=2, epi_cols=16),
]


@pytest.mark.parametrize("kw", VARIANTS, ids=lambda kw: ",".join(f"{k}={v}" for k, v in
                                                                 kw.items()) or "default")
def test_assembles_without_spills(kw, assemble):
    k = gemm.build_gemm(512, 512, 320, **kw)
    m = k.module()
    assemble(m.ptx, "sm_100a")
    r = k.resources()
    assert r["ok"], r["ptxas_stderr"]
    assert r["spill_stores_bytes"] == 0 and r["spill_loads_bytes"] == 0
    assert "0 bytes stack frame" in r["ptxas_stderr"]
    assert r["smem_per_cta"] <= gemm.SMEM_LIMIT
    assert m.smem <= gemm.smem_bytes(k.config)          # the estimate bounds the trace's
    assert m.block == (gemm.THREADS, 1, 1)
    assert m.cluster == (k.config.cta_group, 1, 1)


def test_one_sm_structure():
    k = gemm.build_gemm(1024, 512, 256)
    cfg, m = k.config, k.module()
    text = m.ptx
    assert cfg.stages == 4 and m.grid == (16, 1, 1)        # 8 x 2 tiles, one CTA each
    assert ".explicitcluster" not in text
    # barriers: 4 full + 4 empty (1 arrival), 2 acc_full (1), 2 acc_empty (128 threads)
    inits = lines(text, "mbarrier.init.shared::cta.b64")
    assert sum(l.endswith("], 1;") for l in inits) == 4 + 4 + 2
    assert sum(l.endswith("], 128;") for l in inits) == 2
    assert lines(text, "tcgen05.alloc") == [
        "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [dyn_smem+196736], 512;"]
    assert len(lines(text, "tcgen05.relinquish_alloc_permit.cta_group::1")) == 1
    assert len(lines(text, "tcgen05.dealloc.cta_group::1.sync.aligned.b32 %b0, 512;")) == 1
    # producer: one expect_tx of A + B per k tile, two TMA loads on that barrier
    expect = lines(text, "mbarrier.arrive.expect_tx")
    assert len(expect) == 1 and expect[0].endswith(", 49152;")
    loads = lines(text, "cp.async.bulk.tensor.2d.shared::cluster.global.tile")
    assert len(loads) == 2 and all(l.endswith(expect[0].split("[")[1].split("]")[0] + "];")
                                   for l in loads)
    assert len(lines(text, "prefetch.tensormap")) == 2
    # MMA thread: 4 MMAs M128 N256 per k tile, the first predicated on k != 0
    mma = lines(text, "tcgen05.mma")
    idesc = InstrDesc.for_kind("f16", m=128, n=256, a="bf16").encode()
    assert len(mma) == 4 and all(f", {idesc}, " in l for l in mma)
    assert mma[0].startswith("tcgen05.mma.cta_group::1.kind::f16 [%b1], %bd1, %bd2, ")
    assert re.search(r", %p\d+;$", mma[0]) and all(l.endswith(", 1;") for l in mma[1:])
    assert [l.split(", ")[1] for l in mma] == ["%bd1", "%bd3", "%bd5", "%bd7"]
    assert lines(text, "add.u64 %bd") == [f"add.u64 %bd{2 * i + 1 + j}, %bd{1 + j}, {2 * i}"
                                          + ";" for i in (1, 2, 3) for j in (0, 1)]
    assert len(lines(text, "mad.wide.u32 %bd1, ")) == 1
    assert sum(l.endswith(f", 1, {B128};") for l in lines(text, "mad.wide.u32")) == 2
    commits = lines(text, "tcgen05.commit")
    assert len(commits) == 2 and all(
        l.startswith("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [")
        for l in commits)
    # epilogue: lane quarter warp % 4 (bits 21+), 8 loads of 32 columns, bf16 pairs
    assert "shl.b32 %r54, %r51, 21;" in body(text) and "and.b32 %r51, %r2, 3;" in body(text)
    ld = lines(text, "tcgen05.ld.sync.aligned.32x32b.x32.b32")
    assert len(ld) == 8 and ld[1].endswith("[%r63+32];")
    assert len(lines(text, "tcgen05.wait::ld.sync.aligned")) == 8
    assert len(lines(text, "cvt.rn.bf16x2.f32")) == 128
    assert len(lines(text, "st.global.v4.b32")) == 32
    assert len(lines(text, "mbarrier.arrive.shared::cta.b64")) == 1
    # fences: around each barrier handing TMEM between threads
    assert len(lines(text, "tcgen05.fence::before_thread_sync")) == 3
    assert len(lines(text, "tcgen05.fence::after_thread_sync")) == 5


def test_two_sm_structure():
    k = gemm.build_gemm(1024, 512, 256, cta_group=2)
    cfg, m = k.config, k.module()
    text = m.ptx
    assert cfg.b_rows == 128 and cfg.stages == 6
    assert m.grid == (16, 1, 1) and m.cluster == (2, 1, 1)  # 4 x 2 tiles of 256 x 256: 8 pairs
    assert ".reqnctapercluster 2, 1, 1" in text
    # every tcgen05 instruction of the kernel is cta_group::2
    for op in ("alloc", "relinquish_alloc_permit", "mma", "commit", "dealloc"):
        found = [l for l in body(text) if l.startswith(f"tcgen05.{op}")]
        assert found and all(".cta_group::2" in l for l in found), op
    assert ".cta_group::1" not in text
    idesc = InstrDesc.for_kind("f16", m=256, n=256, a="bf16").encode()
    assert all(f", {idesc}, " in l for l in lines(text, "tcgen05.mma"))
    assert InstrDesc.decode(cfg.idesc).m == 256
    # only the even CTA announces the pair's bytes; both CTAs' loads land on its barrier
    expect = lines(text, "mbarrier.arrive.expect_tx")
    assert len(expect) == 1 and expect[0].startswith("@%p") and expect[0].endswith(", 65536;")
    mapa = lines(text, "mapa.shared::cluster.u32")
    assert len(mapa) == 2 and all(l.endswith(", 0;") for l in mapa)   # TMA and epilogue
    leader_bar = mapa[0].split()[1].rstrip(",")
    loads = lines(text, "cp.async.bulk.tensor.2d")
    assert len(loads) == 2 and all(
        ".mbarrier::complete_tx::bytes.cta_group::2 " in l and l.endswith(f"[{leader_bar}];")
        for l in loads)
    # commits multicast to both CTAs; the MMA thread is the even CTA's thread 32
    assert "mov.b16 %bh0, 3;" in body(text)
    commits = lines(text, "tcgen05.commit")
    assert len(commits) == 2 and all(".multicast::cluster.b64 [" in l and l.endswith("], %bh0;")
                                     for l in commits)
    assert len(lines(text, "and.pred")) == 1
    # acc_empty counts both CTAs' epilogue threads, which arrive remotely
    inits = lines(text, "mbarrier.init.shared::cta.b64")
    assert sum(l.endswith("], 256;") for l in inits) == 2
    assert len(lines(text, "mbarrier.arrive.shared::cluster.b64 _, [")) == 1
    assert text.count("barrier.cluster.arrive;") == 2 and text.count("barrier.cluster.wait;") == 2


def test_stage_count_and_descriptor_constant():
    assert gemm.build_gemm(256, 256, 64).config.stages == 4           # 48 KiB stages
    assert gemm.build_gemm(256, 256, 64, bn=128).config.stages == 6   # 32 KiB
    desc = SmemDesc.decode(B128)
    assert (desc.leading_byte_offset, desc.stride_byte_offset, desc.swizzle) == \
        (16, 1024, "128B")
    assert gemm.Config(bn=256, cta_group=2).tx_bytes == 2 * (16384 + 16384)


def test_schedule_covers_every_tile_once():
    for cta_group, bn, sms in ((1, 256, 148), (1, 128, 5), (2, 256, 6), (2, 64, 4)):
        cfg = gemm.Config(bn=bn, cta_group=cta_group)
        tiles = gemm.cta_tiles(1024, 768, cfg, sms)
        seen = [(r, c) for ts in tiles.values() for (_, _, r, c) in ts]
        want = [(r, c) for r in range(0, 1024, 128) for c in range(0, 768, bn)]
        assert sorted(seen) == want
        for (group, rank), ts in tiles.items():
            for a_row, b_row, c_row, c_col in ts:
                assert a_row == c_row and a_row // 128 % cta_group == rank
                assert b_row == c_col + rank * bn // cta_group


def emulate(a, b, cfg, M, N, num_sms=3):
    """The kernel's arithmetic in NumPy: per CTA and tile, k tiles of 64 as
    MMAs of K 16 into one of two accumulators (f32), the pair's B halves,
    then the epilogue's chunks of epi_cols rounded to out_dtype. Every output
    element must be written exactly once."""
    from examples.blackwell.tcgen05_alloc_mma import round_to_bf16
    out = np.full((M, N), np.nan, np.float32)
    for (group, rank), tiles in gemm.cta_tiles(M, N, cfg, num_sms).items():
        accs = [None, None]
        for i, (a_row, b_row, c_row, c_col) in enumerate(tiles):
            acc = np.zeros((gemm.BM, cfg.bn), np.float32)
            # the MMA reads B rows n0.. of both CTAs of a pair: the whole bn
            n0 = b_row - rank * cfg.b_rows
            for k0 in range(0, a.shape[1], gemm.BK):
                for kk in range(0, gemm.BK, gemm.K_MMA):
                    ks = slice(k0 + kk, k0 + kk + gemm.K_MMA)
                    acc += a[a_row:a_row + gemm.BM, ks] @ b[n0:n0 + cfg.bn, ks].T
            accs[i % 2] = acc
            for c0 in range(0, cfg.bn, cfg.epi_cols):
                block = accs[i % 2][:, c0:c0 + cfg.epi_cols]
                where = out[c_row:c_row + gemm.BM, c_col + c0:c_col + c0 + cfg.epi_cols]
                assert np.isnan(where).all(), "an element written twice"
                where[:] = round_to_bf16(block) if cfg.out_dtype == bf16 else block
    return out


@pytest.mark.parametrize("cta_group,bn,out_dtype", [(1, 256, bf16), (1, 64, f32),
                                                    (2, 128, bf16), (2, 256, f32)])
def test_numpy_model_of_the_kernel_gives_a_at_b_transposed(cta_group, bn, out_dtype):
    from examples.blackwell.tcgen05_alloc_mma import round_to_bf16
    M, N, K = 512, 512, 192
    rng = np.random.default_rng(3)
    a = round_to_bf16(rng.standard_normal((M, K)))
    b = round_to_bf16(rng.standard_normal((N, K)))
    cfg = gemm.Config(bn=bn, cta_group=cta_group, out_dtype=out_dtype, k_tiles=K // 64)
    out = emulate(a, b, cfg, M, N)
    ref = gemm.reference(a, b)
    assert not np.isnan(out).any()
    err = np.linalg.norm(out - ref) / np.linalg.norm(ref)
    assert err < (4e-3 if out_dtype == bf16 else 1e-6), err


@pytest.mark.parametrize("out_dtype,epi_cols,span", [(bf16, 16, 32), (bf16, 32, 64),
                                                     (bf16, 64, 128), (f32, 32, 128)])
def test_tma_epilogue_structure(out_dtype, epi_cols, span):
    k = gemm.build_gemm(512, 512, 128, epilogue="tma", out_dtype=out_dtype, epi_cols=epi_cols)
    text = k.module().ptx
    chunks = 256 // epi_cols
    # per chunk: wait for the last store to read the tile, meet, write, fence, meet, store
    assert len(lines(text, "cp.async.bulk.wait_group.read 0;")) == chunks
    assert len(lines(text, "bar.sync 1, 128;")) == 2 * chunks
    stores = lines(text, "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group")
    assert len(stores) == chunks
    assert len(lines(text, "st.shared.v4.")) == chunks * span // 16   # a row per thread
    assert not lines(text, "st.global")
    assert len(lines(text, "cp.async.bulk.wait_group 0;")) == 1       # finish
    # the row's 16-byte chunks land at chunk ^ (row bits of the swizzle)
    assert len(lines(text, "xor.b32")) >= span // 16 - 1


def test_tma_epilogue_model_of_the_swizzle_is_a_permutation_without_bank_conflicts():
    # the addresses the epilogue computes, in Python: a quarter-warp (8
    # threads, rows r..r+7) writing chunk j hits 8 distinct 16-byte bank groups
    for span in (32, 64, 128):
        def addr(row, j):
            key = ((row * span) >> 7) & (span // 16 - 1)
            return row * span + ((key ^ j) << 4)
        for row0 in range(0, 128, 8):
            for j in range(span // 16):
                groups = {(addr(r, j) // 16) % 8 for r in range(row0, row0 + 8)}
                assert len(groups) == 8, (span, row0, j)
        rows = [sorted(addr(r, j) - r * span for j in range(span // 16)) for r in range(128)]
        assert all(r == list(range(0, span, 16)) for r in rows)


def test_refuses_shapes_and_configs():
    with pytest.raises(ValueError, match="M must be a positive multiple of 256"):
        gemm.build_gemm(384, 256, 64, cta_group=2)
    with pytest.raises(ValueError, match="N of bn=256"):
        gemm.build_gemm(256, 320, 64)
    with pytest.raises(ValueError, match="K of 64"):
        gemm.build_gemm(256, 256, 96)
    with pytest.raises(ValueError, match="bn must be 64, 128 or 256"):
        gemm.build_gemm(256, 256, 64, bn=96)
    with pytest.raises(ValueError, match="cta_group must be 1 or 2"):
        gemm.build_gemm(256, 256, 64, cta_group=4)
    with pytest.raises(ValueError, match="7 stages need"):
        gemm.build_gemm(256, 256, 64, stages=7)
    with pytest.raises(ValueError, match="epi_cols"):
        gemm.build_gemm(256, 256, 64, epi_cols=48)
    with pytest.raises(ValueError, match="32, 64 or 128 bytes"):
        gemm.build_gemm(256, 256, 64, epilogue="tma", out_dtype=f32, epi_cols=64)
    with pytest.raises(ValueError, match="epilogue must be"):
        gemm.build_gemm(256, 256, 64, epilogue="smem")


def test_runs_as_a_script():
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "blackwell",
                                                        "gemm.py"), "512", "256", "128", "2"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert ".target sm_100a" in proc.stdout and "tcgen05.mma.cta_group::2" in proc.stdout
