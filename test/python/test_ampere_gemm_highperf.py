"""examples/ampere/gemm_highperf.py: the high-performance sm_80 GEMM
(4-stage cp.async ring, ldmatrix.x4, register-fragment double buffering,
XOR swizzle, grouped CTA order). Each configuration traces, ptxas accepts it
for sm_80 and for sm_90 (what the H100 runs) without spills, its PTX has the
pipeline it is written for, bad configurations and shapes fail naming the
field, and -- on the CPU, through the same layout functions the kernel
calls, fed Python ints -- the copies, the swizzle, the ldmatrix addresses,
the mma fragments and the epilogue coordinates compute A @ B_T.T for one
CTA tile, with no shared-memory bank conflicts. The GPU run is
test/gpu/test_ampere.py."""
import os
import re
import subprocess
import sys

import numpy as np
import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from examples.ampere import gemm_highperf as hp  # noqa: E402
from pyptx.types import bf16, f32  # noqa: E402

MMA = "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"


def body(text):
    start = text.index("{")
    return [line.strip() for line in text[start:].splitlines()
            if line.strip() and not line.strip().startswith((".", "{", "}"))]


def count(lines, opcode):
    return sum(re.sub(r"^@!?%p\d+ ", "", line).split(" ")[0] == opcode for line in lines)


def loop_body(lines):
    start = lines.index("$L__range0:")
    return lines[start:lines.index("$L__range0_end:")]


def ptxas_report(ptxas, text, arch, tmp_path):
    src = tmp_path / "k.ptx"
    src.write_text(text)
    proc = subprocess.run([ptxas, f"-arch={arch}", "-v", "-o", str(tmp_path / "k.cubin"),
                           str(src)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    regs = int(re.search(r"Used (\d+) registers", proc.stderr).group(1))
    spills = re.findall(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill "
                        r"loads", proc.stderr)
    return regs, [int(x) for x in spills[0]]


@pytest.mark.parametrize("name", list(hp.CONFIGS))
def test_configs_assemble_without_spills(name, ptxas, tmp_path):
    cfg = hp.CONFIGS[name]
    M, N, K = 2 * cfg.bm, 3 * cfg.bn, 8 * cfg.bk
    m = hp.build_gemm(M, N, K, name).module()
    assert m.arch == "sm_80" and "\n.target sm_80\n" in m.ptx
    assert m.grid == ((M // cfg.bm) * (N // cfg.bn), 1, 1) and m.block == (cfg.threads, 1, 1)
    assert m.smem == cfg.stages * cfg.stage_bytes   # the ring, from the dynamic window
    for arch in ("sm_80", "sm_90"):
        regs, (stack, spill_stores, spill_loads) = ptxas_report(ptxas, m.ptx, arch, tmp_path)
        assert regs <= 255 and stack == spill_stores == spill_loads == 0, (arch, regs)
        # 64 x 64 per warp: 128 accumulators + 2 x 32 fragment registers, and
        # few enough in all that two 4-warp CTAs (one 8-warp CTA) fit an SM.
        assert regs >= 192 and cfg.threads * regs * (256 // cfg.threads) <= 65536, regs


@pytest.mark.parametrize("M,N,K", [(128, 128, 32), (384, 256, 96), (1024, 2048, 4096)])
def test_default_traces_and_assembles(M, N, K, assemble):
    assemble(hp.build_gemm(M, N, K).ptx(), "sm_80")


@pytest.mark.parametrize("name", list(hp.CONFIGS))
def test_ptx_structure(name):
    cfg = hp.CONFIGS[name]
    text = hp.build_gemm(cfg.bm, cfg.bn, 16 * cfg.bk, name).ptx()
    lines = body(text)
    loop = loop_body(lines)
    S, KS = cfg.stages, cfg.k_steps
    copies = (cfg.bm + cfg.bn) // cfg.copy_rows          # cp.async per thread per tile
    frags = cfg.m_frags + cfg.n_frags // 2               # ldmatrix.x4 per K step
    ldm = "ldmatrix.sync.aligned.m8n8.x4.shared.b16"
    # The loop body is traced once: every K step's mmas, every K step's
    # fragments (the last step loading the next tile's first), one tile of copies.
    assert count(loop, MMA) == count(lines, MMA) == KS * cfg.m_frags * cfg.n_frags
    assert count(loop, ldm) == KS * frags and count(lines, ldm) == (KS + 1) * frags
    assert count(lines, "cp.async.cg.shared.global") == S * copies
    assert sum(line.startswith("@%p") and "cp.async.cg" in line for line in loop) == copies
    assert count(lines, "cp.async.commit_group;") == S
    assert lines.count(f"cp.async.wait_group {S - 2};") == 2
    assert lines.count("bar.sync 0;") == 2 and loop.count("bar.sync 0;") == 1
    assert count(lines, "st.global.v2.f32") == 2 * cfg.m_frags * cfg.n_frags
    assert count(lines, "mov.f32") == 4 * cfg.m_frags * cfg.n_frags
    # In the loop: the last K step's wait and barrier come after the tile's
    # copies and before the next tile's fragments; the first mma follows the
    # first fragment loads and comes before the barrier.
    at = {op: next(i for i, line in enumerate(loop) if op in line)
          for op in ("ldmatrix", "cp.async.cg", "cp.async.wait_group", "bar.sync", MMA)}
    assert at["ldmatrix"] < at["cp.async.cg"] < at["cp.async.wait_group"] < at["bar.sync"]
    assert at["ldmatrix"] < at[MMA] < at["bar.sync"]
    assert any(ldm in line for line in loop[at["bar.sync"]:])
    # A 1-D grid in the grouped order: the CTA index is divided, not used as is.
    assert "%ctaid.y" not in text and re.search(r"div\.u32 %r\d+, %r\d+, \d+;", text)
    assert lines[-1] == "ret;"


def test_bf16_output():
    text = hp.build_gemm(256, 256, 64, out_dtype=bf16).ptx()
    lines = body(text)
    assert count(lines, "cvt.rn.bf16x2.f32") == 2 * 4 * 8
    assert count(lines, "st.global.b32") == 2 * 4 * 8 and count(lines, "st.global.v2.f32") == 0


@pytest.mark.parametrize("kwargs,message", [
    (dict(bk=16), "bk=16 must be 32 or 64"),
    (dict(warps_n=3), "warps_n=3 must be a power of two"),
    (dict(bm=256, bn=256), "at most 64 x 64"),
    (dict(bn=256, warps_n=4, warps_m=4, bm=256), "at most 8 warps"),
    (dict(stages=1), "stages=1 must be from 2 to 8"),
    (dict(bn=256, bk=64, warps_n=4, stages=5), "227 KiB"),
    (dict(group_m=0), "group_m=0 must be a positive int"),
])
def test_bad_configs_name_the_field(kwargs, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        hp.build_gemm(1024, 1024, 256, hp.Config(**kwargs))


def test_bad_arguments():
    with pytest.raises(ValueError, match="config='64x64' is not one of 128x128"):
        hp.build_gemm(128, 128, 32, "64x64")
    with pytest.raises(ValueError, match="out_dtype=.* must be f32 or bf16"):
        hp.build_gemm(128, 128, 32, out_dtype=hp.u32)
    for (M, N, K), name in [((100, 128, 32), "M=100"), ((128, 64, 32), "N=64"),
                            ((128, 128, 48), "K=48"), ((128, 128, 0), "K=0")]:
        with pytest.raises(ValueError, match=f"gemm_highperf: {name} must be a positive "
                                             f"multiple of"):
            hp.build_gemm(M, N, K)
    with pytest.raises(ValueError, match="K=32 must be a positive multiple of 64"):
        hp.build_gemm(128, 128, 32, "128x128_k64")


# -- the data flow, on the CPU --------------------------------------------------------

def fill_stage(cfg, A, B_T):
    """One stage of shared memory (bf16 elements, NaN where nothing was
    written) after every thread's copies of one K tile; checks that each
    element is written once."""
    stage = np.full(cfg.stage_bytes // 2, np.nan)
    for tid in range(cfg.threads):
        row, chunk, offset = hp.copy_layout(cfg, tid)
        for src, rows, region in ((A, cfg.bm, 0), (B_T, cfg.bn, cfg.bm * cfg.row_bytes)):
            for i in range(rows // cfg.copy_rows):
                at = (region + offset + i * cfg.copy_rows * cfg.row_bytes) // 2
                assert np.isnan(stage[at:at + 8]).all(), "two copies write one place"
                r = row + i * cfg.copy_rows
                stage[at:at + 8] = src[r, 8 * chunk:8 * chunk + 8]
    assert not np.isnan(stage).any(), "shared memory left unwritten"
    return stage


def ldmatrix_x4(stage, addresses):
    """regs[lane][i] (2 elements each): lanes 8i..8i+7 give matrix i's row
    addresses; lane receives row lane // 4, columns 2 (lane % 4) and +1."""
    return [[stage[addresses[8 * i + lane // 4] // 2 + 2 * (lane % 4):][:2]
             for i in range(4)] for lane in range(32)]


def a_tile(regs):
    """The 16 x 16 A of m16n8k16 from every lane's a[0..3]."""
    out = np.full((16, 16), np.nan)
    for lane, (a0, a1, a2, a3) in enumerate(regs):
        g, t = lane // 4, lane % 4
        out[g, 2 * t:2 * t + 2], out[g + 8, 2 * t:2 * t + 2] = a0, a1
        out[g, 2 * t + 8:2 * t + 10], out[g + 8, 2 * t + 8:2 * t + 10] = a2, a3
    return out


def b_tile(regs, first):
    """The 16 x 8 B (K x N) of m16n8k16 from every lane's b[0], b[1] =
    regs[lane][first], regs[lane][first + 1]."""
    out = np.full((16, 8), np.nan)
    for lane, r in enumerate(regs):
        g, t = lane // 4, lane % 4
        out[2 * t:2 * t + 2, g], out[2 * t + 8:2 * t + 10, g] = r[first], r[first + 1]
    return out


@pytest.mark.parametrize("name", list(hp.CONFIGS))
def test_data_flow_computes_the_tile(name):
    """One CTA tile over one K tile, each K step and warp as the kernel
    does it (same offsets, same fragment choice), the mma by its fragment
    layout, the result placed by the epilogue's coordinates."""
    cfg = hp.CONFIGS[name]
    rng = np.random.default_rng(3)
    A = rng.integers(-8, 8, (cfg.bm, cfg.bk)).astype(np.float64)
    B_T = rng.integers(-8, 8, (cfg.bn, cfg.bk)).astype(np.float64)
    stage = fill_stage(cfg, A, B_T)
    C = np.full((cfg.bm, cfg.bn), np.nan)
    C_sum = np.zeros((cfg.bm, cfg.bn))
    b_region = cfg.bm * cfg.row_bytes
    for warp in range(cfg.threads // 32):
        wr, wc = warp // cfg.warps_n, warp % cfg.warps_n
        for ks in range(cfg.k_steps):
            a_frags = [ldmatrix_x4(stage, [hp.a_fragment_offset(cfg, wr, lane, ks)
                                           + mi * 16 * cfg.row_bytes for lane in range(32)])
                       for mi in range(cfg.m_frags)]
            b_pairs = [ldmatrix_x4(stage, [b_region + hp.b_fragment_offset(cfg, wc, lane, ks)
                                           + j * 16 * cfg.row_bytes for lane in range(32)])
                       for j in range(cfg.n_frags // 2)]
            for mi in range(cfg.m_frags):
                a = a_tile(a_frags[mi])
                for ni in range(cfg.n_frags):
                    b = b_tile(b_pairs[ni // 2], 2 * (ni % 2))
                    d = a @ b
                    for lane in range(32):
                        row, col = hp.accumulator_coords(cfg, wr, wc, lane)
                        row, col = row + 16 * mi, col + 8 * ni
                        g, t = lane // 4, lane % 4
                        C_sum[row:row + 9:8, col:col + 2] += d[[g, g + 8]][:, 2 * t:2 * t + 2]
                        if ks == 0:
                            assert np.isnan(C[row:row + 9:8, col:col + 2]).all()
                            C[row:row + 9:8, col:col + 2] = 0
    assert not np.isnan(C).any(), "tile elements no lane owns"
    np.testing.assert_array_equal(C_sum, A @ B_T.T)


@pytest.mark.parametrize("name", list(hp.CONFIGS))
def test_no_bank_conflicts(name):
    """Each 8-lane phase of an ldmatrix reads, and each 8-thread phase of a
    warp's 16-byte copies writes, 8 different 16-byte bank groups."""
    cfg = hp.CONFIGS[name]

    def groups(addresses):
        return len({(a // 16) % 8 for a in addresses})

    for warp in range(cfg.threads // 32):
        wr, wc = warp // cfg.warps_n, warp % cfg.warps_n
        for ks in range(cfg.k_steps):
            for fn, w in ((hp.a_fragment_offset, wr), (hp.b_fragment_offset, wc)):
                addresses = [fn(cfg, w, lane, ks) for lane in range(32)]
                for phase in range(4):
                    assert groups(addresses[8 * phase:8 * phase + 8]) == 8, (fn, ks, phase)
        offsets = [hp.copy_layout(cfg, tid)[2] for tid in range(32 * warp, 32 * warp + 32)]
        for phase in range(4):
            assert groups(offsets[8 * phase:8 * phase + 8]) == 8


def test_swizzle_matches_the_pipelined_kernel():
    """With 32-wide K tiles the swizzle is gemm_pipelined.py's c ^ ((r >> 1) & 3)."""
    cfg = hp.CONFIGS["128x128"]
    assert all(hp.swizzled_chunk(cfg, r, c) == c ^ ((r >> 1) & 3)
               for r in range(16) for c in range(4))
    cfg = hp.CONFIGS["128x128_k64"]
    assert all(hp.swizzled_chunk(cfg, r, c) == c ^ (r & 7) for r in range(16) for c in range(8))


@pytest.mark.parametrize("m_tiles,n_tiles,group", [(32, 32, 8), (12, 5, 4), (6, 7, 2),
                                                    (7, 3, 1), (64, 16, 8)])
def test_tile_order_is_grouped_and_covers_each_tile_once(m_tiles, n_tiles, group):
    cfg = hp.Config()
    assert hp.group_rows(cfg, m_tiles) == group
    tiles = [hp.tile_of(cfg, bid, m_tiles, n_tiles) for bid in range(m_tiles * n_tiles)]
    assert sorted(tiles) == [(m, n) for m in range(m_tiles) for n in range(n_tiles)]
    # consecutive CTAs walk `group` rows of one column before the next column
    assert tiles[:group + 1] == [(m, 0) for m in range(group)] + [(0, 1) if n_tiles > 1
                                                                   else (group, 0)]


def test_script_prints_ptx():
    path = os.path.join(ROOT, "examples", "ampere", "gemm_highperf.py")
    proc = subprocess.run([sys.executable, path], capture_output=True, text=True, cwd="/")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == hp.build_gemm(256, 256, 128).ptx()
    proc = subprocess.run([sys.executable, path, "256", "512", "64", "128x256"],
                          capture_output=True, text=True, cwd="/")
    assert proc.returncode == 0 and proc.stdout == hp.build_gemm(256, 512, 64, "128x256").ptx()


def test_deterministic():
    first = hp.build_gemm(256, 512, 128, "128x256").ptx()
    hp.build_gemm(128, 128, 64).ptx()
    assert hp.build_gemm(256, 512, 128, "128x256").ptx() == first


def test_f32_is_the_default_output():
    m = hp.build_gemm(128, 128, 32).module()
    assert "st.global.v2.f32" in m.ptx and "cvt.rn.bf16x2.f32" not in m.ptx
    assert hp.build_gemm(128, 128, 32, out_dtype=f32).ptx() == m.ptx
