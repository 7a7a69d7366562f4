"""ptx.fence and ptx.bar (pyptx.hw.fence): proxy fences, bar.sync and named
barriers."""
import os

import pytest

from conftest import between, line_of, mark
from pyptx import KernelError, kernel, ptx, reg
from pyptx.hw.fence import NamedBarrier, named_barrier
from pyptx.types import u32

HERE = os.path.abspath(__file__)






def test_fences(assemble):
    @kernel(arch="sm_90a")
    def k():
        tid = reg.from_(ptx.special.tid.x(), u32)
        first = tid == 0
        mark()
        ptx.fence.proxy_async()
        ptx.fence.proxy_async_shared_cta(pred=first)
        ptx.fence.mbarrier_init()
        ptx.fence.proxy.async_.global_()  # the raw spelling goes on
        mark()
        ptx.ret()

    assert between(k.ptx()) == [
        "fence.proxy.async;",
        "@%p0 fence.proxy.async.shared::cta;",
        "fence.mbarrier_init.release.cluster;",
        "fence.proxy.async.global;",
    ]
    assemble(k.ptx(), "sm_90a")


@pytest.mark.parametrize("arch", ["sm_90a", "sm_100a"])
def test_generic_acquire_fence_needs_ptx_86(arch, assemble):
    @kernel(arch=arch, version=(8, 6))
    def k():
        mark()
        ptx.fence.proxy_async_generic_acquire_shared_cluster()
        mark()
        ptx.ret()

    assert between(k.ptx()) == [
        "fence.proxy.async::generic.acquire.sync_restrict::shared::cluster.cluster;"]
    assemble(k.ptx(), arch)


def test_bar_sync_and_named_barriers(assemble):
    @kernel(arch="sm_90a", block=(256, 1, 1))
    def k():
        tid = reg.from_(ptx.special.tid.x(), u32)
        n = reg.scalar(u32, init=2)
        consumers = named_barrier(1, count=128)
        mark()
        ptx.bar.sync()
        ptx.bar.sync(0)
        ptx.bar.sync(n, 256, pred=(tid < 256))
        consumers.sync()
        NamedBarrier(3).sync()
        ptx.bar.arrive(1, 128)  # raw spelling
        mark()
        ptx.ret()

    assert between(k.ptx()) == [
        "bar.sync 0;", "bar.sync 0;",
        "setp.lt.u32 %p0, %r0, 256;",
        "@%p0 bar.sync %r1, 256;",
        "bar.sync 1, 128;", "bar.sync 3;",
        "bar.arrive 1, 128;",
    ]
    b = NamedBarrier(5, 64)
    assert (b.barrier_id, b.count) == (5, 64)
    assemble(k.ptx(), "sm_90a")


def test_barrier_mistakes():
    @kernel(arch="sm_90a")
    def bad_id():
        ptx.bar.sync(16)  # <- id

    with pytest.raises(KernelError) as info:
        bad_id.ptx()
    assert info.value.line == line_of(HERE, "# <- id") and "0 to 15" in info.value.message

    @kernel(arch="sm_90a")
    def bad_count():
        named_barrier(1, count=100)  # <- count

    with pytest.raises(KernelError) as info:
        bad_count.ptx()
    assert info.value.line == line_of(HERE, "# <- count")
    assert "multiple of 32" in info.value.message
