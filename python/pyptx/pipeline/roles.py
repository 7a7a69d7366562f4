"""Producer/consumer roles of a warp-specialised Hopper kernel: warpgroup 0
produces (one thread issues the TMA loads) with a lowered register budget,
the other warpgroups consume with a raised one (``setmaxnreg``), the way
CUTLASS's warp-specialised kernels split 64K registers:

    tid, wg, lane128 = warpgroup_ids()
    with producer_role(wg):                  # if wg == 0: setmaxnreg.dec 40
        with ptx.if_(tid == 0): ...          # the producer thread
    with consumer_role():                    # else: setmaxnreg.inc 232
        ...                                  # consumer warpgroup wg - 1

setmaxnreg needs a register cap at the kernel's entry: pass
``raw_directives=launch_directives(threads)`` to ``@kernel``.
"""
from __future__ import annotations

from contextlib import contextmanager

from .. import ptx, reg
from ..types import u32

PRODUCER_REGS, CONSUMER_REGS = 40, 232   # 128*40 + 256*232 <= 64K registers


def warpgroup_ids():
    """(tid, warpgroup, lane within the warpgroup) as u32 registers: one
    ``mov`` of %tid.x, a shift and an and."""
    tid = reg.from_(ptx.special.tid.x(), u32)
    return tid, tid >> 7, tid & 127


def launch_directives(threads: int = 384):
    """``.maxntid threads`` and ``.minnctapersm 1``: the register cap at entry
    (65536 / threads, rounded down to 8) that setmaxnreg moves registers
    within."""
    return [("maxntid", (threads, 1, 1)), ("minnctapersm", (1,))]


@contextmanager
def producer_role(wg, regs: int = PRODUCER_REGS, *, producer_wg: int = 0):
    """``if (wg == producer_wg) { setmaxnreg.dec regs; ... }``: the body is
    the producer warpgroup's (a ``consumer_role`` block must follow)."""
    with ptx.if_(wg == producer_wg):
        ptx.setmaxnreg(regs, inc=False)
        yield


@contextmanager
def consumer_role(regs: int = CONSUMER_REGS):
    """``else { setmaxnreg.inc regs; ... }`` right after a producer_role."""
    with ptx.else_():
        ptx.setmaxnreg(regs, inc=True)
        yield


def prefetch_descriptors(*descs):
    """``prefetch.tensormap`` of each TMA descriptor (None ones skipped), so
    that the first loads do not wait for the descriptors."""
    for desc in descs:
        if desc is not None:
            ptx.inst.prefetch.tensormap(ptx.addr(desc))


class PingPong:
    """Inter-warpgroup ping-pong of two consumer warpgroups on named barriers
    `ids` (256 threads each): a warpgroup issues its tensor-core work
    between take() (``bar.sync`` on its own barrier) and give()
    (``bar.arrive`` on the other's), so one's softmax/epilogue overlaps the
    other's MMAs. enabled=False: every call emits nothing."""

    def __init__(self, consumer, ids=(1, 2), *, enabled: bool = True):
        self.consumer, self.ids, self.enabled = consumer, ids, enabled
        if enabled:
            self.own = consumer + ids[0]
            self.other = ids[1] - consumer

    def start(self):
        """The first consumer's barrier gets the first arrival: it goes first."""
        if self.enabled:
            ptx.inst.bar.arrive(self.ids[0], 256, pred=self.consumer == 0)

    def take(self):
        if self.enabled:
            ptx.bar.sync(self.own, 256)

    def give(self):
        if self.enabled:
            ptx.inst.bar.arrive(self.other, 256)

    def finish(self):
        """The first consumer takes the second's last arrival, so that no
        named barrier is left half-arrived when the CTA exits."""
        if self.enabled:
            with ptx.if_(self.consumer == 0):
                ptx.bar.sync(self.own, 256)
