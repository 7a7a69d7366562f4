"""lineinfo=True on the GPU: the cubin the runtime loaded for a launch, read
back from its cache, is disassembled with `nvdisasm -g`, and its line table
attributes the load, the FMA and the store to this file's lines that wrote
them. (With $OUT set, the disassembly is kept as $OUT/lineinfo_sass.txt.)"""
import os
import re
import subprocess

import torch

from pyptx import Tile, _runtime, kernel, ptx, reg
from pyptx.kernel import _find_tool
from pyptx.types import f32, u32, u64

HERE = os.path.abspath(__file__)
N = 1 << 16


@kernel(arch="sm_90a", lineinfo=True, in_specs=(Tile(N, f32),), out_specs=(Tile(N, f32),),
        grid=(N // 128, 1, 1), block=(128, 1, 1))
def located(X, Y):
    px, py = ptx.global_ptrs(X, Y)
    tid = reg.from_(ptx.special.tid.x(), u32)
    cta = reg.from_(ptx.special.ctaid.x(), u32)
    i = reg.scalar(u32)
    ptx.inst.mad.lo.u32(i, cta, 128, tid)
    offset = reg.scalar(u64)
    ptx.inst.mul.wide.u32(offset, i, 4)
    px += offset
    py += offset
    x = reg.scalar(f32)
    ptx.ld(x, ptx.addr(px))  # <- line-load
    ptx.fma(x, x, 3.0, 1.0)  # <- line-fma
    ptx.st(ptx.addr(py), x)  # <- line-store
    ptx.ret()


def line_of(marker):
    with open(HERE) as f:
        return next(n for n, text in enumerate(f, 1)
                    if marker in text and "line_of(" not in text)


def sass_lines(listing: str):
    """(file, line, instruction) for each SASS instruction of an
    `nvdisasm -g` listing, under the last `//## File "...", line N` before it."""
    where = (None, None)
    found = []
    for text in listing.splitlines():
        marker = re.search(r'//## File "([^"]+)", line (\d+)', text)
        if marker:
            where = (marker.group(1), int(marker.group(2)))
            continue
        instruction = re.search(r"/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)",
                                text)
        if instruction:
            found.append((*where, instruction.group(1)))
    return found


def test_runtime_cubin_maps_sass_to_the_python_lines(tmp_path):
    x = torch.randn(N, device="cuda")
    y = located(x)
    torch.cuda.synchronize()
    expected = x.double() * 3.0 + 1.0
    assert torch.allclose(y.double(), expected, rtol=1e-6, atol=1e-6)

    # The launch compiled this PTX and cached the cubin it loaded: asking the
    # runtime again returns those bytes from the cache.
    m = located.module()
    cubin = _runtime.compile_ptx(m.ptx, m.arch, m.name)
    assert _runtime.last_compile_cached()
    path = tmp_path / "located.cubin"
    path.write_bytes(cubin)

    nvdisasm = _find_tool("nvdisasm")
    assert nvdisasm, "nvdisasm not found (the CUDA toolkit's bin/)"
    listing = subprocess.run([nvdisasm, "-g", str(path)], capture_output=True, text=True,
                             check=True).stdout
    if os.environ.get("OUT"):
        with open(os.path.join(os.environ["OUT"], "lineinfo_sass.txt"), "w") as f:
            f.write(listing)
    found = sass_lines(listing)
    assert found, f"no SASS instructions read from:\n{listing[:3000]}"
    files = {file for file, _, _ in found if file}
    assert HERE in files, f"line table names {files}, not {HERE}:\n{listing[:3000]}"

    def lines_of(opcode_prefix):
        return {line for file, line, op in found if file == HERE and op.startswith(opcode_prefix)}

    assert line_of("# <- line-load") in lines_of("LDG"), listing[:3000]
    assert line_of("# <- line-fma") in lines_of("FFMA"), listing[:3000]
    assert line_of("# <- line-store") in lines_of("STG"), listing[:3000]
