"""Warp-level units: ``mma.sync``, ``ldmatrix``, ``stmatrix``, ``elect.sync``.

``ptx.mma.sync(...)`` is the warp-scope tensor-core MMA of Volta through
Blackwell (Ampere's main path); ``ldmatrix``/``stmatrix`` move 8x8 tiles of
16-bit elements between shared memory and the per-lane fragments those MMAs
use. Every helper emits one instruction, except
``stmatrix_x4_trans_f32_bf16`` (its docstring gives the count).

Fragment counts and register types are checked where the helper is called,
so a wrong fragment is reported at the kernel author's line with the rule
and the fix, e.g.::

    mma.sync m16n8k16 .bf16: a needs 4 .b32 registers per thread (each holds
    2 packed bf16); got 2 (allocate reg.array(b32, 4))
"""
from __future__ import annotations

from pyptx import reg as _reg
from pyptx import types as T
from pyptx._inst import Namespace, as_address, emit, fail
from pyptx._operands import SINK, Address, Pipe

# -- mma.sync ---------------------------------------------------------------------

# dtype_a -> operand family; a family fixes the fragment shapes below.
_FAMILY = {"f16": "f16", "bf16": "bf16", "tf32": "tf32", "f64": "f64",
           "s8": "i8", "u8": "i8", "s4": "i4", "u4": "i4",
           "e4m3": "f8", "e5m2": "f8"}

# (family, (m, n, k)) -> (A registers, B registers, {accumulator type: C/D
# registers}) per thread, from the PTX ISA's mma fragment layouts.
_FRAGMENTS = {
    ("f16", (8, 8, 4)): (2, 2, {"f32": 8, "f16": 4}),
    ("f16", (16, 8, 8)): (2, 1, {"f32": 4, "f16": 2}),
    ("f16", (16, 8, 16)): (4, 2, {"f32": 4, "f16": 2}),
    ("bf16", (16, 8, 8)): (2, 1, {"f32": 4}),
    ("bf16", (16, 8, 16)): (4, 2, {"f32": 4}),
    ("tf32", (16, 8, 4)): (2, 1, {"f32": 4}),
    ("tf32", (16, 8, 8)): (4, 2, {"f32": 4}),
    ("f64", (8, 8, 4)): (1, 1, {"f64": 2}),
    ("f64", (16, 8, 4)): (2, 1, {"f64": 4}),
    ("f64", (16, 8, 8)): (4, 2, {"f64": 4}),
    ("f64", (16, 8, 16)): (8, 4, {"f64": 4}),
    ("i8", (8, 8, 16)): (1, 1, {"s32": 2}),
    ("i8", (16, 8, 16)): (2, 1, {"s32": 4}),
    ("i8", (16, 8, 32)): (4, 2, {"s32": 4}),
    ("i4", (8, 8, 32)): (1, 1, {"s32": 2}),
    ("i4", (16, 8, 32)): (2, 1, {"s32": 4}),
    ("i4", (16, 8, 64)): (4, 2, {"s32": 4}),
    ("f8", (16, 8, 16)): (2, 1, {"f32": 4, "f16": 2}),
    ("f8", (16, 8, 32)): (4, 2, {"f32": 4, "f16": 2}),
}

# family -> (A/B register type as the ISA states it, what one register holds,
# the type to allocate)
_AB_REGS = {
    "f16": ("f16x2", "2 packed f16", "b32"),
    "bf16": ("bf16x2", "2 packed bf16", "b32"),
    "tf32": ("tf32", "one tf32", "b32"),
    "f64": ("f64", "one f64", "f64"),
    "i8": ("b32", "4 packed 8-bit integers", "b32"),
    "i4": ("b32", "8 packed 4-bit integers", "b32"),
    "f8": ("b32", "4 packed fp8", "b32"),
}
# accumulator type -> (C/D register type, the type to allocate)
_CD_REGS = {"f32": ("f32", "f32"), "f16": ("f16x2", "f16x2"), "s32": ("s32", "s32"),
            "f64": ("f64", "f64")}


def _reg_kind(name: str) -> str:
    """'b', 's', 'u', 'f' for plain bit/int/float types, 'o' for the others
    (packed f16x2, tf32, ...) -- the classes of PTX's operand type rules."""
    if name[:1] in "bsuf" and name[1:].isdigit():
        return name[0]
    return "o"


def _fits(expected: str, r) -> bool:
    """Whether register r can stand where the ISA states a register of type
    `expected`: the type itself, or an untyped .bN of its width (for integer
    types, any 32-bit integer register)."""
    declared = r.dtype.reg_type
    bits = T.ALL_TYPES[expected].bits
    if r.dtype.bits != bits:
        return False
    kind = _reg_kind(expected)
    if kind == "b":
        return True
    if kind in "su":
        return _reg_kind(declared) in "bsuo"
    return declared == expected or _reg_kind(declared) == "b"


def _as_regs(what: str, value) -> list:
    """A list of registers from a RegArray, list or tuple (a lone register
    counts as one)."""
    if isinstance(value, _reg.Reg):
        return [value]
    if isinstance(value, _reg.RegArray):
        return list(value)
    if isinstance(value, (list, tuple)):
        items = list(value)
        for i, r in enumerate(items):
            if not isinstance(r, _reg.Reg):
                fail(f"{what}[{i}] is {r!r}, not a register (pass a reg.array or a "
                     f"list of registers)")
        return items
    fail(f"{what} must be a reg.array or a list of registers, not {value!r}")


def _check_regs(where: str, name: str, regs: list, count: int, expected: str,
                holds: str, alloc: str):
    if len(regs) != count:
        kind = f".{alloc}" if alloc == expected else f".{alloc} (or .{expected})"
        fail(f"{where}: {name} needs {count} {kind} registers per thread "
             f"(each holds {holds}); got {len(regs)} "
             f"(allocate reg.array({alloc}, {count}))")
    for i, r in enumerate(regs):
        if not _fits(expected, r):
            accepted = f".{expected}" if _reg_kind(expected) == "b" else \
                f".{expected} or .b{T.ALL_TYPES[expected].bits}"
            fail(f"{where}: {name}[{i}] is a .{r.dtype.reg_type} register; {name} "
                 f"takes {accepted} registers (each holds {holds}); allocate "
                 f"reg.array({alloc}, {count})")


def _mma_shape(shape) -> tuple:
    if isinstance(shape, str):
        text = shape.lower().lstrip(".")
        try:
            m, rest = text[1:].split("n", 1)
            n, k = rest.split("k", 1)
            return int(m), int(n), int(k)
        except ValueError:
            fail(f"mma.sync shape {shape!r}: expected (m, n, k) or 'm16n8k16'")
    try:
        m, n, k = (int(v) for v in shape)
    except (TypeError, ValueError):
        fail(f"mma.sync shape {shape!r}: expected (m, n, k), e.g. (16, 8, 16)")
    return m, n, k


def _dtype(what: str, value) -> T.PtxType:
    try:
        return T.as_type(value)
    except TypeError:
        fail(f"mma.sync {what}={value!r} is not a PTX type (use pyptx.types.bf16, f32, ...)")


def sync(*, shape, dtype_d, dtype_a, dtype_b, dtype_c, d, a, b, c,
         a_layout: str = "row", b_layout: str = "col", pred=None) -> None:
    """``mma.sync.aligned.{shape}.{a_layout}.{b_layout}.{dtype_d}.{dtype_a}.{dtype_b}.{dtype_c}
    d, a, b, c;`` -- one warp computes D = A*B + C on a tensor core.

    shape: (m, n, k) or ``"m16n8k16"``. d, a, b, c: per-thread fragments (a
    reg.array or a list of registers; c is usually d itself, accumulating
    in place). a_layout/b_layout: "row"/"col"; only Volta's f16 m8n8k4
    takes other than row.col.

    Per-thread fragments (registers of each operand, checked here):

    ============  =====================  ====  ====  ================
    dtype_a       shape                  a     b     c / d
    ============  =====================  ====  ====  ================
    f16           m8n8k4                 2     2     8 f32 / 4 f16x2
    f16           m16n8k8                2     1     4 f32 / 2 f16x2
    f16           m16n8k16               4     2     4 f32 / 2 f16x2
    bf16          m16n8k8 / m16n8k16     2/4   1/2   4 f32
    tf32          m16n8k4 / m16n8k8      2/4   1/2   4 f32
    f64           m8n8k4                 1     1     2 f64
    f64           m16n8k4/k8/k16         2/4/8 1/2/4 4 f64
    s8, u8        m8n8k16/m16n8k16/k32   1/2/4 1/1/2 2/4/4 s32
    s4, u4        m8n8k32/m16n8k32/k64   1/2/4 1/1/2 2/4/4 s32
    e4m3, e5m2    m16n8k16 / m16n8k32    2/4   1/2   4 f32 / 2 f16x2
    ============  =====================  ====  ====  ================

    A and B registers are .b32 (or the packed type: .f16x2, .bf16x2,
    .tf32), C and D registers .f32/.f16x2/.s32/.f64. For m16n8k16 with
    groupID = lane/4 and t = lane%4: a[0..3] hold A rows groupID, groupID+8,
    groupID, groupID+8 at columns 2t, 2t+1 (+8 for a[2], a[3]); b[0..1] hold
    B column groupID at rows 2t, 2t+1 (+8 for b[1]); d[0..3] hold D rows
    groupID, groupID, groupID+8, groupID+8 at columns 2t, 2t+1, 2t, 2t+1.
    ``ptx.ldmatrix`` loads A (and B stored as B^T, N x K) in exactly this
    layout."""
    m, n, k = _mma_shape(shape)
    td, ta, tb, tc = (_dtype(w, v) for w, v in (("dtype_d", dtype_d), ("dtype_a", dtype_a),
                                                  ("dtype_b", dtype_b), ("dtype_c", dtype_c)))
    name = f"m{m}n{n}k{k}"
    if ta.name == "b1":
        fail("mma.sync on .b1 needs a bit operation (.and.popc / .xor.popc); emit it raw: "
             f"ptx.inst.mma.sync.aligned.{name}.row.col.s32.b1.b1.s32.and_.popc(d, a, b, c)")
    family = _FAMILY.get(ta.name)
    if family is None:
        fail(f"mma.sync has no .{ta.name} A operand; dtype_a is one of "
             f"{', '.join(sorted(_FAMILY))}")
    if _FAMILY.get(tb.name) != family or (family in ("f16", "bf16", "tf32", "f64")
                                          and tb != ta):
        fail(f"mma.sync: dtype_b .{tb.name} does not go with dtype_a .{ta.name} "
             f"(A and B have the same type, except s8/u8, s4/u4 and e4m3/e5m2 pairs)")
    where = f"mma.sync {name} .{ta.name}"
    form = _FRAGMENTS.get((family, (m, n, k)))
    if form is None:
        shapes = ", ".join(f"m{s[0]}n{s[1]}k{s[2]}" for f, s in _FRAGMENTS if f == family)
        fail(f"mma.sync has no {name} shape for .{ta.name}; it takes {shapes}")
    a_count, b_count, accumulators = form
    volta = family == "f16" and (m, n, k) == (8, 8, 4)  # m8n8k4: any layout, f32 += f16
    for what, t in (("dtype_d", td), ("dtype_c", tc)):
        if t.name not in accumulators:
            fail(f"{where}: {what} .{t.name} is not an accumulator type of this form; "
                 f"use {' or '.join('.' + x for x in accumulators)}")
    if td != tc and not (volta and (td.name, tc.name) == ("f32", "f16")):
        fail(f"{where}: dtype_d .{td.name} and dtype_c .{tc.name} differ; this form "
             f"needs them equal")
    for what, lay in (("a_layout", a_layout), ("b_layout", b_layout)):
        if lay not in ("row", "col"):
            fail(f"mma.sync {what} must be 'row' or 'col', not {lay!r}")
    if not volta and (a_layout, b_layout) != ("row", "col"):
        fail(f"{where} takes only a_layout='row', b_layout='col' (A row-major, B "
             f"column-major); load a transposed operand with ptx.ldmatrix(trans=True)")

    ab_type, holds, alloc = _AB_REGS[family]
    a_regs, b_regs = _as_regs("a", a), _as_regs("b", b)
    _check_regs(where, "a", a_regs, a_count, ab_type, holds, alloc)
    _check_regs(where, "b", b_regs, b_count, ab_type, holds, alloc)
    operands = [a_regs, b_regs]
    for what, t, value in (("d", td, d), ("c", tc, c)):
        cd_type, cd_alloc = _CD_REGS[t.name]
        regs = _as_regs(what, value)
        count = accumulators[t.name]
        if len(regs) != count:
            fail(f"{where} with a .{t.name} {'accumulator' if what == 'd' else 'C'} "
                 f"needs {count} .{cd_type} registers per thread in {what}; got "
                 f"{len(regs)} (allocate reg.array({cd_alloc}, {count}))")
        _check_regs(where, what, regs, count, cd_type,
                    "2 packed f16" if cd_type == "f16x2" else f"one {t.name}", cd_alloc)
        operands.insert(0 if what == "d" else 3, regs)
    emit(f"mma.sync.aligned.{name}.{a_layout}.{b_layout}.{td.name}.{ta.name}.{tb.name}"
         f".{tc.name}", *operands, pred=pred)


mma = Namespace("mma", "ptx.mma.sync(...): warp-level tensor-core MMA (mma.sync.aligned).",
                sync=sync)


# -- ldmatrix / stmatrix ----------------------------------------------------------

# shape -> (element type, 32-bit registers per matrix, counts allowed,
# whether .trans is required), for each instruction.
_LDMATRIX = {"m8n8": ("b16", 1, (1, 2, 4), False),
             "m16n16": ("b8", 2, (1, 2), True)}
_STMATRIX = {"m8n8": ("b16", 1, (1, 2, 4), False),
             "m16n8": ("b8", 1, (1, 2, 4), True)}


def _matrix_form(op: str, layout: str, trans: bool, shape: str | None, shapes: dict):
    """(shape, count, trans) from a layout string such as "x4", "x4.trans"
    or "m8n8.x4" (dot-separated parts in any order) and the keywords."""
    count = None
    found_shape = None
    for part in str(layout).lstrip(".").split("."):
        if part in ("x1", "x2", "x4"):
            count = int(part[1])
        elif part == "trans":
            trans = True
        elif part in shapes:
            found_shape = part
        else:
            fail(f"{op} layout {layout!r}: {part!r} is not a count (x1, x2, x4), a "
                 f"shape ({', '.join(shapes)}) or 'trans'; e.g. 'x4' or 'm8n8.x4.trans'")
    if count is None:
        fail(f"{op} layout {layout!r} has no matrix count; add x1, x2 or x4 (e.g. 'x4')")
    if found_shape and shape and found_shape != shape:
        fail(f"{op}: layout {layout!r} says {found_shape} but shape={shape!r}")
    shape = found_shape or shape or "m8n8"
    if shape not in shapes:
        fail(f"{op} shape {shape!r}: use one of {', '.join(shapes)}")
    etype, per_matrix, counts, needs_trans = shapes[shape]
    if count not in counts:
        fail(f"{op}.{shape} moves {' or '.join(f'x{c}' for c in counts)} matrices, not x{count}")
    if needs_trans and not trans:
        fail(f"{op}.{shape} is always transposing: pass trans=True")
    return shape, count, trans, etype, per_matrix * count


def _check_b32(op: str, name: str, regs: list, count: int, detail: str):
    if len(regs) != count:
        fail(f"{op}: {detail} needs {count} 32-bit registers in {name}; got {len(regs)} "
             f"(allocate reg.array(b32, {count}))")
    for i, r in enumerate(regs):
        if r.dtype.bits != 32 or r.dtype == T.pred:
            fail(f"{op}: {name}[{i}] is a .{r.dtype.reg_type} register; {name} takes "
                 f"32-bit registers (each holds 2 packed 16-bit elements): "
                 f"reg.array(b32, {count})")


def ldmatrix(*, dst, src, layout: str = "x4", trans: bool = False, pred=None) -> None:
    """``ldmatrix.sync.aligned.{shape}.{x1|x2|x4}[.trans].shared.{b16|b8} dst, [src];``
    -- the warp loads 1, 2 or 4 8x8 matrices of 16-bit elements from shared
    memory, one 32-bit register per matrix per thread.

    layout: "x1", "x2", "x4", optionally with the shape and "trans" as
    dot-separated parts ("m8n8.x4", "x4.trans"); the shape defaults to m8n8
    (b16). m16n16 (b8, sm_100a) needs trans=True and x1/x2, 2 registers per
    matrix. src: the thread's row address (a register holding a shared
    address, an allocation or ``ptx.addr``): lanes 8i..8i+7 give the 8 rows of
    matrix i. Thread `lane` receives, in dst[i], row lane/4, columns
    2*(lane%4) and +1 of matrix i -- the mma.sync A/B fragment layout (with
    trans, the transposed matrix)."""
    shape, count, trans, etype, nregs = _matrix_form("ldmatrix", layout, trans, None, _LDMATRIX)
    regs = _as_regs("dst", dst)
    _check_b32("ldmatrix", "dst", regs, nregs, f"{shape}.x{count}")
    emit(f"ldmatrix.sync.aligned.{shape}.x{count}{'.trans' if trans else ''}.shared.{etype}",
         regs, as_address(src), pred=pred)


def stmatrix(*, smem, regs, layout: str = "x4", trans: bool = False, shape: str = "m8n8",
             pred=None) -> None:
    """``stmatrix.sync.aligned.{shape}.{x1|x2|x4}[.trans].shared::cta.{b16|b8} [smem], regs;``
    -- the warp stores 1, 2 or 4 8x8 matrices of 16-bit elements to shared
    memory (sm_90), the inverse of ``ldmatrix``.

    layout: "x1"/"x2"/"x4", or compound ("x4.trans" sets trans, "m8n8.x4"
    names the shape). shape: "m8n8" (b16) or "m16n8" (b8, sm_100a, needs
    trans=True). regs: one 32-bit register per matrix. smem: the thread's
    row address; lanes 8i..8i+7 give the rows of matrix i."""
    shape, count, trans, etype, nregs = _matrix_form("stmatrix", layout, trans,
                                                     None if shape == "m8n8" else shape,
                                                     _STMATRIX)
    values = _as_regs("regs", regs)
    _check_b32("stmatrix", "regs", values, nregs, f"{shape}.x{count}")
    emit(f"stmatrix.sync.aligned.{shape}.x{count}{'.trans' if trans else ''}.shared::cta"
         f".{etype}", as_address(smem), values, pred=pred)


def stmatrix_x4_trans_f32_bf16(*, frag, smem_base, lane, row_stride: int, tmp_bf16=None,
                               tmp_pack=None) -> None:
    """Stores an f32 wgmma-style accumulator fragment to shared memory as
    bf16, transposed: ``stmatrix.sync.aligned.m8n8.x4.trans.shared::cta.b16``
    per 8 fragment registers (sm_90).

    frag: the thread's f32 accumulator registers of an m64nN warpgroup tile
    (a multiple of 8; registers 8j..8j+7 cover columns 16j..16j+15). lane:
    the thread's index in its warpgroup (tid % 128; bits 5-6 pick the
    warp's 16 rows). row_stride: elements per shared-memory row (a multiple
    of 8). The tile lands transposed: fragment element (row r, column c)
    goes to ``smem_base + 2 * (c * row_stride + r)`` bytes, i.e. shared
    memory holds C^T with row_stride bf16 per row.

    Instructions: 10 integer instructions form the lane's address (one more
    mov when smem_base names shared memory instead of being a register, one
    more cvt when it is a 64-bit register), then per 8 fragment registers 4
    ``cvt.rn.bf16x2.f32`` and 1 stmatrix. tmp_pack: 4 b32 registers to pack
    into (allocated when None); tmp_bf16 is accepted for compatibility and
    not needed (the packing cvt writes both halves at once)."""
    op = "stmatrix_x4_trans_f32_bf16"
    regs = _as_regs("frag", frag)
    if not regs or len(regs) % 8:
        fail(f"{op}: frag needs a multiple of 8 f32 registers (one stmatrix.x4 per 8); "
             f"got {len(regs)}")
    for i, r in enumerate(regs):
        if r.dtype != T.f32:
            fail(f"{op}: frag[{i}] is a .{r.dtype.reg_type} register; frag holds the f32 "
                 f"accumulator (reg.wgmma_frag(..., dtype=f32))")
    if not isinstance(row_stride, int) or row_stride <= 0 or row_stride % 8:
        fail(f"{op}: row_stride={row_stride!r} must be a positive multiple of 8 elements "
             f"(stmatrix rows are 16-byte aligned)")
    if not isinstance(lane, _reg.Reg) or not lane.dtype.is_int or lane.dtype.bits != 32:
        fail(f"{op}: lane must be a 32-bit integer register (the thread index), not {lane!r}")
    if tmp_bf16 is not None and len(_as_regs("tmp_bf16", tmp_bf16)) != 8:
        fail(f"{op}: tmp_bf16 must have 8 registers")
    if tmp_pack is None:
        pack = list(_reg.array(T.b32, 4))
    else:
        pack = _as_regs("tmp_pack", tmp_pack)
        _check_b32(op, "tmp_pack", pack, 4, "packing 8 f32 into stmatrix.x4")

    where = as_address(smem_base)
    base = where.base
    if not isinstance(base, _reg.Reg):
        base = _reg.from_(base, T.u32)  # the symbol's shared-window address
    # Element offset of this lane's row in the transposed tile: warp w's rows
    # are columns 16w..; lanes 0-7/8-15/16-23/24-31 address matrices
    # (rows 0-7, cols 0-7), (0-7, 8-15), (8-15, 0-7), (8-15, 8-15).
    t = lane & 31
    offset = (lane >> 5) << 4
    emit(f"mad.lo{offset.dtype.ptx}", offset, t & 7, row_stride, offset)
    emit(f"mad.lo{offset.dtype.ptx}", offset, t >> 4, 8 * row_stride, offset)
    offset += t & 8
    if base.dtype.bits == 32:
        row = _reg.scalar(base.dtype)
        emit("mad.lo.u32", row, offset, 2, base)
    else:
        row = base + (offset << 1)
    group_bytes = 16 * row_stride * 2
    for g in range(len(regs) // 8):
        chunk = regs[8 * g:8 * g + 8]
        for j in range(4):
            # cvt.rn.bf16x2.f32 d, hi, lo: the even column goes to the low half.
            emit("cvt.rn.bf16x2.f32", pack[j], chunk[2 * j + 1], chunk[2 * j])
        stmatrix(smem=Address(row, where.offset + g * group_bytes), regs=pack,
                 layout="x4.trans")


# -- elect.sync -------------------------------------------------------------------

def elect_sync(dst, pred_out, membermask) -> None:
    """``elect.sync dst|pred_out, membermask;`` (sm_90) -- elects one leader
    among the lanes in membermask: dst gets the leader's lane index in
    every lane, pred_out is true in the leader only. dst may be ``ptx.sink``
    (or None) when only the predicate is wanted. membermask: a 32-bit int
    (0xFFFFFFFF: the whole warp) or a 32-bit register."""
    if not isinstance(pred_out, _reg.Reg) or pred_out.dtype != T.pred:
        fail(f"elect.sync: pred_out must be a predicate register (reg.pred()), not "
             f"{pred_out!r}")
    if dst is None:
        dst = SINK
    elif dst is not SINK and (not isinstance(dst, _reg.Reg) or dst.dtype.bits != 32
                              or not dst.dtype.is_int):
        fail(f"elect.sync: dst must be a 32-bit integer register (reg.scalar(u32)) or "
             f"ptx.sink, not {dst!r}")
    if isinstance(membermask, bool) or not isinstance(membermask, (int, _reg.Reg)):
        fail(f"elect.sync: membermask must be an int or a 32-bit register, not {membermask!r}")
    if isinstance(membermask, int) and not -(1 << 31) <= membermask < (1 << 32):
        fail(f"elect.sync: membermask {membermask:#x} does not fit in 32 bits")
    if isinstance(membermask, _reg.Reg) and (membermask.dtype.bits != 32
                                             or not membermask.dtype.is_int):
        fail(f"elect.sync: membermask is a .{membermask.dtype.reg_type} register; it must "
             f"be a 32-bit integer register")
    emit("elect.sync", Pipe(dst, pred_out), membermask)


__all__ = ["mma", "sync", "ldmatrix", "stmatrix", "stmatrix_x4_trans_f32_bf16", "elect_sync"]
