"""Thread-block clusters: ``barrier.cluster.*``, ``mapa`` and arrives on the
mbarriers of other CTAs of the cluster (``ptx.cluster``).

Shared addresses of other CTAs: ``mapa.shared::cluster.u32`` maps this CTA's
shared address of a variable to the address of the same variable in CTA
`cta_id` of the cluster; ``mbarrier.arrive.shared::cluster`` arrives there.
"""
from __future__ import annotations

from pyptx import reg as _reg
from pyptx import types as T
from pyptx._inst import Namespace, as_address, emit, fail
from pyptx._operands import SINK
from pyptx._trace import get_ctx, user_loc


def arrive(*, aligned=False, pred=None):
    """``barrier.cluster.arrive[.aligned];`` (``aligned``: every thread of the
    warp executes it)."""
    emit("barrier.cluster.arrive.aligned" if aligned else "barrier.cluster.arrive", pred=pred)


def wait(*, aligned=False, pred=None):
    """``barrier.cluster.wait[.aligned];``"""
    emit("barrier.cluster.wait.aligned" if aligned else "barrier.cluster.wait", pred=pred)


def sync(*, aligned=False, pred=None):
    """A cluster-wide barrier: two instructions, ``barrier.cluster.arrive``
    then ``barrier.cluster.wait`` (each ``.aligned`` when asked)."""
    arrive(aligned=aligned, pred=pred)
    wait(aligned=aligned, pred=pred)


def rank(cta_rank):
    """A new predicate, true in the CTA whose rank in the cluster is
    `cta_rank` (an int or a register): two instructions, ``mov.u32 r,
    %cluster_ctarank; setp.eq.u32 p, r, cta_rank;`` (setp takes no special
    register)."""
    r = _reg.scalar(T.u32)
    emit("mov.u32", r, _reg.special("%cluster_ctarank"))
    p = _reg.scalar(T.pred)
    emit("setp.eq.u32", p, r, cta_rank)
    return p


def shared_u32(x):
    """`x` as a u32 register holding a shared address: a register is itself;
    a symbol or shared allocation costs a ``mov.u32`` (and an ``add.u32``
    when it carries an offset)."""
    if isinstance(x, _reg.Reg):
        if not (x.dtype.is_int and x.dtype.bits == 32):
            fail(f"a shared address for mapa must be a 32-bit register; got a {x.dtype} "
                 f"register (shared addresses are u32: reg.from_(alloc, u32))")
        return x
    a = as_address(x)
    r = _reg.scalar(T.u32)
    emit("mov.u32", r, a.base)
    if a.offset:
        emit("add.u32", r, r, a.offset)
    return r


def map_shared_u32(bar_addr, cta_id, *, pred=None):
    """``mapa.shared::cluster.u32 d, bar_addr, cta_id;`` -- returns the new
    register d: the address of the same shared variable in CTA `cta_id`.
    `bar_addr`: a u32 register (a symbol or allocation first costs a mov)."""
    address = shared_u32(bar_addr)
    d = _reg.scalar(T.u32)
    emit("mapa.shared::cluster.u32", d, address, cta_id, pred=pred)
    return d


def arrive_remote(bar_addr, cta_id, count=1, *, pred=None):
    """Arrives `count` times on the mbarrier at `bar_addr` of CTA `cta_id`:
    two instructions, ``mapa.shared::cluster.u32 remote, bar_addr, cta_id;
    mbarrier.arrive.shared::cluster.b64 _, [remote], count;``."""
    remote = map_shared_u32(bar_addr, cta_id, pred=pred)
    emit("mbarrier.arrive.shared::cluster.b64", SINK, as_address(remote), count, pred=pred)


def arrive_multicast(bar_addr, mask, count=1, *, pred=None):
    """Arrives `count` times on the mbarrier at `bar_addr` in every CTA of
    the cluster whose rank bit is set in `mask` (u16). PTX has no multicast
    mbarrier arrive, so this is one :func:`arrive_remote` per rank:

    - `mask` an int: two instructions (mapa + arrive) per set bit;
    - `mask` a register: a loop over its set bits -- ``mov``/``cvt``, then
      per rank ``setp``, ``@done bra``, ``bfind``, ``mapa``, ``arrive``,
      ``shl``, ``xor``, ``bra.uni`` (labels ``$L__mcast_arriveN[_done]``).
      With ``pred``, threads where it is false branch past the loop."""
    if isinstance(mask, int) and not isinstance(mask, bool):
        if not 0 <= mask < 1 << 16:
            fail(f"arrive_multicast mask is a 16-bit CTA mask; got {mask:#x}")
        bar = shared_u32(bar_addr)
        for cta in range(16):
            if mask >> cta & 1:
                arrive_remote(bar, cta, count, pred=pred)
        return
    if not (isinstance(mask, _reg.Reg) and mask.dtype.is_int and mask.dtype.bits in (16, 32)):
        fail(f"arrive_multicast mask must be an int or a 16/32-bit integer register; "
             f"got {mask!r}")
    ctx = get_ctx()
    loc = user_loc()
    n = ctx.unique("mcast_arrive")
    head, done = f"$L__mcast_arrive{n}", f"$L__mcast_arrive{n}_done"
    bar = shared_u32(bar_addr)
    if pred is not None:
        emit("bra", done, pred=pred.reg if isinstance(pred, _reg.NegPred) else ~pred)
    left = _reg.scalar(T.u32)
    emit("cvt.u32.u16" if mask.dtype.bits == 16 else "mov.b32", left, mask)
    ctx.label(head, loc=loc, structured=True)
    empty = _reg.scalar(T.pred)
    emit("setp.eq.u32", empty, left, 0)
    emit("bra", done, pred=empty)
    cta = _reg.scalar(T.u32)
    emit("bfind.u32", cta, left)
    remote = _reg.scalar(T.u32)
    emit("mapa.shared::cluster.u32", remote, bar, cta)
    emit("mbarrier.arrive.shared::cluster.b64", SINK, as_address(remote), count)
    bit = _reg.scalar(T.u32)
    emit("shl.b32", bit, 1, cta)
    emit("xor.b32", left, left, bit)
    emit("bra.uni", head)
    ctx.label(done, loc=loc, structured=True)


cluster = Namespace(
    "barrier.cluster", "ptx.cluster: barrier.cluster.* helpers, mapa and remote arrives.",
    arrive=arrive, wait=wait, sync=sync, rank=rank, map_shared_u32=map_shared_u32,
    arrive_multicast=arrive_multicast, arrive_remote=arrive_remote)
