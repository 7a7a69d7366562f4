"""The GPU suite: launches through pyptx.runtime. Without a visible GPU
(or without PyTorch) every test here is skipped, with the reason."""
import os
import sys

import pytest

# JAX and PyTorch share the GPUs in this process: JAX takes memory as it
# needs it instead of 75% of each card up front.
os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path[:0] = [os.path.join(ROOT, "python"), ROOT]

try:
    import torch
    NO_GPU = None if torch.cuda.is_available() else "no GPU visible to PyTorch"
except ImportError:
    torch, NO_GPU = None, "PyTorch is not installed"

if NO_GPU:
    # A skip raised from conftest itself is an error in pytest; skipping
    # each module as it is collected reports every file as skipped instead.
    class _SkippedModule(pytest.Module):
        def collect(self):
            pytest.skip(NO_GPU, allow_module_level=True)

    def pytest_pycollect_makemodule(module_path, parent):
        return _SkippedModule.from_parent(parent, path=module_path)


@pytest.fixture(autouse=True)
def _seed():
    torch.manual_seed(0)


@pytest.fixture
def jax_gpu():
    """The jax module, with a GPU it can see (else the test is skipped)."""
    jax = pytest.importorskip("jax")
    if not any(d.platform == "gpu" for d in jax.devices()):
        pytest.skip("JAX sees no GPU")
    return jax
