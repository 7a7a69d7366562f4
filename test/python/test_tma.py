"""TMA and bulk copies (pyptx.hw.tma): ptx.cp.async_.bulk.tensor_Nd (+ .store,
.shared_cta_global_tile), the ptx.cp.async_.bulk.tensor namespace, commit /
wait groups, ptx.cp.async_bulk, ptx.tma; the checks at the author's line;
and the example examples/hopper/tma_pipeline.py."""
import functools
import os
import re
import sys

import numpy as np
import pytest

from conftest import between, error_in, mark
from pyptx import KernelError, Tile, kernel, ptx, reg, smem
from pyptx.types import f32, s32, u16, u32, u64

HERE = os.path.abspath(__file__)
error_at = functools.partial(error_in, HERE)
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)


def tkernel(*specs, arch="sm_90a", version=None, block=128):
    return kernel(in_specs=specs, out_specs=(), grid=(1, 1, 1), block=(block, 1, 1),
                  arch=arch, version=version)








LOAD = "cp.async.bulk.tensor.{n}d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
STORE = "cp.async.bulk.tensor.{n}d.global.shared::cta.tile.bulk_group"

SHAPES = {1: (256,), 2: (64, 64), 3: (4, 64, 64), 4: (2, 4, 16, 64), 5: (2, 2, 4, 8, 64)}
BOXES = {1: (64,), 2: (32, 64), 3: (2, 16, 64), 4: (1, 2, 8, 64), 5: (1, 1, 2, 4, 64)}


# -- tensor_Nd loads and stores --------------------------------------------------------

@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
def test_tensor_nd_load_and_store_emit_one_instruction_each(n, assemble):
    box = BOXES[n]

    @tkernel(Tile(*SHAPES[n], f32))
    def k(X):
        desc = X.tma_desc(box=box)
        buf = smem.alloc(f32, box)
        bar = smem.mbarrier(1)
        row = reg.scalar(s32, init=3)
        coord = (0,) * (n - 1) + (row,)
        mark()
        getattr(ptx.cp.async_.bulk, f"tensor_{n}d")(dst=buf, src=desc, coord=coord, mbar=bar[0])
        getattr(ptx.cp.async_.bulk, f"tensor_{n}d").store(dst=desc, src=buf, coord=coord)
        mark()
        ptx.ret()

    text = k.ptx()
    coords = ", ".join(["0"] * (n - 1) + ["%s0"])
    assert between(text) == [
        f"{LOAD.format(n=n)} [smem_0], [%rd1, {{{coords}}}], [mbar_0];",
        f"{STORE.format(n=n)} [%rd1, {{{coords}}}], [smem_0];",
    ]
    assemble(text, "sm_90a")


def test_load_multicast_cache_hint_and_async_bulk_alias(assemble):
    assert ptx.cp.async_bulk is ptx.cp.async_.bulk

    @tkernel(Tile(64, 64, f32))
    def k(X):
        desc = X.tma_desc(box=(64, 64))
        buf = smem.alloc(f32, (64, 64))
        bar = smem.mbarrier(1)
        mask = reg.scalar(u16, init=3)
        hint = reg.scalar(u64, init=0)
        col = reg.scalar(u32, init=16)
        mark()
        ptx.cp.async_bulk.tensor_2d(dst=buf, src=desc, coord=(col, 0), mbar=bar[0],
                                    multicast_mask=mask)
        ptx.cp.async_.bulk.tensor_2d(dst=buf, src=desc, coord=(0, 0), mbar=bar[0],
                                     multicast_mask=0b11, cache_hint=hint)
        ptx.cp.async_.bulk.tensor_2d.store(dst=desc, src=buf, coord=(col, 8))
        ptx.cp.async_.bulk.tensor.store_2d(desc, buf, (0, 0), cache_hint=hint)
        mark()
        ptx.ret()

    text = k.ptx()
    assert between(text) == [
        f"{LOAD.format(n=2)}.multicast::cluster [smem_0], [%rd1, {{%r0, 0}}], [mbar_0], %rh0;",
        f"{LOAD.format(n=2)}.multicast::cluster.L2::cache_hint [smem_0], [%rd1, {{0, 0}}], "
        f"[mbar_0], 3, %rd2;",
        f"{STORE.format(n=2)} [%rd1, {{%r0, 8}}], [smem_0];",
        f"{STORE.format(n=2)}.L2::cache_hint [%rd1, {{0, 0}}], [smem_0], %rd2;",
    ]
    assemble(text, "sm_90a")


def test_cta_group_and_shared_cta_loads_on_sm100(assemble):
    @tkernel(Tile(64, 64, f32), arch="sm_100a")
    def k(X):
        desc = X.tma_desc(box=(64, 64))
        buf = smem.alloc(f32, (64, 64))
        bar = smem.mbarrier(1)
        mark()
        ptx.cp.async_.bulk.tensor_2d(dst=buf, src=desc, coord=(0, 0), mbar=bar[0], cta_group=2,
                                     multicast_mask=3)
        ptx.cp.async_.bulk.tensor_2d(dst=buf, src=desc, coord=(0, 0), mbar=bar[0], cta_group=1)
        ptx.cp.async_.bulk.tensor_2d.shared_cta_global_tile(dst=buf, src=desc, coord=(0, 0),
                                                           mbar=bar[0])
        ptx.cp.async_.bulk.tensor_2d.shared_cta_global_tile(dst=buf, src=desc, coord=(0, 0),
                                                           mbar=bar[0], cta_group=2)
        mark()
        ptx.ret()

    text = k.ptx()
    cta = "cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes"
    assert between(text) == [
        f"{LOAD.format(n=2)}.multicast::cluster.cta_group::2 [smem_0], [%rd1, {{0, 0}}], "
        f"[mbar_0], 3;",
        f"{LOAD.format(n=2)}.cta_group::1 [smem_0], [%rd1, {{0, 0}}], [mbar_0];",
        f"{cta} [smem_0], [%rd1, {{0, 0}}], [mbar_0];",
        f"{cta}.cta_group::2 [smem_0], [%rd1, {{0, 0}}], [mbar_0];",
    ]
    assemble(text, "sm_100a")


# -- the tensor namespace ---------------------------------------------------------------

@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
def test_tile_and_store_positional_forms(n, assemble):
    box = BOXES[n]

    @tkernel(Tile(*SHAPES[n], f32))
    def k(X):
        desc = X.tma_desc(box=box)
        buf = smem.alloc(f32, box)
        bar = smem.mbarrier(1)
        coord = (1,) * n
        mark()
        getattr(ptx.cp.async_.bulk.tensor, f"tile_{n}d")(buf, desc, coord, mbar=bar[0])
        getattr(ptx.cp.async_.bulk.tensor, f"store_{n}d")(desc, buf, coord)
        mark()
        ptx.ret()

    text = k.ptx()
    coords = ", ".join(["1"] * n)
    assert between(text) == [
        f"{LOAD.format(n=n)} [smem_0], [%rd1, {{{coords}}}], [mbar_0];",
        f"{STORE.format(n=n)} [%rd1, {{{coords}}}], [smem_0];",
    ]
    assemble(text, "sm_90a")


@pytest.mark.parametrize("n", [3, 4, 5])
def test_im2col_loads_carry_their_offsets(n, assemble):
    @tkernel(Tile(*SHAPES[n], f32))
    def k(X):
        desc = X.tma_desc(box=BOXES[n])
        buf = smem.alloc(f32, (4096,))
        bar = smem.mbarrier(1)
        off = reg.scalar(u16, init=1)
        mark()
        getattr(ptx.cp.async_.bulk.tensor, f"im2col_{n}d")(buf, desc, (0,) * n, mbar=bar[0],
                                                           offsets=[off] * (n - 2))
        mark()
        ptx.ret()

    text = k.ptx()
    im2col = f"cp.async.bulk.tensor.{n}d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes"
    zeros, offs = ", ".join(["0"] * n), ", ".join(["%rh0"] * (n - 2))
    assert between(text) == [f"{im2col} [smem_0], [%rd1, {{{zeros}}}], [mbar_0], {{{offs}}};"]
    assemble(text, "sm_90a")


def test_gather4_and_scatter4_on_sm100(assemble):
    @tkernel(Tile(64, 64, f32), arch="sm_100a")
    def k(X):
        desc = X.tma_desc(box=(1, 64))
        buf = smem.alloc(f32, (4, 64))
        bar = smem.mbarrier(1)
        r = reg.scalar(s32, init=7)
        mark()
        ptx.cp.async_.bulk.tensor.gather4_2d(buf, desc, (0, r, 1, 2, 3), mbar=bar[0])
        ptx.cp.async_.bulk.tensor.scatter4_2d(desc, buf, (0, r, 1, 2, 3))
        mark()
        ptx.ret()

    text = k.ptx()
    assert between(text) == [
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile::gather4.mbarrier::complete_tx"
        "::bytes [smem_0], [%rd1, {0, %s0, 1, 2, 3}], [mbar_0];",
        "cp.async.bulk.tensor.2d.global.shared::cta.tile::scatter4.bulk_group "
        "[%rd1, {0, %s0, 1, 2, 3}], [smem_0];",
    ]
    assemble(text, "sm_100a")


def test_commit_and_wait_group(assemble):
    @tkernel(Tile(64, f32))
    def k(X):
        mark()
        ptx.cp.async_.bulk.commit_group()
        ptx.cp.async_.bulk.wait_group(0)
        ptx.cp.async_.bulk.wait_group(1, read=True)
        mark()
        ptx.ret()

    text = k.ptx()
    assert between(text) == ["cp.async.bulk.commit_group;", "cp.async.bulk.wait_group 0;",
                             "cp.async.bulk.wait_group.read 1;"]
    assemble(text, "sm_90a")


def test_raw_spellings_still_work_beside_the_helpers():
    @tkernel(Tile(64, 64, f32))
    def k(X):
        desc = X.tma_desc(box=(64, 64))
        buf = smem.alloc(f32, (64, 64))
        bar = smem.mbarrier(1)
        mark()
        ptx.cp.async_.bulk.tensor._2d.shared__cluster.global_.mbarrier__complete_tx__bytes(
            ptx.addr(buf), ptx.tensor_addr(desc, 0, 0), ptx.addr(bar))
        ptx.tma._2d.global_.shared__cta.bulk_group(ptx.tensor_addr(desc, 0, 0), ptx.addr(buf))
        mark()
        ptx.ret()

    assert between(k.ptx()) == [
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [smem_0], "
        "[%rd1, {0, 0}], [mbar_0];",
        "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%rd1, {0, 0}], [smem_0];",
    ]


# -- ptx.tma --------------------------------------------------------------------------------

def test_tma_3d_helpers_use_the_0_row_col64_convention(assemble):
    @tkernel(Tile(2, 64, 64, f32), arch="sm_90a")
    def k(X):
        desc = X.tma_desc(box=(1, 64, 64))
        buf = smem.alloc(f32, (64, 64))
        bar = smem.mbarrier(1)
        row = reg.scalar(s32, init=8)
        col = reg.scalar(u32, init=128)
        mask = reg.scalar(u16, init=3)
        mark()
        ptx.tma.load_3d(buf, desc, row=row, col=128, mbar=bar[0])
        ptx.tma.load_3d(buf, desc, row=row, col=col, mbar=bar[0])
        ptx.tma.load_3d(buf, desc, mbar=bar[0], coords=(0, 1, 2))
        ptx.tma.load_3d_multicast(buf, desc, row=row, col=64, mbar=bar[0], mask=mask, issuer=1)
        ptx.tma.store_3d(desc, buf, row=row, col=192)
        mark()
        ptx.ret()

    load = LOAD.format(n=3)
    assert between(k.ptx()) == [
        f"{load} [smem_0], [%rd1, {{0, %s0, 2}}], [mbar_0];",
        "shr.u32 %r1, %r0, 6;",
        f"{load} [smem_0], [%rd1, {{0, %s0, %r1}}], [mbar_0];",
        f"{load} [smem_0], [%rd1, {{0, 1, 2}}], [mbar_0];",
        "mov.u32 %r2, %cluster_ctarank;",
        "setp.eq.u32 %p0, %r2, 1;",
        f"@%p0 {load}.multicast::cluster [smem_0], [%rd1, {{0, %s0, 1}}], [mbar_0], %rh0;",
        f"{STORE.format(n=3)} [%rd1, {{0, %s0, 3}}], [smem_0];",
    ]
    assemble(k.ptx(), "sm_90a")


# -- checks at the author's line ---------------------------------------------------------

def test_rank_of_copy_must_match_descriptor():
    @tkernel(Tile(4, 64, 64, f32))
    def k(X):
        desc = X.tma_desc(box=(1, 64, 64))
        buf = smem.alloc(f32, (64, 64))
        bar = smem.mbarrier(1)
        ptx.cp.async_.bulk.tensor_2d(dst=buf, src=desc, coord=(0, 0), mbar=bar[0])  # <- rank

    message = error_at(k, "# <- rank")
    assert "2-d box" in message and "rank 3" in message and "tensor_3d" in message


def test_number_and_type_of_coordinates():
    @tkernel(Tile(64, 64, f32))
    def three(X):
        desc = X.tma_desc(box=(64, 64))
        buf = smem.alloc(f32, (64, 64))
        bar = smem.mbarrier(1)
        ptx.cp.async_.bulk.tensor_2d(dst=buf, src=desc, coord=(0, 0, 0), mbar=bar[0])  # <- n

    assert "takes 2 coordinates" in error_at(three, "# <- n")

    @tkernel(Tile(64, 64, f32))
    def floaty(X):
        desc = X.tma_desc(box=(64, 64))
        buf = smem.alloc(f32, (64, 64))
        bar = smem.mbarrier(1)
        x = reg.scalar(f32)
        ptx.cp.async_.bulk.tensor_2d(dst=buf, src=desc, coord=(x, 0), mbar=bar[0])  # <- f

    assert "32-bit integer register" in error_at(floaty, "# <- f")

    @tkernel(Tile(64, 64, f32))
    def missing(X):
        desc = X.tma_desc(box=(64, 64))
        buf = smem.alloc(f32, (64, 64))
        bar = smem.mbarrier(1)
        ptx.cp.async_.bulk.tensor_2d(dst=buf, src=desc, mbar=bar[0])  # <- none

    assert "needs coord=(c0, c1)" in error_at(missing, "# <- none")


def test_box_must_fit_the_shared_tile():
    @tkernel(Tile(64, 64, f32))
    def k(X):
        desc = X.tma_desc(box=(64, 64))
        buf = smem.alloc(f32, (32, 64))
        bar = smem.mbarrier(1)
        ptx.cp.async_.bulk.tensor_2d(dst=buf, src=desc, coord=(0, 0), mbar=bar[0])  # <- big

    message = error_at(k, "# <- big")
    assert "16384 bytes" in message and "holds 8192" in message
    assert "write past its end" in message and "(64, 64)" in message

    @tkernel(Tile(64, 64, f32))
    def store(X):
        desc = X.tma_desc(box=(64, 64))
        buf = smem.alloc(f32, (16, 64))
        ptx.cp.async_.bulk.tensor_2d.store(dst=desc, src=buf, coord=(0, 0))  # <- read

    message = error_at(store, "# <- read")
    assert "holds 4096" in message and "read past its end" in message


def test_box_checked_against_one_stage_of_a_staged_allocation():
    # alloc[stage] addresses one stage; a box larger than a stage overflows it.
    @tkernel(Tile(64, 64, f32))
    def k(X):
        desc = X.tma_desc(box=(64, 64))
        buf = smem.alloc(f32, (2, 32, 64))
        bar = smem.mbarrier(1)
        ptx.cp.async_.bulk.tensor_2d(dst=buf[1], src=desc, coord=(0, 0), mbar=bar[0])  # <- st

    message = error_at(k, "# <- st")
    assert "holds 8192" in message and "one stage of smem_0" in message


def test_swizzle_of_descriptor_must_match_the_allocation(assemble):
    @tkernel(Tile(64, 32, f32))
    def k(X):
        desc = X.tma_desc(box=(64, 32), swizzle="128B")
        buf = smem.alloc(f32, (64, 32))
        bar = smem.mbarrier(1)
        ptx.cp.async_.bulk.tensor_2d(dst=buf, src=desc, coord=(0, 0), mbar=bar[0])  # <- swz

    message = error_at(k, "# <- swz")
    assert "swizzles 128B" in message and "swizzle none" in message
    assert "swizzle='128B'" in message

    @tkernel(Tile(64, 32, f32))
    def ok(X):
        desc = X.tma_desc(box=(64, 32), swizzle="128B")
        buf = smem.alloc(f32, (64, 32), swizzle="128B", align=1024)
        bar = smem.mbarrier(1)
        ptx.cp.async_.bulk.tensor_2d(dst=buf, src=desc, coord=(0, 0), mbar=bar[0])
        ptx.ret()

    assemble(ok.ptx(), "sm_90a")


def test_other_mistakes():
    @tkernel(Tile(64, 64, f32))
    def tensor_as_src(X):
        buf = smem.alloc(f32, (64, 64))
        bar = smem.mbarrier(1)
        ptx.cp.async_.bulk.tensor_2d(dst=buf, src=X, coord=(0, 0), mbar=bar[0])  # <- spec

    assert "X.tma_desc()" in error_at(tensor_as_src, "# <- spec")

    @tkernel(Tile(64, 64, f32))
    def no_mbar(X):
        desc = X.tma_desc(box=(64, 64))
        buf = smem.alloc(f32, (64, 64))
        ptx.cp.async_.bulk.tensor.tile_2d(buf, desc, (0, 0))  # <- mbar

    assert "pass mbar=" in error_at(no_mbar, "# <- mbar")

    @tkernel(Tile(4, 64, 64, f32))
    def no_offsets(X):
        desc = X.tma_desc(box=(1, 64, 64))
        buf = smem.alloc(f32, (64, 64))
        bar = smem.mbarrier(1)
        ptx.cp.async_.bulk.tensor.im2col_3d(buf, desc, (0, 0, 0), mbar=bar[0])  # <- offs

    assert "offsets= with 1 im2col offsets" in error_at(no_offsets, "# <- offs")

    @tkernel(Tile(64, 64, f32), arch="sm_100a")
    def scatter_mbar(X):
        desc = X.tma_desc(box=(1, 64))
        buf = smem.alloc(f32, (4, 64))
        bar = smem.mbarrier(1)
        ptx.cp.async_.bulk.tensor.scatter4_2d(desc, buf, (0, 1, 2, 3, 4), mbar=bar[0])  # <- sc

    assert "bulk groups" in error_at(scatter_mbar, "# <- sc")

    @tkernel(Tile(64, 64, f32), arch="sm_100a")
    def gather_box(X):
        desc = X.tma_desc(box=(2, 64))
        buf = smem.alloc(f32, (4, 64))
        bar = smem.mbarrier(1)
        ptx.cp.async_.bulk.tensor.gather4_2d(buf, desc, (0, 1, 2, 3, 4), mbar=bar[0])  # <- g4

    assert "box (1, columns)" in error_at(gather_box, "# <- g4")

    @tkernel(Tile(64, 64, f32))
    def bad_group(X):
        desc = X.tma_desc(box=(64, 64))
        buf = smem.alloc(f32, (64, 64))
        bar = smem.mbarrier(1)
        ptx.cp.async_.bulk.tensor_2d(dst=buf, src=desc, coord=(0, 0), mbar=bar[0],
                                     cta_group=4)  # <- cg

    with pytest.raises(KernelError) as info:
        bad_group.ptx()
    assert "cta_group is 1 or 2" in info.value.message

    @tkernel(Tile(64, f32))
    def bad_wait(X):
        ptx.cp.async_.bulk.wait_group(-1)  # <- wg

    assert "non-negative int" in error_at(bad_wait, "# <- wg")

    @tkernel(Tile(64, 64, f32))
    def bad_mask(X):
        desc = X.tma_desc(box=(64, 64))
        buf = smem.alloc(f32, (64, 64))
        bar = smem.mbarrier(1)
        ptx.tma.load_3d_multicast(buf, desc, coords=(0, 0, 0), mbar=bar[0])  # <- mask

    assert "needs mask=" in error_at(bad_mask, "# <- mask")


def test_loads_feed_the_transaction_ledger():
    # Two boxes complete on one barrier that announced only one of them.
    @tkernel(Tile(64, 64, f32))
    def k(X):
        desc = X.tma_desc(box=(32, 64))
        buf = smem.alloc(f32, (64, 64))
        bar = smem.mbarrier(1)
        ptx.mbarrier.arrive_expect_tx(bar[0], 8192)  # <- short
        ptx.cp.async_.bulk.tensor_2d(dst=buf, src=desc, coord=(0, 0), mbar=bar[0])
        ptx.cp.async_.bulk.tensor_2d(dst=ptx.addr(buf, 8192), src=desc, coord=(0, 32),
                                     mbar=bar[0])
        ptx.mbarrier.wait(bar[0], 0)

    message = error_at(k, "# <- short")
    assert "announce 8192" in message and "bring 16384" in message
    assert message.count("cp.async.bulk.tensor.2d of X box (32, 64) = 8192 bytes") == 2
    assert "announce 16384" in message

    # Multicast: the barrier also receives other CTAs' boxes; not checked.
    @tkernel(Tile(64, 64, f32))
    def multicast(X):
        desc = X.tma_desc(box=(32, 64))
        buf = smem.alloc(f32, (64, 64))
        bar = smem.mbarrier(1)
        ptx.mbarrier.arrive_expect_tx(bar[0], 16384)
        ptx.cp.async_.bulk.tensor_2d(dst=buf, src=desc, coord=(0, 0), mbar=bar[0],
                                     multicast_mask=3)
        ptx.mbarrier.wait(bar[0], 0)
        ptx.ret()

    assert "multicast::cluster" in multicast.ptx()


# -- the example -------------------------------------------------------------------------------

def _example():
    import importlib
    return importlib.import_module("examples.hopper.tma_pipeline")


@pytest.mark.parametrize("M,N", [(128, 32), (256, 256)])
def test_tma_pipeline_example_traces_and_assembles(M, N, assemble):
    mod = _example()
    assert mod.ARCH == "sm_90a"
    m = mod.build_tma_pipeline(M, N).module()
    text = m.ptx
    assert m.grid == (M // 128, 1, 1) and m.block == (128, 1, 1)
    assert [d.param for d in m.tma_descs] == ["X_tmap0", "Y_tmap1"]
    assert re.search(r"\.visible \.entry tma_pipeline\(", text)
    lines = [l.strip() for l in text.splitlines()]
    loads = [l for l in lines if l.startswith(LOAD.format(n=2))]
    stores = [l for l in lines if l.startswith(STORE.format(n=2))]
    prologue = min(mod.STAGES, N // mod.BN)
    assert len(loads) == prologue + 1 and len(stores) == 1  # the ring's loop is traced once
    assert sum(l.startswith("mbarrier.arrive.expect_tx.shared::cta.b64") for l in lines) == \
        prologue + 1
    assert sum(l.startswith("mbarrier.init.shared::cta.b64") for l in lines) == 2 * mod.STAGES
    assert sum(l.startswith("mbarrier.try_wait.parity.shared::cta.b64") for l in lines) == 2
    assert "cp.async.bulk.wait_group.read 0;" in lines and "cp.async.bulk.wait_group 0;" in lines
    assert lines[-2:] == ["ret;", "}"]
    assemble(text, "sm_90a")


def test_tma_pipeline_script_prints_its_ptx(capsys):
    mod = _example()
    mod.main([])
    out = capsys.readouterr().out
    assert out.startswith(".version") and "tma_pipeline" in out


def test_tma_pipeline_reference_matches_float64():
    mod = _example()
    x = np.random.default_rng(0).standard_normal((256, 64), dtype=np.float32)
    y, s = mod.reference(x)
    assert np.array_equal(y, x) and y is not x
    assert s.dtype == np.float32 and s.shape == (256,)
    np.testing.assert_allclose(s, x.astype(np.float64).sum(axis=1), rtol=1e-6, atol=1e-5)
