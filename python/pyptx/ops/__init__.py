"""pyptx.ops: framework operations (PyTorch and JAX) built on pyptx kernels."""
from .matmul import matmul  # noqa: F401
