"""Errors raised by pyptx, with the kernel author's source location.

Native diagnostics (``pyptx._native.PTXError``) carry the Python location each
op was built with; :class:`KernelError` renders them the way a compiler does::

    test_errors.py:12:5: error: 'add.f32' ... operand 1 has type u32
        ptx.inst.add.f32(r, r, r)
        ^
"""
from __future__ import annotations

import linecache


class PyptxError(Exception):
    """Base class of every error pyptx raises (``except pyptx.PyptxError``
    catches them all): KernelError and its TypeError/ValueError forms,
    pyptx._native.PTXError, the runtime's, AOT's and codegen's errors."""


class KernelWarning(UserWarning):
    """A diagnostic that does not stop the trace: under
    ``isa_policy="warn-unknown"``, an instruction the ISA description lacks."""


class KernelError(PyptxError):
    """An error in a kernel, located at the author's Python line.

    ``file``, ``line``, ``column`` locate the first error; ``diagnostics``
    keeps every (severity, file, line, column, message) tuple reported."""

    def __init__(self, message: str, file: str = "", line: int = 0,
                 column: int = 0, diagnostics=()):
        self.file, self.line, self.column = file, line, column
        self.diagnostics = list(diagnostics) or [("error", file, line, column, message)]
        self.message = message
        super().__init__(render(self.diagnostics))


class KernelTypeError(KernelError, TypeError):
    """A TypeError the DSL raised while tracing (an argument of the wrong
    kind), located at the author's line; still caught by ``except TypeError``."""


class KernelValueError(KernelError, ValueError):
    """A ValueError the DSL raised while tracing (an argument out of range),
    located at the author's line; still caught by ``except ValueError``."""


def at_line(exc: Exception, loc) -> KernelError:
    """`exc` (a TypeError or ValueError) as the KernelError of its kind at
    `loc` = (file, line, column)."""
    cls = KernelTypeError if isinstance(exc, TypeError) else KernelValueError
    return cls(str(exc), *loc)


def render_one(severity: str, file: str, line: int, column: int, message: str) -> str:
    if not line:
        return f"{severity}: {message}" if not file else f"{file}: {severity}: {message}"
    text = f"{file}:{line}:{column}: {severity}: {message}"
    source = linecache.getline(file, line).rstrip("\n")
    if source:
        # Columns are 1-based; 0 means unknown, so point at the statement.
        stripped = len(source) - len(source.lstrip())
        caret = max(column - 1, stripped) if column else stripped
        text += f"\n    {source}\n    {' ' * caret}^"
    return text


def render(diagnostics) -> str:
    return "\n".join(render_one(*d) for d in diagnostics)


def from_native(exc: Exception, fallback_loc=("", 0, 0)) -> KernelError:
    """A KernelError from a native PTXError; diagnostics without a location
    get `fallback_loc` (the user's line of the call that raised)."""
    diags = []
    for sev, file, line, col, msg in getattr(exc, "diagnostics", None) or []:
        if not line:
            file, line, col = fallback_loc
        diags.append((sev, file, line, col, msg))
    if not diags:
        diags = [("error", *fallback_loc, str(exc))]
    first = next((d for d in diags if d[0] == "error"), diags[0])
    return KernelError(first[4], first[1], first[2], first[3], diags)
