"""ISA facts are said once, in the TableGen description: the Python layer's
checks agree with the C++ verifier (both read the description, through the
generated pyptx._isa_table and ISATables.inc), and no hand-written table of
these facts comes back (in the package or in lib/)."""
import ast
import itertools
import os
import re

import pytest

from pyptx import KernelError, _isa_facts, kernel, reg
from pyptx import types as T
from pyptx._arch import min_version
from pyptx._inst import emit
from pyptx._trace import isa_table, native
from pyptx.hw import tcgen05, warpgroup
from pyptx.hw.tcgen05_desc import InstrDesc

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PACKAGE = os.path.join(ROOT, "python", "pyptx")


def test_the_generated_module_holds_only_what_the_python_layer_reads():
    tables = sorted(n for n in vars(isa_table()) if n.isupper() and n[0] != "_")
    assert tables == ["SHARED_PER_CTA", "SPECIAL_REGISTERS", "TARGETS", "TCGEN05_CP_SIZES",
                      "TCGEN05_LD_ST_REGISTERS", "TCGEN05_MMA_SHAPES", "WGMMA"]
    readers = {name: [] for name in tables}
    for path in _package_files():
        text = open(path).read()
        for name in tables:
            if f"_table().{name}" in text:
                readers[name].append(os.path.basename(path))
    assert all(readers.values()), readers


# -- special registers -------------------------------------------------------

def _sreg_names():
    for base, (bits, components) in isa_table().SPECIAL_REGISTERS.items():
        for c in components or [""]:
            yield (f"{base}.{c}" if c else base), bits


def test_each_special_register_gets_its_width_and_the_verifier_takes_a_mov_of_it():
    names = list(_sreg_names())
    assert len(names) > 80

    @kernel(arch="sm_100a", version=(9, 0))
    def k():
        for name, bits in names:
            r = reg.special(name)
            assert r.dtype == T.pred if bits == 1 else r.dtype.bits == bits, name
            emit(f"mov.{r.dtype}", reg.scalar(r.dtype), r)

    text = k.ptx()  # the C++ verifier: a mov moves exactly the width
    assert "mov.pred" in text and "%is_explicit_cluster" in text
    assert "mov.u64" in text and "%pm7_64" in text


@pytest.mark.parametrize("name", ["%tid", "%tid.q", "%laneid.x", "%envreg32", "%pm8",
                                  "%pm0_32", "%reserved_smem_offset_2", "%nosuch"])
def test_names_outside_the_description_are_refused_by_both_layers(name):
    assert _isa_facts.special_register_bits(name) is None

    @kernel(arch="sm_90a")
    def k():
        reg.special(name)

    with pytest.raises(ValueError, match="not a PTX special register"):
        k.ptx()


@pytest.mark.parametrize("name,bits,ok", [
    ("%tid.x", 16, True), ("%ctaid.y", 16, True), ("%gridid", 16, True),
    ("%gridid", 32, True), ("%laneid", 16, False), ("%clock64", 32, False),
    ("%cluster_ctaid.x", 16, False), ("%tid.x", 64, False)])
def test_legacy_mov_sizes_come_from_the_description(name, bits, ok):
    # SpecialRegisters.td's MinMovBits, as the C++ verifier reads it.
    @kernel(arch="sm_90a", version=(8, 0))
    def k():
        emit(f"mov.u{bits}", reg.scalar(getattr(T, f"u{bits}")), reg.special(name))

    if ok:
        assert f"mov.u{bits}" in k.ptx()
    else:
        with pytest.raises(KernelError, match=f"a mov of it moves .* not .u{bits}"):
            k.ptx()
    doc = open(os.path.join(ROOT, "docs", "isa.md")).read()
    assert "| `%tid.{x,y,z,w}` | 32 (a mov moves 16 to 32) |" in doc
    assert "| `%gridid` | 64 (a mov moves 16 to 64) |" in doc


# -- targets -----------------------------------------------------------------

def test_each_target_needs_the_version_the_description_gives():
    targets = _isa_facts.targets()
    assert {"sm_90a", "sm_100a", "sm_100f", "sm_120a"} <= set(targets)
    for target, min_ptx in targets.items():
        assert min_version(target) == divmod(min_ptx, 10)
        ok = native().Module(divmod(min_ptx, 10), target)
        ok.add_function("k", True, [], [], "visible", ("k.py", 1, 1))
        ok.verify()
        too_old = native().Module(divmod(min_ptx - 1, 10), target)
        too_old.add_function("k", True, [], [], "visible", ("k.py", 1, 1))
        with pytest.raises(Exception, match="needs PTX ISA"):
            too_old.verify()


# -- wgmma -------------------------------------------------------------------

_WGMMA_TYPES = ["f16", "bf16", "tf32", "e4m3", "e5m2", "s8", "u8", "f32", "s32"]


def test_wgmma_data_is_what_the_verifier_takes():
    table = isa_table().WGMMA
    for a, b, d in itertools.product(_WGMMA_TYPES, _WGMMA_TYPES, ["f16", "f32", "s32"]):
        inputs = table.get(f"{a}.{b}")
        for n, k in itertools.product(range(0, 272, 4), (8, 16, 32)):
            opcode = f"wgmma.mma_async.sync.aligned.m64n{n}k{k}.{d}.{a}.{b}"
            python = (inputs is not None and d in inputs["d"] and k == inputs["k"]
                      and n in inputs["n"])
            assert python == (native().opcode_problem(opcode) is None), opcode


def _check(shape, d, a, b):
    return warpgroup._check_types(shape, T.as_type(d), T.as_type(a), T.as_type(b))


def test_the_wgmma_helper_checks_exactly_the_data():
    for pair, inputs in isa_table().WGMMA.items():
        a, b = pair.split(".")
        if a not in T.ALL_TYPES:  # pyptx has no .b1 type: no helper for .b1.b1
            continue
        for n in range(0, 272, 8):
            shape = (inputs["m"], n, inputs["k"])
            if n in inputs["n"]:
                assert _check(shape, inputs["d"][-1], a, b)[2] == n
            else:
                with pytest.raises(KernelError, match="needs N"):
                    _check(shape, inputs["d"][-1], a, b)
        with pytest.raises(KernelError, match="has K="):
            _check((64, 8, inputs["k"] * 2), inputs["d"][0], a, b)


def test_wgmma_immediates_follow_the_forms():
    # f16/bf16 take scale and transpose immediates; tf32 and fp8 scale only;
    # 8-bit integers neither (WGMMA.td's operand lists).
    table = isa_table().WGMMA
    assert (table["bf16.bf16"]["imm_scale"], table["bf16.bf16"]["imm_trans"]) == (True, True)
    assert (table["tf32.tf32"]["imm_scale"], table["tf32.tf32"]["imm_trans"]) == (True, False)
    assert (table["e4m3.e5m2"]["imm_scale"], table["e4m3.e5m2"]["imm_trans"]) == (True, False)
    assert (table["s8.u8"]["imm_scale"], table["s8.u8"]["imm_trans"]) == (False, False)
    with pytest.raises(KernelError, match="cannot negate"):
        warpgroup._check_flags(table["s8.s8"], T.s8, -1, 1, 0, 0)
    with pytest.raises(KernelError, match="exists only for bf16/f16 inputs"):
        warpgroup._check_flags(table["tf32.tf32"], T.tf32, 1, 1, 0, 1)


# -- tcgen05.mma shapes --------------------------------------------------------

def test_tcgen05_descriptor_shapes_are_the_data():
    shapes = isa_table().TCGEN05_MMA_SHAPES
    assert sorted(shapes) == ["1", "2"]
    for group, allowed in shapes.items():
        for m, n in itertools.product(range(16, 272, 16), range(8, 264, 8)):
            problem = InstrDesc.for_kind("f16", m=m, n=n).problem("f16", int(group))
            ok = m in allowed["m"] and n in allowed["n"]
            assert (problem is None) == ok, (group, m, n, problem)
    all_m = {m for s in shapes.values() for m in s["m"]}
    all_n = {n for s in shapes.values() for n in s["n"]}
    for m, n in itertools.product((32, 64, 128, 256), (8, 12, 16, 256, 264)):
        if m in all_m and n in all_n:
            assert tcgen05.make_instr_desc_f16bf16_f32(m=m, n=n)
        else:
            with pytest.raises(KernelError, match="must be"):
                tcgen05.make_instr_desc_f16bf16_f32(m=m, n=n)


def test_tcgen05_ld_st_counts_are_what_the_verifier_takes():
    registers = _isa_facts.tcgen05_ld_st_registers()
    assert set(registers) == {"32x32b", "16x64b", "16x32bx2", "16x128b", "16x256b"}
    for shape, count in itertools.product(registers, [0, 1, 2, 3, 4, 64, 128, 256]):
        for op in ("ld", "st"):
            opcode = f"tcgen05.{op}.sync.aligned.{shape}.x{count}.b32"
            assert (count in registers[shape]) == \
                (native().opcode_problem(opcode) is None), opcode

    # The helpers pass exactly that many registers; the verifier checks the
    # vector's length against the form.
    @kernel(arch="sm_100a", version=(8, 6))
    def k():
        t = reg.scalar(T.b32)
        for shape, counts in registers.items():
            split = 16 if shape == "16x32bx2" else None
            for count, n in counts.items():
                regs = reg.array(T.b32, n)
                tcgen05.ld(regs, t, shape=shape, count=count, half_splitoff=split)
                tcgen05.st(t, regs, shape=shape, count=count, half_splitoff=split)

    assert k.ptx().count("tcgen05.ld.sync.aligned.16x256b.x32.b32") == 1


def test_tcgen05_cp_sizes_are_what_the_verifier_takes():
    sizes = _isa_facts.tcgen05_cp_sizes()
    shapes = ["128x256b", "4x256b", "128x128b", "64x128b", "32x128b", "64x256b"]
    multicasts = ["", ".warpx2::02_13", ".warpx2::01_23", ".warpx4"]
    formats = ["", ".b8x16.b6x16_p32", ".b8x16.b4x16_p64", ".b8x16"]
    for parts in itertools.product(shapes, multicasts, formats):
        size = "".join(parts)
        opcode = f"tcgen05.cp.cta_group::1.{size}"
        assert (size in sizes) == (native().opcode_problem(opcode) is None), opcode
    assert len(sizes) == 18


def test_describe():
    assert _isa_facts.describe(range(8, 264, 8)) == "a multiple of 8 from 8 to 256"
    assert (_isa_facts.describe([8, 16, 24, 32, 48, 64, 80])
            == "8, 16, 24, or a multiple of 16 from 32 to 80")
    assert _isa_facts.describe([128, 64]) == "64 or 128"
    assert _isa_facts.describe([1, 2, 4]) == "1, 2 or 4"
    assert _isa_facts.describe([12, 20, 28]) == "12 to 28 in steps of 8"


# -- no hand-written table comes back -------------------------------------------

def _package_files():
    for directory, _, files in os.walk(PACKAGE):
        for name in files:
            if name.endswith(".py") and name != "_isa_table.py":
                yield os.path.join(directory, name)


def _literal_strings(node):
    return [e.value for e in node.elts if isinstance(e, ast.Constant)
            and isinstance(e.value, str)]


def _fact_tables(tree):
    """Collection literals (tuple, list, set, dict keys) of two or more
    targets or special-register names, and comparisons that bound an N or M
    by 256 (the wgmma/tcgen05 shape limit)."""
    sregs = set(isa_table().SPECIAL_REGISTERS)
    target = re.compile(r"sm_\d+[af]?$")

    def is_sreg(s):
        return ("%" + s.lstrip("%")).split(".")[0] in sregs

    for node in ast.walk(tree):
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            strings = _literal_strings(node)
        elif isinstance(node, ast.Dict):
            strings = [k.value for k in node.keys if isinstance(k, ast.Constant)
                       and isinstance(k.value, str)]
        else:
            strings = None
        if strings is not None:
            if sum(bool(target.match(s)) for s in strings) >= 2 or \
                    sum(is_sreg(s) for s in strings) >= 2:
                yield node.lineno, strings
        if isinstance(node, ast.Compare):
            names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)} | \
                {n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute)}
            bounds = [c.value for c in ast.walk(node) if isinstance(c, ast.Constant)]
            if names & {"n", "m"} and 256 in bounds:
                yield node.lineno, ast.unparse(node)


# The original pyptx's default PTX versions by target family (a policy kept
# for compatibility, not an ISA fact): _arch.default_version.
_ALLOWED = {("python/pyptx/_arch.py", "('sm_100', 'sm_101')")}


def test_no_python_module_restates_the_facts():
    found = []
    for path in _package_files():
        source = open(path).read()
        tree = ast.parse(source)
        for line, what in _fact_tables(tree):
            where = os.path.relpath(path, ROOT)
            if (where, str(tuple(what)) if isinstance(what, list) else what) not in _ALLOWED:
                found.append((where, line, what))
    assert not found, found


def test_the_detector_finds_the_tables_it_replaced():
    old = '''
_SREG_TYPES = {"%clock64": T.u64, "%globaltimer": T.u64}
_FALLBACK_MIN_PTX = {"sm_70": 60, "sm_75": 63}
def _valid_n(n):
    return n in (8, 16, 24, 32) or (n % 16 == 0 and 48 <= n <= 256)
'''
    assert len(list(_fact_tables(ast.parse(old)))) == 3


# The special registers' names as C++ string literals, two or more in one
# braced list: `{"tid", "ntid", ...}` or `{"%tid", ...}`; and targets.
_CXX_SREG_LIST = re.compile(r'\{\s*"%?(\w+)"\s*,\s*"%?(\w+)"')
_CXX_TARGET_LIST = re.compile(r'"sm_\d+[af]?"\s*,\s*"sm_\d+[af]?"')


def test_no_cxx_source_restates_the_special_registers_or_targets():
    sregs = {s.lstrip("%") for s in isa_table().SPECIAL_REGISTERS}
    found = []
    for directory, _, files in os.walk(os.path.join(ROOT, "lib")):
        for name in files:
            if not name.endswith((".cpp", ".h")):
                continue
            text = open(os.path.join(directory, name)).read()
            for match in _CXX_SREG_LIST.finditer(text):
                if set(match.groups()) <= sregs:
                    found.append((name, match.group(0)))
            found += [(name, m) for m in _CXX_TARGET_LIST.findall(text)]
    assert not found, found
    assert _CXX_SREG_LIST.search('{"tid", "ntid", "ctaid"}')
    assert _CXX_TARGET_LIST.search('{"sm_90a", "sm_100a"}')
