"""Puts the source package (python/pyptx) first on sys.path; pyptx/__init__.py
adds build/python/pyptx (or $PYPTX_NATIVE_DIR), where the build puts
_native*.so and _isa_table.py. Without the native module every test fails
with one clear message instead of being skipped."""
import glob
import os
import shutil
import sys

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "python"))

NATIVE_DIR = os.environ.get("PYPTX_NATIVE_DIR") or os.path.join(ROOT, "build", "python", "pyptx")
NATIVE_FOUND = bool(glob.glob(os.path.join(NATIVE_DIR, "_native*.so")))


@pytest.fixture(autouse=True)
def _require_native():
    if not NATIVE_FOUND:
        pytest.fail(f"pyptx._native is not built: no _native*.so in {NATIVE_DIR} "
                    f"(build the project first, or set PYPTX_NATIVE_DIR)", pytrace=False)


@pytest.fixture
def ptxas():
    """Path of ptxas (the CUDA toolkit is installed on the build machines)."""
    path = shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"
    assert os.access(path, os.X_OK), "ptxas not found (expected /usr/local/cuda/bin/ptxas)"
    return path


@pytest.fixture
def assemble(ptxas, tmp_path):
    """assemble(ptx_text, arch) runs ptxas and fails the test on its errors."""
    import subprocess

    def run(text, arch="sm_90a", extra=()):
        src = tmp_path / "k.ptx"
        src.write_text(text)
        proc = subprocess.run([ptxas, f"-arch={arch}", *extra, "-o",
                               str(tmp_path / "k.cubin"), str(src)],
                              capture_output=True, text=True)
        assert proc.returncode == 0, f"ptxas rejected the PTX:\n{proc.stderr}\n{text}"
        return tmp_path / "k.cubin"
    return run


def line_of(path, marker):
    """1-based number of the line of `path` that contains `marker`."""
    with open(path) as f:
        for number, text in enumerate(f, 1):
            if marker in text and "line_of(" not in text:
                return number
    raise AssertionError(f"marker {marker!r} not in {path}")


def mark():
    """A marker instruction (membar.cta) that `between` splits the PTX at."""
    from pyptx import ptx
    ptx.inst.membar.cta()


def between(text):
    """The instruction lines between the first two `mark()`s of a kernel."""
    lines = [l.strip() for l in text.splitlines()]
    first = lines.index("membar.cta;")
    second = lines.index("membar.cta;", first + 1)
    return lines[first + 1:second]


def error_in(path, k, marker):
    """Traces `k`, expects a KernelError at the line of `path` holding
    `marker`; returns its message."""
    from pyptx.errors import KernelError
    with pytest.raises(KernelError) as info:
        k.ptx()
    assert info.value.line == line_of(path, marker), str(info.value)
    assert os.path.samefile(info.value.file, path)
    return info.value.message
