"""Errors a kernel author meets while tracing: an unbound shape variable
names the variable to pass, TypeError/ValueError raised by the DSL carry the
author's file:line like KernelError, and every pyptx error derives from
pyptx.PyptxError."""
import os

import pytest

from conftest import line_of
from pyptx import KernelError, PyptxError, Tile, kernel, ptx, reg
from pyptx.errors import KernelTypeError, KernelValueError
from pyptx.types import f32, u32

HERE = os.path.abspath(__file__)


def test_unbound_shape_variable_names_it_at_the_authors_line():
    @kernel(in_specs=(Tile("M", "N", f32),), out_specs=(Tile("M", "N", f32),))
    def k(A, B):
        M, N = A.shape  # <- unpack
        ptx.ret()

    with pytest.raises(KernelError) as info:
        k.ptx(M=64)
    assert "shape variable 'N' is unbound: pass N=..." in str(info.value)
    assert "cannot unpack" not in str(info.value)
    assert (info.value.file, info.value.line) == (HERE, line_of(HERE, "# <- unpack"))
    assert isinstance(info.value, TypeError)  # what unpacking None raised before
    assert k.ptx(M=64, N=32)  # bound, the same kernel traces


def test_unbound_shape_is_false_and_indexing_it_raises():
    seen = []

    @kernel(in_specs=(Tile("M", 8, f32),), out_specs=(Tile("M", 8, f32),))
    def k(A, B):
        seen.append(bool(A.shape))
        A.shape[0]  # <- index
        ptx.ret()

    with pytest.raises(KernelTypeError, match="shape variable 'M' is unbound: pass M=") as info:
        k.ptx()
    assert seen == [False]
    assert info.value.line == line_of(HERE, "# <- index")


def test_dsl_type_error_carries_the_authors_line():
    @kernel
    def k():
        r = reg.scalar(u32)
        ptx.warp.reduce_sum(reg.pred())  # <- not 32-bit
        ptx.ret()

    with pytest.raises(TypeError) as info:
        k.ptx()
    err = info.value
    assert isinstance(err, KernelError) and isinstance(err, PyptxError)
    assert (err.file, err.line) == (HERE, line_of(HERE, "# <- not 32-bit"))
    assert str(err).startswith(f"{HERE}:{err.line}:")
    assert "# <- not 32-bit" in str(err)  # the source line is shown


def test_dsl_value_error_carries_the_authors_line():
    @kernel
    def k():
        ptx.warp.reduce_sum(reg.scalar(u32), width=3)  # <- bad width
        ptx.ret()

    with pytest.raises(ValueError) as info:
        k.ptx()
    assert isinstance(info.value, KernelValueError)
    assert info.value.line == line_of(HERE, "# <- bad width")
    assert "width" in info.value.message


def test_authors_own_errors_pass_unchanged():
    @kernel
    def k():
        raise ValueError("mine")

    with pytest.raises(ValueError) as info:
        k.ptx()
    assert type(info.value) is ValueError and str(info.value) == "mine"


def test_every_pyptx_error_derives_from_pyptx_error():
    from pyptx import _native
    from pyptx.aot import ExportError
    from pyptx.codegen import CodegenError
    from pyptx.compiled import SpillError
    from pyptx.runtime import ArgumentError
    from pyptx.specs import UnboundShape  # noqa: F401  (its error is KernelTypeError)

    for cls, also in ((KernelError, None), (KernelTypeError, TypeError),
                      (KernelValueError, ValueError), (SpillError, None),
                      (CodegenError, None), (ExportError, ValueError),
                      (ArgumentError, TypeError), (_native.PTXError, RuntimeError)):
        assert issubclass(cls, PyptxError), cls
        if also:  # the original base stays, so existing handlers still catch it
            assert issubclass(cls, also), cls
    with pytest.raises(PyptxError):
        ptx.ret()  # outside a trace
    module = _native.Module((8, 5), "sm_90a", 64, "strict")
    func = module.add_function("k", True, [], [], "visible", ("", 0, 0))
    with pytest.raises(PyptxError) as info:
        module.raw(func, "bogus.u32 %r1;")
    assert type(info.value).__name__ == "PTXError"


def test_every_exception_class_of_the_package_is_a_pyptx_error():
    """Walks every module of the package: an exception class defined there
    (warnings aside) derives from PyptxError."""
    import importlib
    import inspect
    import pkgutil

    import pyptx

    strays = []
    for info in pkgutil.walk_packages(pyptx.__path__, "pyptx."):
        try:
            module = importlib.import_module(info.name)
        except ImportError:  # an optional framework (jax, torch) is missing
            continue
        for name, cls in inspect.getmembers(module, inspect.isclass):
            if (cls.__module__ == module.__name__ and issubclass(cls, BaseException)
                    and not issubclass(cls, Warning) and not issubclass(cls, PyptxError)):
                strays.append(f"{module.__name__}.{name}")
    assert not strays, strays
