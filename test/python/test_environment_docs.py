"""docs/environment.md lists every PYPTX_* environment variable the source
reads: each name quoted as a string in python/, lib/ or tools/ (how
os.environ and getenv take them) must have a row in its table."""
import os
import re

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SOURCE_SUFFIXES = (".py", ".pyi", ".cpp", ".h")


def variables_in_source() -> dict:
    found = {}
    for top in ("python", "lib", "tools"):
        for directory, _, files in os.walk(os.path.join(ROOT, top)):
            for name in files:
                if not name.endswith(SOURCE_SUFFIXES):
                    continue
                path = os.path.join(directory, name)
                with open(path, encoding="utf-8", errors="replace") as f:
                    for variable in re.findall(r"[\"'](PYPTX_[A-Z0-9_]+)[\"']", f.read()):
                        found.setdefault(variable, os.path.relpath(path, ROOT))
    return found


def variables_in_table() -> set:
    with open(os.path.join(ROOT, "docs", "environment.md")) as f:
        return set(re.findall(r"^\| `(PYPTX_[A-Z0-9_]+)` \|", f.read(), re.M))


def test_every_variable_read_is_in_the_table():
    source = variables_in_source()
    assert {"PYPTX_PTXAS", "PYPTX_CACHE_DIR", "PYPTX_LOG"} <= set(source)  # the scan works
    missing = {v: where for v, where in source.items() if v not in variables_in_table()}
    assert not missing, f"read in the source but not in docs/environment.md: {missing}"


def test_the_table_lists_only_variables_that_are_read():
    stale = variables_in_table() - set(variables_in_source())
    assert not stale, f"in docs/environment.md but read nowhere: {sorted(stale)}"
