"""Debugging a kernel on the GPU: device-side printf, mbarrier waits that
trap instead of hanging, a dump of one thread's registers and shared
memory, and the original pyptx's :class:`DebugKit` (beacon waits and
cycle counters).

**printf** (needs a debug build: ``@kernel(debug=True)`` or
``$PYPTX_DEBUG_MBARRIER=1``, which declares ``vprintf`` before the
kernel)::

    debugkit.printf("acc=%f k=%u\\n", acc, k)   # each thread that runs it prints
    # [ctaid 0,0,0 tid 5,0,0] acc=1.500000 k=3

The format is C's (``%d %u %x %f %lld %llx %p``); a register of 32 bits
fills a ``%d``/``%u``/``%x``, one of 64 bits a ``%lld``/``%llu``/
``%llx``/``%p``, an f32 or f64 a ``%f``/``%e``/``%g`` (an f32 is widened
to f64, as C does). The thread's ``%ctaid`` and ``%tid`` come first unless
``where=False``. The output appears on the host's stdout when the kernel
ends (at the next synchronisation).

**Checked mbarrier waits**: in a debug build every ``ptx.mbarrier.wait``
(and a barrier's ``.wait``) is :func:`checked_wait`: ``try_wait`` in a loop
that reads ``%globaltimer``; past ``timeout_ns`` (default 2 s,
``$PYPTX_DEBUG_MBARRIER_TIMEOUT_NS``) the thread prints the barrier's name
and the calling line, then executes ``trap``: the launch fails with a CUDA
error instead of hanging.

**Dumps**: ``debugkit.dump(out, {"acc": acc, "k": k}, thread=5)`` writes
the registers of one thread (``%tid.x == 5`` in CTA ``%ctaid.x == 0``)
into the global buffer `out` (a u64 pointer register); the returned
:class:`Dump` formats the buffer on the host (``print(d.format(buf))``).
:func:`dump_smem` copies shared memory the same way.
"""
from __future__ import annotations

import os
import struct
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from pyptx import reg as _reg
from pyptx import types as T
from pyptx._inst import as_address, emit, fail
from pyptx._operands import Address
from pyptx._trace import get_ctx, user_loc
from pyptx.hw import mbarrier as _mbarrier
from pyptx.hw.mbarrier import DEFAULT_TIMEOUT_NS, barrier_name, checked_wait, timeout_ns
from pyptx.hw.printf import printf

# The original pyptx's DebugKit layout: per slot SLOT_WORDS b32 words, word
# 0 the beacon (BEACON_MAGIC << 16 | site << 8 | extra), words 1.. counters.
BEACON_MAGIC = 0xBEAC
SLOT_WORDS = 8
DEFAULT_TIMEOUT_TRIES = 3_000_000


def checks_waits() -> bool:
    """Whether the kernel being traced is a debug build (its mbarrier waits
    are checked, printf works)."""
    return bool(getattr(get_ctx(), "debug", False))


# -- dumps ----------------------------------------------------------------------------

@dataclass
class Dump:
    """Where :func:`dump` put each value: (name, PTX type, byte offset) in
    the buffer; ``format(buffer)`` / :func:`format_dump` make the text."""

    entries: list = field(default_factory=list)
    thread: tuple = (0, 0, 0)
    cta: tuple = (0, 0, 0)
    nbytes: int = 0

    def format(self, buffer) -> str:
        return format_dump(buffer, self)


_UNPACK = {"f32": "<f", "f64": "<d", "s32": "<i", "s64": "<q"}


def format_dump(buffer, layout: Dump) -> str:
    """The text of a dump: a line per value (``name (type) = value``, ints
    also in hex). `buffer`: bytes, a NumPy array or a torch tensor."""
    data = _host_bytes(buffer)
    lines = [f"thread {layout.thread} of CTA {layout.cta}:"]
    for name, type_name, offset in layout.entries:
        if type_name == "smem":
            _, start, size = name
            chunk = data[offset:offset + size]
            for i in range(0, size, 16):
                words = " ".join(f"{w:08x}" for w in struct.unpack_from(
                    f"<{min(16, size - i) // 4}I", chunk, i))
                lines.append(f"  smem+{start + i:#06x}: {words}")
            continue
        width = 8 if type_name.endswith("64") else 4
        raw_value = data[offset:offset + width]
        if type_name in _UNPACK:
            value = struct.unpack(_UNPACK[type_name], raw_value)[0]
        else:
            value = int.from_bytes(raw_value, "little")
        shown = f"{value}" if type_name.startswith("f") else \
            f"{value} ({int.from_bytes(raw_value, 'little'):#0{2 + 2 * width}x})"
        lines.append(f"  {name} ({type_name}) = {shown}")
    return "\n".join(lines)


def _host_bytes(buffer) -> bytes:
    if isinstance(buffer, (bytes, bytearray, memoryview)):
        return bytes(buffer)
    if hasattr(buffer, "detach"):  # a torch tensor
        buffer = buffer.detach().cpu().contiguous().view(-1).numpy()
    import numpy as np
    return np.ascontiguousarray(np.asarray(buffer)).tobytes()


def _dim3(value) -> tuple:
    value = (value,) if isinstance(value, int) else tuple(value)
    return value + (0,) * (3 - len(value))


def _chosen_thread(thread, cta):
    """A predicate true in the one chosen thread: %tid == thread and %ctaid
    == cta, compared on the axes where either is not 0 and on x. One
    ``mov`` + ``setp`` per compared axis, one ``and`` per further one."""
    chosen = None
    for axis, (t, c) in enumerate(zip(_dim3(thread), _dim3(cta))):
        for special, value in ((f"%tid.{'xyz'[axis]}", t), (f"%ctaid.{'xyz'[axis]}", c)):
            if axis and not value:
                continue
            r = _reg.scalar(T.u32)
            emit("mov.u32", r, _reg.special(special))
            p = _reg.scalar(T.pred)
            if chosen is None:
                emit("setp.eq.u32", p, r, value)
            else:
                emit("setp.eq.and.u32", p, r, value, chosen)
            chosen = p
    return chosen


def dump(out, values: dict, *, thread=0, cta=0, layout: Dump | None = None) -> Dump:
    """Stores `values` (name -> register) of the one thread `thread` of CTA
    `cta` (ints or (x, y, z)) at `out` (a u64 global address register),
    each at an offset aligned to its size; returns the :class:`Dump` that
    formats the buffer (`layout`, when given, is extended). Emits the
    thread test (:func:`_chosen_thread`), one branch around the stores,
    one ``st.global`` per value (a ``cvt`` first for 8- and 16-bit ones)."""
    layout = layout or Dump(thread=_dim3(thread), cta=_dim3(cta))
    ctx = get_ctx()
    skip = f"$L__dk_dump{ctx.unique('debugkit_dump')}"
    chosen = _chosen_thread(thread, cta)
    emit("bra", skip, pred=~chosen)
    for name, value in values.items():
        if not isinstance(value, _reg.Reg) or value.dtype == T.pred:
            fail(f"debugkit.dump: {name!r} must be a register (not a predicate), "
                 f"got {value!r}")
        t = value.dtype
        if t.bits < 32:
            wide = _reg.scalar(T.u32)
            emit(f"cvt.u32.{t.name if t.name[0] in 'us' else 'u' + str(t.bits)}",
                 wide, value)
            value, t = wide, T.u32
        width = t.bits // 8
        layout.nbytes += -layout.nbytes % width
        emit(f"st.global.b{t.bits}", Address(out, layout.nbytes), value)
        layout.entries.append((name, t.name, layout.nbytes))
        layout.nbytes += width
    ctx.label(skip, loc=user_loc())
    return layout


def dump_smem(out, smem, nbytes: int, *, thread=0, cta=0, offset: int = 0,
              layout: Dump | None = None) -> Dump:
    """Copies `nbytes` (a multiple of 4) of shared memory from `smem` (an
    allocation, a symbol or a u32 shared address register) in the one
    thread `thread` of CTA `cta` to `out` (a u64 global address register,
    after what `layout` already holds). Emits the thread test, a branch,
    and per word one ``ld.shared.b32`` and one ``st.global.b32``."""
    if not isinstance(nbytes, int) or nbytes <= 0 or nbytes % 4 or nbytes > 16384:
        fail(f"debugkit.dump_smem: nbytes must be a multiple of 4 up to 16384, got {nbytes!r}")
    layout = layout or Dump(thread=_dim3(thread), cta=_dim3(cta))
    ctx = get_ctx()
    skip = f"$L__dk_dump{ctx.unique('debugkit_dump')}"
    chosen = _chosen_thread(thread, cta)
    emit("bra", skip, pred=~chosen)
    base = layout.nbytes + (-layout.nbytes % 4)
    word = _reg.scalar(T.b32)
    for i in range(0, nbytes, 4):
        emit("ld.shared.b32", word, as_address(smem, offset + i))
        emit("st.global.b32", Address(out, base + i), word)
    layout.entries.append((("smem", offset, nbytes), "smem", base))
    layout.nbytes = base + nbytes
    ctx.label(skip, loc=user_loc())
    return layout


# -- the original pyptx's DebugKit --------------------------------------------------------

def n_slot_words(n_slots: int) -> int:
    """Total b32 words to allocate for a debug buffer of n_slots."""
    return n_slots * SLOT_WORDS


@dataclass
class DebugKit:
    """The original pyptx's trace-time helper: beacon waits (a bounded
    ``try_wait`` loop that, on timeout, records ``(site, extra)`` in this
    thread's slot of a debug buffer and falls through, so the kernel ends
    and the host can read which wait never completed) and ``%clock`` cycle
    counters. Disabled, ``wait`` is a plain ``ptx.mbarrier.wait`` and the
    rest emit nothing. For a wait that stops the kernel with a message
    instead, see :func:`checked_wait`."""

    enabled: bool = False
    timeout_tries: int = DEFAULT_TIMEOUT_TRIES
    _sites: list = field(default_factory=list)
    _counters: list = field(default_factory=list)
    _counter_regs: dict = field(default_factory=dict)
    _ptr: Any = None
    _slot_off: Any = None
    _blamed: Any = None
    _label_n: int = 0

    def attach(self, dbg_ptr, slot_reg) -> None:
        """Binds the debug buffer (a u64 global address) and this thread's
        slot (a u32 register unique per thread). 2 instructions."""
        if not self.enabled:
            return
        self._ptr = dbg_ptr
        self._slot_off = _reg.scalar(T.u64)
        emit("mul.wide.u32", self._slot_off, slot_reg, SLOT_WORDS * 4)
        emit("add.u64", self._slot_off, self._slot_off, dbg_ptr)
        self._blamed = _reg.pred(False)

    def wait(self, mbar, phase, *, site: str, extra: int = 0) -> None:
        """mbarrier parity wait; enabled, bounded by timeout_tries spins,
        recording the first blame and falling through on timeout."""
        if not self.enabled:
            _mbarrier.wait(mbar, phase)
            return
        if self._ptr is None:
            fail("DebugKit.wait before attach()")
        if site not in self._sites:
            self._sites.append(site)
        code = (BEACON_MAGIC << 16) | ((self._sites.index(site) + 1) << 8) | (extra & 0xFF)
        ctx = get_ctx()
        label = f"$L__dk_beacon{ctx.unique('debugkit_beacon')}"
        tries = _reg.scalar(T.u32, init=0)
        ctx.label(label, loc=user_loc())
        done = _mbarrier.try_wait(as_address(mbar), phase)
        emit("bra", label + "_ok", pred=done)
        emit("add.u32", tries, tries, 1)
        more = _reg.scalar(T.pred)
        emit("setp.lt.u32", more, tries, self.timeout_tries)
        emit("bra", label, pred=more)
        emit("bra", label + "_ok", pred=self._blamed)
        emit("st.global.b32", Address(self._slot_off, 0), code)
        emit("mov.pred", self._blamed, 1)
        ctx.label(label + "_ok", loc=user_loc())

    def stamp(self):
        """A u32 register holding %clock (None when disabled)."""
        if not self.enabled:
            return None
        t = _reg.scalar(T.u32)
        emit("mov.u32", t, _reg.special("%clock"))
        return t

    def accumulate(self, name: str, t0) -> None:
        """counter[name] += %clock - t0 (3 instructions)."""
        if not self.enabled:
            return
        if name not in self._counters:
            if len(self._counters) >= SLOT_WORDS - 1:
                fail(f"DebugKit keeps {SLOT_WORDS - 1} counters")
            self._counters.append(name)
            self._counter_regs[name] = _reg.scalar(T.u32, init=0)
        now = _reg.scalar(T.u32)
        emit("mov.u32", now, _reg.special("%clock"))
        emit("sub.u32", now, now, t0)
        emit("add.u32", self._counter_regs[name], self._counter_regs[name], now)

    def flush(self) -> None:
        """Writes the counters to this thread's slot (words 1..)."""
        if not self.enabled:
            return
        for i, name in enumerate(self._counters):
            emit("st.global.b32", Address(self._slot_off, 4 * (1 + i)),
                 self._counter_regs[name])

    def decode(self, dbg_tensor) -> dict:
        """``{"beacons": [{"site", "extra", "threads", "slots"}],
        "counters": {slot: {name: cycles}}}`` of a debug buffer."""
        data = _host_bytes(dbg_tensor)
        words = struct.unpack(f"<{len(data) // 4}I", data[:len(data) // 4 * 4])
        beacons: dict = {}
        counters: dict = {}
        for slot in range(len(words) // SLOT_WORDS):
            row = words[slot * SLOT_WORDS:(slot + 1) * SLOT_WORDS]
            if row[0] >> 16 == BEACON_MAGIC:
                site = (row[0] >> 8) & 0xFF
                name = self._sites[site - 1] if 0 < site <= len(self._sites) else f"site{site}"
                beacons.setdefault((name, row[0] & 0xFF), []).append(slot)
            cycles = {n: row[1 + i] for i, n in enumerate(self._counters) if row[1 + i]}
            if cycles:
                counters[slot] = cycles
        return {"beacons": [{"site": s, "extra": e, "threads": len(v), "slots": v[:4]}
                            for (s, e), v in sorted(beacons.items())],
                "counters": counters}


def decode_beacons(dbg_tensor, sites=()) -> list:
    """The beacons of a DebugKit buffer: ``{"slot", "site", "extra"}`` per
    slot that recorded one (`sites`: the kit's site names, in order)."""
    data = _host_bytes(dbg_tensor)
    words = struct.unpack(f"<{len(data) // 4}I", data[:len(data) // 4 * 4])
    found = []
    for slot in range(len(words) // SLOT_WORDS):
        word = words[slot * SLOT_WORDS]
        if word >> 16 == BEACON_MAGIC:
            site = (word >> 8) & 0xFF
            found.append({"slot": slot, "extra": word & 0xFF,
                          "site": sites[site - 1] if 0 < site <= len(sites) else f"site{site}"})
    return found


WAITMAP_MAX_SITES = 16


@dataclass
class WaitMap:
    """Times every ``ptx.mbarrier.wait`` and ``ptx.bar.sync`` traced while
    :meth:`active`: ``%clock`` before and after each, the difference added
    to a per-thread counter of its site, named by the calling line
    (``file.py:42``); ``flush`` writes a row of WAITMAP_MAX_SITES b32 words
    per thread (row = the tid register given to ``attach``)::

        wm = WaitMap()
        wm.attach(dbg, tid)          # 16 counters, zeroed here
        with wm.active():
            ...                      # the kernel's waits, now timed
        wm.flush()
        # host: wm.decode(dbg_tensor, n_threads=384, roles={"producer": (0, 128)})

    Each wait gains 2 ``mov`` of %clock, a ``sub`` and an ``add``."""

    _sites: list = field(default_factory=list)
    _accs: dict = field(default_factory=dict)
    _ptr: Any = None
    _row_off: Any = None

    def site_names(self) -> list:
        return list(self._sites)

    def attach(self, dbg_ptr, tid_reg) -> None:
        """This thread's row of the buffer at `dbg_ptr` (u64 global address)
        and the counters: 2 + WAITMAP_MAX_SITES instructions."""
        self._ptr = dbg_ptr
        self._row_off = _reg.scalar(T.u64)
        emit("mul.wide.u32", self._row_off, tid_reg, WAITMAP_MAX_SITES * 4)
        emit("add.u64", self._row_off, self._row_off, dbg_ptr)
        self._accs = {i: _reg.scalar(T.u32, init=0) for i in range(WAITMAP_MAX_SITES)}

    @contextmanager
    def active(self):
        """Context manager: instrument waits emitted inside."""
        if self._row_off is None:
            fail("WaitMap.active() before attach()")
        ctx = get_ctx()
        previous = getattr(ctx, "wait_observer", None)
        ctx.wait_observer = self
        try:
            yield self
        finally:
            ctx.wait_observer = previous

    def before_wait(self):
        """(Called by the waits) %clock before one."""
        t0 = _reg.scalar(T.u32)
        emit("mov.u32", t0, _reg.special("%clock"))
        return t0

    def after_wait(self, t0, loc) -> None:
        """(Called by the waits) adds the cycles since `t0` to the site of
        `loc` (file, line, column)."""
        site = f"{os.path.basename(loc[0])}:{loc[1]}"
        if site not in self._sites:
            if len(self._sites) == WAITMAP_MAX_SITES:
                fail(f"WaitMap keeps {WAITMAP_MAX_SITES} sites; {site} is one more")
            self._sites.append(site)
        acc = self._accs[self._sites.index(site)]
        now = _reg.scalar(T.u32)
        emit("mov.u32", now, _reg.special("%clock"))
        emit("sub.u32", now, now, t0)
        emit("add.u32", acc, acc, now)

    def flush(self, pred=None) -> None:
        """Writes the counters of the sites seen to this thread's row (guard
        with a pred that selects one CTA to keep the buffer small)."""
        for i in range(len(self._sites)):
            emit("st.global.b32", Address(self._row_off, 4 * i), self._accs[i], pred=pred)

    def decode(self, dbg_tensor, n_threads: int = 512, roles: dict | None = None) -> dict:
        """Per role ({name: (lo_tid, hi_tid)}, default all threads) and per
        site: {"total", "mean", "max"} cycles over the role's threads."""
        data = _host_bytes(dbg_tensor)
        words = struct.unpack(f"<{len(data) // 4}I", data[:len(data) // 4 * 4])
        rows = [words[t * WAITMAP_MAX_SITES:(t + 1) * WAITMAP_MAX_SITES]
                for t in range(min(n_threads, len(words) // WAITMAP_MAX_SITES))]
        result = {}
        for role, (lo, hi) in (roles or {"all": (0, len(rows))}).items():
            chosen = rows[lo:hi]
            result[role] = {site: {"total": sum(r[i] for r in chosen),
                                   "mean": sum(r[i] for r in chosen) / max(len(chosen), 1),
                                   "max": max((r[i] for r in chosen), default=0)}
                            for i, site in enumerate(self._sites)}
        return result


__all__ = ["printf", "checked_wait", "checks_waits", "barrier_name", "dump", "dump_smem", "Dump",
           "format_dump", "timeout_ns", "DEFAULT_TIMEOUT_NS", "DebugKit", "n_slot_words",
           "decode_beacons", "BEACON_MAGIC", "SLOT_WORDS", "DEFAULT_TIMEOUT_TRIES", "WaitMap",
           "WAITMAP_MAX_SITES"]
