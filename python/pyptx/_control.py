"""Labels, branches and structured control flow: ``ptx.label``, ``ptx.bra``,
``ptx.if_`` / ``else_``, ``ptx.loop``, ``ptx.range_``, ``ptx.kloop``,
``ptx.scope``, ``ptx.expr``.

The blocks emit the labels and branches they stand for (each one says
which). Label names of the anonymous forms are numbered per trace and per
construct (``$L__if0_false``, ``$L__loop1``, ...), so traces are
deterministic.
"""
from __future__ import annotations

from contextlib import ExitStack

from pyptx import reg as _reg
from pyptx import types as T
from pyptx._inst import emit, fail, guard
from pyptx._trace import get_ctx, user_loc
from pyptx.errors import KernelError


class Label:
    """A label: the target of ``ptx.bra`` (a label name works as well)."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __ptx_operand__(self, ftype):
        return ("s", self.name)

    def __repr__(self):
        return f"Label({self.name!r})"


def label(name: str) -> Label:
    """Emits ``name:`` and returns the label (for ptx.bra)."""
    get_ctx().label(name, loc=user_loc())
    return Label(name)


def bra(label, *, pred=None, uni: bool = False):
    """``[@p] bra[.uni] label`` (a Label or a label name)."""
    emit("bra.uni" if uni else "bra", label if isinstance(label, Label) else Label(label),
         pred=pred)


class _Block:
    def _open(self, ctx):
        ctx.open_blocks.append(self)

    def _close(self, ctx):
        if not ctx.open_blocks or ctx.open_blocks[-1] is not self:
            raise KernelError("control-flow blocks closed out of order", *self.loc)
        ctx.open_blocks.pop()


class if_(_Block):
    """``with ptx.if_(p):`` -- the body runs where p holds (``~p``: where it
    does not). Emits ``@!p bra $L__ifN_false`` before the body and the label
    ``$L__ifN_false:`` after it; a directly following ``with ptx.else_():``
    turns that into ``bra.uni $L__ifN_end; $L__ifN_false: <else>; $L__ifN_end:``."""

    def __init__(self, pred_reg):
        self.ctx = get_ctx()
        self.loc = user_loc()
        if isinstance(pred_reg, _reg.Reg) and pred_reg.dtype != T.pred:
            raise TypeError(f"ptx.if_ needs a predicate, not a {pred_reg.dtype} register "
                            f"(compare it: ptx.if_(r != 0))")
        self.guard, negated = guard(pred_reg)
        self.n = self.ctx.unique("if")
        self.false_label = f"$L__if{self.n}_false"
        self.negated = not negated  # branch around the body when the condition fails

    def __enter__(self):
        self.ctx.inst("bra", [("s", self.false_label)], self.guard, self.negated, loc=self.loc)
        self._open(self.ctx)
        return self

    def __exit__(self, exc_type, *_):
        if exc_type is not None:
            return False
        self._close(self.ctx)
        self.ctx.flush()
        # The join label waits: an else_ may follow.
        self.ctx.set_pending_join(self)
        return False

    def emit_join(self):
        self.ctx.label(self.false_label, loc=self.loc, flush=False, structured=True)


class else_(_Block):
    """``with ptx.else_():`` right after a ``with ptx.if_(p):`` block."""

    def __init__(self):
        self.ctx = get_ctx()
        self.loc = user_loc()
        self.branch = self.ctx.pending_join
        if not isinstance(self.branch, if_):
            raise KernelError("ptx.else_() must directly follow a `with ptx.if_(...)` "
                              "block", *self.loc)
        self.ctx.set_pending_join(None)
        self.end_label = f"$L__if{self.branch.n}_end"

    def __enter__(self):
        self.ctx.inst("bra.uni", [("s", self.end_label)], loc=self.loc)
        self.ctx.label(self.branch.false_label, loc=self.loc, structured=True)
        self._open(self.ctx)
        return self

    def __exit__(self, exc_type, *_):
        if exc_type is None:
            self._close(self.ctx)
            self.ctx.label(self.end_label, loc=self.loc, structured=True)
        return False


class loop(_Block):
    """A loop that the body leaves by branching.

    ``with ptx.loop("k_loop", pred=p):`` (the original pyptx's form) emits
    ``k_loop:`` <body> ``@p bra k_loop;`` -- without pred, ``bra.uni
    k_loop;``. p is read where the back edge is, so the body sets it.

    ``with ptx.loop() as L:`` names the label itself (``$L__loopN``) and
    ends with ``bra.uni $L__loopN; $L__loopN_end:``. Either form: leave with
    ``L.break_(pred=p)`` (a branch to the end label, ``<label>_end`` for a
    named loop, emitted after the loop when break_ was used), restart with
    ``L.continue_(pred=p)``; back_edge=False drops the trailing branch (a
    loop that repeats only through continue_)."""

    def __init__(self, label_name=None, *, pred=None, back_edge: bool = True):
        self.ctx = get_ctx()
        self.loc = user_loc()
        if label_name is None:
            n = self.ctx.unique("loop")
            self.head, self.end = f"$L__loop{n}", f"$L__loop{n}_end"
        else:
            self.head = getattr(label_name, "name", label_name)
            self.end = f"{self.head}_end"
        self.named = label_name is not None
        self.pred = pred
        self.back_edge = back_edge
        self.broken = False
        guard(pred)  # a bad predicate fails here, at the loop's line

    def __enter__(self):
        # The author may branch to a named loop's label from anywhere.
        self.ctx.label(self.head, loc=self.loc, structured=not self.named)
        self._open(self.ctx)
        return self

    def break_(self, pred=None):
        """``[@p] bra <end label>``."""
        self.broken = True
        bra(self.end, pred=pred)

    def continue_(self, pred=None):
        """``[@p] bra <head label>``."""
        bra(self.head, pred=pred)

    def __exit__(self, exc_type, *_):
        if exc_type is None:
            self._close(self.ctx)
            if self.back_edge:
                if self.pred is None:
                    self.ctx.inst("bra.uni", [("s", self.head)], loc=self.loc)
                else:
                    self.ctx.inst("bra", [("s", self.head)], *guard(self.pred), loc=self.loc)
            if self.broken or not self.named:
                self.ctx.label(self.end, loc=self.loc, structured=not self.named)
        return False


class range_(_Block):
    """A PTX counted loop: ``for i in ptx.range_(start, stop, step):`` or
    ``with ptx.range_(...) as i:`` (the body is traced once). Emits
    ``mov i, start; $L__rangeN: setp.ge p, i, stop; @p bra $L__rangeN_end;``
    <body> ``add i, i, step; bra.uni $L__rangeN; $L__rangeN_end:``. start and
    stop may be registers or ints; step an int (negative counts down, with
    setp.le) or a register (counting up). The counter has the type of a
    register bound, else `dtype`; by default u32, or s32 when an int bound
    or the step is negative."""

    def __init__(self, start, stop=None, step=1, dtype=None):
        if stop is None:
            start, stop = 0, start
        if isinstance(step, int) and step == 0:
            raise ValueError("ptx.range_ step must not be 0")
        self.ctx = get_ctx()
        self.loc = user_loc()
        self.start, self.stop, self.step = start, stop, step
        if dtype is None:
            negative = any(isinstance(v, int) and v < 0 for v in (start, stop, step))
            dtype = T.s32 if negative else T.u32
        self.dtype = next((v.dtype for v in (start, stop) if isinstance(v, _reg.Reg)),
                          T.as_type(dtype))
        n = self.ctx.unique("range")
        self.head, self.end = f"$L__range{n}", f"$L__range{n}_end"

    def __enter__(self):
        self.i = _reg.from_(self.start, self.dtype) if isinstance(self.start, _reg.Reg) \
            else _reg.scalar(self.dtype, init=self.start)
        self.ctx.label(self.head, loc=self.loc, structured=True)
        down = isinstance(self.step, int) and self.step < 0
        done = (self.i <= self.stop) if down else (self.i >= self.stop)
        bra(self.end, pred=done)
        self._open(self.ctx)
        return self.i

    def __exit__(self, exc_type, *_):
        if exc_type is None:
            self._close(self.ctx)
            self.i += self.step
            self.ctx.inst("bra.uni", [("s", self.head)], loc=self.loc)
            self.ctx.label(self.end, loc=self.loc, structured=True)
        return False

    def __iter__(self):
        i = self.__enter__()
        yield i
        self.__exit__(None, None, None)


class scope(_Block):
    """``with ptx.scope():`` -- a PTX ``{ ... }`` block; registers allocated
    inside are declared inside it."""

    def __enter__(self):
        self.ctx = get_ctx()
        self.loc = user_loc()
        self.ctx.open_scope(loc=self.loc)
        self._open(self.ctx)
        return self

    def __exit__(self, exc_type, *_):
        if exc_type is None:
            self._close(self.ctx)
            self.ctx.close_scope(loc=self.loc)
        return False


class expr:
    """``with ptx.expr():`` -- groups the instructions of one Python
    expression for the reader (the original pyptx's transpiler writes it);
    the PTX is the same as without it, and it emits nothing itself."""

    def __enter__(self):
        get_ctx()  # only inside a trace, like every ptx call
        return None

    def __exit__(self, *_):
        return False


def kloop(total, *, unroll: int, body, loop_label: str = "kloop"):
    """Runs ``body()`` `total` times, unrolled `unroll` times (a power of
    two).

    An int total: body() traced total times, no loop. A register total
    (integer, not modified): the main loop runs the unrolled body while at
    least `unroll` iterations are left, then a ladder of nested ``if``s runs
    the remaining ``total % unroll``::

        and r, total, unroll-1;  sub c, total, r;          (c: a fresh counter)
        setp.ge p, total, unroll;  @!p bra $L__ifN_false;
        <loop_label>:  body x unroll;  sub c, c, unroll;  setp.ne k, c, 0;  @k bra <loop_label>;
        $L__ifN_false:
        setp.ne q0, r, 0;  @!q0 bra ...;  body;  setp.ne q1, r, 1;  @!q1 bra ...;  body; ...

    That is 2 + 2 + (unroll body + 3) + 2 per ladder step (unroll-1 steps)
    instructions, body traced 2*unroll - 1 times (unroll 1: a mov instead of
    the and/sub, and no ladder). A label body() emits repeats, as in any
    unrolled loop; `loop_label` must be unique in the kernel."""
    if not isinstance(unroll, int) or unroll <= 0 or unroll & (unroll - 1):
        fail(f"ptx.kloop unroll must be a power of two (1, 2, 4, ...), not {unroll!r}")
    if isinstance(total, int) and not isinstance(total, bool):
        for _ in range(total):
            body()
        return
    if not isinstance(total, _reg.Reg) or not total.dtype.is_int:
        fail(f"ptx.kloop total must be an int or an integer register, not {total!r}")
    if unroll > 1:
        remainder = total & (unroll - 1)
        counter = total - remainder  # a fresh register: the main loop counts it down
    else:
        remainder, counter = None, _reg.from_(total, total.dtype)
    with if_(total >= unroll):
        keep_going = _reg.scalar(T.pred)  # set at the end of each pass, read by the back edge
        with loop(loop_label, pred=keep_going):
            for _ in range(unroll):
                body()
            counter -= unroll
            emit(f"setp.ne{_reg._arith_type(counter.dtype).ptx}", keep_going, counter, 0)
    if remainder is None:
        return
    with ExitStack() as ladder:
        for k in range(unroll - 1):
            ladder.enter_context(if_(remainder != k))
            body()
