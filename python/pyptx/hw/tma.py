"""TMA and bulk copies: ``cp.async.bulk.*`` and ``ptx.tma``."""
from pyptx._inst import Namespace

bulk = Namespace("cp.async.bulk", "ptx.cp.async_.bulk: bulk and tensor (TMA) copies.")
tma = Namespace("cp.async.bulk.tensor", "ptx.tma: TMA loads and stores with the 3-D tiled layout.")
HELPERS = {}  # ptx.cp.<name> members besides async_ (e.g. async_bulk)
