"""Fences (``ptx.fence``) and CTA barriers (``ptx.bar.sync``, named barriers).

Proxy fences order the generic proxy (ordinary loads and stores,
``mbarrier.init``) against the async proxy (TMA, wgmma/tcgen05 operand
reads): after initialising an mbarrier that a TMA copy will signal, one
thread issues ``fence.proxy.async.shared::cta`` (one CTA) or
``fence.mbarrier_init.release.cluster`` (barriers other CTAs signal).
"""
from __future__ import annotations

from pyptx._inst import Namespace, emit, fail
from pyptx._trace import get_ctx, user_loc


def proxy_async(*, pred=None):
    """``fence.proxy.async;`` -- all state spaces."""
    emit("fence.proxy.async", pred=pred)


def proxy_async_shared_cta(*, pred=None):
    """``fence.proxy.async.shared::cta;`` -- makes this CTA's shared-memory
    writes (an ``mbarrier.init``, a tile written by threads for a TMA store)
    visible to the async proxy. Without it after ``mbarrier.init``, a TMA
    copy may signal the barrier's stale contents and the wait never ends::

        mbarrier.init [bar], 1;
        fence.proxy.async.shared::cta;
        mbarrier.arrive.expect_tx [bar], bytes;
        cp.async.bulk.tensor... [bar];
        mbarrier.try_wait.parity [bar], phase;
    """
    emit("fence.proxy.async.shared::cta", pred=pred)


def proxy_async_generic_acquire_shared_cluster(*, pred=None):
    """``fence.proxy.async::generic.acquire.sync_restrict::shared::cluster.cluster;``
    -- acquires, for the generic proxy, what the async proxy wrote to shared
    memory of the cluster (used after waiting on a cluster hand-off before
    reusing a collective TMA slot). PTX ISA 8.6, sm_90 and later."""
    emit("fence.proxy.async::generic.acquire.sync_restrict::shared::cluster.cluster",
         pred=pred)


def mbarrier_init(*, pred=None):
    """``fence.mbarrier_init.release.cluster;`` -- publishes preceding
    ``mbarrier.init`` to the cluster (before other CTAs arrive on them or TMA
    multicast signals them; follow with a cluster barrier)."""
    emit("fence.mbarrier_init.release.cluster", pred=pred)


def _check_barrier(n, count):
    if isinstance(n, int) and not 0 <= n <= 15:
        fail(f"bar.sync barrier id must be 0 to 15 (a CTA has 16 named barriers); got {n}")
    if isinstance(count, int) and (count <= 0 or count % 32):
        fail(f"bar.sync thread count must be a positive multiple of 32 (whole warps "
             f"take part); got {count}")


def sync(n=0, count=None, *, pred=None):
    """``bar.sync n[, count];`` -- waits until `count` threads (default: all
    of the CTA) have reached barrier `n` (0-15; an int or a register)."""
    _check_barrier(n, count)
    ctx = get_ctx()
    observer = getattr(ctx, "wait_observer", None)  # a debugkit.WaitMap timing waits
    t0 = observer.before_wait() if observer is not None else None
    if count is None:
        emit("bar.sync", n, pred=pred)
    else:
        emit("bar.sync", n, count, pred=pred)
    if observer is not None:
        observer.after_wait(t0, user_loc())


class NamedBarrier:
    """Barrier `barrier_id` (0-15) of the CTA for `count` threads (None: all):
    ``NamedBarrier(1, 256).sync()`` emits ``bar.sync 1, 256;``."""

    __slots__ = ("barrier_id", "count")

    def __init__(self, barrier_id, count=None):
        _check_barrier(barrier_id, count)
        self.barrier_id, self.count = barrier_id, count

    def sync(self, *, pred=None):
        """``bar.sync barrier_id[, count];``"""
        sync(self.barrier_id, self.count, pred=pred)

    def __repr__(self):
        return f"NamedBarrier({self.barrier_id!r}, {self.count!r})"


def named_barrier(barrier_id, *, count=None):
    """A :class:`NamedBarrier` (no instruction)."""
    return NamedBarrier(barrier_id, count)


fence = Namespace(
    "fence", "ptx.fence: memory and proxy fences.",
    proxy_async=proxy_async, proxy_async_shared_cta=proxy_async_shared_cta,
    proxy_async_generic_acquire_shared_cluster=proxy_async_generic_acquire_shared_cluster,
    mbarrier_init=mbarrier_init)
bar = Namespace("bar", "ptx.bar.sync(n, count): CTA barriers.", sync=sync)
