"""The shared-memory ring: `stages` buffers, each guarded by a ``full``
mbarrier (the producer says the data is in) and an ``empty`` one (the
consumers say they are done with it), and the phase bits that let each side
wait on the right lap of the ring.

A kernel may hold several rings (flash attention: Q, K and V; a backward
pass: Q, K/V, dO ...): each :class:`Ring` owns its barriers; the buffers
are the caller's (allocate them with ``smem.wgmma_tile`` / ``smem.alloc``
and index them with the stage register the ring hands out).

    ring = Ring(stages=4, empty_arrivals=2)      # allocates 2 x 4 mbarriers
    init_rings(tid == 0, [ring])                 # mbarrier.init + fence + bar.sync
    barriers = ring.barriers()                   # their addresses in registers
    # producer thread (TMA):
    producer = ring.producer(barriers)
    stage, full = producer.acquire()             # waits until the stage is empty
    full.arrive_expect_tx(nbytes); ptx.cp.async_.bulk.tensor_2d(..., mbar=full)
    # consumer warpgroup:
    consumer = ring.consumer(barriers)
    stage = consumer.wait()                      # waits until the stage is full
    ...; consumer.release(stage, pred=lane == 0)

Phases: every barrier starts in phase 0. A consumer waits for the phase
to complete (parity 0 on the first lap); a producer waits on the empty
barrier with parity 1 on its first lap, which passes at once (the stage
was never filled), so the ring needs no pre-arrival.
"""
from __future__ import annotations

from .. import ptx, reg, smem
from ..types import u32


class Ring:
    """The full/empty mbarriers of a ring of `stages` stages (allocated here,
    in shared memory: full then empty). full_arrivals: arrivals that
    complete a full barrier besides its transaction bytes (1: the producer
    thread's ``arrive.expect_tx``; a thread producer: its thread count).
    empty_arrivals: arrivals that free a stage (one per consumer, times the
    CTAs of a cluster that free it remotely)."""

    def __init__(self, stages: int, *, full_arrivals: int = 1, empty_arrivals: int = 1):
        self.stages = stages
        self.full_arrivals, self.empty_arrivals = full_arrivals, empty_arrivals
        self.full = smem.mbarrier(stages)
        self.empty = smem.mbarrier(stages)

    def init_stage(self, stage: int):
        """``mbarrier.init`` of one stage's full, then empty, barrier."""
        self.init_full(stage)
        self.init_empty(stage)

    def init_full(self, stage: int):
        ptx.mbarrier.init(self.full[stage], self.full_arrivals)

    def init_empty(self, stage: int):
        ptx.mbarrier.init(self.empty[stage], self.empty_arrivals)

    def barriers(self) -> "RingBarriers":
        """The barriers as arrays indexed by a stage register: two ``mov`` of
        their addresses (do it once per thread role, before its loop)."""
        return RingBarriers(ptx.mbarrier.array(reg.from_(self.full, u32), 0, self.stages),
                            ptx.mbarrier.array(reg.from_(self.empty, u32), 0, self.stages))

    def producer(self, barriers: "RingBarriers | None" = None, **kw) -> "ProducerEnd":
        """The producing side (see ProducerEnd); barriers: from barriers()
        (made now when None)."""
        return ProducerEnd(self, barriers, **kw)

    def consumer(self, barriers: "RingBarriers | None" = None, **kw) -> "ConsumerEnd":
        """The consuming side (see ConsumerEnd)."""
        return ConsumerEnd(self, barriers, **kw)


class RingBarriers:
    """A ring's full and empty barriers as ``ptx.mbarrier.array``s."""

    def __init__(self, full, empty):
        self.full, self.empty = full, empty


def init_rings(leader, rings, *, cluster: bool = False, sync: bool = True, extra=None):
    """Thread `leader` initialises the barriers of `rings` (stage by stage:
    every ring's full barrier, then every ring's empty one), calls extra()
    (more mbarrier.init), then fences the inits: ``fence.mbarrier_init`` for
    a cluster (its peers arrive remotely), else ``fence.proxy.async``.
    sync: then every thread meets (``barrier.cluster`` for a cluster, else
    ``bar.sync 0``)."""
    with ptx.if_(leader):
        if extra is not None:
            extra()
        for s in range(max(r.stages for r in rings)):
            for r in rings:
                if s < r.stages:
                    r.init_full(s)
            for r in rings:
                if s < r.stages:
                    r.init_empty(s)
        if cluster:
            ptx.fence.mbarrier_init()
        else:
            ptx.fence.proxy_async_shared_cta()
    if sync:
        if cluster:
            ptx.cluster.sync()
        else:
            ptx.bar.sync(0)


class _End:
    """What both ends share: the ring, a cursor/phase state, the barriers."""

    def __init__(self, ring, barriers, phase, bind):
        self.ring = ring
        self.state = ptx.pipeline(ring.stages, phase=phase)
        self.barriers = barriers
        if barriers is None and bind:
            self.bind()

    def bind(self, barriers: RingBarriers | None = None):
        """Sets the barrier arrays (ring.barriers() when None): for a role
        that makes its registers in a chosen order."""
        self.barriers = barriers if barriers is not None else self.ring.barriers()
        return self

    def full_at(self, stage):
        """The full barrier of `stage` (a register); no instruction until used."""
        return self.barriers.full.at(stage)

    def empty_at(self, stage):
        """The empty barrier of `stage` (a register); no instruction until used."""
        return self.barriers.empty.at(stage)


class ProducerEnd(_End):
    """The producer's cursor and phase (the phase starts at 1: the first lap
    does not wait). bind=False: call bind() later (the barriers' movs then
    come after this state's registers)."""

    def __init__(self, ring, barriers=None, *, bind: bool = True):
        super().__init__(ring, barriers, reg.scalar(u32, init=1), bind)

    def acquire(self):
        """Advances to the next stage and waits until its consumers freed it
        (the 4-instruction advance, one ``mad`` for the barrier's address,
        the 2-instruction spin-wait); returns (stage
        register, its full barrier) -- arrive on the full barrier with
        ``arrive_expect_tx`` (TMA) or commit()/commit_cp_async()."""
        stage, phase = self.state.advance()
        self.empty_at(stage).wait(phase)
        return stage, self.full_at(stage)

    @staticmethod
    def commit(full, *, pred=None):
        """A thread producer's stores are in: ``mbarrier.arrive`` on `full`
        (the barrier needs full_arrivals of them)."""
        ptx.mbarrier.arrive(full, pred=pred)

    @staticmethod
    def commit_cp_async(full, *, pred=None):
        """This thread's cp.async copies complete on `full`:
        ``cp.async.mbarrier.arrive.noinc.shared.b64`` (counts as one
        of the barrier's full_arrivals once they land)."""
        ptx.inst.cp.async_.mbarrier.arrive.noinc.shared.b64(ptx.addr(full), pred=pred)


class ConsumerEnd(_End):
    """The consumer's cursor and phase (both from 0). bind: as ProducerEnd's."""

    def __init__(self, ring, barriers=None, *, bind: bool = True):
        super().__init__(ring, barriers, None, bind)

    def wait(self):
        """Advances to the next stage and waits until it is full (as
        ProducerEnd.acquire: 7 instructions); returns the stage register."""
        stage, phase = self.state.advance()
        self.full_at(stage).wait(phase)
        return stage

    def release(self, stage, *, pred=None, cta=None):
        """Frees `stage`: ``mbarrier.arrive`` on its empty barrier; cta: a
        register, arrive on that CTA's barrier instead (mapa + remote
        arrive, for consumers that free a stage in every CTA of a cluster)."""
        slot = self.empty_at(stage)
        if cta is None:
            ptx.mbarrier.arrive(slot, pred=pred)
        else:
            slot.arrive_remote(cta, 1, pred=pred)
