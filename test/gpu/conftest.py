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

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("no GPU visible to PyTorch", allow_module_level=True)


@pytest.fixture(autouse=True)
def _seed():
    torch.manual_seed(0)
