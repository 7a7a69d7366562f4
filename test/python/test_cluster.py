"""ptx.cluster (pyptx.hw.cluster): cluster barriers, rank predicates, mapa and
arrives on other CTAs' mbarriers."""
import os

import pytest

from conftest import between, line_of, mark
from pyptx import KernelError, kernel, ptx, reg, smem
from pyptx.types import u16, u32, u64

HERE = os.path.abspath(__file__)


def ckernel(arch="sm_90a"):
    return kernel(grid=(2, 1, 1), block=(128, 1, 1), cluster=(2, 1, 1), arch=arch)






def test_cluster_barriers(assemble):
    @ckernel()
    def k():
        tid = reg.from_(ptx.special.tid.x(), u32)
        mark()
        ptx.cluster.arrive()
        ptx.cluster.wait()
        ptx.cluster.arrive(aligned=True)
        ptx.cluster.wait(aligned=True)
        ptx.cluster.sync()
        ptx.cluster.sync(aligned=True, pred=(tid < 1024))
        mark()
        ptx.ret()

    text = k.ptx()
    assert between(text) == [
        "barrier.cluster.arrive;", "barrier.cluster.wait;",
        "barrier.cluster.arrive.aligned;", "barrier.cluster.wait.aligned;",
        "barrier.cluster.arrive;", "barrier.cluster.wait;",
        "setp.lt.u32 %p0, %r0, 1024;",
        "@%p0 barrier.cluster.arrive.aligned;", "@%p0 barrier.cluster.wait.aligned;",
    ]
    assert ".reqnctapercluster 2, 1, 1" in text
    assemble(text, "sm_90a")


def test_rank_and_mapa(assemble):
    got = {}

    @ckernel()
    def k():
        bar = smem.mbarrier(1)
        addr = reg.from_(bar, u32)
        other = reg.scalar(u32, init=1)
        mark()
        got["p"] = ptx.cluster.rank(1)
        got["q"] = ptx.cluster.rank(other)
        got["remote"] = ptx.cluster.map_shared_u32(addr, other)
        ptx.cluster.map_shared_u32(bar, 0, pred=got["p"])
        mark()
        ptx.ret()

    assert between(k.ptx()) == [
        "mov.u32 %r2, %cluster_ctarank;",
        "setp.eq.u32 %p0, %r2, 1;",
        "mov.u32 %r3, %cluster_ctarank;",
        "setp.eq.u32 %p1, %r3, %r1;",
        "mapa.shared::cluster.u32 %r4, %r0, %r1;",
        "mov.u32 %r5, mbar_0;",
        "@%p0 mapa.shared::cluster.u32 %r6, %r5, 0;",
    ]
    assert got["p"].dtype.name == "pred" and got["remote"].dtype == u32
    assemble(k.ptx(), "sm_90a")


def test_arrive_remote_is_mapa_then_arrive(assemble):
    @ckernel()
    def k():
        bar = smem.mbarrier(1)
        addr = reg.from_(bar, u32)
        other = reg.scalar(u32, init=1)
        mark()
        ptx.cluster.arrive_remote(addr, other)
        ptx.cluster.arrive_remote(addr, 0, 2)
        mark()
        ptx.ret()

    assert between(k.ptx()) == [
        "mapa.shared::cluster.u32 %r2, %r0, %r1;",
        "mbarrier.arrive.shared::cluster.b64 _, [%r2], 1;",
        "mapa.shared::cluster.u32 %r3, %r0, 0;",
        "mbarrier.arrive.shared::cluster.b64 _, [%r3], 2;",
    ]
    assemble(k.ptx(), "sm_90a")


def test_arrive_multicast_with_a_constant_mask(assemble):
    @ckernel()
    def k():
        addr = reg.from_(smem.mbarrier(1), u32)
        mark()
        ptx.cluster.arrive_multicast(addr, 0b101)
        mark()
        ptx.ret()

    assert between(k.ptx()) == [
        "mapa.shared::cluster.u32 %r1, %r0, 0;",
        "mbarrier.arrive.shared::cluster.b64 _, [%r1], 1;",
        "mapa.shared::cluster.u32 %r2, %r0, 2;",
        "mbarrier.arrive.shared::cluster.b64 _, [%r2], 1;",
    ]
    assemble(k.ptx(), "sm_90a")


def test_arrive_multicast_with_a_register_mask_loops_over_its_bits(assemble):
    @ckernel()
    def k():
        addr = reg.from_(smem.mbarrier(1), u32)
        mask = reg.scalar(u16, init=3)
        tid = reg.from_(ptx.special.tid.x(), u32)
        first = tid == 0
        mark()
        ptx.cluster.arrive_multicast(addr, mask, 2, pred=first)
        mark()
        ptx.ret()

    assert between(k.ptx()) == [
        "@!%p0 bra $L__mcast_arrive0_done;",
        "cvt.u32.u16 %r2, %rh0;",
        "$L__mcast_arrive0:",
        "setp.eq.u32 %p1, %r2, 0;",
        "@%p1 bra $L__mcast_arrive0_done;",
        "bfind.u32 %r3, %r2;",
        "mapa.shared::cluster.u32 %r4, %r0, %r3;",
        "mbarrier.arrive.shared::cluster.b64 _, [%r4], 2;",
        "shl.b32 %r5, 1, %r3;",
        "xor.b32 %r2, %r2, %r5;",
        "bra.uni $L__mcast_arrive0;",
        "$L__mcast_arrive0_done:",
    ]
    assemble(k.ptx(), "sm_90a")


def test_arrive_multicast_loop_model():
    # The loop's arithmetic in Python: every set bit is visited once.
    def visit(mask):
        out, left = [], mask
        while left:
            cta = left.bit_length() - 1  # bfind.u32: the highest set bit
            out.append(cta)
            left ^= 1 << cta
        return sorted(out)

    assert visit(0b1011) == [0, 1, 3] and visit(0) == [] and visit(0xFFFF) == list(range(16))


def test_mistakes():
    @ckernel()
    def wide_mask():
        ptx.cluster.arrive_multicast(reg.from_(smem.mbarrier(1), u32), 1 << 16)  # <- mask

    with pytest.raises(KernelError) as info:
        wide_mask.ptx()
    assert info.value.line == line_of(HERE, "# <- mask")
    assert "16-bit CTA mask" in info.value.message

    @ckernel()
    def wide_address():
        ptx.cluster.map_shared_u32(reg.scalar(u64, init=0), 1)  # <- u64

    with pytest.raises(KernelError) as info:
        wide_address.ptx()
    assert info.value.line == line_of(HERE, "# <- u64")
    assert "32-bit register" in info.value.message
