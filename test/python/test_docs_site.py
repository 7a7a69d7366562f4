"""The docs site (mkdocs.yml): it builds with no warning and its internal
links and anchors resolve (scripts/build-docs.sh); its API reference has a
page for every public module; and the code of every guide (and of the
home page) is real:

- a ```python block runs (the blocks of one page in order, in one
  namespace, on the CPU: kernels are traced, not launched) without a
  KernelWarning (the hazard checker's findings);
- a ```text block right after a ```python block is what that block prints:
  each of its lines ends a printed line, in order (a line "..." skips any);
- a block whose first line is ``# excerpt of PATH`` is a piece of that file
  of the repository: its lines end lines of the file, in order;
- a block whose first line is ``# needs a GPU`` is compiled and what it
  imports from pyptx and examples must exist, but it is not run (the
  example kernels such blocks launch are launched by test/gpu).
"""
import ast
import contextlib
import importlib
import inspect
import io
import os
import re
import subprocess
import sys
import warnings

import pytest

from pyptx.errors import KernelWarning

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DOCS = os.path.join(ROOT, "docs")
GUIDES = sorted(name for name in os.listdir(os.path.join(DOCS, "guides")) if name.endswith(".md"))
PAGES_WITH_CODE = ["index.md"] + [f"guides/{name}" for name in GUIDES]
FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```\s*$", re.S | re.M)
EXCERPT = re.compile(r"^# excerpt of (\S+\.py)")
GPU_ONLY = "# needs a GPU"


def _gen_api_docs():
    """scripts/gen_api_docs.py, which names the public modules and names."""
    sys.path.insert(0, os.path.join(ROOT, "scripts"))
    try:
        return importlib.import_module("gen_api_docs")
    finally:
        sys.path.pop(0)


def _mkdocs_yml():
    return open(os.path.join(ROOT, "mkdocs.yml"), encoding="utf-8").read()


def blocks(text):
    """(language, code, line, text between the previous block and this one)."""
    found, end = [], 0
    for match in FENCE.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        found.append((match.group(1), match.group(2), line, text[end:match.start()]))
        end = match.end()
    return found


def _in_order(expected, actual, what):
    """Each non-blank line of `expected` ends a line of `actual` (both
    stripped; a printed error starts with its file:line), in order; a line
    "..." stands for any lines."""
    lines = [line.strip() for line in actual.splitlines()]
    at = 0
    for want in (line.strip() for line in expected.splitlines()):
        if not want or want == "...":
            continue
        at = next((i for i in range(at, len(lines)) if lines[i].endswith(want)), None)
        if at is None:
            raise AssertionError(f"{what}: {want!r} not found (in order) in:\n{actual}")
        at += 1


def _check_imports(code, where):
    """Compiles a block that needs a GPU, and checks that what it imports
    from pyptx and the examples exists."""
    tree = ast.parse(code, where)
    compile(tree, where, "exec")
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module.split(".")[0] in ("pyptx",
                                                                               "examples"):
            module = importlib.import_module(node.module)
            for alias in node.names:
                assert hasattr(module, alias.name), f"{where}: {node.module}.{alias.name}"


@pytest.mark.parametrize("page", PAGES_WITH_CODE)
def test_page_code_runs(page, monkeypatch):
    monkeypatch.chdir(ROOT)  # guides name files relative to the repository
    monkeypatch.syspath_prepend(ROOT)  # and import examples.*
    path = os.path.join(DOCS, page)
    found = blocks(open(path, encoding="utf-8").read())
    namespace = {"__name__": "guide"}
    printed, checked = None, 0
    for language, code, line, before in found:
        where = f"docs/{page}:{line}"
        if language == "text" and printed is not None and not before.strip():
            _in_order(code, printed, where)
            checked += 1
            continue
        printed = None
        if language != "python":
            continue
        first = code.split("\n", 1)[0]
        excerpt = EXCERPT.match(first)
        if excerpt:
            source = open(os.path.join(ROOT, excerpt.group(1)), encoding="utf-8").read()
            _in_order(code.split("\n", 1)[1], source, where)
        elif first.startswith(GPU_ONLY):
            _check_imports(code, where)
        else:
            out = io.StringIO()
            with contextlib.redirect_stdout(out), warnings.catch_warnings():
                # a guide's kernel has no hazard unless the guide shows one
                # (and catches its warning itself)
                warnings.simplefilter("error", KernelWarning)
                exec(compile(code, where, "exec"), namespace)
            printed = out.getvalue()
        checked += 1
    assert checked, f"docs/{page} has no checked code"


def test_every_guide_is_in_the_nav():
    nav = _mkdocs_yml()
    for guide in GUIDES:
        assert f"guides/{guide}" in nav, guide


def test_reference_has_a_page_per_public_module():
    """The modules scripts/gen_api_docs.py documents (its MODULES) are those
    of the site's reference, each in the nav."""
    modules = _gen_api_docs().MODULES
    pages = sorted(name[:-3] for name in os.listdir(os.path.join(DOCS, "reference")))
    assert pages == sorted(modules)
    nav = _mkdocs_yml()
    for module in modules:
        assert f"reference/{module}.md" in nav, module


def test_ptx_reference_lists_the_facades_functions():
    """pyptx.ptx re-exports functions that mkdocstrings only renders when its
    page lists them: each function or class ptx offers is listed there or
    defined in a pyptx.hw module (whose pages the ptx page links). The
    public names are gen_api_docs's (the plain API pages')."""
    import pyptx.ptx as ptx
    text = open(os.path.join(DOCS, "reference", "pyptx.ptx.md"), encoding="utf-8").read()
    listed = re.findall(r"^ {8}- (\w+)$", text, re.M)
    assert listed and all(hasattr(ptx, name) for name in listed), listed
    for name in _gen_api_docs()._public(ptx):
        value = getattr(ptx, name)
        if not (inspect.isfunction(value) or inspect.isclass(value)):
            continue
        origin = value.__module__
        if origin.startswith("pyptx.") and not origin.startswith("pyptx.hw."):
            assert name in listed, f"ptx.{name} ({origin}) is missing from pyptx.ptx.md"


def test_site_builds_without_warnings_and_its_links_resolve(tmp_path):
    pytest.importorskip("mkdocs", reason="the docs requirements are not installed "
                        "(bash scripts/build-docs.sh --setup)")
    env = dict(os.environ, DOCS_SITE_DIR=str(tmp_path / "site"))
    proc = subprocess.run(["bash", os.path.join(ROOT, "scripts", "build-docs.sh")],
                          capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "0 broken links" in proc.stdout
    assert os.path.isfile(tmp_path / "site" / "reference" / "pyptx.ptx" / "index.html")
    # scripts/docs_hooks.py: the docstrings' :mod: roles became links
    page = (tmp_path / "site" / "reference" / "pyptx.kernel" / "index.html").read_text()
    assert ":mod:" not in page
    assert '<a href="../../reference/pyptx.kernel_trace/"><code>pyptx.kernel_trace' in page


def test_link_check_finds_a_broken_anchor(tmp_path):
    """The link check itself: a missing page and a missing anchor are found."""
    sys.path.insert(0, os.path.join(ROOT, "scripts"))
    try:
        check = importlib.import_module("check_docs_links")
    finally:
        sys.path.pop(0)
    (tmp_path / "a").mkdir()
    (tmp_path / "index.html").write_text('<a href="a/#here">ok</a><a href="a/#gone">x</a>'
                                         '<a href="b/">x</a><a href="https://x.org/">ext</a>')
    (tmp_path / "a" / "index.html").write_text('<h2 id="here">h</h2><a href="../#top">x</a>')
    problems = check.broken_links(str(tmp_path))
    assert problems == ["a/index.html: link to a missing anchor: ../#top",
                        "index.html: link to a missing anchor: a/#gone",
                        "index.html: link to a missing file: b/"]
