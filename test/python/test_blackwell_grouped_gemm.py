"""examples/blackwell/grouped_gemm.py without a GPU: it traces and
assembles for sm_100a with no spills; the schedule is built from offs in
shared memory (per-expert rows, tile counts, prefix sums) and searched per
tile; the epilogue's stores are predicated on the expert's row end; the
Python mirror of the schedule covers every row of every expert once per
column tile, and a NumPy model of the kernel (full 128-row tiles loaded,
rows past the expert's end not stored) gives the per-expert products."""
import os
import subprocess
import sys

import numpy as np
import pytest

from examples.blackwell import gemm
from examples.blackwell import grouped_gemm as gg
from pyptx.types import f32
from test_seeds import body

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def lines(text, needle):
    return [l for l in body(text) if needle in l]


@pytest.mark.parametrize("T,N,K,G,kw", [(896, 256, 256, 4, {}), (760, 512, 320, 6, {}),
                                        (600, 256, 512, 3, dict(out_dtype=f32)),
                                        (2560, 128, 128, 40, dict(bn=128, num_sms=5)),
                                        (512, 256, 128, 192, {})])
def test_assembles_without_spills(T, N, K, G, kw, assemble):
    k = gg.build_grouped_gemm(T, N, K, G, **kw)
    m = k.module()
    assemble(m.ptx, "sm_100a")
    r = k.resources()
    assert r["ok"] and r["spill_stores_bytes"] == 0 and r["spill_loads_bytes"] == 0
    assert r["smem_per_cta"] <= gemm.SMEM_LIMIT
    assert m.smem <= gemm.smem_bytes(k.config, gg.schedule_bytes(G))


def test_structure():
    k = gg.build_grouped_gemm(4096, 768, 2048, 8)
    text = k.module().ptx
    # schedule: one thread per expert reads offs[g] (and offs[g-1]) and stores
    # first row, row end and tile count; two barriers around the prefix sum
    assert "setp.lt.u32 %p0, %r0, 8;" in body(text)
    assert len(lines(text, "ld.global.u32")) == 2 and lines(text, "ld.global.u32")[1].endswith(
        "+-4];")
    assert "mul.lo.u32 %r10, %r9, 3;" in body(text)        # ceil(rows / 128) x 3 column tiles
    assert body(text).count("bar.sync 0;") == 4           # 2 schedule, start-up, finish
    # the MMA pipeline of the dense kernel
    assert len(lines(text, "tcgen05.mma.cta_group::1.kind::f16")) == 4
    assert len(lines(text, "tcgen05.commit.cta_group::1")) == 2
    # stores predicated on the expert's row end; loads are not
    stores = lines(text, "st.global.v4.b32")
    assert len(stores) == 32 and all(l.startswith("@%p") for l in stores)
    assert not any(l.startswith("@") for l in lines(text, "tcgen05.ld"))


def test_schedule_mirror_covers_every_row_once():
    offs = [100, 100, 400, 401, 478, 738]     # an empty expert, partial tiles, one row
    N, bn = 512, 256
    tiles = gg.tile_schedule(offs, N, bn)
    starts = [0] + offs[:-1]
    covered = np.zeros((offs[-1], N // bn), int)
    for g, row, end, col in tiles:
        assert starts[g] <= row < end == offs[g]
        covered[row:min(row + gemm.BM, end), col // bn] += 1
    assert (covered == 1).all()
    assert len(tiles) == sum(-(-(e - s) // 128) for s, e in zip(starts, offs)) * (N // bn)
    assert list(gg.uniform_offsets(3, 256)) == [256, 512, 768]


def test_numpy_model_gives_the_per_expert_products():
    rng = np.random.default_rng(5)
    counts = [130, 0, 7, 300]
    offs = np.cumsum(counts).astype(np.int32)
    T, N, K = 500, 256, 128
    a = rng.standard_normal((T, K)).astype(np.float32)
    b = rng.standard_normal((len(counts) * N, K)).astype(np.float32)
    out = np.full((T, N), np.nan)
    padded = np.vstack([a, np.zeros((gemm.BM, K), np.float32)])   # TMA fills past T with 0
    for g, row, end, col in gg.tile_schedule(offs, N, 256):
        tile = padded[row:row + gemm.BM].astype(np.float64) @ \
            b[g * N + col:g * N + col + 256].astype(np.float64).T
        keep = min(end, row + gemm.BM) - row                      # the predicated rows
        out[row:row + keep, col:col + 256] = tile[:keep]
    ref = gg.reference(a, b, offs)
    assert np.isnan(ref[offs[-1]:]).all()
    np.testing.assert_allclose(out[:offs[-1]], ref[:offs[-1]], rtol=1e-12, atol=1e-12)
    assert np.isnan(out[offs[-1]:]).all()


def test_refuses_bad_shapes():
    with pytest.raises(ValueError, match="N must be a multiple of bn=256"):
        gg.build_grouped_gemm(512, 384, 128, 2)
    with pytest.raises(ValueError, match="1 <= G <= 192"):
        gg.build_grouped_gemm(512, 256, 128, 193)
    with pytest.raises(ValueError, match="K of 64"):
        gg.build_grouped_gemm(512, 256, 100, 2)


def test_runs_as_a_script():
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "blackwell",
                                                        "grouped_gemm.py")],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert ".target sm_100a" in proc.stdout and "tcgen05.mma" in proc.stdout
