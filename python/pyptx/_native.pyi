"""The native module (C++, pybind11): a builder over the pyptx MLIR dialect.

This stub is the contract between the C++ side (lib/Bindings/Python/) and
the pure-Python DSL. Everything PTX-specific the DSL emits goes through it;
every op gets the Python caller's location.

Operands of `Module.inst` are tagged tuples:
    ("r", reg_id)              a register (reg_id from Module.reg/sreg/new_reg)
    reg_id                     the same, as a bare int
    ("r", reg_id, "x")         a vector register's component
    ("n", reg_class)           a new register of the class (Module.reg_class),
                               created here; inst returns its id
    ("i", value)               an integer immediate (Python int, -2**63..2**64-1)
    ("f32", value)             a float immediate, printed 0fXXXXXXXX
    ("f64", value)             a double immediate, printed 0dXXXXXXXXXXXXXXXX
    ("s", "name")              a symbol: variable, parameter, label or function
    ("a", [operand, ...])      an address [a], [a+16], [tmap, {x, y}]
    ("v", [operand, ...])      a vector {a, b, c, d}
    ("p", [operand, ...])      a parenthesised list (a call's arguments)
    ("!", operand)             !%p
    ("_",)                     the sink _
    ("I", magnitude, negative, format, unsigned, digits)
                               an integer as spelled: format 0 dec, 1 hex,
                               2 HEX, 3 oct, 4 bin, 5 0X-hex, 6 0X-HEX, 7 0B;
                               `U`; at least `digits` digits
    ("F", bits, is_double, upper_prefix, lower_digits)
                               a float by its bits (0f/0F/0d/0D)
    ("D", value, digits)       a decimal float with digits after the point
    ("u", "~" or "-", operand) a unary expression
    ("fn", name, [operand...]) generic(sym), mask(0xff, sym)
    (op, lhs, rhs)             a binary expression, op one of + - * / % << >> & | ^
                               && || == != < > <= >=,
                               e.g. ("+", ("r", 3), ("i", 16)) inside an address,
                               ("|", ("r", p), ("r", q)) for setp's p|q
Locations are (file, line, column); line 0 means unknown.
"""
from typing import Any, Sequence
from pyptx.errors import PyptxError

Operand = tuple
Loc = tuple[str, int, int]


class PTXError(PyptxError, RuntimeError):
    """Diagnostics of a failed verification, import or build step.

    `diagnostics` lists (severity, file, line, column, message) tuples, errors
    and their notes, in the order MLIR reported them; str(e) is their text."""
    diagnostics: list[tuple[str, str, int, int, str]]


class Module:
    """One PTX module (`.version`, `.target`, `.address_size`) under
    construction, in a context of its own."""

    def __init__(self, version: tuple[int, int], target: str,
                 address_size: int = 64, isa_policy: str = "strict") -> None:
        """isa_policy: "strict", "warn-unknown" or "off" (see --pyptx-isa)."""

    # -- module level -------------------------------------------------------
    def add_function(self, name: str, entry: bool = True,
                     params: Sequence[tuple[str, str]] = (),
                     directives: Sequence[tuple[str, Sequence[int]]] = (),
                     linkage: str = "visible", loc: Loc = ("", 0, 0)) -> int:
        """Starts a function; returns its id. params: (name, type) of each
        `.param` (type "u64", "b32", ...). directives: ("maxntid", [128, 1, 1]),
        ("reqntid", [...]), ("reqnctapercluster", [2, 1, 1]),
        ("explicitcluster", []), ("minnctapersm", [1]), ("maxnreg", [n]).
        Instructions, registers and labels are added to the function's body,
        in the innermost open scope."""

    def add_param(self, func: int, name: str, type: str, align: int = 0,
                  count: int = 0) -> None:
        """Appends `.param .align A .TYPE name[count]` (count 0: a scalar, align
        0: none) to the function's parameters."""

    def add_var(self, func: int, space: str, type: str, name: str,
                size: int | None = None, align: int = 0, linkage: str = "",
                loc: Loc = ("", 0, 0)) -> None:
        """`[.LINKAGE] .SPACE [.align A] .TYPE name[size];` (space "global",
        "shared", "const", "local", "param" or "tex"; size None: a scalar,
        0: an unsized `[]`; align 0: none; linkage "" (none), "visible",
        "extern", "weak" or "common"). .global and .const variables, and any
        with a linkage, go to module level before the function; the others
        to the end of the function's innermost open scope. Verified at once:
        raises PTXError (located at `loc`) for a variable PTX does not allow,
        such as an unsized array that is not .extern."""

    def add_shared(self, func: int, name: str, type: str, count: int,
                   align: int = 16, extern: bool = False,
                   loc: Loc = ("", 0, 0)) -> None:
        """`.shared .align A .TYPE name[count];` in the function body (at its
        top); extern=True gives `.extern .shared .align A .TYPE name[];` at
        module level (count ignored)."""

    # -- registers ----------------------------------------------------------
    def reg(self, func: int, type: str, prefix: str, vec: int = 1) -> int:
        """Declares one register of `type` ("f32", "pred", "b64", ...) in
        function `func`; returns its id. Registers of one prefix are numbered
        in creation order and declared together at the top of the function,
        nvcc-style: `.reg .f32 %f<12>;` (prefix "%f")."""

    def reg_class(self, func: int, type: str, prefix: str, vec: int = 1) -> int:
        """The id of function `func`'s registers of `prefix` (of `type`),
        for new_reg and ("n", reg_class) operands: the per-register calls
        then pass no strings."""

    def new_reg(self, reg_class: int, /) -> int:
        """Declares one register of the class; returns its id (as reg)."""

    def reg_name(self, reg: int) -> str:
        """The PTX name of a register id: "%r3" (its prefix and its number
        among the prefix's registers, as printed), "%tid.x" for a special
        register. Raw text (Module.raw) names registers this way."""

    def sreg(self, func: int, name: str) -> int:
        """A special register ("%tid.x", "%ctaid.y", "%laneid", "%clock64",
        ...) as a register id; its type comes from PTX."""

    # -- statements ---------------------------------------------------------
    def inst(self, func: int, opcode: str, operands: Sequence[Operand],
             guard: int = -1, negated: bool = False,
             loc: Loc | None = None, /) -> int | None:
        """Appends one instruction: opcode "ld.global.v4.f32", operands as
        above, an optional guard predicate register (@%p, or @!%p when
        negated). loc None: the innermost Python frame outside the
        directories given to set_internal_dirs (the kernel author's line).
        Returns the id of the register an ("n", reg_class) operand created,
        else None. Positional arguments only (it is called per instruction,
        without pybind11's dispatcher)."""

    def emit(self, func: int, opcode: str, operands: Sequence[Any],
             trace: Any, ftype: str, /) -> int | None:
        """inst() with the DSL's operand objects (ptx.inst's fast path):
        registers whose `ctx` slot is `trace` and [reg+offset] addresses of
        them (a negative offset as [reg+-8], which ptxas reads) are read here; every other operand becomes a tagged one through
        the fallback given to set_operand_classes (ftype "f32" or "f64" for
        float immediates)."""

    def binary(self, func: int, opcodes: tuple[dict, dict], new_operands: dict,
               a: Any, b: Any, in_place: bool, /) -> Any:
        """Reg's operators' fast path: `a op b` for an int b or a register b
        of a's type and trace, the opcode from opcodes ({type name: opcode}
        for an int b, the same for a register b), a new destination of class
        new_operands[a.dtype.reg_type] (("n", class)), or a itself in place.
        Returns the destination register (a new Reg made here), or None when
        the case is Python's to handle."""

    def raw(self, func: int, text: str, loc: Loc | None = None) -> None:
        """Parses `text`, PTX statements of a function body (instructions with
        guards, labels, `{ }` blocks and their `.reg` declarations, variables,
        `.loc`, `.pragma`), with the PTX importer, and appends the ops it
        makes to the function's innermost open scope; the exporter prints
        them in the module's style (the text's spacing and comments are not
        kept). Registers the text names are, in this order, those it declares
        itself (PTX scoping), those earlier raw text declared outside any
        block, the function's registers by their PTX names (`%rd3`: register
        3 of prefix "%rd", as Module.reg numbers them) and special registers.
        Labels and other symbols are resolved by verify(), like any other.

        The new ops are verified at once (operand forms and the ISA). On an
        error nothing is added and PTXError is raised, its diagnostics
        located in the text: file "<ptx.raw>", the 1-based line and column
        in `text`. On success the ops are located at `loc` (None: the
        author's line, as inst)."""

    def label(self, func: int, name: str, loc: Loc = ("", 0, 0)) -> None:
        """Appends `name:`."""

    def open_scope(self, func: int, loc: Loc = ("", 0, 0)) -> None:
        """Opens a `{ ... }` block; statements go into it until close_scope."""

    def close_scope(self, func: int) -> None: ...

    def loc_directive(self, func: int, file_index: int, line: int,
                      column: int) -> None:
        """Appends `.loc file line column` (lineinfo)."""

    def pragma(self, func: int, values: Sequence[str],
               loc: Loc = ("", 0, 0)) -> None:
        """Appends `.pragma "v1", "v2";` to the function's innermost open
        scope."""

    def comment(self, func: int, text: str, loc: Loc = ("", 0, 0)) -> None:
        """Appends a `// text` line to the function's innermost open scope
        (a pyptx.comment op; raises PTXError if `text` holds a line
        break)."""

    def add_file(self, index: int, path: str) -> None:
        """`.file index "path"` at module level (lineinfo)."""

    # -- whole modules (pyptx.program: every construct the importer holds) ---
    def set_header(self, targets: Sequence[str], address_size: int) -> None:
        """`.target` as a list ("sm_80", "texmode_independent") and
        `.address_size` (0: none)."""

    def set_undeclared(self, names: Sequence[str]) -> None:
        """Names the module uses without declaring them (kept so that such
        files round-trip; ptxas rejects them)."""

    def add_function_full(self, name: str, kind: str, linkage: str,
                          params: Sequence[tuple], ret_params: Sequence[tuple],
                          directives: Sequence[tuple[str, Sequence[int | str]]],
                          has_body: bool, no_param_list: bool,
                          empty_ret_list: bool,
                          loc: Loc = ("", 0, 0)) -> tuple[int, list[int]]:
        """A `.entry`/`.func` (kind) at the end of the module, with linkage ""
        (none), "visible", "extern", "weak"; a parameter is (space, name,
        type, vec, align, is_ptr, ptr_space ("" none), ptr_align, dims).
        Returns (function id, or -1 for a declaration; the register ids of
        its `.reg` parameters, return parameters first). Its body is built
        like a kernel's (inst, declare, label, open_scope, ...)."""

    def declare(self, func: int, type: str, vec: int,
                names: Sequence[tuple[str, int]],
                loc: Loc = ("", 0, 0)) -> list[int]:
        """`.reg [.vN] .TYPE name, prefix<count>, ...;` where it stands (the
        innermost open scope): (name, -1) for one register, (prefix, count)
        for a range. Returns the registers' ids in order; the names stay as
        declared (finish() renumbers only the DSL's own prefixes)."""

    def undeclared_register(self, func: int, name: str, type: str) -> int:
        """A register the file uses without declaring it ("b32" or "pred")."""

    def add_var_full(self, func: int, linkage: str, space: str,
                     attributes: Sequence[str] | None, align: int, vec: int,
                     type: str, name: str, dims: Sequence[int], init: Operand | None,
                     loc: Loc = ("", 0, 0)) -> None:
        """A variable where it stands: func -1 appends it to the module,
        else to the function's innermost scope. dims: -1 is `[]`; init: a
        tagged operand (no registers)."""

    def pragma_at(self, func: int, values: Sequence[str],
                  loc: Loc = ("", 0, 0)) -> None:
        """`.pragma ...;` where it stands (func -1: module level)."""

    def loc_full(self, func: int, file: int, line: int, column: int,
                 function_name: str, inlined_at: Sequence[int]) -> None:
        """`.loc file line column [, function_name f, inlined_at a b c]`."""

    def file_full(self, index: int, path: str, timestamp: int | None,
                  size: int | None) -> None:
        """`.file index "path" [, timestamp, size]` at the end of the module."""

    def section(self, name: str, loc: Loc = ("", 0, 0)) -> int:
        """`.section name { }` at the end of the module; returns its id."""

    def section_label(self, section: int, name: str) -> None: ...

    def data(self, section: int, types: Sequence[str], sizes: Sequence[int],
             values: Sequence[Operand | int], bytes: bytes) -> None:
        """Data rows: row i is `.types[i]` with sizes[i] values from
        `values`, or, for sizes[i] < 0, -sizes[i] bytes from `bytes`."""

    def alias(self, name: str, aliasee: str) -> None: ...

    def target_list(self, func: int, branch: bool, name: str,
                    targets: Sequence[str]) -> None:
        """`name: .branchtargets ...;` (branch) or `.calltargets`."""

    def call_prototype(self, func: int, name: str, ret_params: Sequence[tuple],
                       params: Sequence[tuple], noreturn: bool,
                       empty_ret_list: bool) -> None: ...

    def canonical_ptx(self) -> str:
        """The module's PTX in the canonical style (verifies first)."""

    # -- results ------------------------------------------------------------
    def verify(self) -> None:
        """Runs the dialect's verifier (structure and ISA) on every op, less
        what the builder guarantees by construction (dominance, the ODS
        invariants of the instructions it made); raises PTXError listing
        every bad instruction."""

    def ptx(self) -> str:
        """The module as PTX text (verifies first; raises PTXError)."""

    def mlir(self) -> str:
        """The module as MLIR text (pyptx dialect), with locations."""

    def param_effects(self, name: str) -> tuple[list[str], str]:
        """(written, reason) of the function `name`: the names of the
        parameters whose memory it may write (st, atom, red, bulk and TMA
        copies to global memory...; for a TMA store, the tensor map's
        parameter), in parameter order -- pointer-wide parameters only; and
        "" when every write was attributed, else why one was not (a pointer
        loaded from memory, a call: every pointer-wide parameter is then
        listed). The analysis is pyptx-opt's -pyptx-param-effects.
        ValueError when the module has no such function."""

    @property
    def num_instructions(self) -> int: ...

    @property
    def warnings(self) -> list[tuple[str, int, int, str]]:
        """(file, line, column, message) of each warning of the last
        verify()/ptx(): under isa_policy "warn-unknown", the instructions
        the ISA description lacks."""


def set_internal_dirs(dirs: Sequence[str]) -> None:
    """Directories whose code is pyptx's own, skipped when inst(loc=None)
    looks for the author's frame."""


def set_operand_classes(reg: type, address: type, fallback: Any,
                        ptx_type: type) -> None:
    """The DSL's register class (__slots__ id, ctx, dtype, special), address
    class (__slots__ base, offset, coords), fallback(value, ftype) -> tagged
    operand, and type class (__slots__ name, reg_type), for Module.emit and
    Module.binary; pyptx sets them when it loads this module."""


def caller_location() -> Loc:
    """The location inst(loc=None) would give an instruction now."""


def opcode_problem(opcode: str) -> str | None:
    """Why no form of the ISA description takes this opcode ("add.q32":
    unknown modifier, order, a missing modifier), or None."""


def import_ptx(text: str, filename: str = "<ptx>") -> str:
    """Imports PTX text; returns the module as MLIR text; raises PTXError."""


def export_ptx(mlir: str) -> str:
    """Exports MLIR text of a pyptx module to PTX; raises PTXError."""


def ptx_to_python(text: str, filename: str = "<ptx>", name: str = "",
                  isa_policy: str = "strict", sugar: bool = False) -> str:
    """PTX text -> a Python program of pyptx.program that builds the same
    module (pyptx-translate --export-python); name: the Python name of the
    first .entry's body; sugar: demangled names as comments and parameters
    as named variables (pyptx.codegen's --sugar adds the rest). Raises
    PTXError located in the PTX (an import error, or a construct the DSL
    cannot express)."""


# The ISA facts the Python layer checks (pyptx-tblgen -gen-isa-python) ship
# as the pure-Python module pyptx._isa_table (TARGETS, SPECIAL_REGISTERS,
# WGMMA, TCGEN05_MMA_SHAPES), generated at build time, read by
# pyptx._isa_facts.
