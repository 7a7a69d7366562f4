"""The core of emission, shared by ``ptx`` and the hardware-unit modules
(``pyptx.hw.*``): ``emit``, the raw ``ptx.inst.<...>`` opcode builder, and
the namespaces that hold helpers and raw prefixes side by side.

A namespace such as ``ptx.wgmma`` holds helpers (``ptx.wgmma.fence()``) and,
for every other attribute, continues a raw opcode
(``ptx.wgmma.fence.sync.aligned()`` is ``ptx.inst.wgmma.fence.sync.aligned()``),
so kernels written either way keep working.

Name mangling of raw attributes (Python keywords and PTX's ``::``): a
trailing ``_`` is dropped (``global_`` -> ``global``), a ``_`` before a
leading digit is dropped (``_2d`` -> ``2d``), and ``__`` becomes ``::``
(``shared__cluster`` -> ``shared::cluster``).
"""
from __future__ import annotations

from pyptx import types as T
from pyptx._operands import Address, float_kind, operand
from pyptx._trace import _threads, get_ctx, user_loc
from pyptx.errors import KernelError
from pyptx.reg import NegPred, Reg


def guard(p):
    """(register id, negated) of a guard predicate, or (None, False)."""
    if p is None:
        return None, False
    if isinstance(p, NegPred):
        return reg_id(p.reg), True
    if isinstance(p, Reg) and p.dtype == T.pred:
        return reg_id(p), False
    raise TypeError(f"a guard must be a predicate register or ~predicate, not {p!r}")


def reg_id(r):
    return r.__ptx_operand__()[1]


def emit(opcode: str, *operands, pred=None, loc=None):
    """Emits one instruction `opcode` with `operands` (see pyptx.ptx)."""
    if opcode not in _CHECKED:
        check_opcode(opcode, loc or user_loc())
    ctx = get_ctx()
    g, negated = guard(pred)
    ftype = float_kind(opcode)
    ctx.inst(opcode, [operand(o, ftype) for o in operands], g, negated, loc=loc)


def as_address(x, offset: int = 0) -> Address:
    """``[x+offset]`` for a shared allocation or slice, an mbarrier reference,
    a register, a symbol or an Address. Objects that know their own address
    (shared memory carved from the dynamic window, for one) provide
    ``__ptx_address__() -> Address``."""
    if hasattr(x, "__ptx_address__"):
        return x.__ptx_address__() + offset
    if isinstance(x, Address):
        return x + offset if offset else x
    return Address(x, offset)


def fail(message: str):
    """Raises a KernelError at the kernel author's line."""
    raise KernelError(message, *user_loc())


def mangle(part: str) -> str:
    """One attribute name of ptx.inst as a PTX opcode part (see module doc)."""
    if part.startswith("_") and part[1:2].isdigit():
        part = part[1:]
    if part.endswith("_") and not part.endswith("__"):
        part = part[:-1]
    return part.replace("__", "::")


def check_opcode(opcode: str, loc) -> None:
    """Rejects, at the author's line, an opcode that no form of the ISA
    description takes (the native verifier checks operands, types and
    targets when the kernel is finished). Kernels traced with
    isa_policy other than "strict" skip it."""
    if opcode in _CHECKED:
        return
    ctx = get_ctx()
    if ctx.isa_policy == "strict":
        problem = ctx.native.opcode_problem(opcode)
        if problem is not None:
            raise KernelError(problem, *loc)
        _CHECKED.add(opcode)


_CHECKED: set = set()  # opcodes the ISA description takes


class Inst:
    """``ptx.inst.add.f32`` -- an opcode under construction; call to emit.
    The call returns its first operand -- the destination (a register; st's
    address), for chaining: ``t = ptx.inst.shr.u32(r1, r0, 6)`` -- or None
    without operands."""

    # A child, once spelled, is kept as an instance attribute: later lookups
    # of ptx.inst.add.f32 never reach __getattr__.
    __slots__ = ("_parts", "opcode", "_ftype", "__dict__")

    def __init__(self, parts=()):
        self._parts = tuple(parts)
        self.opcode = ".".join(self._parts)
        self._ftype = float_kind(self.opcode)

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        child = Inst(self._parts + (mangle(name),))
        self.__dict__[name] = child
        return child

    def __call__(self, *operands, pred=None):
        opcode = self.opcode
        if opcode not in _CHECKED:
            if not self._parts:
                raise TypeError("ptx.inst needs a mnemonic: ptx.inst.add.u32(d, a, b)")
            check_opcode(opcode, user_loc())
        try:
            ctx = _threads.stack[-1]
        except IndexError:
            ctx = get_ctx()  # raises: not tracing
        if pred is None and ctx.active_fast:
            # The common case, without emit's layers: the native module reads
            # registers of this trace and addresses of them itself.
            ctx.module.emit(ctx.func, opcode, operands, ctx, self._ftype)
        else:
            emit(opcode, *operands, pred=pred)
        return operands[0] if operands else None

    def __repr__(self):
        return f"<ptx instruction {self.opcode or '?'}>"


def _raw_child(obj, parts, name):
    if name.startswith("__") and name.endswith("__"):
        raise AttributeError(name)
    child = Inst(parts + (mangle(name),))
    obj.__dict__[name] = child
    return child


def _wrap_members(parts, members, target):
    for name, value in members.items():
        if callable(value) and not isinstance(value, (Namespace, Helper, type)):
            value = Helper(parts + (mangle(name),), value)
        setattr(target, name, value)


class Helper:
    """A helper that is also a raw-opcode prefix: ``ptx.wgmma.fence()`` runs
    the helper, ``ptx.wgmma.fence.sync.aligned()`` emits that opcode.
    `members` are further helpers or constants under it
    (``ptx.cp.async_.bulk.tensor_2d.store``)."""

    def __init__(self, parts, fn, **members):
        self._parts = tuple(parts)
        self._fn = fn
        self.__wrapped__ = fn  # inspect.signature and help() see the helper
        self.__doc__ = fn.__doc__
        self.__name__ = getattr(fn, "__name__", self._parts[-1])
        self.__qualname__ = getattr(fn, "__qualname__", self.__name__)
        _wrap_members(self._parts, members, self)

    def __call__(self, *args, **kwargs):
        return self._fn(*args, **kwargs)

    def __getattr__(self, name):
        return _raw_child(self, self._parts, name)

    def __repr__(self):
        return f"<ptx helper {'.'.join(self._parts)}>"


class Namespace:
    """``ptx.<family>``: helpers and constants by name; any other attribute
    continues the raw opcode ``<family>.<attribute>...``."""

    def __init__(self, prefix: str, doc: str = "", **members):
        self._parts = tuple(prefix.split(".")) if prefix else ()
        self.__doc__ = doc
        _wrap_members(self._parts, members, self)

    def __getattr__(self, name):
        return _raw_child(self, self._parts, name)

    def __call__(self, *operands, pred=None):
        # ptx.bar(...)-style raw use of the bare prefix.
        return Inst(self._parts)(*operands, pred=pred)

    def __repr__(self):
        return f"<ptx namespace {'.'.join(self._parts)}>"
