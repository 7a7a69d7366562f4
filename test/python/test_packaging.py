"""The distribution's metadata (pyproject.toml) and its console scripts
(pyptx/_cli.py): a name of our own, one source of the version, scripts that
name existing functions and answer --version with ours."""
from __future__ import annotations

import importlib
import os
import re
import sys
import tomllib

import pytest

import pyptx
from pyptx import _cli

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
ORIGINAL_PYPTX_LATEST = (0, 1, 1)  # the original project's last release


def pyproject() -> dict:
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        return tomllib.load(f)


def test_distribution_name_is_not_the_originals():
    assert pyproject()["project"]["name"] == "pyptx-mlir"


def test_version_has_one_source_above_the_originals():
    meta = pyproject()
    assert "version" not in meta["project"] and meta["project"]["dynamic"] == ["version"]
    regex = meta["tool"]["scikit-build"]["metadata"]["version"]
    assert regex["input"] == "python/pyptx/__init__.py"
    with open(os.path.join(ROOT, regex["input"])) as f:
        # The line CMakeLists.txt reads (the tools' --version) and the regex
        # provider reads: exactly one.
        lines = [l for l in f.read().splitlines() if re.fullmatch(r'__version__ = "[0-9.]+"', l)]
    assert lines == [f'__version__ = "{pyptx.__version__}"']
    assert tuple(int(p) for p in pyptx.__version__.split(".")) > ORIGINAL_PYPTX_LATEST


def test_build_needs_no_jax():
    assert not any(r.startswith("jax") for r in pyproject()["build-system"]["requires"])
    assert os.path.isfile(os.path.join(ROOT, "third_party", "xla", "ffi", "api", "ffi.h"))


def test_extras_have_floors():
    extras = pyproject()["project"]["optional-dependencies"]
    for name in ("torch", "jax", "jax-cuda12", "jax-cuda13"):
        assert all(">=" in req for req in extras[name]), name
    assert extras["torch"] == ["torch>=2.7"]


def test_license_and_typing_marker_are_shipped():
    meta = pyproject()["project"]
    assert meta["license"] == "Apache-2.0"
    for path in meta["license-files"]:
        with open(os.path.join(ROOT, path)) as f:
            assert "Apache License" in f.read(200)
    assert os.path.isfile(os.path.join(os.path.dirname(pyptx.__file__), "py.typed"))


def test_console_scripts_name_functions_of_cli():
    scripts = pyproject()["project"]["scripts"]
    assert set(scripts) == {"pyptx-opt", "pyptx-translate", "pyptx-codegen",
                            "pyptx-aot", "pyptx-check"}
    for target in scripts.values():
        module, func = target.split(":")
        assert callable(getattr(importlib.import_module(module), func)), target


@pytest.mark.parametrize("prog", ["pyptx-codegen", "pyptx-aot", "pyptx-check"])
def test_python_scripts_print_our_version(prog, monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", [prog, "--version"])
    entry = getattr(_cli, prog.removeprefix("pyptx-"))
    assert entry() == 0
    assert capsys.readouterr().out == f"{prog} {pyptx.__version__}\n"


def test_python_script_runs_the_modules_main(monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", ["pyptx-check", "--help"])
    with pytest.raises(SystemExit) as exit:
        _cli.check()
    assert exit.value.code == 0
    assert "--allow" in capsys.readouterr().out


def test_missing_tool_says_where_it_looked():
    with pytest.raises(SystemExit, match=r"pyptx-nonexistent: not found \(looked in .*bin"):
        _cli.tool_path("pyptx-nonexistent")
