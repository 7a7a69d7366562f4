"""Blackwell tensor cores: ``ptx.tcgen05.*`` (sm_100a and its family).

Tensor Memory (TMEM) is allocated by one warp (``alloc``), which writes the
TMEM base address into a shared-memory slot; ``mma`` (issued by one thread)
accumulates into TMEM from shared-memory operands described by 64-bit
descriptors (``descriptor``) and a 32-bit instruction descriptor
(``make_instr_desc_f16bf16_f32``); ``commit`` makes an mbarrier track the
MMAs; warps then move the accumulator to registers with ``ld`` (``wait_ld``
before use) and the allocating warp frees TMEM (``dealloc``,
``relinquish_alloc_permit``).

Every helper emits exactly one instruction, except where its docstring
counts more. Any attribute that is not a helper continues a raw opcode, so
``ptx.tcgen05.alloc.cta_group__1.sync.aligned.shared__cta.b32(...)`` still
emits that instruction verbatim.

Checks at the author's line: all ``cta_group`` values of one kernel agree
(ptxas rejects a kernel mixing ``.cta_group::1`` and ``::2``); ``ncols`` of
alloc/dealloc is a power of two from 32 to 512; ld/st shape and count match
the number of registers; a static instruction descriptor suits the mma's
kind, shape and cta_group.
"""
from __future__ import annotations

import os

from pyptx import _isa_facts
from pyptx import reg as _reg
from pyptx import types as T
from pyptx._inst import Namespace, as_address, emit, fail
from pyptx._operands import Address
from pyptx._trace import get_ctx, user_loc
from pyptx.hw.tcgen05_desc import FORMATS, InstrDesc, SmemDesc

BLACKWELL_MASKED_DESC_B128 = SmemDesc(leading_byte_offset=16, stride_byte_offset=1024,
                                      swizzle="128B").encode()  # 0x4000404000010000

_MMA_KINDS = tuple(FORMATS)  # f16, tf32, f8f6f4, i8
_BLOCK_SCALED_KINDS = ("mxf8f6f4", "mxf4", "mxf4nvf4")
_COLLECTORS = ("discard", "lastuse", "fill", "use")



# -- checks --------------------------------------------------------------------------

def _use_cta_group(op: str, cta_group) -> int:
    """Validates cta_group and that it matches the kernel's first one (kept in
    get_ctx().units["tcgen05"])."""
    if cta_group not in (1, 2) or isinstance(cta_group, bool):
        fail(f"tcgen05.{op}: cta_group must be 1 or 2 (.cta_group::1 or ::2); "
             f"got {cta_group!r}")
    state = get_ctx().units.setdefault("tcgen05", {})
    first = state.get("cta_group")
    if first is None:
        file, line, _ = user_loc()
        state["cta_group"] = (cta_group, op, file, line)
    elif first[0] != cta_group:
        n, first_op, file, line = first
        fail(f"tcgen05.{op} uses cta_group::{cta_group}, but tcgen05.{first_op} at "
             f"{os.path.basename(file)}:{line} uses cta_group::{n}; every tcgen05 "
             f"instruction of a kernel must use the same cta_group (ptxas rejects a mix): "
             f"pass cta_group={n} here, or cta_group={cta_group} at line {line}")
    return cta_group


def _check_ncols(op: str, ncols):
    if isinstance(ncols, _reg.Reg):
        return
    if not isinstance(ncols, int) or isinstance(ncols, bool) \
            or ncols not in (32, 64, 128, 256, 512):
        fail(f"tcgen05.{op}: ncols must be a power of two from 32 to 512 (TMEM columns); "
             f"got {ncols!r} (round up to the next power of two)")


def _regs_of(op: str, what: str, regs) -> list:
    """The registers of a RegArray or list, each checked to be 32 bits wide."""
    if isinstance(regs, _reg.Reg):
        regs = [regs]
    try:
        regs = list(regs)
    except TypeError:
        fail(f"tcgen05.{op}: {what} must be a list of 32-bit registers or a RegArray; "
             f"got {regs!r}")
    for i, r in enumerate(regs):
        if not isinstance(r, _reg.Reg) or r.dtype.bits != 32 or r.dtype == T.pred:
            fail(f"tcgen05.{op} moves 32-bit registers; {what}[{i}] is {r!r} "
                 f"(use reg.array(b32, n) or f32/u32/s32 registers)")
    return regs


def _ld_st_modifiers(op: str, regs: list, what: str, shape: str, count, dtype,
                     half_splitoff) -> tuple[str, list]:
    """(".<shape>.x<count>", [immHalfSplitoff]) after checking the register count."""
    registers = _isa_facts.tcgen05_ld_st_registers()  # shape -> {count: registers}
    if shape not in registers:
        fail(f"tcgen05.{op}: shape must be one of {tuple(registers)}; got {shape!r}")
    counts = sorted({c for of_shape in registers.values() for c in of_shape})
    if count not in counts or isinstance(count, bool):
        fail(f"tcgen05.{op}: count must be {_isa_facts.describe(counts)} (.x1 .. "
             f".x{counts[-1]}); got {count!r}")
    if str(dtype).lstrip(".") != "b32":
        fail(f"tcgen05.{op} moves .b32 data only; got dtype={dtype!r}")
    of_shape = registers[shape]
    per_repeat = of_shape[1]
    if count not in of_shape:
        fail(f"tcgen05.{op} .{shape}.x{count} would move {per_repeat * count} registers "
             f"per thread; .{shape} allows .x1 to .x{max(of_shape)} (at most "
             f"{of_shape[max(of_shape)]} registers)")
    need = of_shape[count]
    if len(regs) != need:
        fits = len(regs) // per_repeat
        other = f", or count={fits}" if of_shape.get(fits) == len(regs) else ""
        fail(f"tcgen05.{op} .{shape}.x{count} moves {need} 32-bit registers per thread; "
             f"{what} has {len(regs)} (pass {need} registers, e.g. reg.array(b32, {need})"
             f"{other})")
    imm = []
    if shape == "16x32bx2":
        if not isinstance(half_splitoff, int) or isinstance(half_splitoff, bool):
            fail(f"tcgen05.{op} .16x32bx2 needs half_splitoff= (the immediate column "
                 f"offset of the second 16x32b half)")
        imm = [half_splitoff]
    elif half_splitoff is not None:
        fail(f"tcgen05.{op}: half_splitoff is only for shape='16x32bx2'")
    return f".{shape}.x{count}", imm


def _tmem(op: str, taddr) -> Address:
    """[taddr] for a Tensor Memory address (a u32 register, maybe + offset)."""
    if isinstance(taddr, (int, float)) or taddr is None:
        fail(f"tcgen05.{op}: the Tensor Memory address must be a register (the address "
             f"tcgen05.alloc wrote, plus lane/column offsets); got {taddr!r}")
    return as_address(taddr)


def _mma_tmem(what: str, taddr) -> Address:
    """[taddr] for a TMEM operand of tcgen05.mma: ptxas takes only a .b32
    register there ("Arguments mismatch" for .u32), so other types fail here."""
    address = _tmem("mma", taddr)
    base = address.base
    if isinstance(base, _reg.Reg) and base.dtype != T.b32:
        fail(f"tcgen05.mma takes Tensor Memory addresses in .b32 registers (ptxas rejects "
             f"a .{base.dtype} one); {what} is {base.dtype}: keep the TMEM address in a b32 "
             f"register (ld.shared.b32 from the alloc slot) or convert it with "
             f"reg.from_({what}, b32)")
    return address


def _is_memory(x) -> bool:
    return isinstance(x, Address) or hasattr(x, "__ptx_address__") \
        or hasattr(x, "__ptx_symbol__")


def _enable_input_d(flag):
    """The enable-input-d operand: an immediate 1/0 for a Python value (ptxas
    accepts one), a predicate (or ~predicate) as is, or -- for an integer
    register -- a new predicate set by ``setp.ne`` (one more instruction)."""
    if flag is None or isinstance(flag, (bool, int)):
        return 1 if flag else 0
    if isinstance(flag, _reg.NegPred):
        return flag
    if isinstance(flag, _reg.Reg):
        if flag.dtype == T.pred:
            return flag
        if flag.dtype.is_int:
            p = _reg.scalar(T.pred)
            emit(f"setp.ne{flag.dtype.ptx}", p, flag, 0)
            return p
    fail(f"tcgen05.mma: the enable-input-d flag must be a bool, an int, a predicate or "
         f"an integer register; got {flag!r}")


# -- TMEM allocation -------------------------------------------------------------------

def alloc(tmem_addr, ncols, *, cta_group: int = 1, pred=None) -> None:
    """Emit ``tcgen05.alloc.cta_group::N.sync.aligned.shared::cta.b32 [tmem_addr], ncols;``

    Allocates `ncols` TMEM columns (a power of two from 32 to 512, or a u32
    register) and writes their address to the shared-memory slot `tmem_addr`
    (a shared allocation, slice, address or register). Executed by a whole
    warp; read the address back from the slot after a barrier."""
    _check_ncols("alloc", ncols)
    n = _use_cta_group("alloc", cta_group)
    emit(f"tcgen05.alloc.cta_group::{n}.sync.aligned.shared::cta.b32",
         as_address(tmem_addr), ncols, pred=pred)


def dealloc(taddr, ncols, *, cta_group: int = 1, pred=None) -> None:
    """Emit ``tcgen05.dealloc.cta_group::N.sync.aligned.b32 taddr, ncols;``

    Frees `ncols` columns at the TMEM address `taddr` (a u32 register holding
    the address tcgen05.alloc wrote, not the shared-memory slot). The warp
    that allocated must free."""
    if _is_memory(taddr):
        fail("tcgen05.dealloc takes the Tensor Memory address itself (a u32 register "
             "loaded from the slot tcgen05.alloc wrote), not a shared-memory address")
    _check_ncols("dealloc", ncols)
    n = _use_cta_group("dealloc", cta_group)
    emit(f"tcgen05.dealloc.cta_group::{n}.sync.aligned.b32", taddr, ncols, pred=pred)


def relinquish_alloc_permit(*, cta_group: int = 1, pred=None) -> None:
    """Emit ``tcgen05.relinquish_alloc_permit.cta_group::N.sync.aligned;``

    The CTA will allocate no more TMEM (lets other CTAs on the SM allocate)."""
    n = _use_cta_group("relinquish_alloc_permit", cta_group)
    emit(f"tcgen05.relinquish_alloc_permit.cta_group::{n}.sync.aligned", pred=pred)


# -- MMA -----------------------------------------------------------------------------

def mma(d_tmem, a_desc, b_desc, idesc, *, cta_group: int = 1, kind: str = "f16",
        enable_input_d=True, scale_d=None, sparse: bool = False, ashift: bool = False,
        collector_a: str | None = None, a_is_tmem: bool = False, sparse_metadata=None,
        pred_operand=None, scale_c: int | None = None, disable_output_lane=None,
        pred=None) -> None:
    """Emit ``tcgen05.mma[.sp].cta_group::N.kind::K[.ashift][.collector::a::C]``::

        [d_tmem], a_desc, b_desc, [sparse_metadata,] idesc,
            [{disable_output_lane},] enable_input_d [, scale_c];

    D (in TMEM at `d_tmem`) = A * B, plus D when enable-input-d is true.
    `a_desc`, `b_desc`: 64-bit shared memory descriptors (see
    :func:`descriptor`); with ``a_is_tmem=True`` A is in TMEM at `a_desc`.
    `idesc`: the 32-bit instruction descriptor, an int (emitted as an
    immediate and checked against `kind`, `cta_group` and `sparse`) or a
    register. `kind`: "f16" (f16/bf16), "tf32", "f8f6f4" or "i8".

    The enable-input-d flag is `pred_operand` if given, else `scale_d` if
    given, else `enable_input_d` (True: accumulate into D). A Python value is
    emitted as the immediate 1 or 0 and a predicate (or ``~p``) as is: one
    instruction. An integer register becomes a predicate first (``setp.ne``:
    two instructions).

    `scale_c` (0..15, kind f16/tf32 only): the scale-input-d immediate, D is
    scaled by 2**-scale_c before accumulating. `disable_output_lane`
    (optional): 4 (cta_group 1) or 8 (cta_group 2) 32-bit registers whose set
    bits leave TMEM lanes unwritten; omitted, no lane is disabled. `sparse`:
    A is 2:4 structured sparse, `sparse_metadata` its metadata in TMEM.
    `ashift` shifts A's rows (A in TMEM). `collector_a`: "fill", "use",
    "lastuse" or "discard". Issued by one thread; completion is tracked by
    :func:`commit`."""
    if kind in _BLOCK_SCALED_KINDS:
        fail(f"tcgen05.mma kind::{kind} is block scaled (.block_scale with scale-A/B "
             f"operands in TMEM), which this helper does not build; spell it raw: "
             f"ptx.tcgen05.mma.cta_group__1.kind__{kind}.block_scale(...)")
    if kind not in _MMA_KINDS:
        fail(f"tcgen05.mma kind must be one of {_MMA_KINDS}; got {kind!r}")
    if collector_a is not None and collector_a not in _COLLECTORS:
        fail(f"tcgen05.mma collector_a must be one of {_COLLECTORS}; got {collector_a!r}")
    if ashift and not a_is_tmem:
        fail("tcgen05.mma ashift shifts the rows of A in Tensor Memory: pass a_is_tmem=True "
             "(and A's TMEM address as a_desc)")
    if ashift and collector_a in ("fill", "use"):
        fail(f"tcgen05.mma with ashift takes collector_a 'lastuse' or 'discard', not "
             f"{collector_a!r}")
    if sparse != (sparse_metadata is not None):
        fail("tcgen05.mma: sparse=True needs sparse_metadata= (the metadata's TMEM "
             "address), and sparse_metadata needs sparse=True")
    if scale_c is not None:
        if kind not in ("f16", "tf32"):
            fail(f"tcgen05.mma scale_c (scale-input-d) is only for kind f16 and tf32, "
                 f"not {kind}")
        if not isinstance(scale_c, int) or isinstance(scale_c, bool) or not 0 <= scale_c <= 15:
            fail(f"tcgen05.mma scale_c must be an int from 0 to 15; got {scale_c!r}")
    if not a_is_tmem and _is_memory(a_desc):
        fail("tcgen05.mma a_desc must be a shared memory descriptor (a u64 register, "
             "e.g. from ptx.tcgen05.descriptor(...)); for A in Tensor Memory pass "
             "a_is_tmem=True")
    if _is_memory(b_desc):
        fail("tcgen05.mma b_desc must be a shared memory descriptor (a u64 register, "
             "e.g. from ptx.tcgen05.descriptor(...)), not an address")
    n = _use_cta_group("mma", cta_group)
    if isinstance(idesc, int) and not isinstance(idesc, bool):
        try:
            problem = InstrDesc.decode(idesc).problem(kind, n, sparse)
        except ValueError as e:
            problem = str(e)
        if problem:
            fail(f"tcgen05.mma.kind::{kind} cannot use the instruction descriptor "
                 f"{idesc:#x}: {problem} (build it with "
                 f"ptx.tcgen05.make_instr_desc_f16bf16_f32(...) or InstrDesc.for_kind("
                 f"{kind!r}, ...), or change kind=)")
    mask = None
    if disable_output_lane is not None:
        mask = _regs_of("mma", "disable_output_lane", disable_output_lane)
        words = 4 if n == 1 else 8
        if len(mask) != words:
            fail(f"tcgen05.mma.cta_group::{n} takes {words} disable-output-lane "
                 f"registers; got {len(mask)}")

    flag = pred_operand if pred_operand is not None else \
        scale_d if scale_d is not None else enable_input_d
    operands = [_mma_tmem("d_tmem", d_tmem),
                _mma_tmem("a_desc", a_desc) if a_is_tmem else a_desc, b_desc]
    if sparse:
        operands.append(_mma_tmem("sparse_metadata", sparse_metadata))
    operands.append(idesc)
    if mask is not None:
        operands.append(mask)
    operands.append(_enable_input_d(flag))
    if scale_c is not None:
        operands.append(scale_c)
    opcode = (f"tcgen05.mma{'.sp' if sparse else ''}.cta_group::{n}.kind::{kind}"
              f"{'.ashift' if ashift else ''}"
              f"{f'.collector::a::{collector_a}' if collector_a else ''}")
    emit(opcode, *operands, pred=pred)


def commit(mbar, *, cta_group: int = 1, multicast: bool = False, multicast_mask=None,
           space: str = "cluster", pred=None) -> None:
    """Emit ``tcgen05.commit.cta_group::N.mbarrier::arrive::one.shared::cluster``
    ``[.multicast::cluster].b64 [mbar][, mask];``

    The mbarrier `mbar` gets one arrive when all prior async tcgen05
    operations of this thread (mma, cp, shift) complete. `space` "cta" or
    "cluster": both emit ``.shared::cluster`` (a CTA's shared address is a
    valid cluster address of that CTA; ptxas has no ``.shared::cta`` form).
    With `multicast_mask` (a 16-bit register, or an int: then one
    ``mov.b16`` first, two instructions) the arrive goes to the mbarrier at
    the same offset in every CTA whose rank bit is set."""
    if space not in ("cta", "cluster"):
        fail(f"tcgen05.commit space must be 'cta' or 'cluster'; got {space!r}")
    multicast = multicast or multicast_mask is not None
    if multicast and multicast_mask is None:
        fail("tcgen05.commit multicast=True needs multicast_mask= (a 16-bit CTA mask)")
    mask = multicast_mask
    if isinstance(mask, int) and not isinstance(mask, bool):
        if not 0 <= mask <= 0xFFFF:
            fail(f"tcgen05.commit multicast_mask must fit in 16 bits; got {mask:#x}")
    elif multicast and not (isinstance(mask, _reg.Reg) and mask.dtype.bits == 16
                            and mask.dtype.is_int):
        fail(f"tcgen05.commit multicast_mask must be a 16-bit integer register or an int; "
             f"got {mask!r}")
    n = _use_cta_group("commit", cta_group)
    if isinstance(mask, int):
        reg16 = _reg.scalar(T.b16)
        emit("mov.b16", reg16, mask, pred=pred)
        mask = reg16
    opcode = (f"tcgen05.commit.cta_group::{n}.mbarrier::arrive::one.shared::cluster"
              f"{'.multicast::cluster' if multicast else ''}.b64")
    operands = [as_address(mbar)] + ([mask] if multicast else [])
    emit(opcode, *operands, pred=pred)


# -- fences and waits ------------------------------------------------------------------

def fence_before_thread_sync(*, pred=None) -> None:
    """Emit ``tcgen05.fence::before_thread_sync;`` (order prior async tcgen05
    operations before a following barrier / thread sync)."""
    emit("tcgen05.fence::before_thread_sync", pred=pred)


def fence_after_thread_sync(*, pred=None) -> None:
    """Emit ``tcgen05.fence::after_thread_sync;`` (order later async tcgen05
    operations after a preceding barrier / thread sync)."""
    emit("tcgen05.fence::after_thread_sync", pred=pred)


def wait_ld(*, pred=None) -> None:
    """Emit ``tcgen05.wait::ld.sync.aligned;`` (this thread's tcgen05.ld are done)."""
    emit("tcgen05.wait::ld.sync.aligned", pred=pred)


def wait_st(*, pred=None) -> None:
    """Emit ``tcgen05.wait::st.sync.aligned;`` (this thread's tcgen05.st are done)."""
    emit("tcgen05.wait::st.sync.aligned", pred=pred)


# -- TMEM <-> registers ------------------------------------------------------------------

def ld(dst_regs, taddr, *, shape: str = "16x128b", count: int = 1, dtype: str = "b32",
       pack: bool = False, half_splitoff: int | None = None, pred=None) -> None:
    """Emit ``tcgen05.ld.sync.aligned.{shape}.x{count}[.pack::16b].b32 {dst}, [taddr];``

    Each thread of the warp receives ``regs(shape) * count`` 32-bit registers,
    regs = 1 for "32x32b", "16x64b", "16x32bx2", 2 for "16x128b", 4 for
    "16x256b" (at most 128): `dst_regs` must hold exactly that many (a list
    or RegArray of b32/u32/s32/f32 registers). `taddr`: the TMEM address
    (lane in bits 31-16, column in 15-0). "16x32bx2" needs `half_splitoff`
    (an immediate). `pack` packs two 16-bit columns into one register.
    Asynchronous: ``wait_ld()`` before using the registers."""
    regs = _regs_of("ld", "dst_regs", dst_regs)
    mods, imm = _ld_st_modifiers("ld", regs, "dst_regs", shape, count, dtype, half_splitoff)
    emit(f"tcgen05.ld.sync.aligned{mods}{'.pack::16b' if pack else ''}.b32",
         regs, _tmem("ld", taddr), *imm, pred=pred)


def st(taddr, src_regs, *, shape: str = "16x128b", count: int = 1, dtype: str = "b32",
       unpack: bool = False, half_splitoff: int | None = None, pred=None) -> None:
    """Emit ``tcgen05.st.sync.aligned.{shape}.x{count}[.unpack::16b].b32 [taddr], {src};``

    The mirror of :func:`ld` (same register counts); "16x32bx2" puts
    `half_splitoff` between the address and the registers. Asynchronous:
    ``wait_st()`` before relying on the data."""
    regs = _regs_of("st", "src_regs", src_regs)
    mods, imm = _ld_st_modifiers("st", regs, "src_regs", shape, count, dtype, half_splitoff)
    emit(f"tcgen05.st.sync.aligned{mods}{'.unpack::16b' if unpack else ''}.b32",
         _tmem("st", taddr), *imm, regs, pred=pred)


def cp(taddr, src, *, cta_group: int = 1, size: str = "128x256b", src_is_addr=None,
       pred=None) -> None:
    """Emit ``tcgen05.cp.cta_group::N.{size} [taddr], src_desc;``

    Copies a matrix from shared memory to TMEM at `taddr`. `src` is the
    matrix's 64-bit shared memory descriptor (a u64 register from
    :func:`descriptor`, or an int), not an address. `size`: "128x256b",
    "4x256b", "128x128b", "64x128b.warpx2::02_13", "64x128b.warpx2::01_23" or
    "32x128b.warpx4", optionally followed by ".b8x16.b6x16_p32" or
    ".b8x16.b4x16_p64" (decompression). Asynchronous: track it with
    :func:`commit`."""
    if src_is_addr or _is_memory(src):
        fail("tcgen05.cp copies from a shared memory *descriptor* (a u64 register, e.g. "
             "ptx.tcgen05.descriptor(tile, ...)), not from an address")
    sizes = _isa_facts.tcgen05_cp_sizes()
    if size not in sizes:
        fail(f"tcgen05.cp size must be one of {', '.join(sizes)}; got {size!r}")
    n = _use_cta_group("cp", cta_group)
    emit(f"tcgen05.cp.cta_group::{n}.{size}", _tmem("cp", taddr), src, pred=pred)


def shift(taddr, *, cta_group: int = 1, pred=None) -> None:
    """Emit ``tcgen05.shift.cta_group::N.down [taddr];`` (shift the 32 lanes of
    the TMEM matrix at `taddr` down by one row). Asynchronous: track it with
    :func:`commit`."""
    n = _use_cta_group("shift", cta_group)
    emit(f"tcgen05.shift.cta_group::{n}.down", _tmem("shift", taddr), pred=pred)


# -- descriptors -------------------------------------------------------------------------

def make_instr_desc_f16bf16_f32(*, m: int = 128, n: int = 256, ab_dtype: str = "bf16",
                                a_major: str = "K", b_major: str = "K", scale_a: int = 1,
                                scale_b: int = 1, saturate: bool = False,
                                sparse: bool = False, max_shift: int = 0) -> int:
    """The 32-bit instruction descriptor of a dense (or sparse) MMA with f32
    accumulation and f16, bf16 or tf32 inputs, as a Python int (no
    instruction): pass it as ``idesc`` to :func:`mma` (an immediate there) or
    initialise a register with it.

    `m` 64, 128 or 256; `n` a multiple of 8 from 8 to 256; `a_major`,
    `b_major` "K" or "MN" (MN sets the transpose bit); `scale_a`, `scale_b`
    1 or -1 (-1 negates); `max_shift` 0..3 (.ws only). See
    :class:`pyptx.hw.tcgen05_desc.InstrDesc` for the bit layout."""
    ms = sorted({v for g in (1, 2) for v in _isa_facts.tcgen05_mma_shapes(g)["m"]})
    ns = sorted({v for g in (1, 2) for v in _isa_facts.tcgen05_mma_shapes(g)["n"]})
    if m not in ms:
        fail(f"make_instr_desc_f16bf16_f32: m must be {_isa_facts.describe(ms)}; "
             f"got {m!r}")
    if not isinstance(n, int) or isinstance(n, bool) or n not in ns:
        fail(f"make_instr_desc_f16bf16_f32: n must be {_isa_facts.describe(ns)}; "
             f"got {n!r}")
    for what, scale in (("scale_a", scale_a), ("scale_b", scale_b)):
        if scale not in (1, -1):
            fail(f"make_instr_desc_f16bf16_f32: {what} must be 1 or -1; got {scale!r}")
    if ab_dtype not in ("f16", "bf16", "tf32"):
        fail(f"make_instr_desc_f16bf16_f32: ab_dtype must be 'f16', 'bf16' or 'tf32'; "
             f"got {ab_dtype!r}")
    kind = "tf32" if ab_dtype == "tf32" else "f16"
    try:
        return InstrDesc.for_kind(kind, m=m, n=n, d="f32", a=ab_dtype, a_major=a_major,
                                  b_major=b_major, negate_a=scale_a == -1,
                                  negate_b=scale_b == -1, saturate=saturate,
                                  sparse=sparse, max_shift=max_shift).encode()
    except ValueError as e:
        fail(f"make_instr_desc_f16bf16_f32: {e}")


def _start_field(op: str, smem_addr, byte_offset: int):
    """Emits the instructions that put (address >> 4) & 0x3FFF of
    `smem_addr` in a new u32 or u64 register; returns (register,
    byte_offset >> 4) -- the offset is folded into the constant: the start
    address must be 16-byte aligned anyway, so (a + off) >> 4 is
    (a >> 4) + (off >> 4). For a symbol: ``mov.u32`` + ``bfe.u32``; for a
    register: ``bfe``. A fully static address: (None, encoded address)."""
    if isinstance(smem_addr, _reg.Reg):
        base, offset = smem_addr, byte_offset
    else:
        address = as_address(smem_addr, byte_offset)
        base, offset = address.base, address.offset
    if isinstance(base, int) and not isinstance(base, bool):
        base, offset = None, base + offset
    if offset % 16 or not 0 <= offset < 1 << 18:
        fail(f"tcgen05.{op}: the start address offset must be a multiple of 16 from 0 to "
             f"{(1 << 18) - 16} (descriptors drop the low 4 bits); got {offset}")
    if base is None:
        return None, offset >> 4
    if isinstance(base, _reg.Reg):
        if not base.dtype.is_int or base.dtype.bits not in (32, 64):
            fail(f"tcgen05.{op}: a shared-memory address register must be a 32- or "
                 f"64-bit integer; got {base!r}")
        field = _reg.scalar(T.u32 if base.dtype.bits == 32 else T.u64)
        emit(f"bfe.u{base.dtype.bits}", field, base, 4, 14)
        return field, offset >> 4
    symbol = base.__ptx_symbol__() if hasattr(base, "__ptx_symbol__") else base
    if not isinstance(symbol, str):
        fail(f"tcgen05.{op}: cannot take the shared-memory address of {smem_addr!r}")
    address = _reg.scalar(T.u32)
    emit("mov.u32", address, symbol)
    field = _reg.scalar(T.u32)
    emit("bfe.u32", field, address, 4, 14)
    return field, offset >> 4


def _finish_descriptor(field, constant: int):
    """desc = field + constant (the constant's low 14 bits are clear, so + is
    |) in one instruction: ``mad.wide.u32 d, field, 1, C`` widens a u32 field
    and adds; a u64 field takes ``add.u64``; no field: ``mov.b64 d, C``."""
    desc = _reg.scalar(T.b64)
    if field is None:
        emit("mov.b64", desc, constant)
    elif field.dtype.bits == 32:
        emit("mad.wide.u32", desc, field, 1, constant)
    else:
        emit("add.u64", desc, field, constant)
    return desc


def descriptor(smem_addr, *, byte_offset: int = 0, stride_bytes: int,
               leading_bytes: int = 16, swizzle: str = "128B", version: int = 1,
               base_offset: int = 0, lbo_mode: int = 0):
    """A new b64 register holding the tcgen05 shared memory descriptor of the
    tile at `smem_addr` + `byte_offset` (a shared allocation or slice, an
    address, a u32/u64 shared-window address register, or an int address).

    Every field but the start address is computed here (see
    :class:`pyptx.hw.tcgen05_desc.SmemDesc`): `stride_bytes` (SBO) and
    `leading_bytes` (LBO) are byte offsets, multiples of 16; `swizzle` is
    "NONE", "128B_BASE32B", "128B", "64B" or "32B"; `version` must be 1 (the
    fixed 0b001 of bits 46-48); `base_offset` 0..7; `lbo_mode` 0 (relative)
    or 1 (absolute). `byte_offset` (a multiple of 16) is folded into the
    constant.

    Instructions: 2 for a register address (``bfe`` + ``mad.wide.u32`` /
    ``add.u64``), 3 for a symbol (``mov.u32`` first), 1 for an int address
    (``mov.b64``)."""
    if version != 1:
        fail(f"tcgen05.descriptor: version must be 1 (bits 46-48 hold the fixed 0b001 on "
             f"Blackwell); got {version!r}")
    try:
        constant = SmemDesc(leading_byte_offset=leading_bytes, stride_byte_offset=stride_bytes,
                            base_offset=base_offset, lbo_mode=lbo_mode,
                            swizzle=swizzle).const_bits()
    except ValueError as e:
        fail(f"tcgen05.descriptor: {e}")
    field, folded = _start_field("descriptor", smem_addr, byte_offset)
    return _finish_descriptor(field, constant + folded)


def masked_descriptor(smem_addr, *, byte_offset: int = 0, mask: int = 0x3FFF0,
                      const_bits: int = BLACKWELL_MASKED_DESC_B128):
    """A new b64 register: ``((smem_addr + byte_offset) & mask) >> 4 |
    const_bits`` -- a descriptor from a fixed constant (the CUTLASS SM100
    pattern; prefer :func:`descriptor`, which computes the constant).

    With the default `mask` (address bits 4-17) this emits what
    :func:`descriptor` does (2 or 3 instructions). Another mask costs
    ``and.b32`` + ``shr.u32`` (+ ``add.u32`` for a `byte_offset`, + ``mov.u32``
    for a symbol) before the final ``mad.wide.u32``. `const_bits` must leave
    the bits the masked address occupies clear."""
    if not isinstance(mask, int) or not 0 < mask < 1 << 32 or mask & 0xF:
        fail(f"tcgen05.masked_descriptor: mask must be a 32-bit int with the low 4 bits "
             f"clear; got {mask!r}")
    if not isinstance(const_bits, int) or not 0 <= const_bits < 1 << 64:
        fail(f"tcgen05.masked_descriptor: const_bits must be a 64-bit int; got {const_bits!r}")
    if const_bits & (mask >> 4):
        fail(f"tcgen05.masked_descriptor: const_bits {const_bits:#x} overlaps the address "
             f"bits (mask >> 4 = {mask >> 4:#x}); clear them in const_bits")
    if mask == 0x3FFF0:
        field, folded = _start_field("masked_descriptor", smem_addr, byte_offset)
        return _finish_descriptor(field, const_bits + folded)
    address = smem_addr if isinstance(smem_addr, _reg.Reg) else as_address(smem_addr)
    if isinstance(address, Address):
        base, byte_offset = address.base, address.offset + byte_offset
        if isinstance(base, _reg.Reg):
            address = base
        else:
            address = _reg.scalar(T.u32)
            emit("mov.u32", address, base.__ptx_symbol__()
                 if hasattr(base, "__ptx_symbol__") else base)
    if not (isinstance(address, _reg.Reg) and address.dtype.is_int
            and address.dtype.bits == 32):
        fail(f"tcgen05.masked_descriptor: with a custom mask the address must be a u32 "
             f"register or shared memory; got {smem_addr!r}")
    if byte_offset:
        moved = _reg.scalar(T.u32)
        emit("add.u32", moved, address, byte_offset)
        address = moved
    bits = _reg.scalar(T.u32)
    emit("and.b32", bits, address, mask)
    field = _reg.scalar(T.u32)
    emit("shr.u32", field, bits, 4)
    return _finish_descriptor(field, const_bits)


tcgen05 = Namespace(
    "tcgen05", "ptx.tcgen05: Blackwell tensor-core ops (alloc/dealloc/mma/commit/"
               "fence/wait/ld/st/cp/shift and descriptors).",
    alloc=alloc, dealloc=dealloc, relinquish_alloc_permit=relinquish_alloc_permit,
    mma=mma, commit=commit, fence_before_thread_sync=fence_before_thread_sync,
    fence_after_thread_sync=fence_after_thread_sync, wait_ld=wait_ld, wait_st=wait_st,
    ld=ld, st=st, cp=cp, shift=shift,
    make_instr_desc_f16bf16_f32=make_instr_desc_f16bf16_f32, descriptor=descriptor,
    masked_descriptor=masked_descriptor,
    BLACKWELL_MASKED_DESC_B128=BLACKWELL_MASKED_DESC_B128,
    InstrDesc=InstrDesc, SmemDesc=SmemDesc)
