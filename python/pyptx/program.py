"""Whole PTX modules: several kernels, device functions, module variables,
debug sections -- everything a PTX file holds, built statement by statement.

``@kernel`` traces one ``.entry`` into a module of its own. A
:class:`Program` holds what a PTX file holds, in file order, and is what
``python -m pyptx.codegen`` (the PTX -> Python transpiler) writes::

    from pyptx import ptx
    from pyptx.program import Program, Param, imm

    prog = Program((8, 7), ["sm_90a"], address_size=64)
    prog.var("global", "b32", "table", linkage="visible", align=4, dims=[4],
             init=[1, 2, 3, 4])

    @prog.entry("add16", params=[Param("param", "u64", "p")])
    def add16(func):
        r = func.reg("b32", ("%r", 2))
        rd1 = func.reg("b64", "%rd1")
        ptx.inst.ld.param.u64(rd1, ptx.addr("p"))
        ptx.inst.ld.global_.u32(r[0], ptx.addr(rd1))
        ptx.inst.add.s32(r[1], r[0], imm("0x10"))
        ptx.inst.st.global_.u32(ptx.addr(rd1), r[1])
        ptx.inst.ret()

    print(prog.ptx(), end="")

Inside a function body, ``ptx.inst`` chains and the rest of the DSL emit as
in a ``@kernel``; ``func`` (the function being built) declares registers with
their PTX names and adds labels, ``{ }`` blocks and directives where they
stand. Operand helpers of this module give the literal forms that PTX
spells in more than one way (``imm("0x1F")``, ``imm("0f3F800000")``),
expressions (``op(a, "<<", b)``), vector lanes (``elt(v, "x")``) and any
address (``mem(...)``).
"""
from __future__ import annotations

import re

from pyptx import types as T
from pyptx._inst import emit
from pyptx._operands import operand
from pyptx._trace import TraceContext, native
from pyptx.errors import from_native
from pyptx.reg import _make

__all__ = ["Program", "Function", "Section", "Param", "imm", "elt", "op", "un",
           "not_", "paren", "mem", "fn", "sym"]


# -- operands -----------------------------------------------------------------

_FORMATS = {"dec": 0, "hex": 1, "HEX": 2, "oct": 3, "bin": 4, "Xhex": 5, "XHEX": 6,
            "Bbin": 7}
_INT = re.compile(r"(-?)(0[xX][0-9a-fA-F]+|0[bB][01]+|0[0-7]+|[0-9]+)(U?)")
_FBITS = re.compile(r"(-?)0([fFdD])([0-9a-fA-F]+)")
_DECF = re.compile(r"(-?)([0-9]+)\.([0-9]+)")


class _Tagged:
    """An operand given by its tagged tuple (see pyptx._native)."""

    __slots__ = ("tag", "text")

    def __init__(self, tag, text):
        self.tag, self.text = tag, text

    def __ptx_operand__(self, ftype=None):
        return self.tag

    def __repr__(self):
        return f"imm({self.text!r})"


_IMMS: dict = {}


def imm(text: str):
    """A literal as PTX spells it, spelling kept: integers in any radix with
    their digits and ``U`` (``"0x1F"``, ``"0X1f"``, ``"010"``, ``"0b101"``,
    ``"7U"``, ``"0x00010001"``, ``"-0x10"``), floats by their bits
    (``"0f3F800000"``, ``"0D3ff0000000000000"``) and decimal floats
    (``"0.25"``). A plain decimal integer is just a Python int."""
    known = _IMMS.get(text)
    if known is not None:
        return known
    m = _INT.fullmatch(text)
    if m:
        sign, body, suffix = m.groups()
        digits = 0
        if body[:2] in ("0x", "0X"):
            upper_x, rest = body[1] == "X", body[2:]
            upper = any(c in "ABCDEF" for c in rest)
            fmt = ("X" if upper_x else "") + ("HEX" if upper else "hex")
            value = int(rest, 16)
        elif body[:2] in ("0b", "0B"):
            fmt, rest = ("Bbin" if body[1] == "B" else "bin"), body[2:]
            value = int(rest, 2)
        elif len(body) > 1 and body[0] == "0":
            fmt, rest = "oct", body
            value = int(body, 8)
        else:
            fmt, rest = "dec", body
            value = int(body)
        # Leading zeros are kept as a digit count (octal counts its 0).
        plain = {"hex": "x", "HEX": "X", "Xhex": "x", "XHEX": "X"}.get(fmt)
        if fmt in ("hex", "HEX", "Xhex", "XHEX"):
            shortest = format(value, plain)
        elif fmt in ("bin", "Bbin"):
            shortest = format(value, "b")
        elif fmt == "oct":
            shortest = "0" + format(value, "o") if value else "00"
        else:
            shortest = str(value)
        if len(rest) != len(shortest):
            digits = len(rest)
        tag = ("I", value, sign == "-", _FORMATS[fmt], suffix == "U", digits)
    else:
        m = _FBITS.fullmatch(text)
        if m and not m.group(1):
            letter, digits_text = m.group(2), m.group(3)
            double = letter in "dD"
            # (Digits without letters print the same either way.)
            tag = ("F", int(digits_text, 16), double, letter.isupper(),
                   digits_text != digits_text.upper())
        else:
            m = _DECF.fullmatch(text)
            if not m:
                raise ValueError(f"imm({text!r}): not a PTX literal")
            tag = ("D", float(text), len(m.group(3)))
    result = _IMMS[text] = _Tagged(tag, text)
    return result


class _Expr:
    """An operand built from others (lanes, expressions, lists)."""

    __slots__ = ("kind", "args")

    def __init__(self, kind, *args):
        self.kind, self.args = kind, args

    def __ptx_operand__(self, ftype="f32"):
        kind, args = self.kind, self.args
        if kind == "elt":
            return ("r", args[0].__ptx_operand__(ftype)[1], args[1])
        if kind == "bin":
            return (args[1], operand(args[0], ftype, True), operand(args[2], ftype, True))
        if kind == "un":
            return ("u", args[0], operand(args[1], ftype, True))
        if kind == "not":
            return ("!", operand(args[0], ftype, True))
        if kind == "fn":
            return ("fn", args[0], [operand(a, ftype, True) for a in args[1]])
        return (kind, [operand(a, ftype, True) for a in args])  # "a", "p", "v"


def elt(register, lane: str):
    """A vector register's lane: ``%v.x`` is ``elt(v, "x")``."""
    return _Expr("elt", register, lane)


def op(lhs, operator: str, rhs):
    """``lhs OP rhs`` for PTX's binary operators (``+ - * / % << >> & | ^ &&
    || == != < > <= >=``): ``[%rd+16]``'s sum, ``%p|%q``, ``(1 << 4)``."""
    return _Expr("bin", lhs, operator, rhs)


def un(operator: str, value):
    """``~x`` or ``-x`` on a constant expression."""
    return _Expr("un", operator, value)


def not_(predicate):
    """``!%p`` as an operand."""
    return _Expr("not", predicate)


def paren(*items):
    """``(a, b)``: a call's argument or return list, or parentheses in an
    expression."""
    return _Expr("p", *items)


def mem(*items):
    """``[a]``, ``[a, {b, c}]``: an address of any elements (``ptx.addr``
    covers ``[reg+imm]`` and ``[sym+imm]``)."""
    return _Expr("a", *items)


def fn(name: str, *args):
    """``generic(sym)``, ``mask(0xff, sym)`` (printed ``0xff(sym)``) in an
    initializer."""
    return _Expr("fn", name, args)


def sym(name: str):
    """A symbol whose name a plain string cannot give (``.debug_abbrev``:
    a string starting with ``.``, a digit or a sign reads as a number)."""
    return _Tagged(("s", name), name)


def _tag(value):
    return None if value is None else operand(value, "f32", True)


# -- declarations ---------------------------------------------------------------

class Param(tuple):
    """A parameter of ``.entry``/``.func``/``.callprototype``:
    ``Param("param", "u64", "x", ptr="global", ptr_align=16)`` is
    ``.param .u64 .ptr .global .align 16 x``; ``Param("reg", "b32", "%a")``
    a register parameter (the body gets it as a register); ``vec``,
    ``align`` and ``dims`` as in PTX (``dims=[-1]``: ``[]``). ``ptr=""``
    writes ``.ptr`` without a state space."""

    def __new__(cls, space, type, name, *, vec=1, align=0, ptr=None, ptr_align=0,
                dims=()):
        return super().__new__(cls, (space, name, type, vec, align, ptr is not None,
                                     ptr or "", ptr_align, list(dims)))


def _loc():
    return native().caller_location()


class Function:
    """The function being built (the argument of a ``@prog.entry`` or
    ``@prog.func`` body): declares registers and adds labels, blocks and
    directives where they stand."""

    def __init__(self, program, ctx, func_id, args):
        self._ctx, self._id = ctx, func_id
        #: The registers of the ``.reg`` parameters (return parameters first).
        self.args = args

    def reg(self, type: str, *names, vec: int = 1):
        """``.reg [.vN] .TYPE names;`` here. Each name is a register's PTX name
        (``"%p"``) or ``(prefix, count)`` for ``prefix<count>``. Returns the
        register, or a list of them for a range; several names: a tuple."""
        spec = [(n, -1) if isinstance(n, str) else (n[0], n[1]) for n in names]
        ctx = self._ctx
        try:
            ids = ctx.module.declare(self._id, type, vec, spec, _loc())
        except Exception as e:
            if type_name(e) != "PTXError":
                raise
            raise from_native(e, _loc()) from None
        dtype = _dtype(type)
        regs = [_make(ctx, i, dtype) for i in ids]
        out, at = [], 0
        for name, count in spec:
            if count < 0:
                out.append(regs[at])
                at += 1
            else:
                out.append(regs[at:at + count])
                at += count
        return out[0] if len(out) == 1 else tuple(out)

    def undeclared(self, name: str, type: str = "b32"):
        """A register the PTX file uses without declaring it (ptxas rejects
        such a file; the importer keeps it so the file round-trips)."""
        ctx = self._ctx
        return _make(ctx, ctx.module.undeclared_register(self._id, name, type),
                     _dtype(type))

    def label(self, name: str):
        """``name:`` here."""
        self._ctx.label(name, loc=_loc())

    def scope(self):
        """``with func.scope():`` -- a ``{ }`` block."""
        return _Scope(self._ctx)

    def loop(self, label: str, *, pred=None, uni: bool = False):
        """``with func.loop("L", pred=p, uni=False):`` -- a loop closed by its
        back edge: ``L:`` <body> ``[@p] bra[.uni] L;`` (the label, the body,
        one branch). ``ptx.loop("L", pred=p)`` is the same with ``bra`` under
        a guard and ``bra.uni`` without one; this form also writes the other
        two spellings, which compilers use. Leave it with a branch past it."""
        return _Loop(self._ctx, label, pred, uni)

    def range_(self, i, start, stop, step=1, *, p, label: str, type: str = "u32"):
        """``with func.range_(i, start, stop, step, p=p, label="L", type="u32"):``
        -- ``ptx.range_``'s counted loop on the file's counter register `i`,
        predicate `p` and labels (``L``, ``L_end``): five instructions and two
        labels around the body::

            mov.u32 i, start;
            L:  setp.ge.u32 p, i, stop;  @p bra L_end;
            <body>
            add.u32 i, i, step;  bra.uni L;
            L_end:

        (``setp.le`` for a negative int step). Yields `i`."""
        return _Range(self._ctx, i, start, stop, step, p, label, type)

    def mbarrier_wait(self, mbar, phase, *extra, p, label: str,
                      opcode: str = "mbarrier.try_wait.parity.shared::cta.b64",
                      uni: bool = False, done: str = None):
        """Spins until the mbarrier phase `phase` completes: the loop
        ``ptx.mbarrier.wait`` emits, with the file's label and predicate --
        a label and two instructions::

            label:
            mbarrier.try_wait.parity.shared::cta.b64 p, [mbar], phase;
            @!p bra label;

        `extra`: further operands of the try_wait (a suspend-time hint);
        opcode: another form of it (``mbarrier.try_wait.parity.shared.b64``,
        ``...acquire.cluster...``); uni: ``bra.uni``. With `done` (CUTLASS's
        form) the loop exits forward -- a label and three instructions, then
        the exit's label::

            label:  try_wait p, [mbar], phase;  @p bra done;  bra label;  done:
        """
        branch = "bra.uni" if uni else "bra"
        ctx = self._ctx
        ctx.label(label, loc=_loc())
        emit(opcode, p, mbar, phase, *extra)
        if done is None:
            emit(branch, label, pred=~p)
        else:
            emit(branch, done, pred=p)
            emit(branch, label)
            ctx.label(done, loc=_loc())

    def loc(self, file: int, line: int, column: int, function_name: str = "",
            inlined_at=()):
        """``.loc file line column`` (with ``function_name`` and
        ``inlined_at`` as nvcc writes them for inlined code)."""
        self._ctx.flush()
        self._ctx.module.loc_full(self._id, file, line, column, function_name,
                                  list(inlined_at))

    def pragma(self, *values: str):
        """``.pragma "v", ...;`` here."""
        self._ctx.module.pragma_at(self._id, list(values), _loc())

    def var(self, space, type, name, **details):
        """A variable here (``.local``, ``.shared``, ``.param`` ...); the
        arguments are Program.var's."""
        _add_var(self._ctx.module, self._id, space, type, name, **details)

    def branchtargets(self, name: str, *labels: str):
        """``name: .branchtargets l1, l2, ...;`` (brx.idx's table)."""
        self._ctx.module.target_list(self._id, True, name, list(labels))

    def calltargets(self, name: str, *functions: str):
        """``name: .calltargets f1, f2, ...;``."""
        self._ctx.module.target_list(self._id, False, name, list(functions))

    def callprototype(self, name: str, params=(), ret=None, noreturn=False):
        """``name: .callprototype (ret) _ (params) [.noreturn];`` (ret None:
        no return list; ``[]``: an empty one)."""
        self._ctx.module.call_prototype(self._id, name, list(ret or ()), list(params),
                                        noreturn, ret is not None and not ret)


def type_name(e):
    return type(e).__name__


class _Loop:
    def __init__(self, ctx, label, pred, uni):
        self._ctx, self._label, self._pred, self._uni = ctx, label, pred, uni

    def __enter__(self):
        self._ctx.label(self._label, loc=_loc())
        return self

    def __exit__(self, exc_type, *exc):
        if exc_type is None:
            emit("bra.uni" if self._uni else "bra", self._label, pred=self._pred)
        return False


class _Range:
    def __init__(self, ctx, i, start, stop, step, p, label, type):
        self._ctx, self._i, self._bounds = ctx, i, (start, stop, step)
        self._p, self._label, self._type = p, label, type

    def __enter__(self):
        start, stop, step = self._bounds
        i, t = self._i, self._type
        emit(f"mov.{t}", i, start)
        self._ctx.label(self._label, loc=_loc())
        down = isinstance(step, int) and step < 0
        emit(f"setp.{'le' if down else 'ge'}.{t}", self._p, i, stop)
        emit("bra", self._label + "_end", pred=self._p)
        return i

    def __exit__(self, exc_type, *exc):
        if exc_type is None:
            emit(f"add.{self._type}", self._i, self._i, self._bounds[2])
            emit("bra.uni", self._label)
            self._ctx.label(self._label + "_end", loc=_loc())
        return False


class _Scope:
    def __init__(self, ctx):
        self._ctx = ctx

    def __enter__(self):
        self._ctx.open_scope(loc=_loc())
        return self

    def __exit__(self, *exc):
        self._ctx.close_scope()
        return False


_DTYPES: dict = {}


def _dtype(name):
    t = T.ALL_TYPES.get(name) or _DTYPES.get(name)
    if t is None:
        bits = int(re.sub(r"\D", "", name.split("x")[0]) or 32)
        t = _DTYPES[name] = T.PtxType(name, bits)
    return t


def _add_var(module, func, space, type, name, *, linkage="", attributes=None,
             align=0, vec=1, dims=(), init=None):
    module.add_var_full(func, linkage, space, attributes, align, vec, type, name,
                        list(dims), _tag(init), _loc())


class Section:
    """A ``.section name { ... }`` of debug data."""

    def __init__(self, program, name):
        self._program, self.name = program, name
        self._items = []

    def label(self, name: str):
        """``name:`` in the section."""
        self._items.append(("label", name))

    def rows(self, types, sizes, values=(), data=b""):
        """Data rows: row i is ``.types[i]`` with sizes[i] of `values` (ints,
        symbols, imm(...), op(...)), or, for sizes[i] < 0, -sizes[i] bytes of
        `data` (each printed as a decimal number)."""
        self._items.append(("rows", types, sizes, values, data))

    def _build(self, module):
        sid = module.section(self.name, _loc())
        for item in self._items:
            if item[0] == "label":
                module.section_label(sid, item[1])
            else:
                _, types, sizes, values, data = item
                module.data(sid, list(types), list(sizes),
                            [v if v.__class__ is int else _tag(v) for v in values],
                            bytes(data))


class _ProgramTrace(TraceContext):
    """The trace of one function body of a Program: its instructions go to
    the program's module."""

    def __init__(self, module, func, isa_policy, version, target):
        self.native = native()
        self.target, self.version = target, version
        self.lineinfo = False
        self.isa_policy = isa_policy
        self.module, self.func = module, func
        self.counters, self.new_operands, self.files = {}, {}, {}
        self.last_line = None
        self.param_cache = {}
        self.extern_smem_name = None
        self.tma_descs, self.tma_regs = [], {}
        self.pending_join = None
        self.active_fast = False
        self.open_blocks = []
        self.units = {}
        self.param_counts = {}
        self.dynamic_smem = False
        self.smem_bytes = 0


class Program:
    """A PTX module built statement by statement (see the module doc).

    version: (major, minor); targets: ``["sm_90a"]`` or with options
    (``["sm_80", "texmode_independent"]``); address_size: 64, 32 or None
    (no ``.address_size``); undeclared: names the file uses without declaring
    (kept so such files round-trip); isa_policy as for ``@kernel``."""

    def __init__(self, version, targets, address_size=64, undeclared=(),
                 isa_policy="strict"):
        self.version = tuple(version)
        self.targets = [targets] if isinstance(targets, str) else list(targets)
        self.address_size = address_size
        self.undeclared = list(undeclared)
        self.isa_policy = isa_policy
        self._items = []

    # -- module-level statements ---------------------------------------------
    def file(self, index: int, path: str, timestamp=None, size=None):
        """``.file index "path" [, timestamp, size]``."""
        self._items.append(("file", index, path, timestamp, size))

    def var(self, space: str, type: str, name: str, *, linkage="", attributes=None,
            align=0, vec=1, dims=(), init=None):
        """``[.linkage] .space [.attribute(...)] [.align A] [.vN] .type
        name[dims] [= init];`` (dims: ``[4]``, ``[-1]`` for ``[]``; init:
        an int, a list for ``{...}``, a symbol, imm(...), op(...),
        fn("generic", sym))."""
        self._items.append(("var", space, type, name, dict(
            linkage=linkage, attributes=attributes, align=align, vec=vec, dims=dims,
            init=init)))

    def pragma(self, *values: str):
        self._items.append(("pragma", list(values)))

    def alias(self, name: str, aliasee: str):
        """``.alias name, aliasee;``."""
        self._items.append(("alias", name, aliasee))

    def section(self, name: str) -> Section:
        """``.section name { }``; fill it with the Section's rows/label."""
        section = Section(self, name)
        self._items.append(("section", section))
        return section

    def declare(self, name: str, *, kind="func", linkage="", params=(), ret=None,
                directives=(), no_param_list=False):
        """A function declaration without a body (``.extern .func f(...);``)."""
        self._items.append(("func", None, name, kind, linkage, params, ret, directives,
                            no_param_list))

    def entry(self, name: str, *, linkage="", params=(), directives=(),
              no_param_list=False):
        """Decorator: the body of ``.entry name(params) directives { }``; the
        function gets a :class:`Function`. directives: ``("maxntid", (128,
        1, 1))``, ``("pragma", ("nounroll",))``, ..."""
        return self._body(name, "entry", linkage, params, None, directives,
                          no_param_list)

    def func(self, name: str, *, linkage="", params=(), ret=None, directives=(),
             no_param_list=False):
        """Decorator: the body of ``.func (ret) name(params) { }`` (ret None:
        no return list, ``[]``: an empty one)."""
        return self._body(name, "func", linkage, params, ret, directives,
                          no_param_list)

    def _body(self, *details):
        def decorate(body):
            self._items.append(("func", body) + details)
            return body
        return decorate

    # -- building ---------------------------------------------------------------
    def build(self):
        """The native module (pyptx._native.Module), built from the
        statements in order and verified."""
        nat = native()
        target = self.targets[0]
        module = nat.Module(self.version, target, self.address_size or 64,
                            self.isa_policy)
        module.set_header(self.targets, self.address_size or 0)
        if self.undeclared:
            module.set_undeclared(self.undeclared)
        for item in self._items:
            kind = item[0]
            if kind == "func":
                self._build_func(module, *item[1:])
            elif kind == "var":
                _add_var(module, -1, *item[1:4], **item[4])
            elif kind == "file":
                module.file_full(*item[1:])
            elif kind == "pragma":
                module.pragma_at(-1, item[1])
            elif kind == "alias":
                module.alias(item[1], item[2])
            else:
                item[1]._build(module)
        return module

    def _build_func(self, module, body, name, kind, linkage, params, ret, directives,
                    no_param_list):
        fid, arg_ids = module.add_function_full(
            name, kind, linkage, list(params), list(ret or ()),
            [(d, list(v)) for d, v in directives], body is not None, no_param_list,
            ret is not None and not ret)
        if body is None:
            return
        ctx = _ProgramTrace(module, fid, self.isa_policy, self.version, self.targets[0])
        specs = list(ret or ()) + list(params)
        reg_specs = [p for p in specs if p[0] == "reg"]
        args = [_make(ctx, i, _dtype(p[2])) for i, p in zip(arg_ids, reg_specs)]
        with ctx:
            body(Function(self, ctx, fid, args))
            ctx.finish()

    def ptx(self) -> str:
        """The module's PTX (canonical style), verified."""
        module = self.build()
        try:
            return module.canonical_ptx()
        except Exception as e:
            if type_name(e) != "PTXError":
                raise
            raise from_native(e, ("", 0, 0)) from None
