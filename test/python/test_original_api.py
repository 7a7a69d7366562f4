"""Every name of the original pyptx's documented API (original_api.FACTS)
exists in ours with a compatible signature: each documented positional
parameter at the same position with the same name, each keyword-only one
accepted by keyword, the same defaults, and no extra required parameter."""
import ast
import importlib
import inspect

import pytest

from original_api import FACTS

_EMPTY = inspect.Parameter.empty
P = inspect.Parameter


def _facts():
    module = None
    for line in FACTS.strip().splitlines():
        line = line.strip()
        if not line:
            continue
        if line.startswith("["):
            module = line.strip("[]")
            continue
        yield module, line


def _lookup(module_name, dotted):
    """The object at module.dotted (class attributes looked up on the class,
    so classmethods come bound and properties come as properties)."""
    obj = importlib.import_module(module_name)
    for part in dotted.split("."):
        if inspect.isclass(obj):
            raw = inspect.getattr_static(obj, part)
            obj = raw if isinstance(raw, property) else getattr(obj, part)
        else:
            obj = getattr(obj, part)
    return obj


def _documented(sig_text):
    """[(name, kind, default source or _EMPTY)] of a signature's text."""
    tree = ast.parse(f"def f{sig_text}: pass").body[0].args
    params = []
    positional = tree.posonlyargs + tree.args
    defaults = [None] * (len(positional) - len(tree.defaults)) + tree.defaults
    for a, d in zip(positional, defaults):
        params.append((a.arg, P.POSITIONAL_OR_KEYWORD,
                       _EMPTY if d is None else ast.unparse(d)))
    if tree.vararg:
        params.append((tree.vararg.arg, P.VAR_POSITIONAL, _EMPTY))
    for a, d in zip(tree.kwonlyargs, tree.kw_defaults):
        params.append((a.arg, P.KEYWORD_ONLY, _EMPTY if d is None else ast.unparse(d)))
    if tree.kwarg:
        params.append((tree.kwarg.arg, P.VAR_KEYWORD, _EMPTY))
    return params


def _value(source):
    from pyptx.specs import Layout  # noqa: F401  (defaults may name it)
    return eval(source)


def _problems(doc, ours):
    problems = []
    ours_params = list(ours.parameters.values())
    positional = [p for p in ours_params if p.kind in (P.POSITIONAL_ONLY, P.POSITIONAL_OR_KEYWORD)]
    has_var_pos = any(p.kind == P.VAR_POSITIONAL for p in ours_params)
    has_var_kw = any(p.kind == P.VAR_KEYWORD for p in ours_params)
    by_name = {p.name: p for p in ours_params}
    index = 0
    documented_names = set()
    for name, kind, default in doc:
        documented_names.add(name)
        if kind == P.VAR_POSITIONAL:
            if not has_var_pos:
                problems.append(f"*{name}: ours takes no *args")
            continue
        if kind == P.VAR_KEYWORD:
            if not has_var_kw:
                problems.append(f"**{name}: ours takes no **kwargs")
            continue
        if kind == P.POSITIONAL_OR_KEYWORD:
            if index < len(positional):
                mine = positional[index]
                if mine.name != name:
                    problems.append(f"positional parameter {index} is {mine.name!r}, "
                                    f"documented {name!r}")
            elif not has_var_pos:
                problems.append(f"positional parameter {index} ({name}) missing")
                index += 1
                continue
            index += 1
            mine = by_name.get(name)
        else:
            mine = by_name.get(name)
            if mine is None or mine.kind not in (P.POSITIONAL_OR_KEYWORD, P.KEYWORD_ONLY):
                if not has_var_kw:
                    problems.append(f"keyword {name!r} not accepted")
                continue
        if mine is None or default is _EMPTY:
            continue
        if mine.default is _EMPTY:
            problems.append(f"{name}: documented default {default}, ours has none")
        elif default != "FACTORY" and mine.default != _value(default):
            problems.append(f"{name}: default {mine.default!r}, documented {default}")
    for p in ours_params:
        if p.name not in documented_names and p.default is _EMPTY and \
                p.kind not in (P.VAR_POSITIONAL, P.VAR_KEYWORD) and p.name not in ("self", "cls"):
            problems.append(f"extra required parameter {p.name!r}")
    return problems


CASES = list(_facts())


@pytest.mark.parametrize("module_name,fact", CASES, ids=[f"{m}:{f.split('(')[0].split(' ')[0]}"
                                                         for m, f in CASES])
def test_documented_name(module_name, fact):
    if " = " in fact:
        dotted, value = fact.split(" = ")
        assert _lookup(module_name, dotted) == _value(value)
        return
    dotted = fact.split("(")[0]
    obj = _lookup(module_name, dotted)
    if "(" not in fact:
        return  # it exists
    assert callable(obj), f"{module_name}.{dotted} is not callable"
    sig_text = fact[len(dotted):]
    ours = inspect.signature(obj)
    problems = _problems(_documented(sig_text), ours)
    assert not problems, f"{module_name}.{dotted}{ours} vs documented {sig_text}: " + \
        "; ".join(problems)


def test_facts_cover_every_documented_page():
    modules = {m for m, _ in CASES}
    assert modules == {"pyptx", "pyptx.kernel", "pyptx.reg", "pyptx.smem", "pyptx.ptx",
                       "pyptx.types", "pyptx.specs", "pyptx.wgmma_layout", "pyptx.cache",
                       "pyptx.jax_support", "pyptx.torch_support", "pyptx.debugkit"}
    assert len(CASES) > 250
