"""pyptx.aot: `python -m pyptx.aot` writes a cubin, the PTX, a C header and a
C launcher; the launcher compiles with gcc (strict C11, -pedantic) against
the toolkit's cuda.h, links with test/gpu/aot_main.cpp and the CUDA runtime,
and, with no driver here, fails cleanly at its first load. (The GPU test,
test/gpu/test_aot_gpu.py, runs them.)"""
import os
import re
import shutil
import subprocess
import sys

import pytest

from pyptx import Tile, kernel, ptx, reg
from pyptx.aot import ExportError, c_name, export, write_c
from pyptx.aot.__main__ import parse_value
from pyptx.kernel import _find_tool
from pyptx.types import bf16, f32, pred, u32, u64

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)
MAIN_CPP = os.path.join(ROOT, "test", "gpu", "aot_main.cpp")


def cuda_root():
    """The toolkit with include/cuda.h: $CUDA_HOME, else ptxas's, else
    /usr/local/cuda."""
    ptxas = _find_tool("ptxas")
    for root in (os.environ.get("CUDA_HOME"), ptxas and os.path.dirname(os.path.dirname(ptxas)),
                 "/usr/local/cuda"):
        if root and os.path.exists(os.path.join(root, "include", "cuda.h")):
            return root
    raise AssertionError("no CUDA toolkit with include/cuda.h")


def compile_c(source_path, tmp_path, std="c11"):
    """gcc -c with warnings as errors (and -pedantic under C11: cuda.h
    itself has C11's anonymous unions)."""
    gcc = shutil.which("gcc")
    assert gcc, "gcc not found"
    obj = tmp_path / (os.path.basename(source_path) + ".o")
    proc = subprocess.run(
        [gcc, f"-std={std}", "-Wall", "-Wextra", "-Werror",
         *(["-pedantic"] if std == "c11" else []), "-O2",
         f"-I{cuda_root()}/include", "-c", str(source_path), "-o", str(obj)],
        capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return obj


def run_cli(*args, cwd=ROOT):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.join(ROOT, "python"), ROOT]))
    return subprocess.run([sys.executable, "-m", "pyptx.aot", *args], cwd=cwd, env=env,
                          capture_output=True, text=True)


def embedded_cubin(source: str) -> bytes:
    body = source[source.index("static const unsigned char cubin["):]
    body = body[body.index("{") + 1:body.index("};")]
    return bytes(int(h, 16) for h in re.findall(r"0x([0-9a-f]{2})", body))


@kernel(arch="sm_90a", in_specs=(Tile("N", f32),), out_specs=(Tile("N", f32),),
        grid=lambda N: (N // 128, 1, 1), block=(128, 1, 1),
        raw_params=[("u32", "n"), ("f32", "alpha"), ("u32", "N")])
def scale(X, Y):
    """Y[i] = alpha * X[i] for i < n (raw n, alpha); N is a shape variable."""
    px, py = ptx.global_ptrs(X, Y)
    n = ptx.param(u32, "n")
    alpha = ptx.param(f32, "alpha")
    tid = reg.from_(ptx.special.tid.x(), u32)
    cta = reg.from_(ptx.special.ctaid.x(), u32)
    i = reg.scalar(u32)
    ptx.inst.mad.lo.u32(i, cta, 128, tid)
    outside = reg.scalar(pred)
    ptx.inst.setp.ge.u32(outside, i, n)
    ptx.ret(pred=outside)
    offset = reg.scalar(u64)
    ptx.inst.mul.wide.u32(offset, i, 4)
    px += offset
    py += offset
    x = reg.scalar(f32)
    ptx.ld(x, ptx.addr(px))
    ptx.mul(x, x, alpha)
    ptx.st(ptx.addr(py), x)
    ptx.ret()


# -- the command line ------------------------------------------------------------------

def test_cli_writes_cubin_ptx_header_and_launcher(tmp_path):
    proc = run_cli("examples.hopper.rms_norm:build_rms_norm", "--shape", "B=16", "N=1024",
                   "-o", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    names = sorted(os.listdir(tmp_path))
    assert names == ["rms_norm.c", "rms_norm.cubin", "rms_norm.h", "rms_norm.ptx"]
    for name in names:
        assert str(tmp_path / name) in proc.stdout
    assert re.search(r"rms_norm: sm_90a, grid \(16, 1, 1\), .* \d+ registers", proc.stdout)

    from examples.hopper.rms_norm import build_rms_norm
    compiled = build_rms_norm(16, 1024).compile()
    cubin = (tmp_path / "rms_norm.cubin").read_bytes()
    assert cubin == compiled.cubin                      # ptxas is deterministic
    assert (tmp_path / "rms_norm.ptx").read_text() == compiled.ptx
    source = (tmp_path / "rms_norm.c").read_text()
    assert embedded_cubin(source) == cubin
    header = (tmp_path / "rms_norm.h").read_text()
    assert ("CUresult rms_norm_launch(CUstream stream, CUdeviceptr X, CUdeviceptr W, "
            "CUdeviceptr Y);") in header
    gx, gy, gz = compiled.grid
    bx, _, _ = compiled.block
    assert f"#define RMS_NORM_GRID_X {gx}\n" in header and gx == 16
    assert f"#define RMS_NORM_BLOCK_X {bx}\n" in header
    assert "X: device address of f32[16][1024], row-major (input)" in header
    assert "Y: device address of f32[16][1024], row-major (output)" in header
    assert "--shape B=16 N=1024" in header
    compile_c(tmp_path / "rms_norm.c", tmp_path)


def test_cli_gemm_with_cluster_tma_and_large_smem(tmp_path):
    proc = run_cli("examples.hopper.gemm:build_gemm", "--shape", "M=512", "N=512", "K=256",
                   "cluster=2", "-o", str(tmp_path), "--name", "hgemm", "--spills", "error")
    assert proc.returncode == 0, proc.stderr
    header = (tmp_path / "hgemm.h").read_text()
    source = (tmp_path / "hgemm.c").read_text()
    assert "#define HGEMM_CLUSTER_X 2\n" in header
    smem = int(re.search(r"#define HGEMM_DYNAMIC_SMEM_BYTES (\d+)", header).group(1))
    assert smem > 48 * 1024
    assert "CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES" in source
    # Three TMA descriptors, encoded at launch from the tensors' addresses.
    assert source.count("drv.tensor_map_encode_tiled(") == 3
    assert "CU_TENSOR_MAP_DATA_TYPE_BFLOAT16" in source
    assert "CU_TENSOR_MAP_SWIZZLE_128B" in source
    assert 'dlsym(drv.lib, symbol)' in source and 'LOOKUP(launch_kernel_ex, "cuLaunchKernelEx")' \
        in source
    for std in ("c11", "c99"):
        compile_c(tmp_path / "hgemm.c", tmp_path, std=std)


def test_cli_takes_a_file_path_and_a_kernel(tmp_path):
    (tmp_path / "mykernels.py").write_text(
        "from pyptx import kernel, ptx\n"
        "@kernel(arch='sm_90a', grid=(2, 1, 1), block=(32, 1, 1))\n"
        "def noop():\n"
        "    ptx.ret()\n")
    proc = run_cli(f"{tmp_path / 'mykernels.py'}:noop", "-o", str(tmp_path / "out"))
    assert proc.returncode == 0, proc.stderr
    header = (tmp_path / "out" / "noop.h").read_text()
    assert "CUresult noop_launch(CUstream stream);" in header
    assert "params_arg" not in (tmp_path / "out" / "noop.c").read_text()
    assert "launch_kernel_ex(&config, function, NULL, NULL)" in \
        (tmp_path / "out" / "noop.c").read_text()
    compile_c(tmp_path / "out" / "noop.c", tmp_path)


def test_cli_errors():
    proc = run_cli("examples.hopper.rms_norm", "-o", "/tmp/never")
    assert proc.returncode != 0 and "MODULE:KERNEL" in proc.stderr
    proc = run_cli("examples.hopper.rms_norm:nothing_here", "-o", "/tmp/never")
    assert proc.returncode != 0 and "has no 'nothing_here'" in proc.stderr
    proc = run_cli("examples.hopper.rms_norm:build_rms_norm", "--shape", "B16", "-o", "/tmp/n")
    assert proc.returncode != 0 and "NAME=VALUE" in proc.stderr


def test_shape_values():
    assert parse_value("1024") == 1024 and parse_value("1e-6") == 1e-6
    assert parse_value("True") is True and parse_value("'K'") == "K"
    assert parse_value("K") == "K"
    assert parse_value("bf16") is bf16 and parse_value("f32") is f32


# -- the generated C -------------------------------------------------------------------

def test_raw_parameters_are_arguments_unless_baked(tmp_path):
    compiled = scale.compile(N=4096)
    header, source = write_c(compiled)
    # n and alpha are arguments; N (a shape variable) is baked.
    assert ("CUresult scale_launch(CUstream stream, CUdeviceptr X, CUdeviceptr Y, "
            "uint32_t n, float alpha);") in header
    assert "uint32_t N = 4096;  /* baked at export */" in source
    assert "void *params[] = {&X, &Y, &n, &alpha, &N};" in source
    assert "#define SCALE_GRID_X 32\n" in header
    assert "(baked: N=4096)" in header
    paths = export(compiled, str(tmp_path))
    compile_c(paths["source"], tmp_path)


def test_tensormap_raw_parameter_is_a_pointer(tmp_path):
    @kernel(arch="sm_90a", grid=(1, 1, 1), block=(32, 1, 1),
            raw_params=[("b8.align64.array128", "tmap"), ("u64.ptr.global.palign1", "out")])
    def takes_map(stream):
        ptx.ret()

    header, source = write_c(takes_map.compile())
    assert ("CUresult takes_map_launch(CUstream stream, CUdeviceptr stream_, "
            "const CUtensorMap *tmap, uint64_t out);") in header
    assert "void *params[] = {&stream_, (void *)tmap, &out};" in source
    paths = export(takes_map.compile(), str(tmp_path))
    compile_c(paths["source"], tmp_path)


def test_export_errors():
    @kernel(arch="sm_90a", block=(32, 1, 1))
    def gridless():
        ptx.ret()

    with pytest.raises(ExportError, match="needs grid=..."):
        write_c(gridless.compile())

    @kernel(arch="sm_90a", grid=(1, 1, 1), raw_params=[("u32.array4", "four")])
    def array_param():
        ptx.ret()

    with pytest.raises(ExportError, match="'four'"):
        write_c(array_param.compile())


def test_c_names():
    assert c_name("X") == "X" and c_name("int") == "int_" and c_name("stream") == "stream_"
    assert c_name("function") == "function_" and c_name("a.b") == "a_b"


# -- building and running here, without a driver ---------------------------------------

def test_launcher_without_a_driver_fails_cleanly(tmp_path):
    if os.path.exists("/dev/nvidiactl"):
        pytest.skip("a GPU driver is present: test/gpu/test_aot_gpu.py runs the launcher")
    paths = export(scale.compile(N=256), str(tmp_path))
    (tmp_path / "nodriver.c").write_text(
        '#include "scale.h"\n#include <stdio.h>\n'
        "int main(void) {\n"
        "  CUresult r = scale_launch(0, 0, 0, 1u, 2.0f);\n"
        '  printf("%d|%s\\n", (int)r, scale_last_error());\n'
        "  return 0;\n}\n")
    exe = tmp_path / "nodriver"
    proc = subprocess.run([shutil.which("gcc"), "-std=c11", "-Wall", "-Werror",
                           f"-I{tmp_path}", f"-I{cuda_root()}/include",
                           str(tmp_path / "nodriver.c"), paths["source"], "-ldl",
                           "-o", str(exe)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    out = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout
    code, message = out.strip().split("|")
    assert int(code) == 303   # CUDA_ERROR_SHARED_OBJECT_INIT_FAILED
    assert message.startswith("scale: cannot load libcuda.so.1") and "NVIDIA driver" in message


def test_gpu_test_program_links_here(tmp_path):
    """test/gpu/aot_main.cpp with an exported GEMM: compiles and links
    (g++, the static CUDA runtime, -ldl) as the GPU test builds it."""
    from examples.hopper.gemm import build_gemm
    paths = export(build_gemm(512, 512, 256, cluster=2).compile(), str(tmp_path))
    obj = compile_c(paths["source"], tmp_path)
    exe = tmp_path / "gemm_main"
    gxx = shutil.which("g++")
    assert gxx, "g++ not found"
    proc = subprocess.run(
        [gxx, "-std=c++17", "-O2", "-Wall", "-Wextra", "-Werror", f"-I{tmp_path}",
         f"-I{cuda_root()}/include", '-DKERNEL_HEADER="gemm.h"',
         "-DCALL=gemm_launch(0, d[0], d[1], d[2])", "-DLAST_ERROR=gemm_last_error",
         "-DUNLOAD=gemm_unload", MAIN_CPP, str(obj), f"-L{cuda_root()}/lib64",
         "-lcudart_static", "-ldl", "-lpthread", "-lrt", "-o", str(exe)],
        capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert os.access(exe, os.X_OK)


def test_in_place_inputs_are_labelled():
    @kernel(arch="sm_90a", in_specs=(Tile(128, f32),), grid=(1, 1, 1), block=(128, 1, 1),
            writes=("X",))
    def bump(X):
        ptx.ret()

    header, _ = write_c(bump.compile())
    assert "X: device address of f32[128], row-major (input, written in place)" in header
