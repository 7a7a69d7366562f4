"""The package's shape: no import cycles between its modules (imports at
module level and inside functions alike), and no module over ~800 lines.

The import graph is read from the source with ``ast``, so it needs no
native module. An edge runs from a module to each module of the package it
names: ``import pyptx.a.b`` and ``from pyptx.a import b`` (b a module) name
``pyptx.a.b``; ``from pyptx.a import name`` (name not a module) names
``pyptx.a``; relative imports are resolved against the importing module's
package. Importing a submodule also runs its parent packages' __init__,
but that is not counted as an edge: the parents are ancestors, not
dependencies (counting it would make ``pyptx/__init__`` a cycle with
everything it re-exports).
"""
from __future__ import annotations

import ast
import os

import pytest

PACKAGE_DIR = os.path.join(os.path.dirname(__file__), "..", "..", "python", "pyptx")
MAX_MODULE_LINES = 800
# Modules the build puts beside the package (extensions, generated tables):
# imports of them are no edges of the graph.
BUILT_MODULES = frozenset({"pyptx._native", "pyptx._runtime", "pyptx._isa_table"})


def package_modules(root=PACKAGE_DIR, package="pyptx") -> dict[str, str]:
    """Dotted module name -> path, for every .py file under `root`."""
    modules = {}
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        rel = os.path.relpath(folder, root)
        prefix = package if rel == "." else package + "." + rel.replace(os.sep, ".")
        for file in sorted(files):
            if not file.endswith(".py"):
                continue
            name = prefix if file == "__init__.py" else f"{prefix}.{file[:-3]}"
            modules[name] = os.path.join(folder, file)
    return modules


def _imported(tree: ast.AST, module: str, is_package: bool, known) -> set[str]:
    """The package modules `tree` (the source of `module`) imports anywhere."""
    package = module if is_package else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            names = []
            for alias in node.names:
                submodule = f"{source}.{alias.name}"
                if submodule in BUILT_MODULES:
                    continue
                names.append(submodule if submodule in known else source)
        else:
            continue
        found.update(name for name in names if name in known)
    found.discard(module)
    return found


def import_graph(modules: dict[str, str]) -> dict[str, set[str]]:
    graph = {}
    for name, path in modules.items():
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read(), path)
        graph[name] = _imported(tree, name, path.endswith("__init__.py"), modules)
    return graph


def find_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle (as a path that returns to its start) per strongly
    connected component of more than one module (Tarjan's algorithm)."""
    index, low, stack, on_stack, components = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                components.append(set(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return [_cycle_in(graph, component) for component in components]


def _cycle_in(graph, component) -> list[str]:
    """A path start -> ... -> start inside `component` (breadth first)."""
    start = min(component)
    parents, frontier = {start: None}, [start]
    while frontier:
        following = []
        for v in frontier:
            for w in sorted(graph[v] & component):
                if w == start:
                    path = [v]
                    while parents[path[-1]] is not None:
                        path.append(parents[path[-1]])
                    return [start] + path[::-1][1:] + [start] if v != start else [start, start]
                if w not in parents:
                    parents[w] = v
                    following.append(w)
        frontier = following
    raise AssertionError(f"no cycle through {start} in {sorted(component)}")


def test_cycle_finder_names_a_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert find_cycles(graph) == [["a", "b", "c", "a"]]
    assert find_cycles({"a": {"b"}, "b": set()}) == []


def test_import_resolution(tmp_path):
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "a.py").write_text("def f():\n    from .sub import b\n")
    (pkg / "sub" / "b.py").write_text("from ..a import f\nimport pkg.sub.c\n")
    (pkg / "sub" / "c.py").write_text("from pkg import a\nfrom pkg.sub import nothing\n")
    graph = import_graph(package_modules(str(pkg), "pkg"))
    assert graph["pkg.a"] == {"pkg.sub.b"}
    assert graph["pkg.sub.b"] == {"pkg.a", "pkg.sub.c"}
    assert graph["pkg.sub.c"] == {"pkg.a", "pkg.sub"}
    assert find_cycles(graph) == [["pkg.a", "pkg.sub.b", "pkg.a"]]


def test_no_import_cycles():
    graph = import_graph(package_modules())
    assert len(graph) > 30  # the walk found the package
    cycles = find_cycles(graph)
    assert not cycles, "import cycles in pyptx:\n" + "\n".join(
        " -> ".join(cycle) for cycle in cycles) + "\n(one cycle of each group of " \
        "modules that import each other; break it, then rerun for the next)"


@pytest.mark.parametrize("module, path", sorted(package_modules().items()))
def test_module_size(module, path):
    with open(path, encoding="utf-8") as f:
        lines = sum(1 for _ in f)
    assert lines <= MAX_MODULE_LINES, (
        f"{module} ({path}) has {lines} lines, over {MAX_MODULE_LINES}: split it by job")


def test_moved_names_are_the_same_objects_under_their_old_names():
    """The original's module names re-export the moved units, not copies."""
    import importlib

    from pyptx import kernel_trace, raw_params, reg, smem, toolchain
    from pyptx import wgmma_layout as old_layout
    from pyptx.hw import mbarrier, wgmma_layout
    assert smem.MbarrierArray is mbarrier.MbarrierArray
    assert smem.MbarrierRef is mbarrier.MbarrierRef
    for name in old_layout.__all__:
        assert getattr(old_layout, name) is getattr(wgmma_layout, name), name
    kernel = importlib.import_module("pyptx.kernel")  # pyptx.kernel is the decorator
    assert kernel.RawParam is raw_params.RawParam
    assert kernel.TracedModule is kernel_trace.TracedModule
    assert kernel._find_tool is toolchain.find_tool
    assert callable(reg.wgmma_frag) and callable(smem.wgmma_tile)
