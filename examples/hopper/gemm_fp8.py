"""Hopper (sm_90a) FP8 GEMM: C = (sa * A) @ (sb * B)^T, A (M, K) and B (N, K)
e4m3 (both K-major: a linear layer's activations and weight), f32
accumulation, bf16 out, with one of three scalings:

- "tensor": one f32 scale for A and one for B (read from device memory, so
  CUDA graphs replay with new values), applied in the epilogue;
- "row": one f32 per row of A (M,) and per row of B (N,), applied in the
  epilogue;
- "block": DeepGEMM's fine-grained scales, sa (M, K/128) per 1 x 128 block
  of A and sb (N/128, K/128) per 128 x 128 block of B. Every 128 of K the
  k tile's wgmma result is promoted into the f32 accumulator with its
  scales, acc += partial * (sa[row] * sb), and the partial restarts from
  zero: FP8 wgmma sums in reduced precision inside the tensor core, and
  this is how DeepGEMM keeps the result accurate.

Plus the grouped FP8 GEMM of a mixture-of-experts layer with the same block
scales: rows offs[g-1]:offs[g] of A (T, K) go through expert g's B (rows
g*N.. of B (G*N, K)) and its scales (the contiguous layout; the expert
tile scheduler of grouped_gemm.py).

The kernels are library code (pyptx.pipeline.fp8_gemm over the warp-
specialised TMA + wgmma main loop of pyptx.pipeline.wgmma_gemm, with
``wgmma m64n{128,256}k32 .e4m3.e4m3``; the scales are pyptx.pipeline.scales);
pyptx.ops.matmul_fp8 launches them. This file holds the float64 reference
and a quantiser for tests and benchmarks.

    python examples/hopper/gemm_fp8.py [M N K]    # prints the PTX
"""
from __future__ import annotations

import os
import sys

if __package__ in (None, ""):  # run as a script: make `examples` importable
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

import numpy as np  # noqa: E402

import examples.common  # noqa: E402,F401  (makes pyptx importable)
from pyptx.pipeline.fp8_gemm import (BLOCK, SCALINGS, build_gemm_fp8,  # noqa: E402,F401
                                     build_grouped_gemm_fp8, k_blocks, plan_gemm_fp8,
                                     scale_shapes)

E4M3_MAX = 448.0


def dequantize(x, scale, scaling, *, block_rows=1):
    """float64 x * scale, scale broadcast by `scaling`: a scalar ("tensor"),
    one per row ("row"), or one per block_rows x 128 block ("block")."""
    x = np.asarray(x, dtype=np.float64)
    s = np.asarray(scale, dtype=np.float64)
    if scaling == "tensor":
        return x * s.reshape(())
    if scaling == "row":
        return x * s.reshape(-1, 1)
    rows, cols = x.shape
    full = np.repeat(np.repeat(s, block_rows, axis=0), BLOCK, axis=1)
    return x * full[:rows, :cols]


def reference(a, b, sa, sb, scaling):
    """float64 C = dequantize(A) @ dequantize(B)^T for A (M, K) and B (N, K)
    (the e4m3 values as floats) and their scales."""
    return dequantize(a, sa, scaling) @ dequantize(b, sb, scaling, block_rows=BLOCK).T


def reference_grouped(a, b, sa, sb, offs):
    """float64 C (T, N) of the grouped kernel (block scales); rows past
    offs[-1] are NaN (not written)."""
    G = len(offs)
    N = b.shape[0] // G
    a64 = dequantize(a, sa, "block")
    b64 = dequantize(b, sb, "block", block_rows=BLOCK)
    out = np.full((a.shape[0], N), np.nan)
    start = 0
    for g, end in enumerate(int(o) for o in offs):
        out[start:end] = a64[start:end] @ b64[g * N:(g + 1) * N].T
        start = end
    return out


def quantize(x, scaling, *, block_rows=1):
    """(e4m3 tensor, f32 scales) of a torch tensor x (rows, K) with x ~
    e4m3 * scale: the scale of each group ("tensor": all; "row": a row;
    "block": a block_rows x 128 block) maps its largest |x| to 448."""
    import torch
    x = x.float()
    rows, cols = x.shape
    if scaling == "tensor":
        amax = x.abs().amax().reshape(1)
        scale = amax.clamp(min=1e-12) / E4M3_MAX
        return (x / scale).to(torch.float8_e4m3fn), scale
    if scaling == "row":
        scale = x.abs().amax(dim=1).clamp(min=1e-12) / E4M3_MAX
        return (x / scale[:, None]).to(torch.float8_e4m3fn), scale
    pr, pc = -rows % block_rows, -cols % BLOCK
    xp = torch.nn.functional.pad(x, (0, pc, 0, pr))
    blocks = xp.reshape(xp.shape[0] // block_rows, block_rows, xp.shape[1] // BLOCK, BLOCK)
    scale = blocks.abs().amax(dim=(1, 3)).clamp(min=1e-12) / E4M3_MAX
    full = scale.repeat_interleave(block_rows, 0).repeat_interleave(BLOCK, 1)[:rows, :cols]
    return (x / full).to(torch.float8_e4m3fn), scale.contiguous()


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    M, N, K = (int(a) for a in argv[:3]) if len(argv) >= 3 else (512, 512, 512)
    for scaling in SCALINGS:
        print(build_gemm_fp8(M, N, K, scaling=scaling).ptx(), end="")
    print(build_grouped_gemm_fp8(M, N, K, 4).ptx(), end="")


if __name__ == "__main__":
    main()
