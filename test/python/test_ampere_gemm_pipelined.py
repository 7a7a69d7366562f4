"""examples/ampere/gemm_pipelined.py: the sm_80 bf16 GEMM with a ring of
cp.async shared-memory stages (2 to 8), ldmatrix and mma.sync m16n8k16,
traces at each depth, ptxas -arch=sm_80 accepts it without spills, its PTX
has the pipeline it is written for (wait_group STAGES-2, one barrier per K
tile, one group committed per tile), and bad shapes and depths fail
clearly. The GPU run is test/gpu/test_ampere.py."""
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from examples.ampere import gemm_pipelined as gp  # noqa: E402

MMA = "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"


def body(text):
    start = text.index("{")
    return [line.strip() for line in text[start:].splitlines()
            if line.strip() and not line.strip().startswith((".", "{", "}"))]


def count(lines, opcode):
    return sum(re.sub(r"^@!?%p\d+ ", "", line).split(" ")[0] == opcode for line in lines)


@pytest.mark.parametrize("stages", [2, 3, 4, 8])
@pytest.mark.parametrize("M,N,K", [(128, 128, 32), (256, 384, 96), (1024, 512, 4096)])
def test_traces_and_assembles_for_sm80(M, N, K, stages, assemble):
    m = gp.build_gemm(M, N, K, stages).module()
    assert gp.ARCH == "sm_80" and m.arch == "sm_80" and "\n.target sm_80\n" in m.ptx
    assert m.grid == (N // 128, M // 128, 1) and m.block == (128, 1, 1)
    assemble(m.ptx, "sm_80")


def test_no_spills(ptxas, tmp_path):
    src = tmp_path / "k.ptx"
    src.write_text(gp.build_gemm(512, 512, 1024).ptx())
    proc = subprocess.run([ptxas, "-arch=sm_90", "-v", "-o", str(tmp_path / "k.cubin"),
                           str(src)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads" in proc.stderr
    assert int(re.search(r"Used (\d+) registers", proc.stderr).group(1)) <= 255


@pytest.mark.parametrize("stages", [2, 3, 4, 6])
def test_ptx_structure(stages):
    text = gp.build_gemm(256, 256, 512, stages).ptx()
    lines = body(text)
    loop = lines[lines.index("$L__range0:"):lines.index("$L__range0_end:")]
    # A and B_T rings of `stages` 8 KiB stages (over 48 KiB: the dynamic window).
    if 2 * stages * 8192 <= 48 * 1024:
        assert len(re.findall(rf"\.shared \.align 128 \.b8 smem_\d\[{stages * 8192}\];",
                              text)) == 2
    else:
        assert ".extern .shared .align 1024 .b8 dyn_smem[];" in text
    # Per K tile (the loop body is traced once): 2 K steps x (4 A + 4 B
    # ldmatrix.x4, 4 x 8 mma); 8 cp.async.cg per tile, stages-1 tiles in the
    # prologue and one (guarded) in the loop; one commit per tile.
    assert count(loop, MMA) == count(lines, MMA) == 64
    assert count(loop, "ldmatrix.sync.aligned.m8n8.x4.shared.b16") == 16
    assert count(lines, "cp.async.cg.shared.global") == 8 * stages
    assert sum(line.startswith("@%p") and "cp.async.cg" in line for line in loop) == 8
    assert count(lines, "cp.async.commit_group;") == stages
    assert lines.count(f"cp.async.wait_group {stages - 2};") == 1
    assert lines.count("bar.sync 0;") == 1 and loop.count("bar.sync 0;") == 1
    # The guard: tile kt + stages - 1 exists.
    assert f"setp.lt.u32 %p1, {loop[1].split()[2]} {512 // 32 - (stages - 1)};" in loop
    assert count(lines, "st.global.v2.f32") == 64
    assert count(lines, "mov.f32") == 128  # zeroed accumulators
    # In the loop: the wait, the barrier, the next copies, then ldmatrix and mma.
    first = {op: next(i for i, line in enumerate(loop) if op in line)
             for op in ("cp.async.wait_group", "bar.sync", "cp.async.cg", "ldmatrix", MMA)}
    assert (first["cp.async.wait_group"] < first["bar.sync"] < first["cp.async.cg"]
            < first["ldmatrix"] < first[MMA])
    assert lines[-1] == "ret;"


def test_short_k_commits_empty_groups():
    """K = one tile with 4 stages: one tile of copies in the prologue, two
    empty groups, so wait_group 2 still means 'tile 0 has landed'."""
    lines = body(gp.build_gemm(128, 128, 32, 4).ptx())
    prologue = lines[:lines.index("$L__range0:")]
    assert count(prologue, "cp.async.cg.shared.global") == 8
    assert count(prologue, "cp.async.commit_group;") == 3


@pytest.mark.parametrize("M,N,K,name", [(100, 128, 32, "M=100"), (128, 64, 32, "N=64"),
                                        (128, 128, 48, "K=48"), (0, 128, 32, "M=0")])
def test_bad_shapes_are_rejected(M, N, K, name):
    with pytest.raises(ValueError, match=f"gemm_pipelined: {name} must be a positive "
                                         f"multiple of"):
        gp.build_gemm(M, N, K)


@pytest.mark.parametrize("stages", [1, 9, 2.0, True])
def test_bad_stages_are_rejected(stages):
    with pytest.raises(ValueError, match=f"stages={stages!r} must be an int from 2 to 8"):
        gp.build_gemm(128, 128, 32, stages)


def test_script_prints_ptx():
    path = os.path.join(ROOT, "examples", "ampere", "gemm_pipelined.py")
    proc = subprocess.run([sys.executable, path], capture_output=True, text=True, cwd="/")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == gp.build_gemm(256, 256, 64).ptx()
    proc = subprocess.run([sys.executable, path, "128", "256", "64", "2"],
                          capture_output=True, text=True, cwd="/")
    assert proc.returncode == 0 and proc.stdout == gp.build_gemm(128, 256, 64, 2).ptx()


def test_deterministic():
    first = gp.build_gemm(256, 128, 64).ptx()
    gp.build_gemm(128, 128, 32, 4).ptx()
    assert gp.build_gemm(256, 128, 64).ptx() == first
