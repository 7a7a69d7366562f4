"""The ISA facts the Python layer checks: targets, special registers, wgmma
and tcgen05 shapes. They are described once, in the TableGen ISA
description (include/pyptx/Dialect/PTX/ISA/), and read here from the module
pyptx-tblgen -gen-isa-python generates from it (pyptx._isa_table, built next
to the native module); nothing here restates them."""
from __future__ import annotations

import functools

from pyptx._trace import isa_table


@functools.cache
def _table():
    table = isa_table()
    if table is None:
        raise ImportError(
            "pyptx._isa_table (generated from the ISA description at build time) "
            "is not built or not found: build the project, or set PYPTX_NATIVE_DIR "
            "to the directory holding _native*.so and _isa_table.py")
    return table


def targets() -> dict[str, int]:
    """Every target ``.target`` may name -> the lowest PTX ISA version that
    knows it (x10: 80 is 8.0)."""
    return _table().TARGETS


def max_shared_per_cta(target: str) -> int | None:
    """The most shared memory (bytes, static plus dynamic) one CTA may use on
    the GPU of `target` ("sm_90a": 232448, i.e. 227 KiB; "sm_80": 163 KiB),
    or None when the description does not give it."""
    return _table().SHARED_PER_CTA.get(target)


def special_register_bits(name: str) -> int | None:
    """The width of special register `name` ("%tid.x": 32, "%clock64": 64,
    "%is_explicit_cluster": 1), or None when PTX has no such register."""
    base, dot, component = name.partition(".")
    entry = _table().SPECIAL_REGISTERS.get(base)
    if entry is None:
        return None
    bits, components = entry
    if dot:
        return bits if len(component) == 1 and component in components else None
    return None if components else bits


def wgmma_inputs(type_a: str, type_b: str) -> dict | None:
    """What dense ``wgmma.mma_async`` takes with A of `type_a` and B of
    `type_b`: {"d": accumulator types, "m", "k", "n": the valid N,
    "imm_scale", "imm_trans": whether it takes imm-scale-a/b and
    imm-trans-a/b}; None when there is no such instruction."""
    return _table().WGMMA.get(f"{type_a}.{type_b}")


def wgmma_type_pairs() -> list[str]:
    """Every "atype.btype" of dense wgmma.mma_async."""
    return sorted(_table().WGMMA)


def tcgen05_ld_st_registers() -> dict[str, dict[int, int]]:
    """tcgen05.ld/st's shapes -> {count (the N of .xN): 32-bit registers
    per thread}."""
    return {shape: {int(count): regs for count, regs in counts.items()}
            for shape, counts in _table().TCGEN05_LD_ST_REGISTERS.items()}


def tcgen05_cp_sizes() -> list[str]:
    """tcgen05.cp's modifiers after .cta_group::N: "128x256b",
    "64x128b.warpx2::02_13", "4x256b.b8x16.b6x16_p32", ..."""
    return _table().TCGEN05_CP_SIZES


def tcgen05_mma_shapes(cta_group: int) -> dict | None:
    """{"m": [...], "n": [...]}: the M and N a tcgen05.mma instruction
    descriptor may give at ``.cta_group::cta_group``; None for no such
    cta_group."""
    return _table().TCGEN05_MMA_SHAPES.get(str(cta_group))


def describe(values) -> str:
    """The sorted ints `values` in words: "a multiple of 8 from 8 to 256",
    "8, 16, 24, or a multiple of 16 from 32 to 256", "64 or 128"."""
    values = sorted(values)
    # The longest arithmetic run that ends the list, when it has 3 or more.
    start = len(values) - 1
    if len(values) >= 3:
        step = values[-1] - values[-2]
        start = len(values) - 2
        while start > 0 and values[start] - values[start - 1] == step:
            start -= 1
    if len(values) - start < 3:
        words = [str(v) for v in values]
        return " or ".join(words) if len(words) <= 2 else \
            ", ".join(words[:-1]) + " or " + words[-1]
    run = f"a multiple of {step} from {values[start]} to {values[-1]}"
    if values[start] % step:
        run = f"{values[start]} to {values[-1]} in steps of {step}"
    head = [str(v) for v in values[:start]]
    return ", ".join(head + ["or " + run]) if head else run
