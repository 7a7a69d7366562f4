"""Errors point at the kernel author's line: file:line, source line, caret."""
import os

import pytest

from conftest import line_of
from pyptx import KernelError, PyptxError, kernel, ptx, reg
from pyptx import kernel as kernel_module  # noqa: F401
from pyptx.types import f32, u32

HERE = os.path.abspath(__file__)


def test_add_f32_on_u32_register_points_at_the_call():
    @kernel(arch="sm_90a")
    def bad():
        r = reg.scalar(u32)
        ptx.inst.add.f32(r, r, r)  # <- bad-add
        ptx.ret()

    with pytest.raises(KernelError) as info:
        bad.ptx()
    line = line_of(HERE, "# <- bad-add")
    message = str(info.value)
    assert f"test_errors.py:{line}:" in message, message
    assert "ptx.inst.add.f32(r, r, r)" in message  # the source line
    # The source line keeps its indentation (8), under a 4-space margin; the
    # caret sits under column 9, the start of the call.
    assert message.endswith("\n" + " " * 12 + "^"), message
    assert info.value.line == line and os.path.samefile(info.value.file, HERE)


def test_wgmma_in_sm80_kernel_points_at_the_call():
    @kernel(arch="sm_80", version=(8, 0))  # new enough PTX, too old a target
    def old_gpu():
        ptx.inst.wgmma.fence.sync.aligned()  # <- bad-wgmma
        ptx.ret()

    with pytest.raises(KernelError) as info:
        old_gpu.ptx()
    line = line_of(HERE, "# <- bad-wgmma")
    assert f"test_errors.py:{line}:" in str(info.value), str(info.value)
    assert "sm_90" in str(info.value)


def test_unknown_mnemonic_is_rejected_early_at_the_call():
    @kernel(arch="sm_90a")
    def typo():
        r = reg.scalar(u32)
        ptx.inst.mvo.u32(r, 1)  # <- bad-mnemonic
        ptx.ret()

    with pytest.raises(KernelError) as info:
        typo.ptx()
    assert f"test_errors.py:{line_of(HERE, '# <- bad-mnemonic')}:" in str(info.value)
    assert "mvo.u32" in str(info.value)


def test_operator_type_mix_is_a_python_error():
    @kernel(arch="sm_90a")
    def mix():
        a = reg.scalar(u32)
        b = reg.scalar(f32)
        a + b

    with pytest.raises(TypeError, match="cannot mix u32 and f32"):
        mix.ptx()


def test_register_has_no_truth_value():
    @kernel(arch="sm_90a")
    def branchy():
        r = reg.scalar(u32)
        if r < 3:
            pass

    with pytest.raises(TypeError, match="ptx.if_"):
        branchy.ptx()


def test_else_without_if():
    @kernel(arch="sm_90a")
    def lonely():
        with ptx.else_():  # <- lonely-else
            ptx.ret()

    with pytest.raises(KernelError, match="must directly follow") as info:
        lonely.ptx()
    assert info.value.line == line_of(HERE, "# <- lonely-else")


def test_dsl_outside_a_trace():
    with pytest.raises(PyptxError, match="@kernel"):
        reg.scalar(u32)


def test_arch_auto_without_gpu(monkeypatch):
    monkeypatch.delenv("PYPTX_ARCH", raising=False)

    @kernel(arch="auto")
    def k():
        ptx.ret()

    try:
        import torch
        if torch.cuda.is_available():
            pytest.skip("a GPU is visible; auto resolves")  # not on the build machines
    except ImportError:
        pass
    with pytest.raises(PyptxError, match="PYPTX_ARCH"):
        k.ptx()
    monkeypatch.setenv("PYPTX_ARCH", "sm_80")
    assert ".target sm_80\n" in k.ptx()
    assert k.ptx().startswith(".version 8.5\n")


def test_calling_a_kernel_takes_framework_tensors():
    @kernel(arch="sm_90a")
    def k(X):
        ptx.ret()

    with pytest.raises(TypeError, match="launching takes PyTorch tensors or JAX arrays; got object"):
        k(object())


def test_sass_without_disassembler(monkeypatch):
    from pyptx import kernel as kmod
    from pyptx import toolchain
    monkeypatch.setattr(toolchain, "TOOL_DIRS", ())
    monkeypatch.setenv("PATH", "")

    @kmod(arch="sm_90a")
    def k():
        ptx.ret()

    with pytest.raises(RuntimeError, match="ptxas.*cuobjdump or nvdisasm|cuobjdump or nvdisasm"):
        k.sass()


def test_unknown_modifier_raises_at_the_call_with_the_isa_message():
    @kernel(arch="sm_90a")
    def typo():
        r = reg.scalar(u32)
        ptx.inst.add.q32(r, r, r)  # <- bad-modifier
        ptx.ret()

    with pytest.raises(KernelError) as info:
        typo.ptx()
    message = str(info.value)
    # Raised by the call itself (the ISA description's modifier check), not
    # by the verifier after the trace.
    assert f"test_errors.py:{line_of(HERE, '# <- bad-modifier')}:" in message, message
    assert "'add.q32' has unknown modifier '.q32'" in message, message


def test_isa_policy_warn_unknown_lets_newer_ptx_through_with_a_warning():
    from pyptx.errors import KernelWarning

    def build(policy):
        @kernel(arch="sm_90a", isa_policy=policy)
        def newer():
            r = reg.scalar(u32, init=0)
            ptx.inst.frobnicate.u32(r, r)  # <- unknown
            ptx.ret()
        return newer

    with pytest.raises(KernelError):
        build("strict").ptx()
    with pytest.warns(KernelWarning, match="unknown instruction 'frobnicate'") as record:
        text = build("warn-unknown").ptx()
    assert "frobnicate.u32 %r0, %r0;" in text
    assert record[0].lineno == line_of(HERE, "# <- unknown")
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert "frobnicate.u32" in build("off").ptx()
