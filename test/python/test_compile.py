"""Kernel.compile(**shapes): the CompiledKernel's PTX, cubin and resources
(checked against ptxas's own report, run here separately), the spill policy
on kernels that spill or use local memory, and the line table of a
lineinfo kernel's cubin."""
import os
import re
import struct
import subprocess
import sys
import warnings

import pytest

from conftest import line_of
from pyptx import kernel, ptx, reg
from pyptx.compiled import (CompiledKernel, Resources, SpillError, max_threads_per_block,
                            parse_ptxas_report)
from pyptx.errors import KernelWarning
from pyptx.types import u32

from compile_kernels import local_array, spilling

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)
HERE = os.path.abspath(__file__)
KERNELS = os.path.join(os.path.dirname(HERE), "compile_kernels.py")

def ptxas_report(ptxas, ptx_text, arch, tmp_path):
    """ptxas -v's figures for the one entry of `ptx_text`, read here with
    their own patterns (not pyptx.compiled's)."""
    src = tmp_path / "independent.ptx"
    src.write_text(ptx_text)
    proc = subprocess.run([ptxas, f"-arch={arch}", "-v", "-o", str(tmp_path / "i.cubin"),
                           str(src)], capture_output=True, text=True, check=True)
    log = proc.stderr + proc.stdout
    used = re.search(r"Used (\d+) registers(?:, used (\d+) barriers)?(?:, (\d+) bytes smem)?",
                     log)
    frame = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, "
                      r"(\d+) bytes spill loads", log)
    return {"registers": int(used.group(1)), "barriers": int(used.group(2) or 0),
            "static_smem": int(used.group(3) or 0), "local_memory": int(frame.group(1)),
            "spill_stores": int(frame.group(2)), "spill_loads": int(frame.group(3))}


def elf_sections(blob: bytes) -> dict:
    """{section name: bytes} of a 64-bit little-endian ELF file (a cubin)."""
    assert blob[:4] == b"\x7fELF" and blob[4] == 2, "not a 64-bit ELF file"
    shoff, = struct.unpack_from("<Q", blob, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", blob, 0x3A)
    headers = [struct.unpack_from("<IIQQQQ", blob, shoff + i * shentsize)
               for i in range(shnum)]
    names_at = headers[shstrndx][4]
    sections = {}
    for name_offset, kind, _, _, offset, size in headers:
        start = names_at + name_offset
        name = blob[start:blob.index(b"\0", start)].decode()
        sections[name] = b"" if kind == 8 else blob[offset:offset + size]  # 8: NOBITS
    return sections


# -- resources against ptxas's report ------------------------------------------------

def _examples():
    from examples.ampere.gemm import build_gemm as ampere_gemm
    from examples.hopper import layer_norm, rms_norm, softmax, swiglu
    from examples.hopper.gemm import build_gemm as hopper_gemm
    from examples.hopper.gemm_tma_wgmma import build_gemm as tma_wgmma_gemm
    from examples.hopper.tma_pipeline import build_tma_pipeline
    return {"rms_norm": lambda: rms_norm.build_rms_norm(4, 4096),
            "layer_norm": lambda: layer_norm.build_layer_norm(4, 4096),
            "softmax": lambda: softmax.build_softmax(4, 4096),
            "swiglu": lambda: swiglu.build_swiglu(4, 1024),
            "hopper_gemm": lambda: hopper_gemm(512, 512, 256, cluster=2),
            "gemm_tma_wgmma": lambda: tma_wgmma_gemm(),
            "tma_pipeline": lambda: build_tma_pipeline(),
            "ampere_gemm": lambda: ampere_gemm(128, 128, 64)}


@pytest.mark.parametrize("name", sorted(_examples()))
def test_resources_match_ptxas_for_the_examples(name, ptxas, tmp_path):
    k = _examples()[name]()
    compiled = k.compile(spills="error")   # no example spills
    assert isinstance(compiled, CompiledKernel)
    assert compiled.ptx == k.ptx()
    assert compiled.cubin[:4] == b"\x7fELF"
    r = compiled.resources
    assert ptxas_report(ptxas, compiled.ptx, compiled.arch, tmp_path) == {
        "registers": r.registers, "barriers": r.barriers, "static_smem": r.static_smem,
        "local_memory": r.local_memory, "spill_stores": r.spill_stores,
        "spill_loads": r.spill_loads}
    assert r.registers > 0 and not r.spills
    assert r.dynamic_smem == compiled.module.smem == compiled.smem
    # The original API's dict says the same.
    old = k.resources()
    assert (old["registers"], old["spill_stores_bytes"], old["smem_per_cta"]) == (
        r.registers, r.spill_stores, r.smem)
    # A launch of the kernel's block fits the register budget.
    assert r.max_threads_per_block >= compiled.block[0] * compiled.block[1] * \
        compiled.block[2]


def test_hopper_gemm_resources_in_numbers():
    """The persistent GEMM: 168 registers (.maxnreg), 384 threads, its
    ring in dynamic shared memory."""
    from examples.hopper.gemm import build_gemm
    r = build_gemm(512, 512, 256, cluster=2).compile().resources
    assert r.registers == 168 and r.max_threads_per_block == 384
    assert r.static_smem == 0 and r.dynamic_smem > 200 * 1024
    assert r.as_dict()["registers"] == 168 and r.smem == r.dynamic_smem


@pytest.mark.parametrize("registers, threads", [
    (0, 1024), (16, 1024), (32, 1024), (64, 1024), (80, 768), (96, 640), (128, 512),
    (168, 384), (255, 256)])
def test_max_threads_per_block_from_registers(registers, threads):
    # Each warp's registers*32 rounded to 256 come from one of 4 sub-partitions
    # of 16384 registers: 80 registers -> 2560 per warp -> 6 warps per
    # partition -> 24 warps.
    assert max_threads_per_block(registers) == threads


def test_max_threads_per_block_is_the_drivers_not_reqntid():
    # The driver reports 1024 for a .reqntid 96 kernel (H100, 2026-11-26:
    # test/gpu/test_compile_gpu.py), so .resources does too.
    @kernel(arch="sm_90a", block=(128, 1, 1), reqntid=(128, 1, 1))
    def capped():
        ptx.ret()

    assert capped.compile().resources.max_threads_per_block == 1024


# -- spill policy ----------------------------------------------------------------------

def test_spilling_kernel_spills_per_ptxas(ptxas, tmp_path):
    report = ptxas_report(ptxas, spilling.ptx(), "sm_90a", tmp_path)
    assert report["spill_stores"] > 0 and report["spill_loads"] > 0
    r = spilling.compile(spills="ignore").resources
    assert (r.spill_stores, r.spill_loads, r.registers) == (
        report["spill_stores"], report["spill_loads"], report["registers"])
    assert r.registers <= 24 and r.spills and r.local_memory >= r.spill_stores


def test_spills_error_names_the_kernel_line():
    with pytest.raises(SpillError) as info:
        spilling.compile(spills="error")
    e = info.value
    # The kernel's definition: its decorator's line, where a trace's own
    # errors point too.
    assert (e.file, e.line) == (KERNELS, line_of(KERNELS, "# <- spilling"))
    assert re.search(r"[1-9]\d* bytes spill stores", str(e)) and "'spilling'" in str(e)


def test_spills_warn_is_the_default():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        compiled = spilling.compile()
    spill_warnings = [w for w in caught if issubclass(w.category, KernelWarning)]
    assert len(spill_warnings) == 1
    assert (spill_warnings[0].filename, spill_warnings[0].lineno) == (
        KERNELS, line_of(KERNELS, "# <- spilling"))
    assert "spill loads" in str(spill_warnings[0].message)
    assert compiled.resources.spills


def test_spills_ignore_is_silent():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert spilling.compile(spills="ignore").resources.spill_loads > 0


def test_local_memory_without_spills_counts_too(ptxas, tmp_path):
    report = ptxas_report(ptxas, local_array.ptx(), "sm_90a", tmp_path)
    r = local_array.compile(spills="ignore").resources
    assert r.local_memory == report["local_memory"] >= 64 * 4
    assert not r.spills
    with pytest.raises(SpillError, match="bytes of local memory"):
        local_array.compile(spills="error")


def test_bad_spill_policy():
    with pytest.raises(ValueError, match="spills='loud'"):
        spilling.compile(spills="loud")


# -- the cubin ---------------------------------------------------------------------

def test_cubin_has_the_runtimes_machine_code(tmp_path, monkeypatch):
    """The runtime's cubin (pyptx._runtime.compile_ptx, what launches load)
    and compile()'s differ only in ptxas's recorded options: the kernel's
    .text section is the same."""
    from examples.hopper.rms_norm import build_rms_norm
    from pyptx import _runtime
    monkeypatch.setenv("PYPTX_CACHE_DIR", str(tmp_path))
    compiled = build_rms_norm(4, 4096).compile()
    runtime_cubin = _runtime.compile_ptx(compiled.ptx, compiled.arch, compiled.name)
    ours, theirs = elf_sections(compiled.cubin), elf_sections(runtime_cubin)
    text = f".text.{compiled.name}"
    assert ours[text] and ours[text] == theirs[text]


def test_gpu_arch_retargets_the_cubin():
    @kernel(arch="sm_80", block=(32, 1, 1))
    def portable():
        ptx.ret()

    assert "for 'sm_80'" in portable.compile().ptxas_log
    compiled = portable.compile(gpu_arch="sm_90")
    assert compiled.arch == "sm_90" and "for 'sm_90'" in compiled.ptxas_log


def test_ptxas_rejection_names_the_kernel():
    @kernel(arch="sm_90a", isa_policy="off")
    def broken():
        ptx.inst.bogus.u32(reg.scalar(u32))
        ptx.ret()

    with pytest.raises(RuntimeError, match=r"broken: ptxas -arch=sm_90a rejected(.|\n)*bogus"):
        broken.compile()


@kernel(arch="sm_90a", lineinfo=True, block=(32, 1, 1))
def located():
    tid = reg.from_(ptx.special.tid.x(), u32)  # <- located-a
    tid += 1
    ptx.ret()


def test_lineinfo_cubin_line_table_names_this_file():
    """The cubin's DWARF line table (.debug_line) names this file's
    directory and name (the GPU test reads the lines with nvdisasm -g)."""
    table = elf_sections(located.compile().cubin)[".debug_line"]
    assert os.path.dirname(HERE).encode() in table
    assert os.path.basename(HERE).encode() in table

    @kernel(arch="sm_90a", block=(32, 1, 1))
    def unlocated():
        ptx.ret()

    sections = elf_sections(unlocated.compile().cubin)
    assert os.path.basename(HERE).encode() not in sections.get(".debug_line", b"")


def test_sass_needs_a_disassembler():
    from pyptx.kernel import _find_tool
    compiled = located.compile()
    if _find_tool("cuobjdump") or _find_tool("nvdisasm"):
        assert "located" in compiled.sass()
    else:
        with pytest.raises(RuntimeError, match="cuobjdump or nvdisasm not found"):
            compiled.sass()


# -- the report parser ------------------------------------------------------------------

LOG_WITH_A_CALL = """\
ptxas info    : 0 bytes gmem
ptxas info    : Function properties for helper
    32 bytes stack frame, 8 bytes spill stores, 8 bytes spill loads
ptxas info    : Compiling entry function 'main_k' for 'sm_90a'
ptxas info    : Function properties for main_k
    16 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 30 registers, used 2 barriers, 48 bytes cumulative stack size, 4096 bytes smem
"""


def test_report_parser_takes_the_entrys_figures():
    assert parse_ptxas_report(LOG_WITH_A_CALL, "main_k") == {
        "registers": 30, "barriers": 2, "static_smem": 4096, "local_memory": 16,
        "spill_stores": 0, "spill_loads": 0}
    with pytest.raises(ValueError, match="no entry function 'other'"):
        parse_ptxas_report(LOG_WITH_A_CALL, "other")


def test_resources_is_plain_data():
    r = Resources(registers=8, spill_stores=4, spill_loads=4, local_memory=8,
                  static_smem=16, dynamic_smem=32, barriers=1, max_threads_per_block=1024)
    assert r.spills and r.smem == 48
    with pytest.raises(AttributeError):
        r.registers = 9
