"""The native builder's per-instruction entry points (Module.inst, new_reg,
reg_class, ("n", class) operands), which bypass pybind11's dispatcher and so
check their own arguments."""
import pytest

from pyptx._trace import native

LOC = ("k.py", 3, 5)


@pytest.fixture
def module():
    m = native().Module((8, 7), "sm_90a")
    return m, m.add_function("k", True, [], [], "visible", LOC)


def test_new_operand_creates_the_destination(module):
    m, f = module
    r = m.reg_class(f, "u32", "%r")
    assert m.reg_class(f, "u32", "%r") == r  # one class per prefix
    a = m.new_reg(r)
    b = m.inst(f, "add.u32", [("n", r), ("r", a), ("i", 1)], -1, False, LOC)
    assert b == a + 1
    assert m.inst(f, "mov.u32", [("r", b), ("r", a)], -1, False, LOC) is None
    m.inst(f, "ret", [])
    text = m.ptx()
    assert ".reg .u32 %r<2>;" in text
    assert "add.u32 %r1, %r0, 1;" in text and "mov.u32 %r1, %r0;" in text


def test_argument_errors(module):
    m, f = module
    r = m.reg_class(f, "u32", "%r")
    with pytest.raises(TypeError, match="3 to 6 positional arguments"):
        m.inst(f, "ret")
    with pytest.raises(TypeError, match="keyword"):
        m.inst(f, "ret", [], loc=LOC)
    with pytest.raises(ValueError, match="one register at most"):
        m.inst(f, "add.u32", [("n", r), ("n", r), ("i", 1)])
    with pytest.raises(IndexError, match="no register class 7"):
        m.new_reg(7)
    with pytest.raises(IndexError, match="no register 99"):
        m.inst(f, "mov.u32", [("r", 99), ("i", 1)])
    with pytest.raises(ValueError, match="already holds another type"):
        m.reg_class(f, "f32", "%r")
    with pytest.raises(TypeError, match="Module"):
        type(m).inst(object(), f, "ret", [])
    # A guard that is no predicate (a libFuzzer find: the verifier trusted it).
    a = m.new_reg(r)
    with pytest.raises(TypeError, match=r"guard must be a predicate register; register \d+ is !pyptx.reg<u32>"):
        m.inst(f, "mov.u32", [("r", a), ("i", 1)], a, False, LOC)


def test_verify_reports_every_bad_instruction(module):
    m, f = module
    r = m.reg_class(f, "u32", "%r")
    a = m.new_reg(r)
    m.inst(f, "add.f32", [("n", r), ("r", a), ("r", a)], -1, False, ("k.py", 7, 1))
    m.inst(f, "mov.u32", [("r", a), ("i", 1)], -1, False, ("k.py", 8, 1))
    m.inst(f, "sub.f64", [("r", a), ("r", a), ("r", a)], -1, False, ("k.py", 9, 1))
    m.inst(f, "ret", [])
    with pytest.raises(native().PTXError) as info:
        m.verify()
    errors = [d for d in info.value.diagnostics if d[0] == "error"]
    assert [(file, line) for _, file, line, _, _ in errors] == [("k.py", 7), ("k.py", 9)]
    assert "add.f32" in errors[0][4] and "sub.f64" in errors[1][4]


def test_refused_raw_text_keeps_the_special_registers_it_looked_up(module):
    # A builder-fuzzer find: raw() erased the special register the refused
    # text had looked up, and the next use of it read a freed op (a crash).
    m, f = module
    with pytest.raises(native().PTXError):
        m.raw(f, ".reg .u32 %a;\nmov.u32 %a, %tid.x;\nadd.u32 %a, %a, %a, %a;", LOC)
    m.raw(f, ".reg .u32 %q;\nmov.u32 %q, %tid.x;", LOC)
    m.inst(f, "ret", [])
    assert "mov.u32 %q, %tid.x;" in m.ptx()
