"""Structured control flow: labels and predicated branches, nesting."""
import pytest

from pyptx import KernelError, kernel, ptx, reg
from pyptx.types import u32
from test_seeds import body


def test_if_else_nested_inside_loop_and_if(assemble):
    @kernel(arch="sm_90a")
    def k():
        tid = reg.from_(ptx.special.tid.x(), u32)
        acc = reg.scalar(u32, init=0)
        for i in ptx.range_(0, 4):
            with ptx.if_(tid < 16):
                with ptx.if_(~(tid == 3)):
                    acc += i
                with ptx.else_():
                    acc -= 1
            with ptx.else_():
                acc += 2
        ptx.ret()

    text = k.ptx()
    assemble(text)
    assert body(text) == [
        "mov.u32 %r0, %tid.x;",
        "mov.u32 %r1, 0;",
        "mov.u32 %r2, 0;",
        "$L__range0:",
        "setp.ge.u32 %p0, %r2, 4;",
        "@%p0 bra $L__range0_end;",
        "setp.lt.u32 %p1, %r0, 16;",
        "@!%p1 bra $L__if0_false;",
        "setp.eq.u32 %p2, %r0, 3;",
        "@%p2 bra $L__if1_false;",          # ~p: skip the body where p holds
        "add.u32 %r1, %r1, %r2;",
        "bra.uni $L__if1_end;",
        "$L__if1_false:",
        "sub.u32 %r1, %r1, 1;",
        "$L__if1_end:",
        "bra.uni $L__if0_end;",
        "$L__if0_false:",
        "add.u32 %r1, %r1, 2;",
        "$L__if0_end:",
        "add.u32 %r2, %r2, 1;",
        "bra.uni $L__range0;",
        "$L__range0_end:",
        "ret;",
    ]


def test_if_without_else_places_join_label_before_next_statement():
    @kernel(arch="sm_90a")
    def k():
        tid = reg.from_(ptx.special.tid.x(), u32)
        with ptx.if_(tid == 0):
            with ptx.if_(tid != 1):
                ptx.inst.bar.sync(0)
        ptx.ret()

    lines = body(k.ptx())
    assert lines[-4:] == ["bar.sync 0;", "$L__if1_false:", "$L__if0_false:", "ret;"]


def test_loop_break_continue(assemble):
    @kernel(arch="sm_90a")
    def spin():
        tid = reg.from_(ptx.special.tid.x(), u32)
        with ptx.loop() as L:
            tid += 1
            L.continue_(pred=tid < 100)
            L.break_()
        ptx.ret()

    text = spin.ptx()
    assemble(text)
    lines = body(text)
    i = lines.index("$L__loop0:")
    assert lines[i:] == [
        "$L__loop0:",
        "add.u32 %r0, %r0, 1;",
        "setp.lt.u32 %p0, %r0, 100;",
        "@%p0 bra $L__loop0;",
        "bra $L__loop0_end;",
        "bra.uni $L__loop0;",
        "$L__loop0_end:",
        "ret;",
    ]


def test_scope_braces_nest_with_if(assemble):
    @kernel(arch="sm_90a")
    def k():
        tid = reg.from_(ptx.special.tid.x(), u32)
        with ptx.scope():
            with ptx.if_(tid == 0):
                tmp = reg.scalar(u32, init=7)
        ptx.ret()

    text = k.ptx()
    assemble(text)
    inner = text[text.index("{", text.index("{") + 1):]
    # The if's join label is emitted inside the scope, before its `}`.
    assert inner.index("$L__if0_false:") < inner.index("}")
    assert "mov.u32" in inner


def test_range_counts_down_and_takes_register_bounds(assemble):
    @kernel(arch="sm_90a")
    def k():
        n = reg.from_(ptx.special.ntid.x(), u32)
        for i in ptx.range_(n, 0, -2):
            ptx.inst.bar.sync(0)
        ptx.ret()

    text = k.ptx()
    assemble(text)
    lines = body(text)
    assert "setp.le.u32 %p0, %r1, 0;" in lines
    assert "add.u32 %r1, %r1, -2;" in lines


def test_block_left_open_by_exception_does_not_corrupt_next_trace():
    @kernel(arch="sm_90a")
    def broken():
        with ptx.if_(reg.from_(ptx.special.tid.x(), u32) == 0):
            raise ValueError("boom")

    with pytest.raises(ValueError, match="boom"):
        broken.ptx()

    @kernel(arch="sm_90a")
    def fine():
        ptx.ret()

    assert body(fine.ptx()) == ["ret;"]


def test_bra_and_label():
    @kernel(arch="sm_90a")
    def k():
        p = reg.pred(True)
        ptx.bra("done", pred=~p)
        ptx.inst.bar.sync(0)
        ptx.label("done")
        ptx.ret()

    assert body(k.ptx()) == ["mov.pred %p0, 1;", "@!%p0 bra done;", "bar.sync 0;",
                             "done:", "ret;"]
