"""PTX written by hand, and the directives that are not instructions:
``raw``, ``var``, ``pragma``, ``loc`` and ``file_`` (re-exported by
``pyptx.ptx``).

``ptx.raw(text)`` does not paste text into the output: pyptx's PTX importer
parses it into the same operations the rest of the kernel is made of, so it
is verified like any other instruction and printed in the kernel's style.
"""
from __future__ import annotations

import re

from pyptx import types as T
from pyptx._trace import get_ctx, user_loc
from pyptx.errors import KernelError

_STATE_SPACES = ("global", "shared", "const", "local", "param")
_LINKAGES = ("visible", "extern", "weak", "common")
# PTX identifiers: a letter then letters, digits, _ and $; or _, $ or % and
# at least one more such character.
_IDENTIFIER = re.compile(r"(?:[A-Za-z][A-Za-z0-9_$]*|[_$%][A-Za-z0-9_$]+)\Z")


def raw(text: str) -> None:
    """Emits the PTX statements in ``text`` where the call stands.

    Usage::

        ptx.raw("mov.u32 %r0, %tid.x;")
        ptx.raw('''{
            .reg .pred p;
            setp.eq.u32 p, %r0, 0;
            @p bra done;
        }''')

    ``text`` holds one or more statements: instructions (with ``@p``/``@!p``
    guards), labels, ``{ }`` blocks with their own ``.reg`` declarations,
    variables, ``.loc`` and ``.pragma``. pyptx's importer parses it, so each
    instruction is checked against the PTX ISA like the ones the DSL emits,
    and the PTX is printed from the parsed form (comments and the text's
    spacing are not kept).

    Registers are named as they are printed: ``%r3`` is the kernel's fourth
    ``u32`` register (``Reg.name`` tells a register's name), ``%tid.x`` a
    special register. Registers the text declares in a ``{ }`` block live in
    that block; those declared outside any block stay visible to later
    ``ptx.raw`` text. Labels, shared variables and parameters are named as
    in any PTX; they are resolved when the kernel is finished.

    An unknown register or a syntax error raises KernelError at the calling
    line, quoting the text and pointing at the column; the error has
    ``raw_line`` and ``raw_column`` (1-based, in ``text``).
    """
    if not isinstance(text, str):
        raise TypeError(f"ptx.raw takes the PTX text as a str, not {type(text).__name__}")
    ctx = get_ctx()
    where = user_loc()
    ctx.flush()
    ctx._lineinfo(where)
    ctx.labels += 1  # the text may hold labels
    try:
        ctx.module.raw(ctx.func, text, where)
    except Exception as e:
        if type(e).__name__ != "PTXError":
            raise
        raise _raw_error(e, text, where) from None


def _raw_error(exc, text: str, where) -> KernelError:
    """A KernelError at `where` whose message quotes `text` where each of the
    native diagnostics (located in the text) points."""
    lines = text.split("\n")
    parts, at, last = [], None, None
    for severity, file, line, column, message in getattr(exc, "diagnostics", None) or []:
        prefix = "" if severity == "error" else f"{severity}: "
        # (A note about the line just quoted is not quoted again.)
        if (file != "<ptx.raw>" or not 0 < line <= len(lines)
                or (severity == "note" and (line, column) == last)):
            parts.append(prefix + message)
            continue
        last = (line, column)
        if at is None and severity == "error":
            at = (line, column)
        source = lines[line - 1].rstrip("\r")
        # The caret under the column, tabs kept so that it lines up.
        pad = "".join("\t" if c == "\t" else " " for c in source[:max(column - 1, 0)])
        parts.append(f"{prefix}{message}\n      {source}\n      {pad}^ "
                     f"(line {line}, column {column} of the ptx.raw text)")
    if not parts:
        parts.append(str(exc))
    error = KernelError("ptx.raw: " + "\n".join(parts), *where)
    error.raw_line, error.raw_column = at or (0, 0)
    return error


def var(state_space: str, dtype, name: str, *, size: int | None = None,
        align: int | None = None, linking: str | None = None) -> str:
    """Declares a variable in any state space; returns its name (for
    ``ptx.addr(name)`` and other operands).

    Usage::

        ptx.var("shared", b8, "smem", size=49152, align=128)
        ptx.var("param", b32, "param0")
        ptx.var("global", f32, "output", size=1024, linking="visible")

    emit ``.shared .align 128 .b8 smem[49152];`` and ``.param .b32 param0;``
    where the call stands (in the innermost ``ptx.scope()``, if any), and
    ``.visible .global .f32 output[1024];`` at module level, before the
    kernel: ``.global`` and ``.const`` variables, and any with a linkage
    (``"extern"`` shared memory), live at module level.

    state_space: "global", "shared", "const", "local" or "param" (a leading
    dot is allowed). dtype: a PtxType or its name; types PTX has only for
    instructions are declared as the ``.b`` type of their width (bf16 as
    ``.b16``, tf32 as ``.b32``, e4m3 as ``.b8``), as registers are. size: the
    element count of an array, None for a scalar,
    0 for an unsized ``[]`` (with ``linking="extern"``). align: a power of
    two, in bytes. linking: "visible", "extern", "weak" or "common".
    """
    space = str(state_space).lstrip(".")
    if space not in _STATE_SPACES:
        _fail(f"ptx.var: unknown state space {state_space!r}; expected one of "
              + ", ".join(_STATE_SPACES))
    ptx_type = T.as_type(dtype)
    if ptx_type == T.pred:
        _fail("ptx.var: a .pred variable is not allowed: predicates live in registers "
              "(reg.pred())")
    if not isinstance(name, str) or not _IDENTIFIER.match(name):
        _fail(f"ptx.var: {name!r} is not a PTX identifier (a letter, then letters, "
              "digits, _ or $)")
    if size is not None and (not isinstance(size, int) or size < 0):
        _fail(f"ptx.var: size must be a non-negative int (0 for an unsized []), "
              f"got {size!r}")
    if align is not None and (not isinstance(align, int) or align <= 0
                              or align & (align - 1)):
        _fail(f"ptx.var: align must be a power of two, got {align!r}")
    if linking is not None:
        linking = str(linking).lstrip(".")
        if linking not in _LINKAGES:
            _fail(f"ptx.var: unknown linking {linking!r}; expected one of "
                  + ", ".join(_LINKAGES))
        if space in ("local", "param"):
            _fail(f"ptx.var: .{space} variables take no linking (only module-level "
                  ".global, .const and .shared variables do)")
    if size == 0 and linking != "extern":
        _fail("ptx.var: an unsized array (size=0) must be declared "
              "linking=\"extern\"")
    ctx = get_ctx()
    where = user_loc()
    ctx.flush()
    # bf16, tf32 and fp8 values are stored in variables of their width's
    # .b type, as in registers (ptxas takes those types only in instructions).
    ctx._call(ctx.module.add_var, ctx.func, space, ptx_type.reg_type, name, size,
              align or 0, linking or "", where, loc=where)
    return name


def pragma(value: str) -> None:
    """Emits ``.pragma "value";`` where the call stands.

    Usage: ``ptx.pragma("nounroll")`` emits ``.pragma "nounroll";`` (in a
    loop's body, it stops ptxas from unrolling that loop)."""
    if not isinstance(value, str) or not value or any(c in value for c in '"\\\n'):
        _fail(f"ptx.pragma: the value must be a non-empty string without quotes, "
              f"backslashes or newlines, got {value!r}")
    ctx = get_ctx()
    where = user_loc()
    ctx.flush()
    ctx._call(ctx.module.pragma, ctx.func, [value], where, loc=where)


def loc(file_idx: int, line: int, col: int = 0) -> None:
    """Emits ``.loc file_idx line col`` where the call stands: the
    instructions after it map to that source line (ptxas ``-lineinfo``).

    Usage: ``ptx.loc(1, 40, 0)`` emits ``.loc 1 40 0``. The file index is one
    that ``ptx.file_`` declares."""
    for what, value in (("file_idx", file_idx), ("line", line), ("col", col)):
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < 2**31:
            _fail(f"ptx.loc: {what} must be a non-negative int, got {value!r}")
    ctx = get_ctx()
    where = user_loc()
    ctx.flush()
    ctx._call(ctx.module.loc_directive, ctx.func, file_idx, line, col, loc=where)
    # The lineinfo of the next instruction is emitted anew.
    ctx.last_line = None


def file_(file_idx: int, filename: str) -> None:
    """Declares ``.file file_idx "filename"`` (module level, before the
    kernel), the file that ``ptx.loc(file_idx, ...)`` refers to.

    Usage: ``ptx.file_(1, "kernel.py")`` emits ``.file 1 "kernel.py"``."""
    if not isinstance(file_idx, int) or isinstance(file_idx, bool) or not 0 < file_idx < 2**31:
        _fail(f"ptx.file_: file_idx must be a positive int, got {file_idx!r}")
    if not isinstance(filename, str) or not filename or any(c in filename for c in '"\n'):
        _fail(f"ptx.file_: the file name must be a non-empty string without quotes "
              f"or newlines, got {filename!r}")
    ctx = get_ctx()
    where = user_loc()
    known = ctx.files.get(filename)
    if known == file_idx:
        return
    if known is not None or file_idx in ctx.files.values():
        _fail(f"ptx.file_: file index {file_idx} or file {filename!r} is already "
              "declared (each .file line has its own index and file)")
    ctx.files[filename] = file_idx
    ctx._call(ctx.module.add_file, file_idx, filename, loc=where)


def _fail(message: str):
    raise KernelError(message, *user_loc())


__all__ = ["raw", "var", "pragma", "loc", "file_"]
