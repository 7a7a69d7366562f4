"""The hazard checker from Python: @kernel(hazards=...), PYPTX_HAZARDS and
python -m pyptx.check (docs/hazards.md)."""
import os
import subprocess
import sys
import warnings

import pytest

from pyptx import kernel, ptx, reg
from pyptx.errors import KernelError, KernelWarning
from pyptx.check import main as check_main
from pyptx.types import u32

BROKEN_PTX = """.version 8.5
.target sm_90a
.address_size 64
.visible .entry k()
{
	.reg .b32 %r<2>;
	.reg .pred %p<2>;
	mov.u32 %r0, %tid.x;
	setp.ne.u32 %p0, %r0, 0;
	@%p0 bra $L_end;
	bar.sync 0;
$L_end:
	ret;
}
"""


def _divergent(hazards=None):
    @kernel(arch="sm_90a", block=(128, 1, 1), hazards=hazards)
    def divergent():
        tid = reg.from_(ptx.special.tid.x(), u32)
        with ptx.if_(tid == 0):
            ptx.bar.sync(0)
        ptx.ret()
    return divergent


def test_warn_is_the_default_and_names_the_author_line(monkeypatch):
    monkeypatch.delenv("PYPTX_HAZARDS", raising=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _divergent().ptx()
    found = [w for w in caught if issubclass(w.category, KernelWarning)]
    assert len(found) == 1
    assert str(found[0].message).startswith("divergent-barrier: 'bar.sync'")
    assert found[0].filename == __file__


def test_error_raises_and_off_is_silent(monkeypatch):
    monkeypatch.delenv("PYPTX_HAZARDS", raising=False)
    with pytest.raises(KernelError, match="divergent-barrier"):
        _divergent("error").ptx()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _divergent("off").ptx()


def test_environment_sets_the_policy(monkeypatch):
    monkeypatch.setenv("PYPTX_HAZARDS", "error")
    with pytest.raises(KernelError):
        _divergent().ptx()
    monkeypatch.setenv("PYPTX_HAZARDS", "sometimes")
    with pytest.raises(ValueError, match="PYPTX_HAZARDS"):
        _divergent().ptx()


def test_check_cli_exit_codes(tmp_path, capsys):
    broken = tmp_path / "broken.ptx"
    broken.write_text(BROKEN_PTX)
    clean = tmp_path / "clean.ptx"
    clean.write_text(BROKEN_PTX.replace("\tbar.sync 0;\n", ""))
    assert check_main([str(broken)]) == 1
    out = capsys.readouterr().out
    assert out.startswith(f"{broken}:11:2: warning: divergent-barrier: ")
    assert check_main([str(clean)]) == 0
    assert check_main([str(tmp_path / "missing.ptx")]) == 2
    bad = tmp_path / "bad.ptx"
    bad.write_text(".version 8.5\n.target sm_90a\nnot ptx at all\n")
    assert check_main([str(bad)]) == 2


ARRIVALS_PTX = """.version 8.5
.target sm_90a
.address_size 64
.visible .entry k() .maxntid 128, 1, 1
{
	.reg .b64 %rd<2>;
	.reg .pred %p<2>;
	.shared .align 8 .b64 bar;
	mbarrier.init.shared::cta.b64 [bar], COUNT;
	bar.sync 0;
	mbarrier.arrive.shared::cta.b64 %rd0, [bar];
$L_wait:
	mbarrier.try_wait.shared::cta.b64 %p0, [bar], %rd0;
	@!%p0 bra $L_wait;
	ret;
}
"""


def test_check_cli_arrival_count(tmp_path, capsys):
    # All 128 threads of the .maxntid CTA arrive: count 1 is too few, 128 matches.
    broken = tmp_path / "count1.ptx"
    broken.write_text(ARRIVALS_PTX.replace("COUNT", "1"))
    assert check_main([str(broken)]) == 1
    out = capsys.readouterr().out
    assert out.startswith(f"{broken}:11:2: warning: mbarrier-accounting: mbarrier [bar] ")
    assert "executed by all 128 threads of the CTA" in out
    clean = tmp_path / "count128.ptx"
    clean.write_text(ARRIVALS_PTX.replace("COUNT", "128"))
    assert check_main([str(clean)]) == 0
