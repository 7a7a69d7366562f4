"""``mbarrier.*``: barrier objects in shared memory, barrier arrays, and the
pipeline state of a ring of stages.

``ptx.mbarrier.<helper>(mbar, ...)`` takes the barrier as anything with a
shared address: ``bar[i]`` of ``smem.mbarrier(n)``, a slot of
``ptx.mbarrier.array(...)``, a register holding the shared address,
``ptx.addr(...)`` or a symbol. Helpers that produce a value (the state token
of ``arrive``, the predicate of ``try_wait``) allocate and return it.

Transaction bytes. An mbarrier that guards asynchronous copies completes a
phase when its pending arrivals reach zero *and* the transaction bytes
announced with ``arrive_expect_tx``/``expect_tx`` have landed. pyptx keeps a
ledger per barrier address while tracing: the bytes announced, and the bytes
of the static TMA copies that complete on it (every such copy calls
:func:`note_complete_tx`). When the barrier is next waited on
(``wait``/``try_wait``), re-initialised (``init``/``inval``), or at the end
of the kernel, the two sums must be equal -- provided both are known: the
check is skipped for a barrier with no announcement or no copy seen at that
address, with a byte count in a register, or with a copy whose bytes land
elsewhere too (multicast, ``cta_group::2``). A balanced window also closes
when the barrier is armed again, so each phase is compared on its own.
Barriers are matched by address *spelling* (symbol and offset, or register):
address one barrier the same way for its announcement and its copies. Each
traced announcement and copy counts once; where several threads run the same
traced copy, announce the byte count from a register (no check).

The same check, as the ``mbarrier-accounting`` kind, is in the hazard
checker (docs/hazards.md), which sees the PTX: copies written with
``ptx.inst`` and the sized non-tensor ``cp.async.bulk`` (its byte count is an
operand), summed over the whole function per barrier address, but not a TMA
tensor copy (its box is in the descriptor, which only this ledger knows).
This ledger sees the tensor copies' boxes and checks each phase on its own.
Both report as "mbarrier-accounting: mbarrier [bar]: ... announce N
transaction bytes ... but the copies ... bring M".
"""
from __future__ import annotations

import os

from pyptx import reg as _reg
from pyptx import types as T
from pyptx._inst import Namespace, as_address, emit, fail
from pyptx.hw import cluster as _cluster
from pyptx._operands import Address, operand, symbol_operand
from pyptx._trace import get_ctx, user_loc
from pyptx.hw.printf import escape, printf, require_debug
from pyptx.errors import KernelError

# -- barrier objects in shared memory (smem.mbarrier makes them) -------------------

class MbarrierArray:
    """``count`` mbarrier objects (8 bytes each) in shared memory.
    ``bars[i]`` is an :class:`MbarrierRef`; ``name``, ``count``, ``symbol``,
    ``byte_offset`` (0 for a static variable, its offset in ``dyn_smem`` in
    dynamic mode). As an operand it is the address value of barrier 0."""

    __slots__ = ("name", "count", "byte_offset", "symbol")

    def __init__(self, name, count, byte_offset=0, *, symbol=None):
        self.name, self.count, self.byte_offset = name, count, byte_offset
        self.symbol = symbol or name

    def __getitem__(self, index) -> "MbarrierRef":
        return MbarrierRef(self, index)

    def __len__(self):
        return self.count

    def __iter__(self):
        return (MbarrierRef(self, i) for i in range(self.count))

    def __ptx_address__(self) -> Address:
        return Address(self.symbol, self.byte_offset)

    def __ptx_operand__(self, ftype):
        return symbol_operand(self.symbol, self.byte_offset)

    def __ptx_symbol__(self):
        if self.byte_offset:
            fail(f"{self.name} lives at {self.symbol}+{self.byte_offset}: index it "
                 f"({self.name}[0]) or use ptx.addr/_inst.as_address")
        return self.symbol

    def __repr__(self):
        return f"MbarrierArray({self.name!r}, {self.count})"


class MbarrierRef(Address):
    """``bars[i]``: the address of one mbarrier,
    ``[symbol+byte_offset]`` with ``byte_offset = array.byte_offset + 8*i``.
    ``array``, ``index`` (also ``idx``), ``name`` (the array's)."""

    __slots__ = ("array", "index")

    def __init__(self, array: MbarrierArray, idx: int):
        if not (isinstance(idx, int) and 0 <= idx < array.count):
            fail(f"{array.name}[{idx!r}]: mbarrier index out of range "
                 f"0..{array.count - 1}")
        Address.__init__(self, array.symbol, array.byte_offset + 8 * idx)
        self.array, self.index = array, idx

    @property
    def idx(self) -> int:
        return self.index

    @property
    def name(self) -> str:
        return self.array.name

    @property
    def byte_offset(self) -> int:
        return self.offset

    def __ptx_address__(self) -> Address:
        return Address(self.base, self.offset)

    def __repr__(self):
        return f"MbarrierRef({self.array.name!r}[{self.index}])"


# -- the transaction-byte ledger ---------------------------------------------------


class _Window:
    """What one barrier has seen since its last check."""

    __slots__ = ("describe", "announced", "copies", "unknown")

    def __init__(self, describe):
        self.describe = describe  # () -> the barrier's name, for messages
        self.announced = []   # (bytes, loc)
        self.copies = []      # (bytes, what, loc)
        self.unknown = False  # a byte count not known while tracing

    def balanced(self) -> bool:
        return (not self.unknown and bool(self.announced) and bool(self.copies)
                and sum(a[0] for a in self.announced) == sum(c[0] for c in self.copies))

    def check(self):
        if self.unknown or not self.announced or not self.copies:
            return
        announced = sum(a[0] for a in self.announced)
        landing = sum(c[0] for c in self.copies)
        if announced == landing:
            return
        file, line, column = self.announced[0][1]
        copies = ", ".join(f"{what} = {n} bytes (line {loc[1]})" for n, what, loc in self.copies)
        lines = ", ".join(str(a[1][1]) for a in self.announced)
        if announced < landing:
            why = ("too few: the phase completes before all the data has landed, "
                   "and readers see stale shared memory")
        else:
            why = "too many: the phase never completes and the wait hangs"
        raise KernelError(
            f"mbarrier-accounting: mbarrier {self.describe()}: arrive_expect_tx/expect_tx announce {announced} "
            f"transaction bytes (line {lines}) but the TMA copies that complete on it "
            f"bring {landing}: {copies}; {announced} is {why} (announce {landing}, the "
            f"sum of the copies' boxes; this counts each traced copy once -- where several "
            f"threads run one, pass the byte count in a register to skip the check)",
            file, line, column)


class TxLedger:
    """Per-trace transaction-byte ledger (``get_ctx().units["mbarrier"]``)."""

    def __init__(self):
        self.windows: dict = {}

    def window(self, mbar) -> _Window:
        key, describe = _barrier_key(mbar)
        w = self.windows.get(key)
        if w is None:
            w = self.windows[key] = _Window(describe)
        return w

    def announce(self, mbar, tx_count):
        w = self.window(mbar)
        if w.balanced():  # armed again after a complete phase: start the next one
            w = self.windows[_barrier_key(mbar)[0]] = _Window(w.describe)
        if isinstance(tx_count, int) and not isinstance(tx_count, bool):
            w.announced.append((tx_count, user_loc()))
        else:
            w.unknown = True

    def complete(self, mbar, nbytes, what):
        w = self.window(mbar)
        if nbytes is None:
            w.unknown = True
        else:
            w.copies.append((int(nbytes), what, user_loc()))

    def close(self, mbar):
        """Checks and forgets the barrier's window (it was waited on or reset)."""
        key, _ = _barrier_key(mbar)
        w = self.windows.pop(key, None)
        if w is not None:
            w.check()

    def finish(self):
        """End of the kernel: checks every open window."""
        windows, self.windows = self.windows, {}
        for w in windows.values():
            w.check()


def _ledger() -> TxLedger:
    units = get_ctx().units
    ledger = units.get("mbarrier")
    if ledger is None:
        ledger = units["mbarrier"] = TxLedger()
    return ledger


def _barrier_key(mbar):
    """(hashable key, describer of the barrier for messages) of its address."""
    a = as_address(mbar)
    return (operand(a.base, symbolic=True), a.offset), lambda: _describe(mbar, a)


def _describe(mbar, a) -> str:
    array, index = getattr(mbar, "array", None), getattr(mbar, "index", None)
    if array is not None and isinstance(index, int):
        return f"{getattr(array, 'name', array)}[{index}]"
    base = a.base
    if not isinstance(base, str):
        try:
            base = getattr(base, "name", None) or "a register"
        except Exception:  # a register name the native module cannot give
            base = "a register"
    return f"[{base}+{a.offset}]" if a.offset else f"[{base}]"


def note_complete_tx(mbar, nbytes, what: str = "an async copy") -> None:
    """Records that an asynchronous copy completes `nbytes` transaction bytes
    on barrier `mbar` (None: not known while tracing, which turns the check
    off for that barrier's current phase). Called by every copy helper with
    ``.mbarrier::complete_tx::bytes``; see the module doc for the check."""
    _ledger().complete(mbar, nbytes, what)


# -- instructions -----------------------------------------------------------------------


def init(mbar, count, *, pred=None):
    """``mbarrier.init.shared::cta.b64 [mbar], count;`` -- `count` arrivals
    complete a phase. Follow it with ``ptx.fence.proxy_async_shared_cta()``
    (or ``ptx.fence.mbarrier_init()`` for a cluster) before the TMA uses it."""
    if isinstance(count, int) and not 1 <= count <= (1 << 20) - 1:
        fail(f"mbarrier.init count must be 1 to {(1 << 20) - 1} (the arrivals that "
             f"complete a phase); got {count}")
    _ledger().close(mbar)
    emit("mbarrier.init.shared::cta.b64", as_address(mbar), count, pred=pred)


def inval(mbar, *, pred=None):
    """``mbarrier.inval.shared::cta.b64 [mbar];`` -- before the memory is
    reused for something else."""
    _ledger().close(mbar)
    emit("mbarrier.inval.shared::cta.b64", as_address(mbar), pred=pred)


def arrive(mbar, *, pred=None):
    """``mbarrier.arrive.shared::cta.b64 state, [mbar];`` -- returns the new b64
    state register (the token ``try_wait(..., parity=False)`` takes)."""
    state = _reg.scalar(T.b64)
    emit("mbarrier.arrive.shared::cta.b64", state, as_address(mbar), pred=pred)
    return state


def arrive_expect_tx(mbar, tx_count, *, pred=None):
    """``mbarrier.arrive.expect_tx.shared::cta.b64 state, [mbar], tx_count;`` --
    announces `tx_count` transaction bytes (the sum of the boxes of the copies
    that complete on this barrier) and arrives; returns the b64 state."""
    _check_tx(tx_count)
    _ledger().announce(mbar, tx_count)
    state = _reg.scalar(T.b64)
    emit("mbarrier.arrive.expect_tx.shared::cta.b64", state, as_address(mbar), tx_count,
         pred=pred)
    return state


def expect_tx(mbar, tx_count, *, pred=None):
    """``mbarrier.expect_tx.shared::cta.b64 [mbar], tx_count;`` -- announces
    transaction bytes without arriving."""
    _check_tx(tx_count)
    _ledger().announce(mbar, tx_count)
    emit("mbarrier.expect_tx.shared::cta.b64", as_address(mbar), tx_count, pred=pred)


def _check_tx(tx_count):
    if isinstance(tx_count, int) and not 0 <= tx_count <= (1 << 20) - 1:
        fail(f"mbarrier tx_count must be 0 to {(1 << 20) - 1} bytes; got {tx_count} "
             f"(split the copies over more barriers or stages)")


def try_wait(mbar, phase, *, parity=True, pred=None):
    """``mbarrier.try_wait.parity.shared::cta.b64 p, [mbar], phase;`` -- returns
    the new predicate p, true once the phase with parity `phase` (0 or 1, an
    int or a register) has completed. ``parity=False`` waits on a state
    token from ``arrive`` instead: ``mbarrier.try_wait.shared::cta.b64``."""
    if parity and isinstance(phase, int) and phase not in (0, 1):
        fail(f"mbarrier.try_wait phase parity is 0 or 1; got {phase} (pass phase & 1)")
    _ledger().close(mbar)
    p = _reg.scalar(T.pred)
    opcode = "mbarrier.try_wait.parity.shared::cta.b64" if parity else \
        "mbarrier.try_wait.shared::cta.b64"
    emit(opcode, p, as_address(mbar), phase, pred=pred)
    return p


def wait(mbar, phase, *, pred=None):
    """Blocks until the phase with parity `phase` completes: a spin loop of a
    label and two instructions::

        $L__mbar_waitN:
        mbarrier.try_wait.parity.shared::cta.b64 p, [mbar], phase;
        @!p bra $L__mbar_waitN;

    With ``pred``, threads where it is false skip the loop: one more branch
    before it (``@!pred bra $L__mbar_waitN_done``) and the label after it.

    In a debug build (``@kernel(debug=True)``, $PYPTX_DEBUG_MBARRIER=1) it is
    ``pyptx.debugkit.checked_wait``: it traps after a timeout, naming the
    barrier and the calling line."""
    ctx = get_ctx()
    loc = user_loc()
    observer = getattr(ctx, "wait_observer", None)  # a debugkit.WaitMap timing waits
    t0 = observer.before_wait() if observer is not None else None
    if getattr(ctx, "debug", False):
        checked_wait(mbar, phase, pred=pred, loc=loc)
    else:
        _spin(ctx, mbar, phase, pred, loc)
    if observer is not None:
        observer.after_wait(t0, loc)


def _spin(ctx, mbar, phase, pred, loc):
    """wait's loop (see wait)."""
    head = f"$L__mbar_wait{ctx.unique('mbar_wait')}"
    done = head + "_done"
    address = as_address(mbar)  # any address arithmetic goes before the loop
    if pred is not None:
        emit("bra", done, pred=_negate(pred))
    ctx.label(head, loc=loc, structured=True)
    p = try_wait(address, phase)
    emit("bra", head, pred=~p)
    if pred is not None:
        ctx.label(done, loc=loc, structured=True)


def _negate(p):
    return p.reg if isinstance(p, _reg.NegPred) else ~p


# -- checked waits (debug builds) ------------------------------------------------------

DEFAULT_TIMEOUT_NS = 2_000_000_000


def timeout_ns() -> int:
    """$PYPTX_DEBUG_MBARRIER_TIMEOUT_NS, else DEFAULT_TIMEOUT_NS."""
    value = os.environ.get("PYPTX_DEBUG_MBARRIER_TIMEOUT_NS", "")
    return int(value) if value.strip() else DEFAULT_TIMEOUT_NS


def barrier_name(mbar) -> str:
    """What a timeout message calls barrier `mbar`."""
    name = getattr(mbar, "name", None)
    if isinstance(name, str):
        index = getattr(mbar, "idx", None)
        return name if index is None else f"{name}[{index}]"
    if isinstance(mbar, _reg.Reg):
        return f"the barrier at {mbar.name}"
    return repr(mbar)


def checked_wait(mbar, phase, *, name: str | None = None, timeout: int | None = None,
                 pred=None, loc=None) -> None:
    """Waits for the phase with parity `phase` like ``ptx.mbarrier.wait``,
    but gives up after `timeout` ns (default :func:`timeout_ns`): then the
    thread prints ``mbarrier wait timed out: <name> (phase p) at
    file:line`` and executes ``trap``. Needs a debug build. Emits, besides
    the labels: a ``mov`` of %globaltimer, then per spin ``try_wait``, a
    branch out, a ``mov`` of %globaltimer, ``sub``, ``setp``, a branch back;
    after the loop the printf (see :func:`printf`) and ``trap``; with
    `pred`, one branch around it all."""
    ctx = require_debug("debugkit.checked_wait")
    file, line, _ = loc or user_loc()
    label = f"$L__dk_wait{ctx.unique('debugkit_wait')}"
    address = as_address(mbar)
    if pred is not None:
        emit("bra", label + "_done", pred=_negate(pred))
    start, now = _reg.scalar(T.u64), _reg.scalar(T.u64)
    emit("mov.u64", start, _reg.special("%globaltimer"))
    ctx.label(label, loc=user_loc())
    done = try_wait(address, phase)
    emit("bra", label + "_done", pred=done)
    emit("mov.u64", now, _reg.special("%globaltimer"))
    emit("sub.u64", now, now, start)
    waiting = _reg.scalar(T.pred)
    emit("setp.lt.u64", waiting, now, timeout if timeout is not None else timeout_ns())
    emit("bra", label, pred=waiting)
    where = f"{os.path.basename(file)}:{line}" if file else "?"
    shown = isinstance(phase, int)
    printf(f"mbarrier wait timed out: {escape(name or barrier_name(mbar))} "
           f"(phase {phase if shown else '%u'}) at {escape(where)}\n",
           *(() if shown else (_as_u32(phase),)))
    emit("trap")
    ctx.label(label + "_done", loc=user_loc())


def _as_u32(phase):
    if isinstance(phase, _reg.Reg) and phase.dtype.bits == 32:
        return phase
    fail(f"debugkit.checked_wait: phase must be 0, 1 or a 32-bit register, got {phase!r}")


def escape(text: str) -> str:
    return text.replace("%", "%%")


# -- barrier arrays -------------------------------------------------------------------


class BarrierSlot:
    """One barrier of a :class:`BarrierArray` at a fixed byte offset. Usable
    wherever a barrier is taken (``mbar=slot``)."""

    __slots__ = ("_base", "_byte_offset", "_addr_reg")

    def __init__(self, base, byte_offset: int):
        self._base, self._byte_offset, self._addr_reg = base, byte_offset, None

    @property
    def byte_offset(self) -> int:
        """Bytes from the array's base to this barrier."""
        return self._byte_offset

    def address_operand(self) -> Address:
        """``[base+byte_offset]`` (no instruction)."""
        return as_address(self._base, self._byte_offset)

    __ptx_address__ = address_operand

    def addr_reg(self):
        """A u32 register with this barrier's shared address (computed once: a
        register base plus the offset is one ``add``, a symbol one ``mov``
        and one ``add``; no instruction for a register base at offset 0)."""
        if self._addr_reg is None:
            if isinstance(self._base, _reg.Reg) and self._byte_offset == 0:
                self._addr_reg = self._base
            elif isinstance(self._base, _reg.Reg):
                r = _reg.scalar(T.u32)
                emit("add.u32", r, self._base, self._byte_offset)
                self._addr_reg = r
            else:
                self._addr_reg = _cluster.shared_u32(as_address(self._base, self._byte_offset))
        return self._addr_reg

    def init(self, count, *, pred=None):
        init(self, count, pred=pred)

    def wait(self, phase, *, pred=None):
        wait(self, phase, pred=pred)

    def arrive(self, *, pred=None):
        return arrive(self, pred=pred)

    def arrive_expect_tx(self, tx_count, *, pred=None):
        return arrive_expect_tx(self, tx_count, pred=pred)

    def arrive_remote(self, cta_id, count=1, *, pred=None):
        """Arrives on this barrier in CTA `cta_id` of the cluster
        (``ptx.cluster.arrive_remote``: mapa + arrive)."""
        _cluster.arrive_remote(self.addr_reg(), cta_id, count, pred=pred)

    def __repr__(self):
        return f"BarrierSlot({self._base!r}+{self._byte_offset})"


class DynamicBarrierSlot(BarrierSlot):
    """The barrier of a :class:`BarrierArray` chosen by a stage register.
    Its address is computed once, on first use: one ``mad.lo.u32`` (stage*8 +
    base) for a register base, plus a ``mov.u32`` for a symbol."""

    __slots__ = ("_stage",)

    def __init__(self, base, byte_offset: int, stage):
        super().__init__(base, byte_offset)
        if not (isinstance(stage, _reg.Reg) and stage.dtype.is_int and stage.dtype.bits == 32):
            fail(f"mbarrier array .at(stage) takes a 32-bit integer register; got {stage!r} "
                 f"(for a Python int use array[stage])")
        self._stage = stage

    def _stage_base(self):
        if self._addr_reg is None:
            base = _cluster.shared_u32(self._base)
            r = _reg.scalar(T.u32)
            emit("mad.lo.u32", r, self._stage, 8, base)
            self._addr_reg = r
        return self._addr_reg

    def address_operand(self) -> Address:
        """``[stage_address+byte_offset]``."""
        return Address(self._stage_base(), self._byte_offset)

    __ptx_address__ = address_operand

    def addr_reg(self):
        """A u32 register with the barrier's address (one more ``add`` when
        the array starts at a nonzero offset)."""
        base = self._stage_base()
        if self._byte_offset == 0:
            return base
        r = _reg.scalar(T.u32)
        emit("add.u32", r, base, self._byte_offset)
        return r


class BarrierArray:
    """``count`` mbarriers (8 bytes each) from ``base + byte_offset``:
    ``arr[i]`` (a Python int) and ``arr.at(stage)`` (a register)."""

    __slots__ = ("_base", "_byte_offset", "_count")

    def __init__(self, base, byte_offset: int, count: int):
        self._base, self._byte_offset, self._count = base, byte_offset, count

    def __len__(self):
        return self._count

    def __getitem__(self, idx: int) -> BarrierSlot:
        if not 0 <= idx < self._count:
            raise IndexError(f"barrier index {idx} out of range 0..{self._count - 1}")
        return BarrierSlot(self._base, self._byte_offset + 8 * idx)

    def at(self, stage) -> DynamicBarrierSlot:
        """The barrier with index `stage` (a register), see DynamicBarrierSlot."""
        return DynamicBarrierSlot(self._base, self._byte_offset, stage)

    def init_all(self, count, *, pred=None):
        """``mbarrier.init`` on every barrier (one instruction each)."""
        for i in range(self._count):
            self[i].init(count, pred=pred)

    def arrive_remote_all(self, cta_id, count=1, *, pred=None):
        """``arrive_remote`` on every barrier (each one mapa + arrive; a
        symbol base adds its mov and add once per barrier)."""
        for i in range(self._count):
            self[i].arrive_remote(cta_id, count, pred=pred)

    def __repr__(self):
        return f"BarrierArray({self._base!r}+{self._byte_offset}, {self._count})"


def array(base, byte_offset, count):
    """A :class:`BarrierArray` of `count` barriers at ``base + byte_offset``
    (no instruction). `base`: a u32 register with a shared address, a symbol
    or a shared allocation."""
    return BarrierArray(base, byte_offset, count)


# -- pipeline state ---------------------------------------------------------------------


class PipelineState:
    """The stage cursor and phase bit of a ring of `n_stages` stages, carried
    across loop iterations. `cursor` and `phase` are registers (new ones
    initialised to 0 -- one ``mov`` each -- unless given).

    ``advance()`` returns ``(stage, phase)`` for the next use of the ring and
    moves the cursor: four instructions::

        setp.eq.u32 wrap, cursor, n_stages;
        selp.u32 stage, 0, cursor, wrap;
        @wrap xor.b32 phase, phase, 1;
        add.u32 cursor, stage, 1;
    """

    __slots__ = ("n_stages", "cursor", "phase")

    def __init__(self, n_stages, *, cursor=None, phase=None):
        if not isinstance(n_stages, int) or n_stages < 1:
            fail(f"PipelineState n_stages must be a positive int; got {n_stages!r}")
        for what, r in (("cursor", cursor), ("phase", phase)):
            if r is not None and not (isinstance(r, _reg.Reg) and r.dtype.is_int
                                      and r.dtype.bits == 32):
                fail(f"PipelineState {what} must be a 32-bit integer register; got {r!r}")
        self.n_stages = n_stages
        self.cursor = cursor if cursor is not None else _reg.scalar(T.u32, init=0)
        self.phase = phase if phase is not None else _reg.scalar(T.u32, init=0)

    def advance(self):
        """Advances the ring; returns ``(stage, phase)`` (see the class doc)."""
        t = self.cursor.dtype
        wrap = _reg.scalar(T.pred)
        emit(f"setp.eq{t.ptx}", wrap, self.cursor, self.n_stages)
        stage = _reg.scalar(t)
        emit(f"selp{t.ptx}", stage, 0, self.cursor, wrap)
        emit(f"xor{T.bits_type(self.phase.dtype).ptx}", self.phase, self.phase, 1, pred=wrap)
        emit(f"add{t.ptx}", self.cursor, stage, 1)
        return stage, self.phase


def pipeline(n_stages, *, cursor=None, phase=None):
    """A :class:`PipelineState` of `n_stages` stages."""
    return PipelineState(n_stages, cursor=cursor, phase=phase)


mbarrier = Namespace(
    "mbarrier", "ptx.mbarrier: Hopper mbarrier primitives (see pyptx.hw.mbarrier).",
    init=init, inval=inval, arrive=arrive, arrive_expect_tx=arrive_expect_tx,
    expect_tx=expect_tx, try_wait=try_wait, wait=wait, array=array)
