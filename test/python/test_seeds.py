"""The seeds' examples, as written in the docs."""
import re

from examples.seeds import build_rms_norm, tiny  # noqa: F401


def body(text):
    """The instruction and label lines of a PTX text (no declarations), stripped."""
    start = text.index("{")
    return [l.strip() for l in text[start:].splitlines()
            if l.strip() and not l.strip().startswith((".", "{", "}"))]


def test_tiny_ptx():
    text = tiny.ptx()
    assert text.startswith(".version 8.5\n.target sm_90a\n.address_size 64\n")
    assert ".visible .entry tiny()" in text
    assert body(text) == [
        "mov.u32 %r0, %tid.x;",
        "add.u32 %r1, %r0, 1;",
        "mov.u32 %r0, %r1;",
        "ret;",
    ]


def test_tiny_assembles(assemble):
    assemble(tiny.ptx())


def test_rms_norm_ptxas_accepts(assemble):
    text = build_rms_norm(16, 512).ptx()
    assemble(text, "sm_90a")
    # Parameters in order, named after the Python parameters.
    assert re.search(r"\.entry rms_norm\(\s*\.param \.u64 X,\s*\.param \.u64 W,"
                     r"\s*\.param \.u64 Y\s*\)", text), text
    lines = body(text)
    assert sum(l.startswith("ld.param.u64") for l in lines) == 3
    assert sum(l.startswith("cvta.to.global.u64") for l in lines) == 3
    assert sum(l.startswith("shfl.sync.bfly.b32") for l in lines) == 5
    assert sum(l.startswith("ld.global.f32") for l in lines) == 2 * 512 // 32
    assert sum(l.startswith("st.global.f32") for l in lines) == 512 // 32
    assert any(l.startswith("rsqrt.approx.f32") for l in lines)
    assert "mov.f32 %f0, 0f00000000;" in lines  # sum_sq init=0.0
    assert lines[-1] == "ret;"


def test_rms_norm_launch_config():
    m = build_rms_norm(4, 64).module()
    assert m.grid == (4, 1, 1) and m.block == (32, 1, 1)
    assert "pyptx.func" in m.mlir and "examples/seeds.py" in m.mlir
