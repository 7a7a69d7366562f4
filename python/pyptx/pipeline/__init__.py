"""pyptx.pipeline: the pieces every fast Hopper/Blackwell kernel needs, as a
library (CuTe ships them as ``cutlass.pipeline`` and its tile schedulers).

- :mod:`.ring` -- the shared-memory ring with full/empty mbarriers and
  phases: producer acquire/commit (TMA or thread producers), consumer
  wait/release; several rings per kernel.
- :mod:`.roles` -- warp-specialised producer/consumer roles
  (``setmaxnreg``), descriptor prefetch, the consumers' ping-pong.
- :mod:`.scheduler` -- persistent grouped (swizzled), M-first, attention
  (causal) and expert (MoE grouped GEMM) tile schedulers.
- :mod:`.epilogue` -- TmaStore (shared tile -> fence -> one thread's TMA
  store -> bulk wait), the wgmma accumulator's TMA-store epilogue, direct
  stores (predicated at the edges) and the fused epilogue (bias,
  activation, residual).
- :mod:`.wgmma_gemm` -- the warp-specialised TMA + wgmma GEMM main loop
  (Hopper) built on the above.
- :mod:`.attention` -- attention kernels' shared pieces: the per-sequence
  5-D TMA descriptor, a tile's key range (lengths, causal, window, packed
  sequences) and its masks, the float64 reference.
- :mod:`.hopper_gemm` -- the dense Hopper GEMM kernel for any M, N, K with
  fused epilogues (bias, GELU / SiLU, residual) and its per-shape plan.
- :mod:`.scales` -- FP8 dequantisation scales on a wgmma accumulator:
  per tensor, row-wise, DeepGEMM's block scales (promoted per k tile).
- :mod:`.fp8_gemm` -- the FP8 (e4m3) Hopper GEMM with those scales and
  the block-scaled grouped GEMM for MoE.
- :mod:`.tcgen05_gemm` -- Blackwell: TMEM accumulator double buffer,
  tcgen05 commits to mbarriers, the 1-SM/2-SM GEMM roles.

docs/pipeline.md shows a GEMM main loop written with them.
"""
from .epilogue import (FusedEpilogue, TmaStore, TmaStoreEpilogue, fragment_guards,
                       fragment_row_col, store_direct)
from .ring import ConsumerEnd, ProducerEnd, Ring, RingBarriers, init_rings
from .roles import (PingPong, consumer_role, launch_directives, prefetch_descriptors,
                    producer_role, warpgroup_ids)
from .scheduler import (AttentionScheduler, ExpertScheduler, GroupedScheduler,
                        MFirstScheduler, tile_order)

__all__ = ["Ring", "RingBarriers", "ProducerEnd", "ConsumerEnd", "init_rings",
           "producer_role", "consumer_role", "warpgroup_ids", "launch_directives",
           "prefetch_descriptors", "PingPong", "GroupedScheduler", "MFirstScheduler",
           "AttentionScheduler", "ExpertScheduler", "tile_order", "TmaStore", "TmaStoreEpilogue",
           "store_direct", "fragment_row_col", "fragment_guards", "FusedEpilogue"]
