"""Warp reductions as an author uses them: ptx.warp.reduce_* emit the
instruction counts their docstrings state, ptx.shfl emits one shfl.sync, and
ptx.warp.argmax/argmin reduce a (value, index) pair with ties to the lower
index -- checked against a lane-by-lane model of the emitted PTX."""
import re

import pytest

from pyptx import kernel, ptx, reg
from pyptx.types import f32, s32, u32


def body(text):
    inner = text.split("{", 1)[1].rsplit("}", 1)[0]
    return [line.strip() for line in inner.splitlines()
            if line.strip() and not line.strip().startswith(".")]


def between(text):
    """The instructions between the two membar.cta markers."""
    lines = body(text)
    first = lines.index("membar.cta;")
    second = lines.index("membar.cta;", first + 1)
    return lines[first + 1:second]


def traced(fn):
    return kernel(arch="sm_90a")(fn).ptx()


@pytest.mark.parametrize("width,steps", [(32, 5), (8, 3), (2, 1)])
def test_reduce_counts_match_the_docstring(width, steps):
    def k():
        v = reg.scalar(f32, init=1.0)
        ptx.inst.membar.cta()
        ptx.warp.reduce_sum(v, width=width)
        ptx.inst.membar.cta()
        ptx.ret()

    lines = between(traced(k))
    assert len(lines) == 2 * steps
    assert [l.split()[0] for l in lines[:2]] == ["shfl.sync.bfly.b32", "add.f32"]
    offsets = [int(l.split(", ")[2]) for l in lines if l.startswith("shfl")]
    assert offsets == [width >> (i + 1) for i in range(steps)]


def test_shfl_is_one_instruction():
    def k():
        v, w = reg.scalar(u32, init=7), reg.scalar(u32)
        p = reg.pred()
        ptx.inst.membar.cta()
        ptx.shfl("down", w, v, 4)
        ptx.shfl("idx", w, v, 0, pred_out=p)
        ptx.shfl("up", w, v, 1)
        ptx.inst.membar.cta()
        ptx.ret()

    lines = between(traced(k))
    assert len(lines) == 3
    assert re.fullmatch(r"shfl\.sync\.down\.b32 %r\d+, %r\d+, 4, 31, -1;", lines[0])
    assert re.fullmatch(r"shfl\.sync\.idx\.b32 %r\d+\|%p\d+, %r\d+, 0, 31, -1;", lines[1])
    assert re.fullmatch(r"shfl\.sync\.up\.b32 %r\d+, %r\d+, 1, 0, -1;", lines[2])


def simulate(lines, start):
    """Runs the emitted shfl/setp/selp lines on 32 lanes; `start` gives each
    lane's registers by name. Returns the lanes' registers."""
    lanes = [dict(r) for r in start]
    for line in lines:
        op, rest = line.split(None, 1)
        args = [a.strip() for a in rest.rstrip(";").split(",")]
        before = [dict(r) for r in lanes]
        for lane, r in enumerate(before):
            def get(a):
                return r[a] if a.startswith("%") else int(a)
            if op.startswith("shfl.sync.bfly"):
                lanes[lane][args[0]] = before[lane ^ int(args[2])][args[1]]
            elif op.startswith("setp"):
                parts = op.split(".")
                a, b = get(args[1]), get(args[2])
                result = {"lt": a < b, "gt": a > b, "eq": a == b}[parts[1]]
                if parts[2] == "and":
                    result = result and get(args[3])
                elif parts[2] == "or":
                    result = result or get(args[3])
                lanes[lane][args[0]] = result
            elif op.startswith("selp"):
                lanes[lane][args[0]] = get(args[1]) if get(args[3]) else get(args[2])
            else:
                raise AssertionError(f"unexpected instruction {line}")
    return lanes


@pytest.mark.parametrize("which", ["argmax", "argmin"])
def test_argmax_argmin_ties_to_the_lower_index(which):
    def k():
        v = reg.scalar(s32, init=0)
        i = reg.scalar(u32, init=0)
        ptx.inst.membar.cta()
        getattr(ptx.warp, which)(v, i)
        ptx.inst.membar.cta()
        ptx.ret()

    lines = between(traced(k))
    assert len(lines) == 7 * 5                      # the docstring's count
    v_name, i_name = lines[0].split(", ")[1], lines[1].split(", ")[1]
    values = [(lane * 7) % 5 for lane in range(32)]   # 0..4, each value repeated
    indices = [(31 - lane * 11) % 32 for lane in range(32)]  # a permutation of 0..31
    lanes = simulate(lines, [{v_name: v, i_name: i} for v, i in zip(values, indices)])
    best = max(values) if which == "argmax" else min(values)
    want = min(ix for v, ix in zip(values, indices) if v == best)
    assert all(r[v_name] == best and r[i_name] == want for r in lanes)
    assert want != indices[values.index(best)]  # the lowest index is not the first lane's


def test_reductions_reject_wrong_registers_at_the_callers_line():
    def k():
        ptx.warp.argmax(reg.scalar(f32), reg.scalar(f32))
        ptx.ret()

    with pytest.raises(TypeError, match="index of argmax/argmin is an integer"):
        traced(k)


def test_reductions_assemble(assemble):
    def k():
        v, w = reg.scalar(f32, init=0.5), reg.scalar(s32, init=3)
        i = reg.scalar(u32, init=1)
        ptx.warp.argmax(v, i)
        ptx.warp.argmin(w, i, width=4)
        ptx.warp.reduce_max(w, width=16)
        ptx.shfl("bfly", w, w, 2)
        ptx.ret()

    assemble(traced(k), "sm_90a")
