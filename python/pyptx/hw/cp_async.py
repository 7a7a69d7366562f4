"""Ampere ``cp.async`` (non-bulk, sm_80): ``ptx.cp.async_.{ca, cg,
commit_group, wait_group, wait_all}``.

Each thread copies 4, 8 or 16 bytes from global to shared memory without
going through registers; the copies it issued since the last
``commit_group`` form one group, and ``wait_group(n)`` waits until at most
n of its groups are still in flight. The usual double-buffered loop::

    ptx.cp.async_.cg(smem_dst, gmem_src, 16)    # prefetch the next stage
    ptx.cp.async_.commit_group()
    ptx.cp.async_.wait_group(1)                 # the current stage has landed
    ptx.bar.sync(0)                             # ... for every thread

Each helper emits one instruction. Addresses (smem_dst, global_src) may be
``ptx.addr(...)``, a register holding the address, or a shared allocation.
"""
from __future__ import annotations

from pyptx._inst import as_address, emit, fail

_CA_SIZES = (4, 8, 16)


def _byte_count(op: str, byte_count, allowed) -> int:
    if isinstance(byte_count, bool) or not isinstance(byte_count, int):
        fail(f"cp.async.{op}: byte_count must be a Python int (the cp-size is an "
             f"immediate), not {byte_count!r}")
    if byte_count not in allowed:
        if op == "cg":
            fail(f"cp.async.cg copies 16 bytes only (cp-size 16), not {byte_count}; use "
                 f"ptx.cp.async_.ca for 4- or 8-byte copies")
        fail(f"cp.async.ca copies 4, 8 or 16 bytes (cp-size), not {byte_count}")
    return byte_count


def ca(smem_dst, global_src, byte_count: int, *, pred=None) -> None:
    """``cp.async.ca.shared.global [smem_dst], [global_src], byte_count;`` --
    cache at all levels (L1 and L2). byte_count: 4, 8 or 16; both
    addresses aligned to it."""
    n = _byte_count("ca", byte_count, _CA_SIZES)
    emit("cp.async.ca.shared.global", as_address(smem_dst), as_address(global_src), n,
         pred=pred)


def cg(smem_dst, global_src, byte_count: int, *, pred=None) -> None:
    """``cp.async.cg.shared.global [smem_dst], [global_src], 16;`` -- cache in
    L2 only, bypassing L1. byte_count must be 16; both addresses 16-byte
    aligned."""
    n = _byte_count("cg", byte_count, (16,))
    emit("cp.async.cg.shared.global", as_address(smem_dst), as_address(global_src), n,
         pred=pred)


def commit_group(*, pred=None) -> None:
    """``cp.async.commit_group;`` -- closes this thread's cp.async copies
    issued since the last commit into one group (possibly empty)."""
    emit("cp.async.commit_group", pred=pred)


def wait_group(n: int, *, pred=None) -> None:
    """``cp.async.wait_group n;`` -- waits until at most n of this thread's
    most recent groups are pending (n: an int; 0 waits for all). Other
    threads' copies need a ``bar.sync`` after it to be visible."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        fail(f"cp.async.wait_group takes a non-negative int (an immediate group count), "
             f"not {n!r}")
    emit("cp.async.wait_group", n, pred=pred)


def wait_all(*, pred=None) -> None:
    """``cp.async.wait_all;`` -- waits for all of this thread's cp.async
    copies (committed or not)."""
    emit("cp.async.wait_all", pred=pred)


HELPERS = {"ca": ca, "cg": cg, "commit_group": commit_group, "wait_group": wait_group,
           "wait_all": wait_all}  # ptx.cp.async_.<name>
