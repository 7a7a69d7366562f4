"""Blackwell tensor cores: ``tcgen05.*``."""
from pyptx._inst import Namespace

tcgen05 = Namespace("tcgen05", "ptx.tcgen05: Blackwell tensor-core ops.")
