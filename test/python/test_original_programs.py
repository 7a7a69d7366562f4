"""Programs in the original pyptx's style (test/python/original_programs/, our
own writing) run unmodified: they trace, our verifier accepts them
(Kernel.ptx() raises otherwise) and ptxas assembles them for their target.
They also hold to the original's documented API: every ptx./reg./smem./Tile.
name they use is on its API pages (original_api.py)."""
import ast
import importlib
import os
import re

import pytest

from original_api import FACTS

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAMS = ["hopper_gemm", "grouped_gemm", "attention", "row_kernels", "ampere_mma",
            "tcgen05_probe", "warp_specialized"]


def _module(name):
    return importlib.import_module(f"original_programs.{name}")


BUILDS = [(name, *build) for name in PROGRAMS for build in _module(name).BUILDS]

# What each program must show in its PTX (regexes): the instructions it is about.
EXPECT = {
    "hopper_gemm": [
        r"wgmma\.mma_async\.sync\.aligned\.m64n64k16\.f32\.bf16\.bf16 \{(%f\d+, ){31}%f\d+\}, "
        r"%rd\d+, %rd\d+, 0, 1, 1, 0, 1;",
        r"cp\.async\.bulk\.tensor\.2d\.shared::cluster\.global\.tile\.mbarrier::complete_tx"
        r"::bytes \[smem_0\+8192\]",                       # slot 1 of the A ring
        r"ld\.param\.u32 %r\d+, \[ldc\];",
        r"mbarrier\.try_wait\.parity\.shared::cta\.b64 %p\d+, \[mbar_0\+8\], %b\d+;"],
    "grouped_gemm": [
        r"mov\.u32 %r\d+, %ctaid\.z;",
        r"setp\.ne\.u32 (%p\d+), %r\d+, 0;(.|\n)*wgmma\.mma_async[^;]*, \1, 1, 1, 0, 0;",
        r"@%p\d+ bra k_loop;",
        r"st\.global\.f32 \[%rd\d+\+36\], %f\d+;"],
    "attention": [
        r"wgmma\.mma_async\.sync\.aligned\.m64n64k16\.f32\.bf16\.bf16",
        r"wgmma\.mma_async\.sync\.aligned\.m64n32k16\.f32\.bf16\.bf16 \{(%f\d+, ){15}%f\d+\}",
        r"cvt\.rn\.bf16x2\.f32 %b\d+, %f\d+, %f\d+;",
        r"shfl\.sync\.bfly\.b32 %f\d+, %f\d+, 2, 7199, -1;",
        r"fence\.proxy\.async\.shared::cta;\s+bar\.sync 0, 128;"],
    "row_kernels": [r"(st|ld)\.shared\.f32", r"\.shared \.align 128 \.b8 smem_0\["],
    "ampere_mma": [
        r"cp\.async\.cg\.shared\.global \[%r\d+\], \[%rd\d+\], 16;",
        r"ldmatrix\.sync\.aligned\.m8n8\.x4\.shared\.b16 \{%b\d+, %b\d+, %b\d+, %b\d+\}, "
        r"\[%r\d+\+32\];",
        r"mma\.sync\.aligned\.m16n8k16\.row\.col\.f32\.bf16\.bf16\.f32",
        r"selp\.u32 %r\d+, 16, 0, %p\d+;",
        r"add\.u32 (%r\d+), \1, 32;"],                   # the ptx.raw line
    "tcgen05_probe": [
        r"tcgen05\.alloc\.cta_group::1\.sync\.aligned\.shared::cta\.b32 \[%r\d+\], (64|256);",
        r"tcgen05\.mma\.cta_group::1\.kind::f16 \[%b\d+\], %bd\d+, %bd\d+, \d+, 0;",
        r"tcgen05\.commit\.cta_group::1\.mbarrier::arrive::one\.shared::cluster\.b64",
        r"tcgen05\.ld\.sync\.aligned\.32x32b\.x(32|64)\.b32",
        r"tcgen05\.relinquish_alloc_permit\.cta_group::1\.sync\.aligned;"],
    "warp_specialized": [
        r"setmaxnreg\.dec\.sync\.aligned\.u32 40;", r"setmaxnreg\.inc\.sync\.aligned\.u32 232;",
        r"^produce:$", r"^consume:$", r"bar\.sync 1, 128;",
        r"mbarrier\.arrive\.shared::cta\.b64 %bd\d+, \[%r\d+\+49176\];"],
}


@pytest.mark.parametrize("program,name,builder,kwargs,arch", BUILDS,
                         ids=[b[1] for b in BUILDS])
def test_program_traces_verifies_and_assembles(program, name, builder, kwargs, arch,
                                               assemble):
    text = builder().ptx(**kwargs)        # traces; our verifier raises on any error
    assert f".target {arch}" in text
    for pattern in EXPECT[program]:
        assert re.search(pattern, text, re.M), f"{name}: no {pattern!r} in\n{text}"
    assemble(text, arch)


def test_every_program_is_built():
    assert {b[0] for b in BUILDS} == set(PROGRAMS) == set(EXPECT)


# -- the programs use the original's documented API only ----------------------------

def _documented():
    """{module: set of documented dotted names}, parents included."""
    names, section = {}, None
    for line in FACTS.splitlines():
        line = line.strip()
        if line.startswith("["):
            section = names.setdefault(line.strip("[]"), set())
        elif line and section is not None:
            dotted = re.split(r"[( ]", line, 1)[0]
            parts = dotted.split(".")
            section.update(".".join(parts[:i]) for i in range(1, len(parts) + 1))
    return names


ROOTS = {"ptx": "pyptx.ptx", "reg": "pyptx.reg", "smem": "pyptx.smem",
         "Tile": "pyptx.specs", "Layout": "pyptx.specs"}


def _chains(tree):
    """(root, dotted attribute chain) of each outermost attribute access."""
    inner = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and id(node) not in inner:
            parts = []
            while isinstance(node, ast.Attribute):
                parts.append(node.attr)
                node = node.value
            if isinstance(node, ast.Name) and node.id in ROOTS:
                yield node.id, ".".join(reversed(parts))


@pytest.mark.parametrize("program", PROGRAMS)
def test_program_uses_only_documented_names(program):
    documented = _documented()
    path = os.path.join(HERE, "original_programs", f"{program}.py")
    tree = ast.parse(open(path).read())
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module.startswith("pyptx"):
            for alias in node.names:
                section = documented.get(node.module, set())
                assert alias.name in section or node.module == "pyptx.types" and \
                    alias.name in documented["pyptx.types"], (program, node.module, alias.name)
    used = list(_chains(tree))
    assert used
    for root, chain in used:
        names = documented[ROOTS[root]]
        if root in ("Tile", "Layout"):
            chain = f"{root}.{chain}"
        assert _documented_use(chain, names), \
            f"{program}: {root}.{chain} is not on the original's API pages"
        if root != "ptx":
            assert chain in names, f"{program}: {root}.{chain} is not documented"


def _documented_use(chain, names):
    """The chain is a documented name, or continues one that has no documented
    members (ptx.inst.<opcode>, ptx.cp.async_.<form>, ptx.special.tid.x):
    a raw opcode. A namespace with documented helpers (ptx.tcgen05) takes
    only those."""
    parts = chain.split(".")
    prefixes = [".".join(parts[:i]) for i in range(len(parts), 0, -1)]
    known = next((p for p in prefixes if p in names), None)
    if known is None:
        return False
    return known == chain or not any(n.startswith(known + ".") for n in names)


def test_documented_use_rule():
    names = _documented()["pyptx.ptx"]
    assert _documented_use("inst.mov.u32", names)
    assert _documented_use("cp.async_.bulk.tensor_2d", names)
    assert _documented_use("special.tid.x", names)
    assert _documented_use("tcgen05.ld", names)
    assert not _documented_use("tcgen05.load", names)
    assert not _documented_use("foo", names)
