"""Typed wrappers: ``ptx.mov``, ``ptx.add``, ``ptx.ld``, ``ptx.setp`` ...,
one instruction each, in two forms.

* The original pyptx's form names the instruction type first:
  ``ptx.add(u32, d, a, b)`` -> ``add.u32 d, a, b``.
* Ours takes the type from the destination register (from the first source
  for setp): ``ptx.add(d, a, b)``.

A first argument that is a PtxType (for setp and selp: the type argument)
selects the original's form. Every wrapper takes ``pred=p`` / ``pred=~p``
(setp's original form calls it ``pred_negate``) and returns the destination.

Where a type PTX does not take for that instruction is given, the wrapper
emits the instruction meant (docs/design.md, 13.1): arithmetic on
``.bN`` uses ``.uN`` (``add.b32`` -> ``add.u32``), bitwise operations and
``shl`` on ``.uN/.sN`` use ``.bN``, integer ``mul``/``mad`` default to
``.lo``, float ``mad`` is ``mad.rn``, ordered ``setp`` on ``.bN`` compares
``.uN``, ``cvt`` gets the rounding PTX requires when none is given, and
``ld``/``st`` of a register list get ``.vN``.
"""
from __future__ import annotations

from pyptx import reg as _reg
from pyptx import types as T
from pyptx._inst import as_address, emit, fail
from pyptx._operands import Address

_arith_type = _reg._arith_type


def _is_type(x) -> bool:
    return isinstance(x, T.PtxType)


def _type_of(r):
    if isinstance(r, (list, tuple)):
        r = r[0]
    return r.dtype


def _address(x) -> Address:
    return x if type(x) is Address else as_address(x)


# -- mov, arithmetic, bitwise -------------------------------------------------------

def mov(dtype, dst, src=None, *, pred=None):
    """``mov.<type> dst, src``: ``mov(u32, d, s)`` or ``mov(d, s)``."""
    if not _is_type(dtype):  # ours: mov(dst, src[, pred])
        dtype, dst, src, pred = _type_of(dtype), dtype, dst, pred if src is None else src
    emit(f"mov{dtype.ptx}", dst, src, pred=pred)
    return dst


def _binary(name, doc, opcode_of):
    def wrapper(dtype, dst, a, b=None, *, pred=None):
        if not _is_type(dtype):  # ours: (dst, a, b[, pred])
            dtype, dst, a, b, pred = _type_of(dtype), dtype, dst, a, pred if b is None else b
        emit(opcode_of(dtype), dst, a, b, pred=pred)
        return dst
    wrapper.__name__ = wrapper.__qualname__ = name
    wrapper.__doc__ = doc
    return wrapper


def _arith_opcode(op):
    return lambda t: f"{op}{_arith_type(t).ptx}"


def _bits_opcode(op):
    return lambda t: f"{op}{T.bits_type(t).ptx}"


add = _binary("add", "``add.<type> dst, a, b``: ``add(u32, d, a, b)`` or ``add(d, a, b)``"
              " (``.bN`` adds as ``.uN``).", _arith_opcode("add"))
sub = _binary("sub", "``sub.<type> dst, a, b``: ``sub(s32, d, a, b)`` or ``sub(d, a, b)``.",
              _arith_opcode("sub"))
min = _binary("min", "``min.<type> dst, a, b``: ``min(f32, d, a, b)`` or ``min(d, a, b)``.",
              _arith_opcode("min"))
max = _binary("max", "``max.<type> dst, a, b``: ``max(f32, d, a, b)`` or ``max(d, a, b)``.",
              _arith_opcode("max"))
shl = _binary("shl", "``shl.bN dst, a, b``: ``shl(b32, d, a, 2)`` or ``shl(d, a, 2)``.",
              _bits_opcode("shl"))
shr = _binary("shr", "``shr.<type> dst, a, b`` (``.sN`` shifts arithmetically): "
              "``shr(u32, d, a, 2)`` or ``shr(d, a, 2)``.", lambda t: f"shr{t.ptx}")
and_ = _binary("and_", "``and.bN dst, a, b`` (``.pred`` on predicates): "
               "``and_(b32, d, a, b)`` or ``and_(d, a, b)``.", _bits_opcode("and"))
or_ = _binary("or_", "``or.bN dst, a, b``: ``or_(b32, d, a, b)`` or ``or_(d, a, b)``.",
              _bits_opcode("or"))
xor_ = _binary("xor_", "``xor.bN dst, a, b``: ``xor_(b32, d, a, b)`` or ``xor_(d, a, b)``.",
               _bits_opcode("xor"))


def not_(dtype, dst, src=None, *, pred=None):
    """``not.bN dst, src``: ``not_(b32, d, s)`` or ``not_(d, s)``."""
    if not _is_type(dtype):
        dtype, dst, src, pred = _type_of(dtype), dtype, dst, pred if src is None else src
    emit(f"not{T.bits_type(dtype).ptx}", dst, src, pred=pred)
    return dst


def _int_mode(t, mode, what):
    """The .lo/.hi/.wide modifier of an integer mul/mad; '' for floats."""
    if t.is_float:
        if mode not in (None, "lo"):
            fail(f"{what}.{mode} is integer-only; {t} {what} has no mode")
        return ""
    mode = mode or "lo"
    if mode not in ("lo", "hi", "wide"):
        fail(f"{what} mode must be 'lo', 'hi' or 'wide', not {mode!r}")
    return f".{mode}"


def mul(dtype, dst, a, b=None, *, mode=None, pred=None):
    """``mul[.lo|.hi|.wide].<type> dst, a, b``: ``mul(u32, d, a, b,
    mode="wide")`` or ``mul(d, a, b)``. Integers default to ``.lo``
    (``.wide`` writes a destination twice as wide as the type)."""
    if not _is_type(dtype):
        dtype, dst, a, b, pred = _type_of(dtype), dtype, dst, a, pred if b is None else b
    emit(f"mul{_int_mode(dtype, mode, 'mul')}{_arith_type(dtype).ptx}", dst, a, b, pred=pred)
    return dst


def mad(*args, mode="lo", pred=None):
    """``mad``: ``mad(s32, dst, a, b, c)`` emits ``mad.lo.s32 dst, a, b, c``;
    ``d = mad(a, b, c)`` allocates d with the type of the first register
    among a, b, c (twice as wide for mode="wide") and returns it. Floats
    emit ``mad.rn.<type>``."""
    if args and _is_type(args[0]):
        if len(args) != 5:
            fail(f"ptx.mad(dtype, dst, a, b, c) takes 5 arguments, not {len(args)}")
        dtype, dst, a, b, c = args
    elif len(args) == 3:
        a, b, c = args
        dtype = next((x.dtype for x in args if isinstance(x, _reg.Reg)), None)
        if dtype is None:
            fail("ptx.mad(a, b, c) needs a register among a, b, c for its type")
        wide = T.ALL_TYPES.get(f"{'s' if dtype.is_signed else 'u'}{dtype.bits * 2}") \
            if mode == "wide" else dtype
        dst = _reg.scalar(wide)
    else:
        fail("ptx.mad takes (dtype, dst, a, b, c) or (a, b, c)")
    modifier = _int_mode(dtype, mode, "mad") or ".rn"
    emit(f"mad{modifier}{_arith_type(dtype).ptx}", dst, a, b, c, pred=pred)
    return dst


def fma(dst, a, b, c, pred=None):
    """``fma.rn.<type>`` for floats, ``mad.lo.<type>`` for integers (type of dst)."""
    t = _type_of(dst)
    emit(f"fma.rn{t.ptx}" if t.is_float else f"mad.lo{_arith_type(t).ptx}", dst, a, b, c,
         pred=pred)
    return dst


# -- compare, select, convert ------------------------------------------------------

_COMPARISONS = {"eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs", "equ", "neu",
                "ltu", "leu", "gtu", "geu", "num", "nan"}


def setp(cmp_op, dtype, pred_out=None, a=None, b=None, *, pred_negate=None, out=None,
         pred=None):
    """``setp.<cmp>.<type> p, a, b``; returns p.

    ``setp("lt", s32, p, a, b)`` (the original's form; its guard is
    ``pred_negate=``), or ``p = setp("lt", a, b)`` (ours: type of a, p new
    unless ``out=``). Ordered comparisons of ``.bN`` compare ``.uN``."""
    if _is_type(dtype):
        pred = pred_negate if pred_negate is not None else pred
    else:  # ours: setp(cmp, a, b[, out[, pred]])
        a, b, out, pred = dtype, pred_out, out if a is None else a, pred if b is None else b
        dtype, pred_out = _type_of(a), out if out is not None else _reg.scalar(T.pred)
    if cmp_op not in _COMPARISONS:
        fail(f"setp compares with one of {', '.join(sorted(_COMPARISONS))}, not {cmp_op!r}")
    t = dtype if cmp_op in ("eq", "ne") else _arith_type(dtype)
    emit(f"setp.{cmp_op}{t.ptx}", pred_out, a, b, pred=pred)
    return pred_out


def selp(dtype, dst, true_val=None, false_val=None, pred_reg=None, *, pred=None):
    """``selp.<type> dst, true_val, false_val, p`` (dst = p ? true_val :
    false_val): ``selp(u32, d, t, f, p)`` or ``selp(d, t, f, p)``."""
    if _is_type(dtype) or isinstance(dtype, str):
        dtype = T.as_type(dtype)
    else:  # ours: selp(dst, t, f, p[, pred])
        dtype, dst, true_val, false_val, pred_reg, pred = (
            _type_of(dtype), dtype, dst, true_val, false_val,
            pred if pred_reg is None else pred_reg)
    emit(f"selp{dtype.ptx}", dst, true_val, false_val, pred_reg, pred=pred)
    return dst


def _default_rounding(dst: T.PtxType, src: T.PtxType) -> str | None:
    """The rounding PTX requires of cvt: rzi float->int, rn int->float and
    narrowing float->float, none otherwise."""
    if dst.is_float and src.is_float:
        return "rn" if dst.bits < src.bits else None
    if dst.is_float and src.is_int:
        return "rn"
    if dst.is_int and src.is_float:
        return "rzi"
    return None


def cvt(dst_type, src_type=None, dst=None, src=None, *, rounding=None, ftz=False, sat=False,
        pred=None, rnd=None):
    """``cvt[.rnd][.ftz][.sat].<dst type>.<src type> dst, src``:
    ``cvt(f32, s32, d, s, rounding="rn")`` or ``cvt(d, s)`` (types of the
    registers; ``rnd=`` is ours for rounding). Without a rounding, the one
    PTX requires (.rzi float->int, .rn int->float and narrowing)."""
    if not _is_type(dst_type):  # ours: cvt(dst, src[, rnd[, pred]])
        rounding = rounding or rnd or dst
        pred = pred if src is None else src
        dst, src = dst_type, src_type
        dst_type, src_type = _type_of(dst), _type_of(src)
    rounding = (rounding or "").lstrip(".") or _default_rounding(dst_type, src_type)
    modifiers = (f".{rounding}" if rounding else "") + (".ftz" if ftz else "") + \
        (".sat" if sat else "")
    emit(f"cvt{modifiers}{dst_type.ptx}{src_type.ptx}", dst, src, pred=pred)
    return dst


# -- memory ---------------------------------------------------------------------------

def _memory_opcode(op, space, cache, dtype, values):
    """ld/st with the state space ("generic": none; ``__`` spells ``::``),
    the cache operator, ``.vN`` for a list of n > 1 registers."""
    n = len(values) if isinstance(values, (list, tuple, _reg.RegArray)) else 1
    parts = [op]
    if space and space != "generic":
        parts.append(space.replace("__", "::"))
    if cache:
        parts.append(cache.lstrip("."))
    if n > 1:
        parts.append(f"v{n}")
    return ".".join(parts) + dtype.ptx


def _one(values):
    """A one-register list is that register (no ``{r}`` vector)."""
    if isinstance(values, (list, tuple, _reg.RegArray)) and len(values) == 1:
        return values[0]
    return values


def ld(dtype, dst, addr=None, *, space="global", cache=None, pred=None):
    """``ld[.space][.cache][.vN].<type> dst, [addr]``: ``ld(f32, d, p,
    space="shared")`` or ``ld(d, p)`` (type of d; d a register or a list /
    RegArray of 2 or 4 for ``.v2``/``.v4``). addr: a register, symbol,
    shared allocation or ptx.addr(...)."""
    if not _is_type(dtype):  # ours: ld(dst, address[, space])
        dtype, dst, addr, space = _type_of(dtype), dtype, dst, addr or space
    emit(_memory_opcode("ld", space, cache, dtype, dst), _one(dst), _address(addr), pred=pred)
    return dst


def st(dtype, addr, src=None, *, space="global", cache=None, pred=None):
    """``st[.space][.cache][.vN].<type> [addr], src``: ``st(f32, p, v)`` or
    ``st(p, v)`` (type of v)."""
    if not _is_type(dtype):  # ours: st(address, src[, space])
        dtype, addr, src, space = _type_of(addr), dtype, addr, src or space
    emit(_memory_opcode("st", space, cache, dtype, src), _address(addr), _one(src), pred=pred)
    return src


# The original pyptx's registry of its transpiler's typed-wrapper printers;
# here: PTX opcode -> the wrapper that emits it.
TYPED_WRAPPER_CODEGEN = {
    "mov": mov, "add": add, "sub": sub, "mul": mul, "mad": mad, "fma": fma, "min": min,
    "max": max, "shl": shl, "shr": shr, "and": and_, "or": or_, "xor": xor_, "not": not_,
    "setp": setp, "selp": selp, "cvt": cvt, "ld": ld, "st": st,
}
