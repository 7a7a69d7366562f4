"""Emitting PTX: ``ptx.inst.<mnemonic>.<modifier>...(operands)``, typed
wrappers, special registers, addresses, directives and structured control
flow.

Every call emits exactly one instruction; the helpers that emit more (the
control-flow blocks, ``global_ptrs``, ``warp.reduce_*``, ``kloop`` and some
of the hardware-unit helpers) say how many. Every instruction takes
``pred=p`` (guard ``@p``) or ``pred=~p`` (guard ``@!p``).

Name mangling of ``ptx.inst`` attributes (Python keywords and PTX's ``::``):
a trailing ``_`` is dropped (``global_`` -> ``global``, ``async_`` -> ``async``),
a ``_`` before a leading digit is dropped (``_2d`` -> ``2d``), and ``__``
becomes ``::`` (``shared__cluster`` -> ``shared::cluster``). So
``ptx.inst.cp.async_.bulk.tensor._2d.shared__cluster.global_.tile(...)`` emits
``cp.async.bulk.tensor.2d.shared::cluster.global.tile``.

Operands: registers, Python ints (immediates) and floats (``0f``/``0d``
immediates, f64 when the opcode has ``.f64``), strings (a string that reads
as a PTX number -- ``"-1"``, ``"0x1F"``, ``"0f3F800000"`` -- is that
immediate, any other a symbol or label), ``ptx.addr(...)`` addresses, lists
(vectors ``{a, b}``), ``~p`` (``!%p``), ``ptx.sink`` (``_``) and
``ptx.pipe(p, q)`` (``p|q``). ``ptx.inst`` returns its first operand (the
destination register; st's address).

The typed wrappers (``mov add sub mul mad shl shr and_ or_ xor_ not_ setp
selp cvt ld st``, see pyptx._typed) take the original pyptx's
type-first form, ``ptx.add(u32, d, a, b)``, and ours, ``ptx.add(d, a, b)``.
"""
from __future__ import annotations

from pyptx import reg as _reg
from pyptx import types as T
from pyptx._control import (Label, bra, else_, expr, if_, kloop, label,  # noqa: F401
                            loop, range_, scope)
from pyptx._directives import file_, loc, pragma, raw, var  # noqa: F401
from pyptx._inst import (_CHECKED, Inst, Namespace, as_address, check_opcode,  # noqa: F401
                         emit, fail, guard, mangle, reg_id)
from pyptx._operands import SINK, Address, Pipe, immediate
from pyptx._trace import get_ctx
from pyptx._typed import (TYPED_WRAPPER_CODEGEN, add, and_, cvt, fma, ld,  # noqa: F401
                          mad, max, min, mov, mul, not_, or_, selp, setp, shl, shr, st,
                          sub, xor_)

sink = SINK
_Reg = _reg.Reg

inst = Inst()
barrier = Inst(("barrier",))
membar = Inst(("membar",))


# -- pipes ---------------------------------------------------------------------------

class PipeChain:
    """``ptx.pipe(r).add.s32(d1, -8192).and_.b32(d2, 0x3FF80)``: each step
    emits one instruction ``<opcode> dst, <previous result>, operands...``
    and continues from dst (``.value``). The PTX is that of the calls written
    one by one."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return _PipeStep(self.value, (mangle(name),))

    def __repr__(self):
        return f"ptx.pipe({self.value!r})"


class _PipeStep:
    __slots__ = ("_src", "_parts")

    def __init__(self, src, parts):
        self._src, self._parts = src, parts

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return _PipeStep(self._src, self._parts + (mangle(name),))

    def __call__(self, dst, *operands, pred=None):
        emit(".".join(self._parts), dst, self._src, *operands, pred=pred)
        return PipeChain(dst)


def pipe(src, right=None):
    """Two arguments: the ``p|q`` operand (setp's two predicate
    destinations, elect.sync's ``r|p``). One argument: the original pyptx's
    instruction chain starting from register `src` (see PipeChain)."""
    return PipeChain(src) if right is None else Pipe(src, right)


# -- the hardware units (pyptx.hw) -----------------------------------------------------
# Helpers by the original pyptx's names; any other attribute continues a raw
# opcode (ptx.wgmma.fence.sync.aligned()).
from pyptx.hw import cp_async as _cp_async, tma as _tma  # noqa: E402
from pyptx.hw.cluster import cluster  # noqa: E402,F401
from pyptx.hw.fence import NamedBarrier, bar, fence, named_barrier  # noqa: E402,F401
from pyptx.hw.mbarrier import PipelineState, mbarrier, pipeline  # noqa: E402,F401
from pyptx.hw.tcgen05 import tcgen05  # noqa: E402,F401
from pyptx.hw.tma import tma  # noqa: E402,F401
from pyptx.hw.warp import (elect_sync, ldmatrix, mma, stmatrix,  # noqa: E402,F401
                           stmatrix_x4_trans_f32_bf16)
from pyptx.hw.warpgroup import (setmaxnreg, setmaxnreg_dec, setmaxnreg_inc,  # noqa: E402,F401
                                wgmma)

cp = Namespace("cp", "ptx.cp.async_ (cp.async, and .bulk: TMA and bulk copies).",
               async_=Namespace("cp.async", "cp.async and its bulk forms.",
                                bulk=_tma.bulk, **_cp_async.HELPERS),
               **_tma.HELPERS)


# -- special registers -----------------------------------------------------------

class _Special:
    """``ptx.special.tid.x()`` -> the register ``%tid.x`` (no instruction):
    any special register by its PTX name, ``.`` for its parts
    (``ptx.special.laneid()``, ``ptx.special.clock64()``,
    ``ptx.special.cluster_ctarank()``)."""

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


def sreg(name: str):
    """The special register `name` ("%cluster_ctarank", "%clusterid.x",
    "%smid", ...; the % may be left out). No instruction."""
    return _reg.special(name)


def ctaid_x():
    """``%ctaid.x``."""
    return _reg.special("%ctaid.x")


def ctaid_y():
    """``%ctaid.y``."""
    return _reg.special("%ctaid.y")


# -- addresses, parameters ------------------------------------------------------------

def addr(base, offset=None) -> Address:
    """``[base]`` / ``[base+offset]``: base a register, symbol, shared
    allocation or slice, mbarrier, kernel parameter or Address; offset an
    int (bytes; text such as "16" is read as one). PTX addresses are
    ``[reg+imm]``: a register offset is an error -- add it to the base
    first (``ptx.addr(base + off)``). No instruction."""
    if offset is None:
        if base.__class__ is _Reg:  # the common case, without as_address's lookups
            return Address(base, 0)
        offset = 0
    elif offset.__class__ is not int:
        offset = _constant_offset(offset)
    if base.__class__ is _Reg:
        return Address(base, offset)
    return as_address(base, offset)


def _constant_offset(offset) -> int:
    if isinstance(offset, _reg.Reg):
        fail("ptx.addr takes a constant offset: PTX addresses are [reg+imm], with no "
             "[reg+reg] form; add the register first: ptx.addr(base + offset)")
    if isinstance(offset, str):
        try:
            value = immediate(offset)
        except TypeError:
            value = ("s",)
        if value[0] != "i":
            fail(f"ptx.addr offset {offset!r} is not an integer")
        return value[1]
    if not isinstance(offset, int):
        fail(f"ptx.addr offset must be an int, not {offset!r}")
    return int(offset)


def tensor_addr(tensormap, *coords) -> Address:
    """``[tmap, {c0, c1, ...}]`` for cp.async.bulk.tensor."""
    return Address(tensormap, 0, coords)


def _param_count(name) -> int:
    """The element count of kernel parameter `name` (0: a scalar), where the
    trace knows it (TraceContext.param_counts)."""
    counts = getattr(get_ctx(), "param_counts", None) or {}
    return counts.get(name, 0)


def param(dtype, name=None, dst=None):
    """Reads a kernel parameter into a register and returns it (one
    instruction).

    ``param(u32, "K")`` (the original pyptx's form; into `dst` when given):
    ``ld.param.u32 r, [K]``, or, for an array parameter (a 128-byte TMA
    descriptor ``.b8 name[128]``), ``mov.<type> r, name`` -- its address in
    the param space, for ``cvta.param``. ``param("K", u32)`` / ``param(X)``
    (ours; name a string or tensor, type u64 by default): ``ld.param``."""
    if not isinstance(dtype, T.PtxType):  # ours: param(name, dtype=u64)
        dtype, name = T.as_type(name if name is not None else T.u64), dtype
    symbol = getattr(name, "name", name)
    out = dst if dst is not None else _reg.scalar(dtype)
    if _param_count(symbol):
        emit(f"mov{dtype.ptx}", out, symbol)
    else:
        emit(f"ld.param{dtype.ptx}", out, Address(symbol))
    return out


def global_ptrs(*params):
    """For each tensor parameter: ``ld.param.u64`` then ``cvta.to.global.u64``
    (two instructions); returns the global pointers (u64 registers), one per
    tensor, as a tuple."""
    out = []
    for t in params:
        raw_pointer = param(t, T.u64)
        g = _reg.scalar(T.u64)
        emit("cvta.to.global.u64", g, raw_pointer)
        out.append(g)
    return tuple(out)


def _cvta_param(src, dst=None):
    """``cvta.param.u64 dst, src`` (a param-space address, from
    ``ptx.param`` of an array parameter, to a generic one); dst a new u64
    register unless given. Returns dst."""
    out = dst if dst is not None else _reg.scalar(T.u64)
    emit("cvta.param.u64", out, src)
    return out


def _cvta_to_global(src, dst=None):
    """``cvta.to.global.u64 dst, src`` (a generic address to a global
    one); dst a new u64 register unless given. Returns dst."""
    out = dst if dst is not None else _reg.scalar(T.u64)
    emit("cvta.to.global.u64", out, src)
    return out


cvta = Namespace("cvta", "ptx.cvta.param(src) / ptx.cvta.to_global(src): address "
                 "conversions (ptx.cvta.to.shared.u64(...) and the other raw forms work too).",
                 param=_cvta_param, to_global=_cvta_to_global)


def ret(pred=None):
    """``ret;``"""
    emit("ret", pred=pred)


def exit(pred=None):
    """``exit;``"""
    emit("exit", pred=pred)


def syncthreads():
    """``bar.sync 0;``"""
    emit("bar.sync", 0)


# -- warp-level helpers ---------------------------------------------------------------------

from pyptx.hw.warp_reduce import shfl, warp  # noqa: E402,F401
