"""pyptx.ops: framework operations built on the example kernels, for use
in models (PyTorch autograd, torch.compile, CUDA graphs; JAX jit/grad).

- :func:`flash_attention` -- the Hopper flash attention forward
  (examples/hopper/flash_attention.py) with its backward, GQA, any
  lengths, sliding windows and packed sequences (docs/ops.md).
- :func:`matmul` -- the Hopper GEMM for any M, N, K with fused epilogues
  (bias, GELU / SiLU, residual) and its backward.
- :func:`matmul_fp8` -- the Hopper FP8 (e4m3) GEMM with per-tensor,
  row-wise or block (DeepGEMM) scales; forward only.
- :func:`matmul_fp8_dynamic` -- a @ b through that FP8 GEMM with scales
  computed at each call (training), and its backward through it too.
"""
from .attention import OpArgumentError, flash_attention
from .matmul import matmul
from .matmul_fp8 import matmul_fp8
from .matmul_fp8_train import matmul_fp8_dynamic

__all__ = ["flash_attention", "matmul", "matmul_fp8", "matmul_fp8_dynamic", "OpArgumentError"]
