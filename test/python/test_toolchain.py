"""pyptx.toolchain: one rule for finding ptxas, cuobjdump and nvdisasm
($PYPTX_<TOOL>, $CUDA_HOME/bin, $CUDA_PATH/bin, the nvidia-cuda-* wheel,
PATH, /usr/local/cuda/bin), checked against fake directories."""
import logging
import os

import pytest

from pyptx import toolchain


def fake_tool(directory, name="ptxas"):
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    path.write_text("#!/bin/sh\necho fake\n")
    path.chmod(0o755)
    return str(path)


@pytest.fixture
def nothing_anywhere(monkeypatch, tmp_path):
    """No tool in any place the resolver looks."""
    for variable in ("PYPTX_PTXAS", "PYPTX_CUOBJDUMP", "PYPTX_NVDISASM", "CUDA_HOME",
                     "CUDA_PATH"):
        monkeypatch.setenv(variable, "")  # recorded, so what a test sets is undone
        monkeypatch.delenv(variable)
    monkeypatch.setenv("PATH", str(tmp_path / "empty-path"))
    monkeypatch.setattr(toolchain, "TOOL_DIRS", (str(tmp_path / "empty-default"),))
    # The wheel is sought in sys.path's directories: one empty one here.
    monkeypatch.setattr(toolchain, "_site_dirs", lambda: [str(tmp_path / "empty-site")])
    return tmp_path


def test_order_variable_then_cuda_home_then_cuda_path_then_wheel_then_path(nothing_anywhere,
                                                                          monkeypatch):
    root = nothing_anywhere
    default = fake_tool(root / "empty-default")
    assert toolchain.find_tool("ptxas") == default
    on_path = fake_tool(root / "empty-path")
    assert toolchain.find_tool("ptxas") == on_path
    wheel = fake_tool(root / "empty-site" / "nvidia" / "cuda_nvcc" / "bin")
    assert toolchain.find_tool("ptxas") == wheel
    cuda_path = fake_tool(root / "cuda-path" / "bin")
    monkeypatch.setenv("CUDA_PATH", str(root / "cuda-path"))
    assert toolchain.find_tool("ptxas") == cuda_path
    cuda_home = fake_tool(root / "cuda-home" / "bin")
    monkeypatch.setenv("CUDA_HOME", str(root / "cuda-home"))
    assert toolchain.find_tool("ptxas") == cuda_home
    chosen = fake_tool(root / "chosen")
    monkeypatch.setenv("PYPTX_PTXAS", chosen)
    assert toolchain.find_tool("ptxas") == chosen


def test_disassemblers_follow_the_same_rule(nothing_anywhere, monkeypatch):
    root = nothing_anywhere
    assert toolchain.find_tool("cuobjdump") is None
    wheel = fake_tool(root / "empty-site" / "nvidia" / "cuda_cuobjdump" / "bin", "cuobjdump")
    assert toolchain.find_tool("cuobjdump") == wheel
    home = fake_tool(root / "home" / "bin", "nvdisasm")
    monkeypatch.setenv("CUDA_HOME", str(root / "home"))
    assert toolchain.find_tool("nvdisasm") == home
    chosen = fake_tool(root / "x", "nvdisasm")
    monkeypatch.setenv("PYPTX_NVDISASM", chosen)
    assert toolchain.find_tool("nvdisasm") == chosen


def test_a_set_variable_is_not_overridden_by_a_search(nothing_anywhere, monkeypatch):
    fake_tool(nothing_anywhere / "empty-path")
    monkeypatch.setenv("PYPTX_PTXAS", str(nothing_anywhere / "missing" / "ptxas"))
    path, tried = toolchain.locate("ptxas")
    assert path is None
    assert tried == [(f"$PYPTX_PTXAS={nothing_anywhere}/missing/ptxas",
                      "not an executable file")]
    monkeypatch.setenv("PYPTX_PTXAS", "none")
    assert toolchain.find_tool("ptxas") is None


def test_not_found_names_every_place_and_what_was_there(nothing_anywhere, monkeypatch):
    monkeypatch.setenv("CUDA_HOME", str(nothing_anywhere / "toolkit"))
    with pytest.raises(toolchain.ToolNotFound) as info:
        toolchain.require_tool("ptxas", "gemm.compile")
    message = str(info.value)
    assert message.startswith("gemm.compile: the CUDA toolkit's ptxas not found; looked in:")
    for line in ("$PYPTX_PTXAS: not set",
                 f"$CUDA_HOME/bin ({nothing_anywhere}/toolkit/bin/ptxas): no such executable",
                 "$CUDA_PATH: not set",
                 "nvidia/cuda_nvcc/bin/ptxas in sys.path: not installed",
                 "PATH: not on it",
                 f"{nothing_anywhere}/empty-default: no such executable"):
        assert f"  {line}\n" in message
    assert isinstance(info.value, RuntimeError)


def test_kernel_tools_raise_the_resolvers_error(nothing_anywhere):
    from pyptx import kernel, ptx

    @kernel(arch="sm_90a")
    def k():
        ptx.ret()

    for call in (k.resources, k.compile):
        with pytest.raises(toolchain.ToolNotFound, match=r"toolkit's ptxas not found"):
            call()
    with pytest.raises(toolchain.ToolNotFound, match=r"k.sass\(\): the CUDA toolkit's cuobjdump or "
                                                     r"nvdisasm not found[\s\S]*cuda_nvdisasm"):
        k.sass()


def test_runtime_gets_the_resolved_ptxas(nothing_anywhere, monkeypatch):
    from pyptx import runtime
    home = fake_tool(nothing_anywhere / "home" / "bin")
    monkeypatch.setenv("CUDA_HOME", str(nothing_anywhere / "home"))
    monkeypatch.setattr(runtime, "_ptxas_pinned", False)
    runtime.runtime()
    assert os.environ["PYPTX_PTXAS"] == home
    monkeypatch.setenv("PYPTX_PTXAS", "none")  # the user's choice is kept
    monkeypatch.setattr(runtime, "_ptxas_pinned", False)
    runtime.runtime()
    assert os.environ["PYPTX_PTXAS"] == "none"


def test_ptxas_runs_are_logged_with_their_time(caplog):
    from pyptx import kernel, ptx

    @kernel(arch="sm_90a")
    def logged():
        ptx.ret()

    with caplog.at_level(logging.INFO, logger="pyptx"):
        logged.resources()
    messages = [r.getMessage() for r in caplog.records if r.name == "pyptx"]
    assert any(m.startswith("logged: ptxas -arch=sm_90a took ") and m.endswith(" ms")
               for m in messages), messages


def test_the_launch_library_runs_the_ptxas_found_in_cuda_home(nothing_anywhere, monkeypatch):
    from pyptx import runtime
    root = nothing_anywhere
    (root / "home" / "bin").mkdir(parents=True)
    ptxas = root / "home" / "bin" / "ptxas"
    ptxas.write_text(f'#!/bin/sh\necho "$@" >> {root}/ran\necho "V9.9.9"\n')
    ptxas.chmod(0o755)
    monkeypatch.setenv("CUDA_HOME", str(root / "home"))
    monkeypatch.setenv("PYPTX_CACHE_DIR", str(root / "cubins"))
    monkeypatch.setattr(runtime, "_ptxas_pinned", False)
    # The fake writes nothing into the (empty) output file ptxas is given.
    assert runtime.runtime().compile_ptx(".version 8.5\n.target sm_90a\n", "sm_90a",
                                         "k") == b""
    calls = (root / "ran").read_text().splitlines()
    assert calls[0] == "--version" and calls[1].startswith("-arch=sm_90a -o ")
