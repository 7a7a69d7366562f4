"""``mbarrier.*``: barrier objects in shared memory, arrays, pipeline state."""
from pyptx._inst import Namespace

mbarrier = Namespace("mbarrier", "ptx.mbarrier: Hopper mbarrier primitives.")
