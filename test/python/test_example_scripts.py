"""Every example file, run as a script with no arguments, prints its PTX
(a module with at least one .entry and a .target) and exits 0."""
import glob
import os
import subprocess
import sys

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
HELPERS = {"__init__.py", "for_arch.py"}   # modules that build no kernel of their own
SCRIPTS = sorted(p for p in glob.glob(os.path.join(ROOT, "examples", "*", "*.py"))
                 if os.path.basename(p) not in HELPERS
                 and not os.path.basename(p).startswith("_"))


@pytest.mark.parametrize("path", SCRIPTS, ids=[os.path.relpath(p, ROOT) for p in SCRIPTS])
def test_example_prints_its_ptx(path):
    env = dict(os.environ)
    native = os.environ.get("PYPTX_NATIVE_DIR") or os.path.join(ROOT, "build", "python",
                                                                 "pyptx")
    env["PYPTX_NATIVE_DIR"] = native
    proc = subprocess.run([sys.executable, path], capture_output=True, text=True,
                          timeout=300, cwd="/", env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert ".target sm_" in proc.stdout and ".entry " in proc.stdout, proc.stdout[:500]


def test_every_example_directory_is_covered():
    dirs = {os.path.basename(os.path.dirname(p)) for p in SCRIPTS}
    assert {"ampere", "hopper", "blackwell", "common"} <= dirs
