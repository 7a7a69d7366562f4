"""Registers: ``reg.scalar``, ``reg.array``, ``reg.from_``, ``reg.pred``.

A :class:`Reg` is a handle to one PTX register of the kernel being traced.
Its operators emit instructions right away (one per operator, except where
noted) and return a fresh register; the in-place forms (``+=`` ...) write the
left register itself::

    tid = reg.from_(ptx.special.tid.x(), u32)   # mov.u32 %r0, %tid.x;
    x = tid + 1                                  # add.u32 %r1, %r0, 1;
    p = x < 32                                   # setp.lt.u32 %p0, %r1, 32;

Operator semantics:

* ``+ - *`` -> ``add/sub/mul.lo`` for integers, ``add/sub/mul`` for floats;
  ``//`` and ``%`` -> ``div``/``rem`` (integers only); ``/`` -> ``div.rn``
  (floats only); ``& | ^`` -> ``and/or/xor.bN`` (``.pred`` on predicates);
  ``<< >>`` -> ``shl.bN`` / ``shr.uN``/``shr.sN`` (arithmetic shift for signed
  types); unary ``-`` -> ``neg``; ``~`` -> ``not.bN`` on integers and, on a
  predicate, a negated use ``!%p`` for guards and ``ptx.if_`` (no instruction).
* Comparisons ``< <= > >= == !=`` -> ``setp.<cmp>.T`` into a new predicate.
* Python ints and floats become immediates (floats in the register's float
  format; a float with an integer register is an error).
* The instruction type is the left operand's type. Mixed widths: integer
  registers of different widths (e.g. a u64 pointer plus a u32 offset) first
  widen the narrower one with ``cvt.<wide>.<narrow>`` (``cvt.u64.u32``; the
  signed type when the narrow one is signed) into a new register, then
  operate at the wide type -- two instructions. An in-place op cannot narrow
  (``u32 += u64`` is an error). Integer and float registers never mix: use
  ``reg.from_`` / ``ptx.cvt`` explicitly.
* A register has no truth value: ``if r < 3:`` raises; use ``ptx.if_``.
"""
from __future__ import annotations

from pyptx import types as T
from pyptx._operands import operand
from pyptx._trace import get_ctx

# One prefix per declared register type, so each `.reg` line has one type.
_PREFIX = {
    "pred": "%p", "b8": "%c", "u8": "%uc", "s8": "%sc",
    "b16": "%bh", "u16": "%rh", "s16": "%sh", "f16": "%h",
    "b32": "%b", "u32": "%r", "s32": "%s", "f32": "%f", "f16x2": "%hh",
    "b64": "%bd", "u64": "%rd", "s64": "%sd", "f64": "%fd", "b128": "%q",
}

# Types of the special registers that are not u32 (PTX ISA, "Special Registers").
_SREG_TYPES = {"%clock64": T.u64, "%globaltimer": T.u64, "%gridid": T.u64,
               "%current_graph_exec": T.u64}


class NegPred:
    """``~p`` for a predicate p: the operand ``!%p`` / the guard ``@!%p``."""

    __slots__ = ("reg",)

    def __init__(self, reg: "Reg"):
        self.reg = reg

    def __invert__(self):
        return self.reg

    def __ptx_operand__(self, ftype):
        return ("!", self.reg.__ptx_operand__(ftype))

    def __repr__(self):
        return f"~{self.reg!r}"


# operator -> ({type name: opcode} for an int b, the same for a register b
# of a's type): the combinations _binary_checked has checked once; later
# ones emit without the checks (see _operator).
_FAST_OPCODES: dict = {}


def _operator(op, in_place=False, swap=False):
    """The method of Reg for operator `op` (see _binary_checked), with fast
    paths for the combinations checked once before: an int or a register of
    a's type (Module.binary, wholly native), or (widened first) a narrower
    integer register. A new destination is an ("n", class) operand: the
    native module creates it."""
    if swap:
        def method(a, b):
            return _binary_checked(op, a, b, None, True)
        return method

    tables = _FAST_OPCODES.setdefault(op, ({}, {}))

    def method(a, b):
        ctx = a.ctx
        if ctx.active_fast:
            # An int or a register of a's type: the native module does it all.
            done = ctx.module.binary(ctx.func, tables, ctx.new_operands, a, b, in_place)
            if done is not None:
                return done
            if type(b) is Reg and b.ctx is ctx:
                t = a.dtype
                plan = _WIDEN_PLAN.get((op, t.name, b.dtype.name))
                if plan is not None:
                    cvt, wide, opcode = plan
                    module, func = ctx.module, ctx.func
                    new = ctx.new_operands.get(wide.reg_type) or _new_operand(ctx, wide)
                    src = module.inst(func, cvt, [new, b.id])
                    if in_place:
                        module.inst(func, opcode, [a.id, a.id, src])
                        return a
                    dst = ctx.new_operands.get(t.reg_type) or _new_operand(ctx, t)
                    return Reg(ctx, module.inst(func, opcode, [dst, a.id, src]), t)
        return _binary_checked(op, a, b, a if in_place else None, False)
    return method


class Reg:
    """A register (or special register) of the kernel being traced.

    Module.binary also makes Regs, setting these slots itself."""

    __slots__ = ("id", "dtype", "ctx", "special", "__weakref__")

    def __init__(self, ctx, reg_id: int, dtype: T.PtxType, special: str | None = None):
        self.ctx, self.id, self.dtype, self.special = ctx, reg_id, dtype, special

    def __repr__(self):
        return f"Reg({self.special or '#%d' % self.id}, {self.dtype})"

    def __ptx_operand__(self, ftype=None):
        if self.ctx is not get_ctx():
            raise ValueError(f"{self!r} belongs to another kernel trace")
        return ("r", self.id)

    def __bool__(self):
        raise TypeError("a PTX register has no Python truth value; branch with "
                        "`with ptx.if_(pred):` or pass pred= to an instruction")

    __hash__ = object.__hash__

    # -- arithmetic -----------------------------------------------------------
    __add__ = __radd__ = _operator("add")
    __iadd__ = _operator("add", in_place=True)
    __sub__ = _operator("sub")
    __rsub__ = _operator("sub", swap=True)
    __isub__ = _operator("sub", in_place=True)
    __mul__ = __rmul__ = _operator("mul")
    __imul__ = _operator("mul", in_place=True)
    __floordiv__ = _operator("div")
    __ifloordiv__ = _operator("div", in_place=True)
    __truediv__ = _operator("fdiv")
    __itruediv__ = _operator("fdiv", in_place=True)
    __mod__ = _operator("rem")
    __imod__ = _operator("rem", in_place=True)
    __and__ = __rand__ = _operator("and")
    __iand__ = _operator("and", in_place=True)
    __or__ = __ror__ = _operator("or")
    __ior__ = _operator("or", in_place=True)
    __xor__ = __rxor__ = _operator("xor")
    __ixor__ = _operator("xor", in_place=True)
    __lshift__ = _operator("shl")
    __ilshift__ = _operator("shl", in_place=True)
    __rshift__ = _operator("shr")
    __irshift__ = _operator("shr", in_place=True)
    max = _operator("max")
    min = _operator("min")

    def __neg__(self):
        if self.dtype.kind not in ("s", "f"):
            raise TypeError(f"neg needs a signed or float register, not {self.dtype}")
        return _emit_new(f"neg{self.dtype.ptx}", self.dtype, [self])

    def __invert__(self):
        if self.dtype == T.pred:
            return NegPred(self)
        if not self.dtype.is_int:
            raise TypeError(f"~ needs an integer or predicate register, not {self.dtype}")
        return _emit_new(f"not{T.bits_type(self.dtype).ptx}", self.dtype, [self])

    # -- comparisons ----------------------------------------------------------
    def __lt__(self, o): return _compare("lt", self, o)
    def __le__(self, o): return _compare("le", self, o)
    def __gt__(self, o): return _compare("gt", self, o)
    def __ge__(self, o): return _compare("ge", self, o)
    def __eq__(self, o): return _compare("eq", self, o)  # type: ignore[override]
    def __ne__(self, o): return _compare("ne", self, o)  # type: ignore[override]


class RegArray:
    """``reg.array(f32, n)``: n registers of one type, indexable and iterable."""

    __slots__ = ("regs", "dtype")

    def __init__(self, regs, dtype):
        self.regs, self.dtype = list(regs), dtype

    def __getitem__(self, i):
        return self.regs[i]

    def __len__(self):
        return len(self.regs)

    def __iter__(self):
        return iter(self.regs)

    def __ptx_operand__(self, ftype):
        return ("v", [r.__ptx_operand__(ftype) for r in self.regs])

    def __repr__(self):
        return f"RegArray({self.dtype}, {len(self.regs)})"


# -- allocation ---------------------------------------------------------------

def _new(dtype) -> Reg:
    if type(dtype) is not T.PtxType:
        dtype = T.as_type(dtype)
    return _fresh(get_ctx(), dtype)


def special(name: str) -> Reg:
    """The special register `name` ("%tid.x", "%laneid", ...), read-only."""
    if not name.startswith("%"):
        name = "%" + name
    ctx = get_ctx()
    return Reg(ctx, ctx.sreg(name), _SREG_TYPES.get(name, T.u32), special=name)


def _imm(value, dtype: T.PtxType):
    """An immediate operand for a register of `dtype`."""
    if dtype.is_float:
        if dtype.name not in ("f32", "f64"):
            raise TypeError(f"PTX has no {dtype} immediates; build the value in a "
                            f"b16/b32 register and mov/cvt it")
        return (dtype.name, float(value))
    if isinstance(value, float) and not float(value).is_integer():
        raise TypeError(f"float {value!r} used with a {dtype} register")
    return ("i", int(value))


def scalar(dtype, init=None) -> Reg:
    """A new register; with `init`, also ``mov.<type> r, init``."""
    r = _new(dtype)
    if init is not None:
        _mov(r, init)
    return r


def pred(init=None) -> Reg:
    """A new predicate register (``init`` True/False emits ``mov.pred``)."""
    return scalar(T.pred, init)


def array(dtype, count: int) -> RegArray:
    """`count` new registers of `dtype` (no instructions)."""
    dtype = T.as_type(dtype)
    return RegArray([_new(dtype) for _ in range(count)], dtype)


def _mov(dst: Reg, value):
    ctx = get_ctx()
    if isinstance(value, (int, float)):
        src = _imm(value, dst.dtype)
    else:
        src = operand(value, dst.dtype.name if dst.dtype.name == "f64" else "f32")
    ctx.inst(f"mov{dst.dtype.ptx}", [dst.__ptx_operand__(), src])


def cvt_opcode(dst: T.PtxType, src: T.PtxType) -> str:
    """The cvt opcode from src to dst, with the rounding PTX requires:
    .rzi for float->int, .rn for int->float and narrowing float->float."""
    if dst.is_float and src.is_float:
        rnd = ".rn" if dst.bits < src.bits else ""
    elif dst.is_float:
        rnd = ".rn"
    elif src.is_float:
        rnd = ".rzi"
    else:
        rnd = ""
    return f"cvt{rnd}{dst.ptx}{src.ptx}"


def from_(value, dtype) -> Reg:
    """A new register of `dtype` holding `value` (a register, special
    register, immediate or symbol). Same type or same width without a
    float/int change: ``mov``; otherwise ``cvt`` (value conversion, see
    :func:`cvt_opcode`)."""
    dtype = T.as_type(dtype)
    dst = _new(dtype)
    if isinstance(value, Reg) and value.dtype != dtype:
        s = value.dtype
        bitcast = s.bits == dtype.bits and (s.is_float == dtype.is_float
                                             or "b" in (s.kind, dtype.kind))
        if not bitcast:
            get_ctx().inst(cvt_opcode(dtype, s), [dst.__ptx_operand__(), value.__ptx_operand__()])
            return dst
        if s.kind == "b" or dtype.kind == "b":
            get_ctx().inst(f"mov{T.bits_type(dtype).ptx}", [dst.__ptx_operand__(),
                                                          value.__ptx_operand__()])
            return dst
    _mov(dst, value)
    return dst


# -- operator emission ----------------------------------------------------------

def _emit_new(opcode, dtype, sources, dst=None) -> Reg:
    dst = dst if dst is not None else _new(dtype)
    ftype = "f64" if dtype.name == "f64" else "f32"
    get_ctx().inst(opcode, [dst.__ptx_operand__()] +
                   [s if isinstance(s, tuple) else operand(s, ftype) for s in sources])
    return dst


def _widen(r: Reg, wide: T.PtxType) -> Reg:
    """cvt.<wide>.<narrow> into a new register (signed stays signed)."""
    target = T.ALL_TYPES[f"{'s' if r.dtype.is_signed else 'u'}{wide.bits}"]
    return _emit_new(f"cvt{target.ptx}{r.dtype.ptx}", target, [r])


def _unify(a: Reg, b, dst, what):
    """(type, a, b-operand) after the mixed-width rule of the module docstring."""
    t = a.dtype
    if isinstance(b, NegPred):
        raise TypeError(f"{what}: ~p is only a guard/operand, not a value")
    if isinstance(b, Reg):
        if t == b.dtype or (t.is_int and b.dtype.is_int and t.bits == b.dtype.bits) \
                or (t == T.pred and b.dtype == T.pred):
            return t, a, b
        if not (t.is_int and b.dtype.is_int):
            raise TypeError(f"{what}: cannot mix {t} and {b.dtype} registers; "
                            f"convert one with reg.from_(r, type)")
        if b.dtype.bits > t.bits:
            if dst is not None:
                raise TypeError(f"{what}: in-place op would narrow {b.dtype} into {t}")
            return b.dtype, _widen(a, b.dtype), b
        return t, a, _widen(b, t)
    if isinstance(b, (int, float)):
        return t, a, _imm(b, t)
    return NotImplemented, a, b


_INT_ONLY = {"div", "rem", "shl", "shr"}




# (operator, wide type, narrow type) -> (cvt opcode, its type, opcode) for
# `wide op narrow`, once checked: u64 pointer + u32 offset.
_WIDEN_PLAN: dict = {}


def _new_operand(ctx, dtype) -> tuple:
    """The operand ("n", class) that has the native module create a new
    register of `dtype` (a PtxType) where it stands."""
    operand = ctx.new_operands.get(dtype.reg_type)
    if operand is None:
        reg_type = dtype.reg_type
        operand = ctx.new_operands[reg_type] = (
            "n", ctx.module.reg_class(ctx.func, reg_type, _PREFIX.get(reg_type, "%x")))
    return operand


def _fresh(ctx, dtype) -> Reg:
    """A new register of `dtype` in trace `ctx` (dtype a PtxType)."""
    new = ctx.new_operands.get(dtype.reg_type) or _new_operand(ctx, dtype)
    return Reg(ctx, ctx.module.new_reg(new[1]), dtype)


def _binary_checked(op, a: Reg, b, dst=None, swap=False):
    what = f"operator {op}"
    fast_table = _FAST_OPCODES.setdefault(op, ({}, {}))[type(b) is Reg]
    fast = not swap and (type(b) is int and a.dtype.is_int and op not in
                         ("shl", "shr") or type(b) is Reg and b.dtype is a.dtype)
    if op in ("shl", "shr"):
        t = a.dtype
        if isinstance(b, Reg) and (not b.dtype.is_int or b.dtype.bits != 32):
            raise TypeError("a shift amount must be a 32-bit integer register or an int")
        bo = b if isinstance(b, Reg) else _imm(b, T.u32) if isinstance(b, int) else None
        if bo is None:
            return NotImplemented
    else:
        t, a, bo = _unify(a, b, dst, what)
        if t is NotImplemented:
            return NotImplemented
    if t == T.pred and op not in ("and", "or", "xor"):
        raise TypeError(f"{what} is not defined on predicates (use & | ^ ~)")
    if t.is_float and op in _INT_ONLY | {"and", "or", "xor"}:
        raise TypeError(f"{what} needs integer registers, not {t}" +
                        ("; use / for float division" if op == "div" else ""))
    if op == "fdiv" and not t.is_float:
        raise TypeError("/ is float division; use // for integer division")
    if op in ("and", "or", "xor", "shl"):
        opcode = f"{op}{T.bits_type(t).ptx}"
    elif op == "shr":
        opcode = f"shr{t.ptx if t.kind != 'b' else T.ALL_TYPES['u%d' % t.bits].ptx}"
    elif op == "mul":
        opcode = f"mul.lo{t.ptx}" if t.is_int else f"mul{t.ptx}"
    elif op == "fdiv":
        opcode = f"div.rn{t.ptx}"
    else:
        opcode = f"{op}{t.ptx}"
    sources = [bo, a] if swap else [a, bo]
    result = _emit_new(opcode, t, sources, dst=dst)
    if fast and t is a.dtype:
        fast_table[t.name] = opcode
    elif (not swap and type(b) is Reg and t is a.dtype and b.dtype is not t
          and t.is_int and b.dtype.is_int and b.dtype.bits < t.bits):
        # `b` was widened with cvt into t's width (see _unify).
        wide = T.ALL_TYPES[f"{'s' if b.dtype.is_signed else 'u'}{t.bits}"]
        _WIDEN_PLAN[(op, t.name, b.dtype.name)] = (f"cvt{wide.ptx}{b.dtype.ptx}", wide, opcode)
    return result


def _compare(cmp, a: Reg, b):
    t, a, bo = _unify(a, b, None, f"comparison {cmp}")
    if t is NotImplemented:
        return NotImplemented
    if t == T.pred:
        raise TypeError("compare predicates with ^ (xor) instead")
    if t.kind == "b" and cmp not in ("eq", "ne"):
        t = T.ALL_TYPES[f"u{t.bits}"]  # ordered setp needs a signedness
    return _emit_new(f"setp.{cmp}{t.ptx}", T.pred, [a, bo])
