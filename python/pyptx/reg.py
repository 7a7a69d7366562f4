"""Registers: ``reg.scalar``, ``reg.array``, ``reg.from_``, ``reg.pred``,
``reg.wgmma_frag`` (and the original pyptx's ``reg.alloc``/``alloc_array``).

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
* Bit-typed registers (``.b16/.b32/.b64``) have no arithmetic of their own:
  ``+ - * // % max min`` on them emit the unsigned instruction
  (``add.u32``), which ptxas takes for ``.bN`` registers; ``& | ^ << ~``
  keep ``.bN``.
* ``int_reg | pred`` (either order) is the ``r|p`` operand of elect.sync
  (ptx.pipe), not an instruction; ``p | q`` on two predicates is ``or.pred``.
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
* Special registers (``%tid.x`` ...) are read-only and PTX takes them only
  in ``mov``/``cvt``: an operator on one first copies it into a new register
  with ``mov`` (one more instruction); copy it once with ``reg.from_`` when
  you use it more than once.
* A register has no truth value: ``if r < 3:`` raises; use ``ptx.if_``.
"""
from __future__ import annotations

from pyptx import _isa_facts
from pyptx import types as T
from pyptx._operands import Pipe, operand
from pyptx._trace import get_ctx, set_register_class, user_loc
from pyptx.errors import KernelError, PyptxError
from pyptx.hw.wgmma_layout import accumulator_registers

PipeRef = Pipe  # the original pyptx's name for the p|q operand

# One prefix per declared register type, so each `.reg` line has one type.
_PREFIX = {
    "pred": "%p", "b8": "%c", "u8": "%uc", "s8": "%sc",
    "b16": "%bh", "u16": "%rh", "s16": "%sh", "f16": "%h",
    "b32": "%b", "u32": "%r", "s32": "%s", "f32": "%f", "f16x2": "%hh",
    "b64": "%bd", "u64": "%rd", "s64": "%sd", "f64": "%fd", "b128": "%q",
}

# A special register's type by its width (SpecialRegisters.td gives widths).
_SREG_TYPE_OF_WIDTH = {1: T.pred, 32: T.u32, 64: T.u64}


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
        def method(self, other):
            return _binary_checked(op, self, other, None, True)
        return method

    tables = _FAST_OPCODES.setdefault(op, ({}, {}))

    def method(self, other):
        ctx = self.ctx
        if ctx.active_fast:
            # An int or a register of self's type: the native module does it all.
            done = ctx.module.binary(ctx.func, tables, ctx.new_operands, self, other, in_place)
            if done is not None:
                return done
            if type(other) is Reg and other.ctx is ctx:
                t = self.dtype
                plan = _WIDEN_PLAN.get((op, t.name, other.dtype.name))
                if plan is not None:
                    cvt, wide, opcode = plan
                    module, func = ctx.module, ctx.func
                    new = ctx.new_operands.get(wide.reg_type) or _new_operand(ctx, wide)
                    src = module.inst(func, cvt, [new, other.id])
                    if in_place:
                        module.inst(func, opcode, [self.id, self.id, src])
                        return self
                    dst = ctx.new_operands.get(t.reg_type) or _new_operand(ctx, t)
                    return _make(ctx, module.inst(func, opcode, [dst, self.id, src]), t)
        return _binary_checked(op, self, other, self if in_place else None, False)
    return method


class Reg:
    """A register (or special register) of the kernel being traced. Make
    registers with reg.scalar / reg.array / reg.from_; ``Reg(name, dtype)``
    (the original pyptx's constructor) names a special register
    (``Reg("%tid.x", u32)``).

    Module.binary also makes Regs, setting these slots itself."""

    __slots__ = ("id", "dtype", "ctx", "special", "__weakref__")

    def __new__(cls, name: str, dtype):
        try:
            return special(name, dtype)
        except ValueError:
            pass
        raise PyptxError(f"Reg({name!r}, {dtype}): no special register of that name; "
                         f"registers of your own come from reg.scalar / reg.array "
                         f"(pyptx names them)")

    @property
    def name(self) -> str:
        """The register as PTX spells it: "%r3", "%tid.x"."""
        if self.special is not None:
            return self.special
        return self.ctx.module.reg_name(self.id)

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


set_register_class(Reg)


def _make(ctx, reg_id: int, dtype: T.PtxType, cls=Reg) -> Reg:
    """A Reg for register `reg_id` of trace `ctx` (what Module.binary does)."""
    r = object.__new__(cls)
    r.ctx, r.id, r.dtype, r.special = ctx, reg_id, dtype, None
    return r


class SpecialReg(Reg):
    """A special register (``%tid.x``): read-only, and PTX takes it only in
    mov/cvt, so each operator first copies it into a new register."""

    __slots__ = ()

    def copy(self) -> Reg:
        """``mov`` into a new register of the same type."""
        return from_(self, self.dtype)


def _staged(method_name):
    def method(self, *args):
        return getattr(self.copy(), method_name)(*args)
    method.__name__ = method_name
    return method


def _staged_reflected(op):
    # `x op tid` with x a register: Python asks the subclass first
    # (tid.__rop__); keep the written operand order.
    def method(self, other):
        copy = self.copy()
        if isinstance(other, Reg):
            return getattr(Reg, f"__{op}__")(other, copy)
        return getattr(copy, f"__r{op}__")(other)
    method.__name__ = f"__r{op}__"
    return method


def _read_only(method_name):
    def method(self, other):
        raise TypeError(f"{self.special} is a read-only special register; copy it "
                        f"first: r = reg.from_(ptx.special...(), type)")
    method.__name__ = method_name
    return method


for _name in ("add", "sub", "mul", "floordiv", "truediv", "mod", "and", "or", "xor",
              "lshift", "rshift", "neg", "invert", "lt", "le", "gt", "ge", "eq", "ne"):
    setattr(SpecialReg, f"__{_name}__", _staged(f"__{_name}__"))
for _name in ("add", "sub", "mul", "and", "or", "xor"):
    setattr(SpecialReg, f"__r{_name}__", _staged_reflected(_name))
for _name in ("iadd", "isub", "imul", "ifloordiv", "itruediv", "imod", "iand", "ior",
              "ixor", "ilshift", "irshift"):
    setattr(SpecialReg, f"__{_name}__", _read_only(f"__{_name}__"))
SpecialReg.max = _staged("max")
SpecialReg.min = _staged("min")
SpecialReg.__hash__ = object.__hash__


class _RegList(list):
    """RegArray.regs: the registers as a list, also callable (``regs()``,
    the original pyptx's spelling) for a copy."""

    __slots__ = ()

    def __call__(self) -> list:
        return list(self)


class _RegsAttribute:
    # On the class: the plain method regs(self) (for help() and
    # inspect.signature); on an instance: its _RegList.
    def __get__(self, obj, cls=None):
        return _regs_method if obj is None else obj._regs


def _regs_method(self) -> list:
    """The registers as a list (a copy)."""
    return list(self._regs)


class RegArray:
    """``reg.array(f32, n)``: n registers of one type, indexable and
    iterable; used as an operand it is the vector ``{r0, r1, ...}``.

    ``RegArray(regs, dtype)`` wraps registers you have. ``.regs`` is the list
    of them (``.regs()`` a copy), ``.count`` their number, ``.base`` the PTX
    name prefix they share (``"%f"``: the registers of one prefix are
    declared together as ``%f<N>``, so the elements are ``%f<k>..%f<k+n-1>``
    for some k). ``arr[i] = value`` writes register i with ``mov`` (see
    __setitem__)."""

    __slots__ = ("_regs", "dtype")

    regs = _RegsAttribute()

    def __init__(self, base, count=None, dtype=None):
        if isinstance(base, str):
            raise PyptxError(f"RegArray({base!r}, ...) names registers; pyptx names "
                             f"registers itself: allocate them with reg.array(dtype, n)")
        # RegArray(regs, dtype), or RegArray(regs, count, dtype).
        dtype = count if dtype is None else dtype
        self._regs, self.dtype = _RegList(base), T.as_type(dtype)
        if count is not None and not isinstance(count, T.PtxType) and count != len(self._regs):
            raise ValueError(f"RegArray: {len(self._regs)} registers, count {count}")

    @property
    def count(self) -> int:
        """The number of registers."""
        return len(self._regs)

    @property
    def base(self) -> str:
        """The PTX name prefix of the registers ("%f" for f32)."""
        return _PREFIX.get(self.dtype.reg_type, "%x")

    def hw_order(self, *, reverse: bool = False) -> list:
        """The registers as a list, in allocation order or reversed (Hopper
        tensor-core fragments are often consumed in the reverse order)."""
        return list(reversed(self._regs)) if reverse else list(self._regs)

    def __getitem__(self, i):
        return self._regs[i]

    def __setitem__(self, i: int, value):
        """``arr[i] = value``: one ``mov`` into register i (``mov.bN`` from a
        register of another type of the same width, ``mov.<type>`` from an
        immediate); nothing when value is that register already. The
        register objects in the array stay the same, so a loop that updates
        arr[i] updates the register its next iteration reads."""
        dst = self._regs[i]
        if value is dst:
            return
        if isinstance(value, Reg) and value.dtype != dst.dtype:
            if value.dtype.bits != dst.dtype.bits or T.pred in (value.dtype, dst.dtype):
                raise TypeError(f"RegArray[{i}] = {value!r}: a {value.dtype} value does "
                                f"not fit a {dst.dtype} register; convert it with "
                                f"reg.from_(value, {dst.dtype})")
            get_ctx().inst(f"mov{T.bits_type(dst.dtype).ptx}",
                           [dst.__ptx_operand__(), value.__ptx_operand__()])
            return
        _mov(dst, value)

    def __len__(self):
        return len(self._regs)

    def __iter__(self):
        return iter(self._regs)

    def __ptx_operand__(self, ftype):
        return ("v", [r.__ptx_operand__(ftype) for r in self._regs])

    def __repr__(self):
        return f"RegArray({self.dtype}, {len(self._regs)})"


# -- allocation ---------------------------------------------------------------

def _new(dtype) -> Reg:
    if type(dtype) is not T.PtxType:
        dtype = T.as_type(dtype)
    return _fresh(get_ctx(), dtype)


def special(name: str, dtype=None) -> SpecialReg:
    """The special register `name` ("%tid.x", "%laneid", ...), read-only;
    its type is PTX's (u32, u64 for %clock64 ..., pred for
    %is_explicit_cluster) unless given.
    ValueError for a name PTX does not know."""
    if not name.startswith("%"):
        name = "%" + name
    ctx = get_ctx()
    index = ctx.sreg(name)  # ValueError for a name PTX does not know
    if dtype is None:
        dtype = _SREG_TYPE_OF_WIDTH[_isa_facts.special_register_bits(name)]
    r = _make(ctx, index, T.as_type(dtype), SpecialReg)
    r.special = name
    return r


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


def scalar(dtype, init=None, name=None) -> Reg:
    """A new register; with `init`, also ``mov.<type> r, init`` (floats as
    0f/0d immediates). `name` is accepted for the original pyptx's
    signature and not used: pyptx names registers by type prefix and
    creation order (``%r0, %r1 ...``)."""
    r = _new(dtype)
    if init is not None:
        _mov(r, init)
    return r


def pred(init=None) -> Reg:
    """A new predicate register (``init`` True/False emits ``mov.pred``)."""
    return scalar(T.pred, init)


def array(dtype, count: int, name=None) -> RegArray:
    """`count` new registers of `dtype` (no instructions). `name` is
    accepted for the original pyptx's signature and not used (see scalar)."""
    dtype = T.as_type(dtype)
    return RegArray([_new(dtype) for _ in range(count)], dtype)


def alloc(dtype) -> Reg:
    """A new register (the original pyptx's spelling of ``scalar(dtype)``)."""
    return _new(dtype)


def alloc_array(dtype, count: int) -> RegArray:
    """`count` new registers (the original pyptx's spelling of
    ``array(dtype, count)``)."""
    if count <= 0:
        raise ValueError(f"reg.alloc_array count must be > 0, not {count}")
    return array(dtype, count)


def wgmma_frag(*, m: int, n: int, dtype, name=None) -> RegArray:
    """The accumulator fragment of a dense ``wgmma.mma_async.m{m}n{n}`` per
    thread: ``m*n/128`` registers for an f32 or s32 accumulator, and half
    as many f16x2 registers (two f16 values each) for an f16 one
    (``dtype=f16`` or ``f16x2``); the shape rules are
    ``pyptx.hw.wgmma_layout.accumulator_registers``. No instructions. `name`
    is not used (see scalar)."""
    dtype = T.as_type(dtype)
    try:
        fragment, count = accumulator_registers(m, n, dtype)
    except ValueError as e:
        raise KernelError(f"reg.wgmma_frag: {e}", *user_loc()) from None
    return array(fragment, count)


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


def from_(src, dtype) -> Reg:
    """A new register of `dtype` holding `src` (a register, special
    register, immediate or symbol). Same type or same width without a
    float/int change: ``mov``; otherwise ``cvt`` (value conversion, see
    :func:`cvt_opcode`). One instruction, or two when a special register
    needs a rounding cvt (ptxas takes special registers only in mov and
    plain cvt): mov, then cvt."""
    dtype = T.as_type(dtype)
    if isinstance(src, Reg) and src.dtype != dtype:
        s = src.dtype
        bitcast = s.bits == dtype.bits and (s.is_float == dtype.is_float
                                             or "b" in (s.kind, dtype.kind))
        if not bitcast and isinstance(src, SpecialReg) and \
                cvt_opcode(_arith_type(dtype), _arith_type(s)).startswith("cvt.r"):
            src = src.copy()
        dst = _new(dtype)
        if not bitcast:
            # cvt has no .bN types: convert as unsigned.
            get_ctx().inst(cvt_opcode(_arith_type(dtype), _arith_type(s)),
                           [dst.__ptx_operand__(), src.__ptx_operand__()])
            return dst
        if s.kind == "b" or dtype.kind == "b":
            get_ctx().inst(f"mov{T.bits_type(dtype).ptx}", [dst.__ptx_operand__(),
                                                          src.__ptx_operand__()])
            return dst
    else:
        dst = _new(dtype)
    _mov(dst, src)
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
    return _emit_new(f"cvt{target.ptx}{_arith_type(r.dtype).ptx}", target, [r])


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


def _arith_type(t: T.PtxType) -> T.PtxType:
    """The type of t's arithmetic instructions: .bN registers take .uN."""
    return T.ALL_TYPES[f"u{t.bits}"] if t.kind == "b" else t


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
    return _make(ctx, ctx.module.new_reg(new[1]), dtype)


def _binary_checked(op, a: Reg, b, dst=None, swap=False):
    what = f"operator {op}"
    fast_table = _FAST_OPCODES.setdefault(op, ({}, {}))[type(b) is Reg]
    fast = not swap and (type(b) is int and a.dtype.is_int and op not in
                         ("shl", "shr") or type(b) is Reg and b.dtype is a.dtype)
    if isinstance(b, SpecialReg):
        b = b.copy()
    if op == "or" and isinstance(b, Reg) and (a.dtype == T.pred) != (b.dtype == T.pred):
        # r|p: elect.sync's two destinations, an operand (the original's
        # PipeRef), not an instruction.
        return Pipe(b, a) if swap else Pipe(a, b)
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
    elif op == "mul":
        opcode = f"mul.lo{_arith_type(t).ptx}" if t.is_int else f"mul{t.ptx}"
    elif op == "fdiv":
        opcode = f"div.rn{t.ptx}"
    else:  # add sub div rem max min shr
        opcode = f"{op}{_arith_type(t).ptx}"
    sources = [bo, a] if swap else [a, bo]
    result = _emit_new(opcode, t, sources, dst=dst)
    if fast and t is a.dtype:
        fast_table[t.name] = opcode
    elif (not swap and type(b) is Reg and t is a.dtype and b.dtype is not t
          and t.is_int and b.dtype.is_int and b.dtype.bits < t.bits):
        # `b` was widened with cvt into t's width (see _unify).
        wide = T.ALL_TYPES[f"{'s' if b.dtype.is_signed else 'u'}{t.bits}"]
        _WIDEN_PLAN[(op, t.name, b.dtype.name)] = (
            f"cvt{wide.ptx}{_arith_type(b.dtype).ptx}", wide, opcode)
    return result


def _compare(cmp, a: Reg, b):
    if isinstance(b, SpecialReg):
        b = b.copy()
    t, a, bo = _unify(a, b, None, f"comparison {cmp}")
    if t is NotImplemented:
        return NotImplemented
    if t == T.pred:
        raise TypeError("compare predicates with ^ (xor) instead")
    if cmp not in ("eq", "ne"):
        t = _arith_type(t)  # ordered setp needs a signedness
    return _emit_new(f"setp.{cmp}{t.ptx}", T.pred, [a, bo])
