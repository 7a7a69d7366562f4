"""Emitting PTX: ``ptx.inst.<mnemonic>.<modifier>...(operands)``, typed
wrappers, special registers, addresses and structured control flow.

Every call emits exactly one instruction (the control-flow helpers emit the
labels and branches they stand for; see each one). Every instruction takes
``pred=p`` (guard ``@p``) or ``pred=~p`` (guard ``@!p``).

Name mangling of ``ptx.inst`` attributes (Python keywords and PTX's ``::``):
a trailing ``_`` is dropped (``global_`` -> ``global``, ``async_`` -> ``async``),
a ``_`` before a leading digit is dropped (``_2d`` -> ``2d``), and ``__``
becomes ``::`` (``shared__cluster`` -> ``shared::cluster``). So
``ptx.inst.cp.async_.bulk.tensor._2d.shared__cluster.global_.tile(...)`` emits
``cp.async.bulk.tensor.2d.shared::cluster.global.tile``.

Operands: registers, Python ints (immediates) and floats (``0f``/``0d``
immediates, f64 when the opcode has ``.f64``), strings (symbols, labels),
``ptx.addr(...)`` addresses, lists (vectors ``{a, b}``), ``~p`` (``!%p``),
``ptx.sink`` (``_``) and ``ptx.pipe(p, q)`` (``p|q``).
"""
from __future__ import annotations

from pyptx import reg as _reg
from pyptx import types as T
from pyptx._inst import (_CHECKED, Inst, Namespace, check_opcode, emit, guard,  # noqa: F401
                         mangle, reg_id)
from pyptx._operands import SINK, Address, Pipe
from pyptx._trace import get_ctx, user_loc
from pyptx.errors import KernelError

sink = SINK


def pipe(p, q) -> Pipe:
    """The ``p|q`` operand (setp with two predicate destinations)."""
    return Pipe(p, q)


_guard = guard
_reg_id = reg_id
_Inst = Inst

inst = Inst()
barrier = Inst(("barrier",))
membar = Inst(("membar",))

# The hardware units (pyptx.hw): helpers by the original pyptx's names; any
# other attribute continues a raw opcode (ptx.wgmma.fence.sync.aligned()).
from pyptx.hw import cp_async as _cp_async, tma as _tma  # noqa: E402
from pyptx.hw.cluster import cluster  # noqa: E402,F401
from pyptx.hw.fence import bar, fence  # noqa: E402,F401
from pyptx.hw.mbarrier import mbarrier  # noqa: E402,F401
from pyptx.hw.tcgen05 import tcgen05  # noqa: E402,F401
from pyptx.hw.tma import tma  # noqa: E402,F401
from pyptx.hw.warp import mma  # noqa: E402,F401
from pyptx.hw.warpgroup import wgmma  # noqa: E402,F401

cp = Namespace("cp", "ptx.cp.async_ (cp.async, and .bulk: TMA and bulk copies).",
               async_=Namespace("cp.async", "cp.async and its bulk forms.",
                                bulk=_tma.bulk, **_cp_async.HELPERS),
               **_tma.HELPERS)


# -- special registers -----------------------------------------------------------

class _Special:
    """``ptx.special.tid.x()`` -> the register ``%tid.x`` (no instruction)."""

    __slots__ = ("_parts",)

    def __init__(self, parts=()):
        self._parts = tuple(parts)

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return _Special(self._parts + (name,))

    def __call__(self):
        return _reg.special("%" + ".".join(self._parts))


special = _Special()


# -- addresses, parameters ------------------------------------------------------------

def addr(base, offset: int = 0) -> Address:
    """``[base+offset]``: base is a register, symbol, shared allocation or
    parameter; offset a Python int (bytes)."""
    return Address(base, offset)


def tensor_addr(tensormap, *coords) -> Address:
    """``[tmap, {c0, c1, ...}]`` for cp.async.bulk.tensor."""
    return Address(tensormap, 0, coords)


def param(name, dtype=T.u64):
    """``ld.param.<type> r, [name]`` into a new register (name: str or tensor)."""
    dtype = T.as_type(dtype)
    r = _reg.scalar(dtype)
    emit(f"ld.param{dtype.ptx}", r, Address(getattr(name, "name", name)))
    return r


def global_ptrs(*tensors):
    """For each tensor parameter: ``ld.param.u64`` then ``cvta.to.global.u64``;
    returns the global pointers (u64 registers), one per tensor, as a tuple."""
    out = []
    for t in tensors:
        raw = param(t, T.u64)
        g = _reg.scalar(T.u64)
        emit("cvta.to.global.u64", g, raw)
        out.append(g)
    return tuple(out)


# -- typed wrappers (type from the destination register) ------------------------------

def _type_of(r):
    if isinstance(r, _reg.RegArray):
        return r.dtype
    if isinstance(r, (list, tuple)):
        return r[0].dtype
    return r.dtype


def mov(dst, src, pred=None):
    """``mov.<dst type> dst, src``."""
    emit(f"mov{dst.dtype.ptx}", dst, src, pred=pred)


def _arith(name):
    def wrapper(dst, a, b, pred=None):
        t = dst.dtype
        op = f"mul.lo{t.ptx}" if name == "mul" and t.is_int else f"{name}{t.ptx}"
        emit(op, dst, a, b, pred=pred)
    wrapper.__name__ = name
    wrapper.__doc__ = f"``{name}.<dst type> dst, a, b`` (integer mul is mul.lo)."
    return wrapper


add, sub, mul, min, max = (_arith(n) for n in ("add", "sub", "mul", "min", "max"))


def fma(dst, a, b, c, pred=None):
    """``fma.rn.<type>`` for floats, ``mad.lo.<type>`` for integers."""
    t = dst.dtype
    emit(f"fma.rn{t.ptx}" if t.is_float else f"mad.lo{t.ptx}", dst, a, b, c, pred=pred)


def _vec(n):
    return f".v{n}" if n > 1 else ""


def ld(dst, address, space: str = "global", pred=None):
    """``ld.<space>[.vN].<type> dst, [address]``; dst a register or a list."""
    n = len(dst) if isinstance(dst, (list, tuple, _reg.RegArray)) else 1
    address = address if isinstance(address, Address) else Address(address)
    emit(f"ld.{space}{_vec(n)}{_type_of(dst).ptx}", dst, address, pred=pred)


def st(address, src, space: str = "global", pred=None):
    """``st.<space>[.vN].<type> [address], src``."""
    n = len(src) if isinstance(src, (list, tuple, _reg.RegArray)) else 1
    address = address if isinstance(address, Address) else Address(address)
    emit(f"st.{space}{_vec(n)}{_type_of(src).ptx}", address, src, pred=pred)


def setp(cmp: str, a, b, out=None, pred=None):
    """``setp.<cmp>.<type of a> p, a, b``; returns p (new unless `out`)."""
    out = out if out is not None else _reg.scalar(T.pred)
    emit(f"setp.{cmp}{a.dtype.ptx}", out, a, b, pred=pred)
    return out


def selp(dst, a, b, p, pred=None):
    """``selp.<dst type> dst, a, b, p``."""
    emit(f"selp{dst.dtype.ptx}", dst, a, b, p, pred=pred)


def cvt(dst, src, rnd: str | None = None, pred=None):
    """``cvt[.rnd].<dst type>.<src type>``; default rounding as reg.cvt_opcode."""
    opcode = _reg.cvt_opcode(dst.dtype, src.dtype) if rnd is None else \
        f"cvt.{rnd.lstrip('.')}{dst.dtype.ptx}{src.dtype.ptx}"
    emit(opcode, dst, src, pred=pred)


def ret(pred=None):
    """``ret;``"""
    emit("ret", pred=pred)


def exit(pred=None):
    """``exit;``"""
    emit("exit", pred=pred)


def syncthreads():
    """``bar.sync 0;``"""
    emit("bar.sync", 0)


# -- labels and branches -----------------------------------------------------------------

class Label:
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


def bra(target, pred=None, uni: bool = False):
    """``[@p] bra[.uni] target`` (a Label or a label name)."""
    emit("bra.uni" if uni else "bra", target if isinstance(target, Label) else Label(target),
         pred=pred)


# -- structured control flow -------------------------------------------------------------
# Label names are numbered per trace and per construct ($L__if0_false,
# $L__loop1, ...), so traces are deterministic.

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

    def __init__(self, cond):
        self.ctx = get_ctx()
        self.loc = user_loc()
        if isinstance(cond, _reg.Reg) and cond.dtype != T.pred:
            raise TypeError(f"ptx.if_ needs a predicate, not a {cond.dtype} register "
                            f"(compare it: ptx.if_(r != 0))")
        self.guard, negated = _guard(cond)
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
        self.ctx.label(self.false_label, loc=self.loc, flush=False)


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
        self.ctx.label(self.branch.false_label, loc=self.loc)
        self._open(self.ctx)
        return self

    def __exit__(self, exc_type, *_):
        if exc_type is None:
            self._close(self.ctx)
            self.ctx.label(self.end_label, loc=self.loc)
        return False


class loop(_Block):
    """``with ptx.loop() as L:`` -- ``$L__loopN:`` <body> ``bra.uni $L__loopN;
    $L__loopN_end:``. Leave with ``L.break_(pred=p)``, restart with
    ``L.continue_(pred=p)``. back_edge=False drops the trailing branch (a
    do-while that loops only through continue_)."""

    def __init__(self, back_edge: bool = True):
        self.ctx = get_ctx()
        self.loc = user_loc()
        n = self.ctx.unique("loop")
        self.head, self.end = f"$L__loop{n}", f"$L__loop{n}_end"
        self.back_edge = back_edge

    def __enter__(self):
        self.ctx.label(self.head, loc=self.loc)
        self._open(self.ctx)
        return self

    def break_(self, pred=None):
        bra(self.end, pred=pred)

    def continue_(self, pred=None):
        bra(self.head, pred=pred)

    def __exit__(self, exc_type, *_):
        if exc_type is None:
            self._close(self.ctx)
            if self.back_edge:
                self.ctx.inst("bra.uni", [("s", self.head)], loc=self.loc)
            self.ctx.label(self.end, loc=self.loc)
        return False


class range_(_Block):
    """A PTX counted loop: ``for i in ptx.range_(start, stop, step):`` or
    ``with ptx.range_(...) as i:`` (the body is traced once). Emits
    ``mov i, start; $L__rangeN: setp.ge p, i, stop; @p bra $L__rangeN_end;``
    <body> ``add i, i, step; bra.uni $L__rangeN; $L__rangeN_end:``. start and
    stop may be registers or ints; step an int (negative counts down, with
    setp.le) or a register (counting up)."""

    def __init__(self, start, stop=None, step=1, dtype=T.u32):
        if stop is None:
            start, stop = 0, start
        if isinstance(step, int) and step == 0:
            raise ValueError("ptx.range_ step must not be 0")
        self.ctx = get_ctx()
        self.loc = user_loc()
        self.start, self.stop, self.step = start, stop, step
        self.dtype = next((v.dtype for v in (start, stop) if isinstance(v, _reg.Reg)),
                          T.as_type(dtype))
        n = self.ctx.unique("range")
        self.head, self.end = f"$L__range{n}", f"$L__range{n}_end"

    def __enter__(self):
        self.i = _reg.from_(self.start, self.dtype) if isinstance(self.start, _reg.Reg) \
            else _reg.scalar(self.dtype, init=self.start)
        self.ctx.label(self.head, loc=self.loc)
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
            self.ctx.label(self.end, loc=self.loc)
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


# -- warp-level helpers ---------------------------------------------------------------------

class _Warp:
    """``ptx.warp.reduce_sum(r)`` etc.: butterfly reductions over a warp with
    ``shfl.sync.bfly.b32`` (offsets width/2 .. 1), combining into `r` in place;
    every lane ends with the result. 32-bit registers only (f32, u32, s32)."""

    @staticmethod
    def _reduce(value, combine, width=32, mask=0xFFFFFFFF):
        if not isinstance(value, _reg.Reg) or value.dtype.bits != 32 or value.dtype == T.pred:
            raise TypeError(f"warp reductions take a 32-bit register, not {value!r}")
        if width not in (2, 4, 8, 16, 32):
            raise ValueError("width must be a power of two from 2 to 32")
        tmp = _reg.scalar(value.dtype)
        clamp = ((32 - width) << 8) | 0x1F
        mask = mask - (1 << 32) if mask >= 1 << 31 else mask  # print as -1, like nvcc
        t = value.dtype if value.dtype.kind != "b" else T.u32
        offset = width // 2
        while offset:
            emit("shfl.sync.bfly.b32", tmp, value, offset, clamp, mask)
            emit(f"{combine}{t.ptx}", value, value, tmp)
            offset //= 2
        return value

    def reduce_sum(self, value, width=32, mask=0xFFFFFFFF):
        return self._reduce(value, "add", width, mask)

    def reduce_max(self, value, width=32, mask=0xFFFFFFFF):
        return self._reduce(value, "max", width, mask)

    def reduce_min(self, value, width=32, mask=0xFFFFFFFF):
        return self._reduce(value, "min", width, mask)


warp = _Warp()
