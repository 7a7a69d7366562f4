"""pyptx.pipeline: the ring's barriers, inits and phases (TMA and thread
producers, several rings in one kernel), the roles, the ping-pong and the
schedulers (their Python mirrors against the kernels' arithmetic order).
The example kernels built on it: test_pipeline_examples_ptx.py."""
import pytest

from pyptx import kernel, ptx, reg
from pyptx.pipeline import (PingPong, Ring, consumer_role, init_rings, producer_role,
                            tile_order, warpgroup_ids)
from pyptx.pipeline.scheduler import expert_tiles, group_rows
from pyptx.types import u32


def body_of(text):
    start = text.index("{", text.index(".entry"))
    return [l.strip() for l in text[start:].splitlines() if l.strip()]


def build(fn, arch="sm_90a", block=384):
    return kernel(in_specs=(), out_specs=(), grid=(1, 1, 1), block=(block, 1, 1),
                  arch=arch)(fn).ptx()


def test_two_rings_init_stage_by_stage_with_their_counts(assemble):
    def k():
        tid = reg.from_(ptx.special.tid.x(), u32)
        ka = Ring(2, empty_arrivals=2)
        vb = Ring(3, full_arrivals=128, empty_arrivals=1)
        init_rings(tid == 0, [ka, vb])
        ptx.ret()
    text = build(k)
    assemble(text, "sm_90a")
    inits = [l for l in body_of(text) if l.startswith("mbarrier.init")]
    # stage 0: both fulls then both empties; ring vb has a third stage
    counts = [l.rstrip(";").rsplit(",", 1)[1].strip() for l in inits]
    assert counts == ["1", "128", "2", "1", "1", "128", "2", "1", "128", "1"]
    lines = body_of(text)
    fence = next(i for i, l in enumerate(lines) if l.startswith("fence.proxy.async"))
    assert fence > max(i for i, l in enumerate(lines) if l.startswith("mbarrier.init"))
    assert any(l.startswith("bar.sync 0") for l in lines[fence:])


def test_cluster_rings_fence_the_init_and_meet_at_a_cluster_barrier():
    def k():
        tid = reg.from_(ptx.special.tid.x(), u32)
        init_rings(tid == 0, [Ring(2)], cluster=True)
        ptx.ret()
    lines = body_of(build(k))
    assert any(l.startswith("fence.mbarrier_init") for l in lines)
    assert any(l.startswith("barrier.cluster.arrive") for l in lines)
    assert not any(l.startswith("bar.sync") for l in lines)


def test_producer_starts_on_phase_one_and_consumer_on_zero(assemble):
    def k():
        tid = reg.from_(ptx.special.tid.x(), u32)
        ring = Ring(4, empty_arrivals=1)
        init_rings(tid == 0, [ring])
        with ptx.if_(tid == 0):
            producer = ring.producer()
            stage, full = producer.acquire()
            full.arrive_expect_tx(1024)
        with ptx.else_():
            consumer = ring.consumer()
            stage = consumer.wait()
            consumer.release(stage, pred=tid == 32)
        ptx.ret()
    text = build(k)
    assemble(text, "sm_90a")
    movs = [l for l in body_of(text) if l.startswith("mov.u32") and l.endswith(", 1;")]
    assert movs, "the producer's phase register starts at 1"
    lines = body_of(text)
    waits = [l for l in lines if l.startswith("mbarrier.try_wait.parity")]
    assert len(waits) == 2
    assert any(l.startswith("mbarrier.arrive.expect_tx") and l.endswith(", 1024;") for l in lines)
    assert any(l.startswith("@") and "mbarrier.arrive.shared" in l for l in lines)


def test_thread_producer_commits_with_cp_async_arrive(assemble):
    def k():
        tid = reg.from_(ptx.special.tid.x(), u32)
        ring = Ring(2, full_arrivals=128)
        init_rings(tid == 0, [ring])
        producer = ring.producer()
        stage, full = producer.acquire()
        producer.commit_cp_async(full)
        producer.commit(full, pred=tid == 0)
        ptx.ret()
    text = build(k, block=128)
    assemble(text, "sm_90a")
    lines = body_of(text)
    assert any(l.startswith("cp.async.mbarrier.arrive.noinc.shared") for l in lines)
    assert any(l.startswith("@") and "mbarrier.arrive.shared" in l for l in lines)


def test_release_to_a_cluster_peer_is_mapa_and_remote_arrive(assemble):
    def k():
        tid = reg.from_(ptx.special.tid.x(), u32)
        ring = Ring(2, empty_arrivals=2)
        init_rings(tid == 0, [ring], cluster=True)
        consumer = ring.consumer()
        consumer.release(consumer.wait(), cta=tid & 1, pred=tid < 2)
        ptx.cluster.sync()
        ptx.ret()
    text = kernel(in_specs=(), out_specs=(), grid=(2, 1, 1), block=(128, 1, 1),
                  cluster=(2, 1, 1), arch="sm_90a")(k).ptx()
    assemble(text, "sm_90a")
    lines = body_of(text)
    assert any("mapa.shared::cluster" in l for l in lines)
    assert any("mbarrier.arrive.shared::cluster" in l for l in lines)


def test_roles_move_registers_and_pingpong_off_emits_nothing(assemble):
    def k():
        tid, wg, lane128 = warpgroup_ids()
        with producer_role(wg):
            ptx.inst.mov.u32(reg.scalar(u32), 1)
        with consumer_role():
            turns = PingPong(wg - 1)
            turns.start()
            turns.take()
            turns.give()
            turns.finish()
            PingPong(wg - 1, enabled=False).take()
        ptx.ret()
    text = kernel(in_specs=(), out_specs=(), grid=(1, 1, 1), block=(384, 1, 1), arch="sm_90a",
                  raw_directives=[("maxntid", (384, 1, 1)), ("minnctapersm", (1,))])(k).ptx()
    assemble(text, "sm_90a")
    lines = body_of(text)
    assert sum(l.startswith("setmaxnreg.dec.sync.aligned.u32 40") for l in lines) == 1
    assert sum(l.startswith("setmaxnreg.inc.sync.aligned.u32 232") for l in lines) == 1
    assert sum("bar.arrive" in l for l in lines) == 2          # start and give only
    assert sum(l.startswith("bar.sync %r") and l.endswith(", 256;") for l in lines) == 2  # take, finish


def test_grouped_order_visits_every_tile_once_in_groups():
    order = tile_order(6, 5, 2)
    assert sorted(order) == [(m, n) for m in range(6) for n in range(5)]
    assert order[:4] == [(0, 0), (1, 0), (0, 1), (1, 1)]     # 2 rows, column by column
    assert order[10] == (2, 0)                                # the next group of rows
    assert group_rows(12, 8) == 4 and group_rows(7, 8) == 1 and group_rows(16, 16) == 16


def test_expert_tiles_cover_each_experts_rows():
    tiles = expert_tiles([100, 100, 400], N=512, bm=128, bn=256)
    # expert 0: one m tile x 2 n tiles; expert 1: no rows; expert 2: 3 m tiles x 2
    assert [t[0] for t in tiles] == [0, 0] + [2] * 6
    assert tiles[2] == (2, 100, 400, 0) and tiles[-1] == (2, 356, 400, 256)


@pytest.mark.parametrize("bad", [0, -1])
def test_ring_needs_a_stage(bad):
    def k():
        ring = Ring(bad)
        ring.producer()
    with pytest.raises(Exception):
        build(k)
