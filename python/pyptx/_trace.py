"""The trace context: one native Module under construction, plus the few
bits of Python state a trace needs (label counters, lineinfo files).

All per-trace state lives in the TraceContext, never in module globals, so a
kernel traced twice -- or after other kernels -- prints the same PTX.
"""
from __future__ import annotations

import os
import sys
import threading

from pyptx._operands import Address, operand
from pyptx.errors import KernelError, PyptxError, from_native
from pyptx.types import PtxType

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
_CONTEXTLIB = os.path.dirname(os.path.abspath(__import__("contextlib").__file__))
# Frames in these directories are pyptx's (or contextlib's), not the author's.
_INTERNAL_DIRS = (_PACKAGE_DIR, os.path.join(_PACKAGE_DIR, "hw"),
                  os.path.join(_PACKAGE_DIR, "runtime"),
                  os.path.join(_PACKAGE_DIR, "pipeline"), _CONTEXTLIB)



class _PerThread(threading.local):
    """The traces open in this thread, innermost last: each thread traces
    its own kernels (one thread's trace never sees another's)."""

    def __init__(self):
        self.stack: list["TraceContext"] = []


_threads = _PerThread()


_NATIVE = None


def native():
    """The native module, or an ImportError that says where it was sought."""
    global _NATIVE
    if _NATIVE is not None:
        return _NATIVE
    try:
        from pyptx import _native
    except ImportError as e:
        searched = list(sys.modules[__package__].__path__)
        raise ImportError(
            "pyptx._native (the C++ extension) is not built or not found; searched "
            f"{searched} (build the project, or set PYPTX_NATIVE_DIR "
            f"to the directory holding _native*.so): {e}") from e
    # Frames of these directories are not the author's: the native module
    # walks the stack past them to locate each instruction.
    _native.set_internal_dirs(list(_INTERNAL_DIRS))
    # Module.emit and Module.binary read these objects without running Python.
    if _REGISTER_CLASS is None:
        raise ImportError("pyptx.reg is not imported yet (import pyptx first)")
    _native.set_operand_classes(_REGISTER_CLASS, Address, operand, PtxType)
    _NATIVE = _native
    return _native


_REGISTER_CLASS = None


def set_register_class(cls) -> None:
    """Called by pyptx.reg with its Reg class, which the native module reads
    operands of (reg builds on this module, so this one cannot import it)."""
    global _REGISTER_CLASS
    _REGISTER_CLASS = cls


def isa_table():
    """pyptx._isa_table (generated at build time) or None."""
    try:
        from pyptx import _isa_table
    except ImportError:
        return None
    return _isa_table


def get_ctx() -> "TraceContext":
    stack = _threads.stack
    if not stack:
        raise PyptxError("this pyptx call emits PTX and only works while a "
                         "@kernel function is being traced (e.g. by kernel.ptx())")
    return stack[-1]


def active() -> bool:
    return bool(_threads.stack)


# -- source locations --------------------------------------------------------

def user_loc() -> tuple[str, int, int]:
    """(file, line, column) of the innermost caller outside the pyptx package
    (and contextlib), i.e. the kernel author's line: the native module's
    stack walk, the one every instruction uses."""
    return native().caller_location()


def _internal(tb) -> bool:
    path = os.path.abspath(tb.tb_frame.f_code.co_filename)
    return os.path.dirname(path) in _INTERNAL_DIRS


def author_line_of(traceback) -> tuple[str, int, int] | None:
    """(file, line, 0) of the author's line an exception passed through:
    the innermost frame outside the pyptx package, when the exception was
    raised inside the package (None when the author's own code raised it)."""
    frames = []
    while traceback is not None:
        frames.append(traceback)
        traceback = traceback.tb_next
    if not frames or not _internal(frames[-1]):
        return None
    for tb in reversed(frames):
        if not _internal(tb):
            return tb.tb_frame.f_code.co_filename, tb.tb_lineno, 0
    return None


# -- the context --------------------------------------------------------------

# add_function_full's arguments for ``.extern .func (.param .b32 status)
# vprintf(.param .b64 format, .param .b64 valist);`` (pyptx.debugkit.printf).
VPRINTF_DECLARATION = (
    "vprintf", "func", "extern",
    [("param", "format", "b64", 1, 0, False, "", 0, []),
     ("param", "valist", "b64", 1, 0, False, "", 0, [])],
    [("param", "status", "b32", 1, 0, False, "", 0, [])], [], False, False, False)

class TraceContext:
    # Labels other code may branch to (the author's, a named loop's, and
    # ptx.raw texts, which may hold some) emitted so far: a value computed
    # before the last one may not hold on every path after it (see label()
    # and smem._symbol_address). A class default, so that subclasses with
    # their own __init__ (program._ProgramTrace) have it too.
    labels = 0

    def __init__(self, *, version, target, name, params, directives,
                 lineinfo=False, isa_policy="strict", loc=("", 0, 0), debug=False):
        self.native = native()
        self.target = target
        self.version = version
        self.lineinfo = lineinfo
        self.isa_policy = isa_policy
        self.debug = debug
        self.module = self._call(self.native.Module, version, target, 64,
                                 isa_policy, loc=loc)
        if debug:  # ptxas wants a function declared before the kernel calls it
            self._call(self.module.add_function_full, *VPRINTF_DECLARATION, loc=loc)
        self.func = self._call(self.module.add_function, name, True, params,
                               directives, "visible", loc, loc=loc)
        self.counters: dict[str, int] = {}
        # register type -> ("n", register class), see reg._new_operand
        self.new_operands: dict[str, tuple] = {}
        self.files: dict[str, int] = {}
        self.last_line: tuple | None = None
        self.param_cache: dict[str, object] = {}
        self.extern_smem_name: str | None = None
        self.tma_descs: list = []  # specs.TmaDescriptor, in parameter order
        self.tma_regs: dict = {}   # (tensor, box, options) -> the address register
        self.pending_join = None  # an if_ whose false label is not emitted yet
        # Whether instructions may go straight to the native module: this is
        # the innermost trace, with no lineinfo to emit and no pending join
        # label. The one test on the fast paths; see _update_fast.
        self.active_fast = False
        self.open_blocks: list[object] = []  # if_/loop/scope objects, innermost last
        # Per-trace state of the hardware-unit modules (pyptx.hw.*), each
        # under its own key (e.g. "mbarrier": expected transaction bytes).
        self.units: dict[str, object] = {}
        self.param_counts: dict[str, int] = {}  # parameter -> array length (0: scalar)
        # Shared memory: dynamic_smem (set by the kernel before a trace)
        # carves every allocation from the extern dynamic window instead of
        # static .shared variables; smem_bytes is what the allocations take.
        self.dynamic_smem = False
        self.smem_bytes = 0

    def _update_fast(self):
        stack = _threads.stack
        self.active_fast = (self.pending_join is None and not self.lineinfo
                            and bool(stack) and stack[-1] is self)

    def __enter__(self):
        stack = _threads.stack
        if stack:
            stack[-1].active_fast = False
        stack.append(self)
        self._update_fast()
        return self

    def __exit__(self, *exc):
        stack = _threads.stack
        stack.remove(self)
        self.active_fast = False
        if stack:
            stack[-1]._update_fast()
        return False

    # -- helpers -------------------------------------------------------------
    def _call(self, fn, *args, loc=None, **kw):
        """Calls the native builder; a PTXError becomes a KernelError at the
        user's line."""
        try:
            return fn(*args, **kw)
        except Exception as e:
            if type(e).__name__ != "PTXError":
                raise
            raise from_native(e, loc or user_loc()) from None

    def unique(self, kind: str) -> int:
        """Next number for `kind` in this trace (labels, smem names)."""
        n = self.counters.get(kind, 0)
        self.counters[kind] = n + 1
        return n

    def set_pending_join(self, block):
        self.pending_join = block
        self._update_fast()

    def flush(self):
        """Emits the join label of an if_ that turned out to have no else_."""
        pending = self.pending_join
        self.set_pending_join(None)
        if pending is not None:
            pending.emit_join()

    def _lineinfo(self, loc):
        if not self.lineinfo or not loc[1]:
            return
        path = os.path.abspath(loc[0])
        if path not in self.files:
            self.files[path] = max(self.files.values(), default=0) + 1
            self._call(self.module.add_file, self.files[path], path, loc=loc)
        key = (self.files[path], loc[1], loc[2])
        if key != self.last_line:
            self.last_line = key
            self._call(self.module.loc_directive, self.func, *key, loc=loc)

    # -- statements ----------------------------------------------------------
    def inst(self, opcode: str, operands, guard=None, negated=False, loc=None):
        # The hot path of every trace: with loc None the native module finds
        # the author's line itself. It raises only on malformed operands.
        if self.pending_join is not None:
            self.flush()
        if self.lineinfo:
            loc = loc or user_loc()
            self._lineinfo(loc)
        self.module.inst(self.func, opcode, operands,
                         -1 if guard is None else guard, negated, loc)

    def label(self, name: str, loc=None, flush=True, structured=False):
        """Emits ``name:``. structured: a label that only code after the
        construct emitting it branches to (if_/range_/unnamed loop ends and
        heads, a helper's own wait loop), so values computed before the
        construct still hold after it; other labels (the author's, a named
        loop's) count in `labels`."""
        loc = loc or user_loc()
        if flush:
            self.flush()
        if not structured:
            self.labels += 1
        self._call(self.module.label, self.func, name, loc, loc=loc)

    def open_scope(self, loc=None):
        loc = loc or user_loc()
        self.flush()
        self._call(self.module.open_scope, self.func, loc, loc=loc)

    def close_scope(self, loc=None):
        self.flush()
        self._call(self.module.close_scope, self.func, loc=loc)

    def sreg(self, name: str) -> int:
        return self._call(self.module.sreg, self.func, name)

    def add_param(self, name, type_name, align=0, count=0, loc=None):
        loc = loc or user_loc()
        self._call(self.module.add_param, self.func, name, type_name, align, count,
                   loc=loc)
        self.param_counts[name] = count

    def add_shared(self, name, type_name, count, align, extern=False, loc=None):
        loc = loc or user_loc()
        self._call(self.module.add_shared, self.func, name, type_name, count,
                   align, extern, loc, loc=loc)

    def finish(self):
        """Closes the trace: no block may be left open."""
        self.flush()
        if self.open_blocks:
            raise KernelError(f"{type(self.open_blocks[-1]).__name__} block left open",
                              *self.open_blocks[-1].loc)
        # Units with checks that need the whole kernel (the mbarrier
        # transaction-byte ledger) run them now.
        for state in list(self.units.values()):
            finish = getattr(state, "finish", None)
            if callable(finish):
                finish()
