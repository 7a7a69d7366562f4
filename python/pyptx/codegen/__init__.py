"""PTX -> Python: the transpiler.

``python -m pyptx.codegen kernel.ptx [--sugar] [--name NAME] [-o OUT]`` writes a
Python program of pyptx's DSL that builds the file's module again: one
``@prog.entry`` per ``.entry``, ``@prog.func`` per device function, module
variables with their initializers, ``.reg`` declarations with their names,
one ``ptx.inst`` chain per instruction with its exact opcode and operands,
labels, ``{ }`` blocks and directives (see :mod:`pyptx.program`). Tracing
the program gives a module whose canonical PTX is the file's canonical PTX
byte for byte (``pyptx-translate --export-ptx --ptx-canonical``), so ptxas
gives it the same cubin; running it as a script prints that PTX::

    python -m pyptx.codegen kernel.ptx -o kernel.py
    python kernel.py > kernel2.ptx

Formatting and comments are not carried (the program prints the canonical
style). ``--sugar`` writes what a person would: demangled names as
comments, parameters as named variables, backward branches as loops
(``with ptx.loop(...)``, ``func.loop``, pyptx's counted loops as
``func.range_``), mbarrier spin-waits as ``func.mbarrier_wait``, wgmma
accumulators named ``acc``, runs of one instruction shape as ``for``
loops (see :mod:`pyptx.codegen.sugar`); it traces to the same PTX. A
construct the DSL cannot express is an error at its PTX line, never wrong
output.
"""
from __future__ import annotations

from pyptx._trace import native
from pyptx.errors import PyptxError

__all__ = ["CodegenError", "transpile", "transpile_file"]


class CodegenError(PyptxError):
    """The PTX does not import, or holds a construct the DSL cannot express.
    ``diagnostics`` lists (severity, file, line, column, message)."""

    def __init__(self, message, diagnostics=()):
        super().__init__(message)
        self.diagnostics = list(diagnostics)


def transpile(ptx_text: str, *, filename: str = "<ptx>", name: str = "",
              isa_policy: str = "strict", sugar: bool = False) -> str:
    """The Python program for `ptx_text` (see the module doc). name: the
    Python name of the first ``.entry``'s body (its PTX name is kept);
    isa_policy: how the import and the program check instructions
    ("strict", "warn-unknown", "off": for PTX newer than pyptx's ISA tables
    or files ptxas rejects). sugar: the readable form -- demangled names as
    comments, parameters as named variables, loops, spin-waits, named
    accumulators, runs of one instruction shape as ``for`` loops -- which
    traces to the same PTX."""
    nat = native()
    try:
        program = nat.ptx_to_python(ptx_text, filename, name, isa_policy, sugar)
    except nat.PTXError as e:
        raise CodegenError(str(e), getattr(e, "diagnostics", ())) from None
    if sugar:
        from pyptx.codegen.sugar import sugar as rewrite
        program = rewrite(program)
    return program


def transpile_file(path: str, **options) -> str:
    """transpile() of the file at `path` (diagnostics name the file)."""
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        text = f.read()
    return transpile(text, filename=path, **options)
