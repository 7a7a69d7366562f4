"""ptx.mbarrier (pyptx.hw.mbarrier): each helper's instruction, the wait loop,
barrier arrays and their slots, PipelineState, the transaction-byte ledger,
and the mistakes caught at the author's line."""
import functools
import os

import pytest

from conftest import between, error_in, mark
from pyptx import Tile, kernel, ptx, reg, smem
from pyptx._trace import get_ctx
from pyptx.hw.mbarrier import (BarrierArray, PipelineState, note_complete_tx, pipeline)
from pyptx.types import b64, f32, s32, u32, u64

HERE = os.path.abspath(__file__)
error_at = functools.partial(error_in, HERE)


def tkernel(*specs, arch="sm_90a", version=None):
    return kernel(in_specs=specs, out_specs=(), grid=(1, 1, 1), block=(128, 1, 1),
                  arch=arch, version=version)








# -- one instruction per helper ----------------------------------------------------------

def test_each_helper_emits_its_instruction(assemble):
    results = {}

    @tkernel()
    def k():
        bar = smem.mbarrier(2)
        phase = reg.scalar(u32, init=1)
        tx = reg.scalar(u32, init=64)
        mark()
        ptx.mbarrier.init(bar[0], 1)
        ptx.mbarrier.init(bar[1], 128)
        results["state"] = ptx.mbarrier.arrive(bar[1])
        results["tx_state"] = ptx.mbarrier.arrive_expect_tx(bar[0], 4096)
        ptx.mbarrier.arrive_expect_tx(bar[0], tx)
        ptx.mbarrier.expect_tx(bar[1], 256)
        results["p"] = ptx.mbarrier.try_wait(bar[0], phase)
        ptx.mbarrier.try_wait(bar[1], 0)
        ptx.mbarrier.try_wait(bar[1], results["state"], parity=False)
        ptx.mbarrier.inval(bar[1])
        mark()
        ptx.ret()

    text = k.ptx()
    assert between(text) == [
        "mbarrier.init.shared::cta.b64 [mbar_0], 1;",
        "mbarrier.init.shared::cta.b64 [mbar_0+8], 128;",
        "mbarrier.arrive.shared::cta.b64 %bd0, [mbar_0+8];",
        "mbarrier.arrive.expect_tx.shared::cta.b64 %bd1, [mbar_0], 4096;",
        "mbarrier.arrive.expect_tx.shared::cta.b64 %bd2, [mbar_0], %r1;",
        "mbarrier.expect_tx.shared::cta.b64 [mbar_0+8], 256;",
        "mbarrier.try_wait.parity.shared::cta.b64 %p0, [mbar_0], %r0;",
        "mbarrier.try_wait.parity.shared::cta.b64 %p1, [mbar_0+8], 0;",
        "mbarrier.try_wait.shared::cta.b64 %p2, [mbar_0+8], %bd0;",
        "mbarrier.inval.shared::cta.b64 [mbar_0+8];",
    ]
    assert results["state"].dtype == b64 and results["p"].dtype.name == "pred"
    assemble(text, "sm_90a")


def test_helpers_take_registers_symbols_and_guards(assemble):
    @tkernel()
    def k():
        bar = smem.mbarrier(1)
        addr = reg.from_(bar, u32)
        tid = reg.from_(ptx.special.tid.x(), u32)
        first = tid == 0
        mark()
        ptx.mbarrier.init(ptx.addr(addr), 1, pred=first)
        ptx.mbarrier.arrive(addr, pred=~first)
        ptx.mbarrier.init(bar, 1)
        mark()
        ptx.ret()

    assert between(k.ptx()) == [
        "@%p0 mbarrier.init.shared::cta.b64 [%r0], 1;",
        "@!%p0 mbarrier.arrive.shared::cta.b64 %bd0, [%r0];",
        "mbarrier.init.shared::cta.b64 [mbar_0], 1;",
    ]
    assemble(k.ptx(), "sm_90a")


def test_wait_is_a_labelled_spin_loop_of_two_instructions(assemble):
    @tkernel()
    def k():
        bar = smem.mbarrier(1)
        phase = reg.scalar(u32, init=0)
        tid = reg.from_(ptx.special.tid.x(), u32)
        first = tid == 0
        mark()
        ptx.mbarrier.wait(bar[0], phase)
        ptx.mbarrier.wait(bar[0], 1, pred=first)
        mark()
        ptx.ret()

    text = k.ptx()
    assert between(text) == [
        "$L__mbar_wait0:",
        "mbarrier.try_wait.parity.shared::cta.b64 %p1, [mbar_0], %r0;",
        "@!%p1 bra $L__mbar_wait0;",
        "@!%p0 bra $L__mbar_wait1_done;",
        "$L__mbar_wait1:",
        "mbarrier.try_wait.parity.shared::cta.b64 %p2, [mbar_0], 1;",
        "@!%p2 bra $L__mbar_wait1;",
        "$L__mbar_wait1_done:",
    ]
    assemble(text, "sm_90a")


def test_raw_spellings_continue_from_the_helpers():
    @tkernel()
    def k():
        bar = smem.mbarrier(1)
        p = reg.pred()
        mark()
        ptx.mbarrier.try_wait.parity.shared__cta.b64(p, ptx.addr(bar), 0)
        ptx.mbarrier.arrive.release.cluster.shared__cta.b64(ptx.sink, ptx.addr(bar))
        mark()
        ptx.ret()

    assert between(k.ptx()) == [
        "mbarrier.try_wait.parity.shared::cta.b64 %p0, [mbar_0], 0;",
        "mbarrier.arrive.release.cluster.shared::cta.b64 _, [mbar_0];",
    ]


# -- barrier arrays ------------------------------------------------------------------------

def test_barrier_array_slots(assemble):
    @tkernel()
    def k():
        bar = smem.mbarrier(4)
        base = reg.from_(bar, u32)
        stage = reg.scalar(u32, init=2)
        phase = reg.scalar(u32, init=0)
        full = ptx.mbarrier.array(base, 8, 3)
        assert isinstance(full, BarrierArray) and len(full) == 3
        assert full[2].byte_offset == 24
        mark()
        full.init_all(2)
        full[1].arrive()
        full[1].arrive_expect_tx(512)
        full[0].wait(phase)
        slot = full.at(stage)
        slot.wait(phase)
        slot.arrive()
        assert slot.addr_reg() is not None
        mark()
        ptx.ret()

    assert between(k.ptx()) == [
        "mbarrier.init.shared::cta.b64 [%r0+8], 2;",
        "mbarrier.init.shared::cta.b64 [%r0+16], 2;",
        "mbarrier.init.shared::cta.b64 [%r0+24], 2;",
        "mbarrier.arrive.shared::cta.b64 %bd0, [%r0+16];",
        "mbarrier.arrive.expect_tx.shared::cta.b64 %bd1, [%r0+16], 512;",
        "$L__mbar_wait0:",
        "mbarrier.try_wait.parity.shared::cta.b64 %p0, [%r0+8], %r2;",
        "@!%p0 bra $L__mbar_wait0;",
        "mad.lo.u32 %r3, %r1, 8, %r0;",  # the stage's address, once, before the loop
        "$L__mbar_wait1:",
        "mbarrier.try_wait.parity.shared::cta.b64 %p1, [%r3+8], %r2;",
        "@!%p1 bra $L__mbar_wait1;",
        "mbarrier.arrive.shared::cta.b64 %bd2, [%r3+8];",
        "add.u32 %r4, %r3, 8;",
    ]
    assemble(k.ptx(), "sm_90a")


def test_barrier_array_remote_arrives(assemble):
    @tkernel()
    def k():
        bar = smem.mbarrier(2)
        cta = reg.scalar(u32, init=1)
        mark()
        ptx.mbarrier.array(bar, 0, 2).arrive_remote_all(cta, pred=(cta < 2))
        mark()
        ptx.ret()

    assert between(k.ptx()) == [
        "setp.lt.u32 %p0, %r0, 2;",
        "mov.u32 %r1, mbar_0;",
        "@%p0 mapa.shared::cluster.u32 %r2, %r1, %r0;",
        "@%p0 mbarrier.arrive.shared::cluster.b64 _, [%r2], 1;",
        "mov.u32 %r3, mbar_0;",
        "add.u32 %r3, %r3, 8;",
        "@%p0 mapa.shared::cluster.u32 %r4, %r3, %r0;",
        "@%p0 mbarrier.arrive.shared::cluster.b64 _, [%r4], 1;",
    ]
    assemble(k.ptx(), "sm_90a")


def test_slots_are_barriers_for_the_tma():
    @tkernel(Tile(64, 64, f32))
    def k(X):
        desc = X.tma_desc(box=(64, 64))
        buf = smem.alloc(f32, (64, 64))
        slot = ptx.mbarrier.array(smem.mbarrier(2), 0, 2)[1]
        mark()
        ptx.cp.async_.bulk.tensor_2d(dst=buf, src=desc, coord=(0, 0), mbar=slot)
        mark()
        ptx.ret()

    assert between(k.ptx()) == [
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes "
        "[smem_0], [%rd1, {0, 0}], [mbar_0+8];"]


# -- PipelineState ---------------------------------------------------------------------------

def test_pipeline_state_advance_is_four_instructions(assemble):
    seen = {}

    @tkernel()
    def k():
        cursor = reg.scalar(u32, init=0)
        phase = reg.scalar(u32, init=0)
        mark()
        ring = pipeline(3, cursor=cursor, phase=phase)
        stage, ph = ring.advance()
        mark()
        seen.update(ring=ring, stage=stage, ph=ph, cursor=cursor, phase=phase)
        fresh = PipelineState(2)
        seen["fresh"] = fresh
        ptx.ret()

    text = k.ptx()
    assert between(text) == [
        "setp.eq.u32 %p0, %r0, 3;",
        "selp.u32 %r2, 0, %r0, %p0;",
        "@%p0 xor.b32 %r1, %r1, 1;",
        "add.u32 %r0, %r2, 1;",
    ]
    assert seen["ph"] is seen["phase"] and seen["ring"].cursor is seen["cursor"]
    assert seen["ring"].n_stages == 3 and seen["stage"].dtype == u32
    assert "mov.u32 %r3, 0;" in text and "mov.u32 %r4, 0;" in text  # fresh registers
    assemble(text, "sm_90a")


def test_pipeline_state_sequence_matches_python_model():
    # The emitted arithmetic, run in Python: stage cycles 0..n-1, phase flips on wrap.
    cursor, phase, out = 0, 0, []
    for _ in range(7):
        wrap = cursor == 3
        stage = 0 if wrap else cursor
        phase ^= int(wrap)
        cursor = stage + 1
        out.append((stage, phase))
    assert out == [(0, 0), (1, 0), (2, 0), (0, 1), (1, 1), (2, 1), (0, 0)]


# -- the transaction-byte ledger ------------------------------------------------------------

def test_ledger_too_few_bytes_at_the_wait():
    @tkernel()
    def k():
        bar = smem.mbarrier(1)
        ptx.mbarrier.arrive_expect_tx(bar[0], 1024)  # <- few
        note_complete_tx(bar[0], 1024, "copy A")
        note_complete_tx(bar[0], 512, "copy B")
        ptx.mbarrier.wait(bar[0], 0)

    message = error_at(k, "# <- few")
    assert "mbarrier mbar_0[0]" in message
    assert "announce 1024" in message and "bring 1536" in message
    assert "copy A = 1024 bytes" in message and "copy B = 512 bytes" in message
    assert "too few" in message and "(announce 1536" in message


def test_ledger_too_many_bytes_at_kernel_end():
    @tkernel()
    def k():
        bar = smem.mbarrier(1)
        ptx.mbarrier.expect_tx(bar[0], 4096)  # <- many
        note_complete_tx(bar[0], 2048, "copy A")
        # The kernel's end checks what is still open (TraceContext.finish).
        get_ctx().units["mbarrier"].finish()

    message = error_at(k, "# <- many")
    assert "announce 4096" in message and "bring 2048" in message
    assert "never completes" in message


def test_ledger_is_checked_when_the_trace_finishes():
    # Needs TraceContext.finish() to call finish() on each ctx.units entry.
    @tkernel()
    def k():
        bar = smem.mbarrier(1)
        ptx.mbarrier.arrive_expect_tx(bar[0], 512)  # <- end
        note_complete_tx(bar[0], 256, "copy A")
        ptx.ret()

    message = error_at(k, "# <- end")
    assert "announce 512" in message and "bring 256" in message


def test_ledger_accepts_balanced_phases_and_skips_what_it_cannot_know(assemble):
    @tkernel()
    def k():
        bar = smem.mbarrier(3)
        tx = reg.scalar(u32, init=64)
        # Copies before the announcement, two phases back to back.
        note_complete_tx(bar[0], 512)
        ptx.mbarrier.arrive_expect_tx(bar[0], 512)
        ptx.mbarrier.arrive_expect_tx(bar[0], 256)
        note_complete_tx(bar[0], 256)
        ptx.mbarrier.wait(bar[0], 0)
        # Unknown sizes turn the check off for the phase.
        ptx.mbarrier.arrive_expect_tx(bar[1], tx)
        note_complete_tx(bar[1], 128)
        ptx.mbarrier.arrive_expect_tx(bar[2], 128)
        note_complete_tx(bar[2], None)
        ptx.mbarrier.wait(bar[1], 0)
        ptx.mbarrier.wait(bar[2], 0)
        # A new phase after the wait is checked on its own.
        ptx.mbarrier.arrive_expect_tx(bar[0], 64)
        note_complete_tx(bar[0], 64)
        get_ctx().units["mbarrier"].finish()
        ptx.ret()

    assemble(k.ptx(), "sm_90a")


def test_ledger_closes_a_balanced_phase_when_armed_again():
    @tkernel()
    def k():
        bar = smem.mbarrier(1)
        ptx.mbarrier.arrive_expect_tx(bar[0], 256)
        note_complete_tx(bar[0], 256)
        ptx.mbarrier.arrive_expect_tx(bar[0], 128)  # <- second
        note_complete_tx(bar[0], 64)
        ptx.mbarrier.wait(bar[0], 0)

    message = error_at(k, "# <- second")
    assert "announce 128" in message and "bring 64" in message


# -- mistakes ----------------------------------------------------------------------------------

def test_mistakes_are_reported_at_the_call():
    @tkernel()
    def zero():
        bar = smem.mbarrier(1)
        ptx.mbarrier.init(bar[0], 0)  # <- count

    assert "count must be 1 to" in error_at(zero, "# <- count")

    @tkernel()
    def huge():
        bar = smem.mbarrier(1)
        ptx.mbarrier.arrive_expect_tx(bar[0], 1 << 20)  # <- tx

    assert "tx_count must be 0 to 1048575" in error_at(huge, "# <- tx")

    @tkernel()
    def parity():
        bar = smem.mbarrier(1)
        ptx.mbarrier.wait(bar[0], 2)  # <- parity

    assert "phase & 1" in error_at(parity, "# <- parity")

    @tkernel()
    def int_stage():
        arr = ptx.mbarrier.array(smem.mbarrier(2), 0, 2)
        arr.at(1)  # <- at

    assert "for a Python int use array[stage]" in error_at(int_stage, "# <- at")

    @tkernel()
    def stages():
        PipelineState(0)  # <- stages

    assert "positive int" in error_at(stages, "# <- stages")

    @tkernel()
    def wide_cursor():
        PipelineState(2, cursor=reg.scalar(u64, init=0))  # <- cursor

    assert "32-bit integer register" in error_at(wide_cursor, "# <- cursor")

    @tkernel()
    def out_of_range():
        ptx.mbarrier.array(smem.mbarrier(2), 0, 2)[2]

    with pytest.raises(IndexError):
        out_of_range.ptx()


def test_signed_stage_registers_work(assemble):
    @tkernel()
    def k():
        arr = ptx.mbarrier.array(reg.from_(smem.mbarrier(2), u32), 0, 2)
        stage = reg.scalar(s32, init=1)
        arr.at(stage).arrive()
        ptx.ret()

    assemble(k.ptx(), "sm_90a")
