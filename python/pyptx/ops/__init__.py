"""pyptx.ops: framework operations built on the example kernels, for use
in models (PyTorch autograd, torch.compile, CUDA graphs; JAX jit/grad).

- :func:`flash_attention` -- the Hopper flash attention forward
  (examples/hopper/flash_attention.py) with its backward, GQA, any
  lengths, sliding windows and packed sequences (docs/ops.md).
- :func:`matmul` -- the Hopper GEMM for any M, N, K with fused epilogues
  (bias, GELU / SiLU, residual) and its backward.
"""
from .attention import OpArgumentError, flash_attention
from .matmul import matmul

__all__ = ["flash_attention", "matmul", "OpArgumentError"]
