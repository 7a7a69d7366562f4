"""Hopper (sm_90a) persistent, warp-specialised bf16 GEMM: C = A @ B, f32
accumulation, bf16 or f32 out, any M, N, K (K and N multiples of 8), with
an optional fused epilogue (bias, GELU / SiLU, residual).

A is M x K, row-major. B is either N x K row-major (``b_major="K"``: the
layout a linear layer's weight has; C = A @ B.T) or K x N row-major
(``b_major="MN"``; C = A @ B). Each CTA has 384 threads in three
warpgroups:

- warpgroup 0 is the producer: it lowers its register budget
  (``setmaxnreg.dec``) and one thread issues TMA loads of 128 x 64 A tiles
  and bn x 64 B tiles (bn 256 or 128; 128-byte swizzle) into a ring of
  STAGES shared-memory stages; a ``full`` mbarrier per stage counts the
  bytes in, an ``empty`` one counts the consumers out;
- warpgroups 1 and 2 are consumers (``setmaxnreg.inc``): each issues
  ``wgmma.mma_async m64n{bn}k16`` on its 64-row half of the 128 x bn tile,
  keeps one wgmma group in flight (``wait_group(1)``) and frees a stage as
  soon as the wgmmas that read it are done.

The grid is persistent (one CTA per SM); tiles are walked in a grouped
order (GROUP_M cluster rows at a time) so that the tiles in flight share
A rows and B columns in L2. With ``cluster=2`` (the default for a K-major
B when there are more than two tiles per SM) two CTAs of a 2x1 cluster
compute vertically adjacent tiles: each loads its own A tile and half of
the shared B tile, multicast to both (``.multicast::cluster``), and the
consumers free a stage in both CTAs (``mapa`` + remote arrive). The bf16
epilogue goes through shared memory (``stmatrix`` into a 128B-swizzled
tile, in chunks beside the ring, then a TMA store that stops at C's
bounds; for a C whose rows are not whole 64-column stripes, one store per
stripe); the f32 one (and a C narrower than 64 columns or shorter than 64
rows) stores the fragments to global memory, predicated at the edges.
Loads past A's or B's edge (tails of M, N, K) are zero-filled by TMA.
The producer prefetches the TMA descriptors first (``prefetch.tensormap``).

Measured on an H100 (benchmarks/NOTES.md): 0.99-1.03x cuBLAS at 4096^3,
1.02-1.09x at 8192^3.

The kernel builder is library code (pyptx.pipeline.hopper_gemm, shared
with pyptx.ops.matmul; its pieces -- ring, roles, producer, consumer
k-loop, grouped scheduler, epilogues -- are pyptx.pipeline's, shared with
examples/hopper/grouped_gemm.py). ``plan_gemm`` picks the tile width,
cluster and split-K for a shape.

    python examples/hopper/gemm.py [M N K]    # prints the PTX
"""
from __future__ import annotations

import os
import sys

if __package__ in (None, ""):  # run as a script: make `examples` importable
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

import numpy as np  # noqa: E402

import examples.common  # noqa: E402,F401  (makes pyptx importable)
from pyptx.pipeline import scheduler  # noqa: E402
from pyptx.pipeline import hopper_gemm  # noqa: E402
from pyptx.pipeline.hopper_gemm import (ARCH, CLUSTER_MIN_WAVES, GROUP_M,  # noqa: E402,F401
                                        NUM_SMS, check_shape, plan_gemm)
from pyptx.pipeline.roles import CONSUMER_REGS, PRODUCER_REGS  # noqa: E402,F401
from pyptx.pipeline.wgmma_gemm import (BK, BM, BN, CONSUMERS, THREADS,  # noqa: E402,F401
                                       Config, smem_bytes)

tile_order = scheduler.tile_order


def build_gemm(M: int, N: int, K: int, **options):
    """The kernel for A (M x K) and B -> C (M x N): the library's
    pyptx.pipeline.hopper_gemm.build_gemm, whose docstring lists the
    options (b_major, out_dtype, cluster, stages, epilogue, bn, split_k,
    bias, activation, residual, ...)."""
    return hopper_gemm.build_gemm(M, N, K, **options)


def gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))


def silu(x):
    return x / (1 + np.exp(-x))


def reference(a: np.ndarray, b: np.ndarray, b_major: str = "K", bias=None,
              activation=None, residual=None) -> np.ndarray:
    """C in float64: A @ B.T for b_major "K" (B is N x K), A @ B for "MN";
    then act(C + bias) + residual when given."""
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    c = a64 @ (b64.T if b_major == "K" else b64)
    if bias is not None:
        c = c + bias.astype(np.float64)
    if activation is not None:
        c = {"gelu": gelu_tanh, "silu": silu}[activation](c)
    if residual is not None:
        c = c + residual.astype(np.float64)
    return c


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    M, N, K = (int(a) for a in argv[:3]) if len(argv) >= 3 else (512, 512, 256)
    print(build_gemm(M, N, K).ptx(), end="")


if __name__ == "__main__":
    main()
