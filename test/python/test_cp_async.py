"""Ampere cp.async helpers (pyptx.hw.cp_async): ptx.cp.async_.{ca, cg,
commit_group, wait_group, wait_all} -- the exact PTX line each emits, ptxas
accepting them for sm_80 and sm_90a, and each check's message at the
author's line."""
import inspect
import os

import pytest

from conftest import line_of
from pyptx import KernelError, kernel, ptx, reg, smem
from pyptx.hw import cp_async
from pyptx.types import b8, u32, u64

HERE = os.path.abspath(__file__)


def body(text):
    lines = [line.strip() for line in text.splitlines()]
    return [line for line in lines if line and not line.startswith((".", "{", "}"))
            and not line.endswith(")") and not line.startswith("(")]


def trace(fn, arch="sm_80"):
    return kernel(arch=arch, block=(32, 1, 1))(fn).ptx()


def error_of(fn):
    with pytest.raises(KernelError) as info:
        trace(fn)
    return info.value


def test_members_are_the_helpers():
    assert set(cp_async.HELPERS) == {"ca", "cg", "commit_group", "wait_group", "wait_all"}
    for name, fn in cp_async.HELPERS.items():
        assert getattr(ptx.cp.async_, name).__wrapped__ is fn
    assert ptx.cp.async_.bulk is not None  # the bulk (TMA) half stays beside them


def test_signatures_match_the_original():
    def params(name):
        return [(p.name, p.kind.name, p.default)
                for p in inspect.signature(getattr(ptx.cp.async_, name)).parameters.values()]

    pos, kw, empty = "POSITIONAL_OR_KEYWORD", "KEYWORD_ONLY", inspect.Parameter.empty
    for name in ("ca", "cg"):
        assert params(name) == [("smem_dst", pos, empty), ("global_src", pos, empty),
                                ("byte_count", pos, empty), ("pred", kw, None)]
    assert params("commit_group") == [("pred", kw, None)]
    assert params("wait_group") == [("n", pos, empty), ("pred", kw, None)]
    assert params("wait_all") == [("pred", kw, None)]


def test_cp_async_lines(assemble):
    def k():
        buf = smem.alloc(b8, 256)
        s = reg.from_(buf, u32)
        g = reg.scalar(u64)
        ptx.inst.ld.param.u64(g, ptx.addr("src"))
        p = s < 64
        ptx.cp.async_.ca(s, g, 4)
        ptx.cp.async_.ca(ptx.addr(s, 8), ptx.addr(g, 8), 8)
        ptx.cp.async_.ca(buf, ptx.addr(g, 16), 16, pred=p)
        ptx.cp.async_.cg(ptx.addr(buf, 32), ptx.addr(g, 32), 16)
        ptx.cp.async_.cg(smem_dst=ptx.addr(s, 48), global_src=g, byte_count=16, pred=~p)
        ptx.cp.async_.commit_group()
        ptx.cp.async_.wait_group(1)
        ptx.cp.async_.wait_group(0, pred=p)
        ptx.cp.async_.wait_all()
        ptx.ret()

    for arch in ("sm_80", "sm_90a"):
        text = kernel(arch=arch, raw_params=[("src", "u64")])(k).ptx()
        assert body(text)[3:] == [
            "cp.async.ca.shared.global [%r0], [%rd0], 4;",
            "cp.async.ca.shared.global [%r0+8], [%rd0+8], 8;",
            "@%p0 cp.async.ca.shared.global [smem_0], [%rd0+16], 16;",
            "cp.async.cg.shared.global [smem_0+32], [%rd0+32], 16;",
            "@!%p0 cp.async.cg.shared.global [%r0+48], [%rd0], 16;",
            "cp.async.commit_group;",
            "cp.async.wait_group 1;",
            "@%p0 cp.async.wait_group 0;",
            "cp.async.wait_all;",
            "ret;"]
        assemble(text, arch)


def test_raw_spelling_still_emits():
    def k():
        s, g = reg.scalar(u32), reg.scalar(u64)
        ptx.cp.async_.cg.shared.global_(ptx.addr(s), ptx.addr(g), 16)  # a helper is a prefix
        ptx.ret()

    assert body(trace(k))[0] == "cp.async.cg.shared.global [%r0], [%rd0], 16;"


def copy_error(op, nbytes):
    def k():
        s, g = reg.scalar(u32), reg.scalar(u64)
        getattr(ptx.cp.async_, op)(s, g, nbytes)  # <- cp-call
    return error_of(k)


def test_cg_copies_16_bytes_only():
    err = copy_error("cg", 8)
    assert err.line == line_of(HERE, "# <- cp-call") and os.path.samefile(err.file, HERE)
    assert "cp.async.cg copies 16 bytes only (cp-size 16), not 8" in err.message
    assert "ptx.cp.async_.ca for 4- or 8-byte copies" in err.message


def test_ca_copies_4_8_or_16_bytes():
    err = copy_error("ca", 12)
    assert err.line == line_of(HERE, "# <- cp-call")
    assert "cp.async.ca copies 4, 8 or 16 bytes (cp-size), not 12" in err.message


def test_byte_count_must_be_an_immediate():
    def k():
        s, g = reg.scalar(u32), reg.scalar(u64)
        ptx.cp.async_.ca(s, g, reg.scalar(u32))  # <- cp-reg
    err = error_of(k)
    assert err.line == line_of(HERE, "# <- cp-reg")
    assert "byte_count must be a Python int" in err.message


@pytest.mark.parametrize("n", [-1, 1.0, "x"])
def test_wait_group_takes_a_count(n):
    def k():
        ptx.cp.async_.wait_group(n)  # <- wait-bad
    err = error_of(k)
    assert err.line == line_of(HERE, "# <- wait-bad")
    assert "cp.async.wait_group takes a non-negative int" in err.message


def test_cp_async_needs_sm80():
    @kernel(arch="sm_75")
    def old():
        s, g = reg.scalar(u32), reg.scalar(u64)
        ptx.cp.async_.cg(s, g, 16)  # <- cp-sm75
        ptx.ret()

    with pytest.raises(KernelError) as info:
        old.ptx()
    assert info.value.line == line_of(HERE, "# <- cp-sm75")
    assert "sm_80" in info.value.message
