"""Warp-level units: ``mma.sync``, ``ldmatrix``, ``stmatrix``, ``elect.sync``."""
from pyptx._inst import Namespace

mma = Namespace("mma", "ptx.mma.sync(...): warp-level tensor-core MMA.")
