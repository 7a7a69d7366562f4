"""The tensor-core layer, one module per hardware unit, exposed through the
original pyptx's ``ptx.*`` names (see pyptx.ptx):

- ``warp``       warp-level ``mma.sync``, ``ldmatrix``, ``stmatrix``, ``elect.sync``
- ``warp_reduce`` ``shfl.sync`` and the warp reductions (``ptx.warp.reduce_*``,
  ``argmax``/``argmin``)
- ``warpgroup``  ``wgmma.*`` and ``setmaxnreg``
- ``descriptors`` the wgmma shared-memory descriptor as plain data
- ``wgmma_layout`` wgmma's canonical tile layouts and accumulator fragments
  (the rules behind ``smem.wgmma_tile`` and ``reg.wgmma_frag``)
- ``tma``        TMA and bulk copies (``cp.async.bulk.*``, ``ptx.tma``)
- ``cp_async``   Ampere ``cp.async``
- ``mbarrier``   ``mbarrier.*``, the mbarrier objects ``smem.mbarrier``
  makes, barrier arrays, pipeline state
- ``cluster``    ``barrier.cluster.*``, ``mapa``, remote arrives
- ``fence``      ``fence.*`` and CTA barriers (``bar.sync``, named barriers)
- ``tcgen05``    Blackwell ``tcgen05.*`` (descriptors in ``tcgen05_desc``)
- ``printf``     device-side ``vprintf`` calls (``pyptx.debugkit.printf``)
"""
