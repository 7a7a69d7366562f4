"""The wheel's console scripts (pyproject.toml's [project.scripts]).

``pyptx-opt`` and ``pyptx-translate`` are C++ programs shipped in the wheel
under ``pyptx/bin/``: their scripts exec them. ``pyptx-codegen``,
``pyptx-aot`` and ``pyptx-check`` run the ``main`` of ``python -m
pyptx.codegen`` / ``pyptx.aot`` / ``pyptx.check``; ``--version`` is
answered here, before their arguments are parsed.
"""
from __future__ import annotations

import importlib
import os
import sys

import pyptx


def tool_path(name: str) -> str:
    """The C++ tool `name`: the wheel's pyptx/bin/, else a source build's
    build/bin/ (next to the native module that pyptx loaded)."""
    here = os.path.dirname(os.path.abspath(pyptx.__file__))
    candidates = [os.path.join(here, "bin", name)]
    native = sys.modules.get("pyptx._native")
    if native is not None and getattr(native, "__file__", None):
        # build/python/pyptx/_native*.so -> build/bin/
        build = os.path.dirname(os.path.dirname(os.path.dirname(native.__file__)))
        candidates.append(os.path.join(build, "bin", name))
    for path in candidates:
        if os.access(path, os.X_OK):
            return path
    raise SystemExit(f"{name}: not found (looked in {', '.join(candidates)}); "
                     f"it comes with the pyptx-mlir wheel, or a source build's build/bin")


def _exec_tool(name: str):
    path = tool_path(name)
    os.execv(path, [path] + sys.argv[1:])


def _run_python(prog: str, module: str) -> int:
    if sys.argv[1:] == ["--version"]:
        print(f"{prog} {pyptx.__version__}")
        return 0
    sys.argv[0] = prog
    return importlib.import_module(module).main([*sys.argv[1:]])


def opt():
    _exec_tool("pyptx-opt")


def translate():
    _exec_tool("pyptx-translate")


def codegen() -> int:
    return _run_python("pyptx-codegen", "pyptx.codegen.__main__")


def aot() -> int:
    return _run_python("pyptx-aot", "pyptx.aot.__main__")


def check() -> int:
    return _run_python("pyptx-check", "pyptx.check")
