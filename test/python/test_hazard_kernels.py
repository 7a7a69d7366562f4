"""The GPU hazard suite's kernel pairs (test/gpu/hazard_kernels.py), on the
CPU: both forms of each pair trace (through the ISA verifier) and assemble
with ptxas; the broken form's PTX differs from the fix by exactly the one
line; where the hazard checker exists, it finds the hazard in the broken
form and nothing in the fix."""
import difflib
import importlib.util
import os
import subprocess

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))


def _load_hazard_kernels():
    """test/gpu/hazard_kernels.py, loaded by path (test/gpu stays off
    sys.path, so its test modules cannot shadow these)."""
    path = os.path.join(HERE, "..", "gpu", "hazard_kernels.py")
    spec = importlib.util.spec_from_file_location("hazard_kernels", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


hazard_kernels = _load_hazard_kernels()
PAIRS = hazard_kernels.PAIRS


def instruction_lines(text):
    return [line.strip() for line in text.splitlines() if line.strip()]


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_both_forms_trace_and_assemble(name, assemble):
    for broken in (False, True):
        text = hazard_kernels.unchecked(PAIRS[name], broken).ptx()
        assert ".target sm_90a" in text
        assemble(text, "sm_90a")


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_the_broken_form_lacks_exactly_the_one_line(name):
    pair = PAIRS[name]
    fixed = instruction_lines(hazard_kernels.unchecked(pair, False).ptx())
    broken = instruction_lines(hazard_kernels.unchecked(pair, True).ptx())
    diff = list(difflib.ndiff(fixed, broken))
    removed = [d[2:] for d in diff if d.startswith("- ")]
    added = [d[2:] for d in diff if d.startswith("+ ")]
    assert removed == [pair.line], removed
    assert added == ([pair.broken_line] if pair.broken_line else []), added


def test_ptxas_repairs_the_wgmma_accumulator_read(ptxas, tmp_path):
    """Why the wgmma-pending pair is expected to compute the right result on
    the GPU: ptxas injects the missing wait itself (and says so), where the
    fixed form needs none."""
    notes = {}
    for broken in (False, True):
        src = tmp_path / f"wgmma_{broken}.ptx"
        src.write_text(hazard_kernels.unchecked(PAIRS["wgmma"], broken).ptx())
        proc = subprocess.run([ptxas, "-arch=sm_90a", "-o", str(tmp_path / "k.cubin"), str(src)],
                              capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        notes[broken] = proc.stdout + proc.stderr
    assert "warpgroup.wait is injected" in notes[True], notes[True]
    assert "injected" not in notes[False], notes[False]


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_the_checker_finds_the_broken_form_only(name):
    missing = hazard_kernels.checker_missing()
    if missing:
        pytest.skip(missing)
    pair = PAIRS[name]
    broken = hazard_kernels.findings(pair, broken=True)
    assert any(pair.kind in message for message in broken), (pair.kind, broken)
    assert hazard_kernels.findings(pair, broken=False) == []
