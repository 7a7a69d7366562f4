"""Warpgroup-level units: ``wgmma.*`` and ``setmaxnreg``."""
from pyptx._inst import Namespace

wgmma = Namespace("wgmma", "ptx.wgmma.mma_async(...), ptx.wgmma.fence(), ...")
