"""Device-side printf: ``call.uni`` of the CUDA driver's ``vprintf``, the
``.extern .func`` a debug build declares before the kernel
(``@kernel(debug=True)``, $PYPTX_DEBUG_MBARRIER=1). pyptx.debugkit
documents it for users."""
from __future__ import annotations

import struct

from pyptx import reg as _reg
from pyptx import types as T
from pyptx._directives import raw, var
from pyptx._inst import emit, fail
from pyptx._operands import Address
from pyptx._trace import get_ctx


def require_debug(what: str):
    """The trace context, or a KernelError when it is not a debug build."""
    ctx = get_ctx()
    if not getattr(ctx, "debug", False):
        fail(f"{what} needs a debug build: @kernel(..., debug=True), or set "
             f"PYPTX_DEBUG_MBARRIER=1 before the kernel is traced (vprintf must be "
             f"declared before the kernel)")
    return ctx


def _format_words(text: str) -> list[int]:
    """The NUL-terminated bytes of `text` as little-endian b32 words."""
    data = text.encode() + b"\0"
    data += b"\0" * (-len(data) % 4)
    return [struct.unpack_from("<I", data, i)[0] for i in range(0, len(data), 4)]


def _store_format(text: str):
    """A .global array holding `text` and a u64 register with its generic
    address. The array is declared before the kernel, where the builder
    declares variables without an initializer, so this thread writes the
    words itself: len/4 rounded up stores + 2 instructions."""
    ctx = get_ctx()
    name = f"__pyptx_fmt{ctx.unique('debugkit_fmt')}"
    words = _format_words(text)
    var("global", T.b8, name, size=4 * len(words), align=4)
    for i, word in enumerate(words):
        emit("st.global.b32", Address(name, 4 * i), word)
    address = _reg.scalar(T.u64)
    emit("mov.u64", address, name)
    emit("cvta.global.u64", address, address)
    return address


def _argument(value):
    """(register to store, its width in bytes) for one printf argument."""
    if not isinstance(value, _reg.Reg):
        fail(f"debugkit.printf takes registers, got {value!r}: format Python values "
             f"into the text")
    t = value.dtype
    if t in (T.f32,):
        wide = _reg.scalar(T.f64)
        emit("cvt.f64.f32", wide, value)
        return wide, 8
    if t.bits in (32, 64) and t != T.pred:
        return value, t.bits // 8
    fail(f"debugkit.printf: a {t.name} register cannot be printed (32- and 64-bit "
         f"integers, f32 and f64 can); convert it first")


def printf(fmt: str, *values, where: bool = True) -> None:
    """vprintf(fmt, values) in each thread that runs it; `where` prefixes
    ``[ctaid x,y,z tid x,y,z] ``. Needs a debug build. Emits len(fmt)/4
    (rounded up, plus the prefix's 7 words) + 2 instructions for the
    format, 6 ``mov`` of the special registers with `where`, one
    ``cvt.f64.f32`` per f32, one ``st.local`` per argument, 2 for the
    argument buffer's address, and 2 ``st.param`` + 1 ``call.uni``."""
    require_debug("debugkit.printf")
    args = []
    if where:
        fmt = "[ctaid %u,%u,%u tid %u,%u,%u] " + fmt
        args += [(_special_u32("%ctaid." + axis), 4) for axis in "xyz"]
        args += [(_special_u32("%tid." + axis), 4) for axis in "xyz"]
    args += [_argument(v) for v in values]
    format_address = _store_format(fmt)
    arguments = _store_arguments(args)
    _call_vprintf(format_address, arguments)


def _special_u32(name):
    """A u32 register holding special register `name` (one mov: ptxas
    takes special registers only in mov and cvt)."""
    r = _reg.scalar(T.u32)
    emit("mov.u32", r, _reg.special(name))
    return r


def _store_arguments(args):
    """The arguments packed as C's varargs (each aligned to its size) in a
    .local buffer; a u64 register with its generic address, or None for
    no arguments."""
    if not args:
        return None
    ctx = get_ctx()
    name = f"__pyptx_args{ctx.unique('debugkit_args')}"
    offsets, at = [], 0
    for _, width in args:
        at += -at % width
        offsets.append(at)
        at += width
    var("local", T.b8, name, size=at + (-at % 8), align=8)
    for (r, width), offset in zip(args, offsets):
        emit(f"st.local.b{width * 8}", Address(name, offset), r)
    address = _reg.scalar(T.u64)
    emit("mov.u64", address, name)
    emit("cvta.local.u64", address, address)
    return address


def _call_vprintf(format_address, arguments):
    """``call.uni (status), vprintf, (format, valist);`` with its
    parameters, in a block of its own (2 st.param + the call)."""
    valist = arguments.name if arguments is not None else "0"
    raw("{\n"
        ".param .b64 format;\n.param .b64 valist;\n.param .b32 status;\n"
        f"st.param.b64 [format], {format_address.name};\n"
        f"st.param.b64 [valist], {valist};\n"
        "call.uni (status), vprintf, (format, valist);\n"
        "}")




def escape(text: str) -> str:
    """`text` as printf prints it literally (% doubled)."""
    return text.replace("%", "%%")
