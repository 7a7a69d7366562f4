"""pyptx._runtime: compiling PTX (ptxas and the cubin cache), argument
checks, and the errors without a driver (on a machine with one, those are
skipped; test/gpu/test_runtime_gpu.py launches real kernels)."""
import os

import pytest

from pyptx import _runtime as rt

HAS_DRIVER = rt.driver_available()
no_driver = pytest.mark.skipif(HAS_DRIVER, reason="a driver is installed")

HEADER = ".version 8.0\n.target sm_90a\n.address_size 64\n\n"

TINY = HEADER + """.visible .entry tiny(.param .u64 out, .param .u32 value)
{
  .reg .b32 %r<2>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  ld.param.u32 %r1, [value];
  st.global.u32 [%rd1], %r1;
  ret;
}
"""


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    """Every test gets an empty cubin cache of its own."""
    monkeypatch.setenv("PYPTX_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


# -- compiling ----------------------------------------------------------------

def test_compile_gives_a_cubin_and_caches_it(cache):
    cubin = rt.compile_ptx(TINY, "sm_90a", "tiny")
    assert cubin[:4] == b"\x7fELF"
    assert not rt.last_compile_cached()
    files = os.listdir(cache)
    assert len(files) == 1 and files[0].endswith(".cubin") and len(files[0]) == 64 + 6
    assert (cache / files[0]).read_bytes() == cubin

    assert rt.compile_ptx(TINY, "sm_90a", "tiny") == cubin
    assert rt.last_compile_cached()


def test_the_cache_is_read(cache):
    rt.compile_ptx(TINY, "sm_90a", "tiny")
    [name] = os.listdir(cache)
    (cache / name).write_bytes(b"from the cache")
    assert rt.compile_ptx(TINY, "sm_90a", "tiny") == b"from the cache"
    # Another PTX text is another key.
    assert rt.compile_ptx(TINY + "\n", "sm_90a", "tiny")[:4] == b"\x7fELF"
    assert not rt.last_compile_cached()


def test_cache_dir(monkeypatch, cache):
    assert rt.cache_dir() == str(cache)
    monkeypatch.delenv("PYPTX_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", "/somewhere")
    assert rt.cache_dir() == "/somewhere/pyptx"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert rt.cache_dir() == os.path.expanduser("~/.cache/pyptx")


def test_ptxas_error_names_the_kernel():
    bad = TINY.replace("st.global.u32", "bogus.u32")
    with pytest.raises(RuntimeError) as info:
        rt.compile_ptx(bad, "sm_90a", "broken")
    message = str(info.value)
    assert message.startswith("compiling kernel 'broken' with ptxas for sm_90a:\n")
    assert "broken.ptx, line 12; error" in message
    assert "'bogus'" in message
    assert not rt.last_compile_cached()


def test_missing_ptxas(monkeypatch):
    monkeypatch.setenv("PYPTX_PTXAS", "/nonexistent/ptxas")
    with pytest.raises(RuntimeError, match="cannot run ptxas '/nonexistent/ptxas'"):
        rt.compile_ptx(TINY, "sm_90a", "tiny")
    monkeypatch.setenv("PYPTX_PTXAS", "none")
    with pytest.raises(RuntimeError, match="compiling kernel 'tiny': no ptxas"):
        rt.compile_ptx(TINY, "sm_90a", "tiny")


def test_compile_default_name():
    with pytest.raises(RuntimeError, match="compiling kernel 'kernel' with ptxas"):
        rt.compile_ptx("nonsense", "sm_90a")


# -- plans and arguments -----------------------------------------------------

def test_plan_properties():
    k = rt.Kernel(TINY, "tiny", "sm_90a")
    assert (k.name, k.arch, k.ptx) == ("tiny", "sm_90a", TINY)
    plan = rt.LaunchPlan(k, (4, 2), 128, (2, 1, 1), 1024,
                         ["u8", "u32", "u16", "ptr", "tensormap", "f32", "f64"])
    assert plan.grid == (4, 2, 1) and plan.block == (128, 1, 1)
    assert plan.cluster == (2, 1, 1) and plan.shared_bytes == 1024
    assert plan.params == ["u8", "u32", "u16", "ptr", "tensormap", "f32", "f64"]
    assert plan.param_offsets == [0, 4, 8, 16, 64, 192, 200]
    assert plan.param_buffer_size == 208
    # Positional, as pyptx.runtime.Launch calls it; cluster and the rest default.
    assert rt.LaunchPlan(k, 1, 32).params == []


def test_plan_argument_errors():
    k = rt.Kernel(TINY, "tiny", "sm_90a")
    with pytest.raises(ValueError, match=r"parameter 1 of kernel 'tiny' has kind 'i32'; "
                                         r"the kinds are u8, u16, .*, ptr, tensormap"):
        rt.LaunchPlan(k, 1, 32, 1, 0, ["ptr", "i32"])
    with pytest.raises(TypeError):
        rt.LaunchPlan(k, 1, 32, 1, 0, ["ptr", 3])
    with pytest.raises(ValueError, match=r"grid \(0, 1, 1\) has a dimension out of range"):
        rt.LaunchPlan(k, (0, 1, 1), 32)
    with pytest.raises(ValueError, match="block takes 1 to 3 dimensions, got 4"):
        rt.LaunchPlan(k, 1, (1, 1, 1, 1))
    with pytest.raises(TypeError, match="cluster must be an int or a tuple"):
        rt.LaunchPlan(k, 1, 1, "2")
    with pytest.raises(TypeError, match="grid dimensions must be ints, got float"):
        rt.LaunchPlan(k, (1.0,), 1)
    with pytest.raises(TypeError):
        rt.LaunchPlan(None, 1, 1)


def test_launch_argument_errors():
    """Checked before the driver is needed, so the same everywhere."""
    plan = rt.LaunchPlan(rt.Kernel(TINY, "tiny", "sm_90a"), 1, 32, 1, 0,
                         ["ptr", "u32", "f32", "tensormap"])
    with pytest.raises(TypeError, match="kernel 'tiny' takes 4 parameter values, got 2"):
        plan.launch(0, 1, 2)
    with pytest.raises(TypeError, match="takes 4 parameter values, got 0 and no stream"):
        plan.launch()
    with pytest.raises(TypeError, match="no keyword arguments"):
        plan.launch(0, 1, 2, 3.0, bytes(128), extra=1)
    with pytest.raises(TypeError, match="the stream must be a CUstream handle as an int"):
        plan.launch(None, 1, 2, 3.0, bytes(128))
    with pytest.raises(TypeError, match=r"parameter 0 \(ptr\) of kernel 'tiny' takes an int, got float"):
        plan.launch(0, 1.5, 2, 3.0, bytes(128))
    with pytest.raises(OverflowError, match=r"parameter 1 \(u32\) of kernel 'tiny' is out of range, got -1"):
        plan.launch(0, 1, -1, 3.0, bytes(128))
    with pytest.raises(OverflowError, match=r"parameter 1 \(u32\) .* got 4294967296"):
        plan.launch(0, 1, 2**32, 3.0, bytes(128))
    with pytest.raises(TypeError, match=r"parameter 2 \(f32\) of kernel 'tiny' takes a float, got str"):
        plan.launch(0, 1, 2, "3", bytes(128))
    with pytest.raises(TypeError, match=r"parameter 3 \(tensormap\) .* takes the 128 bytes"):
        plan.launch(0, 1, 2, 3.0, bytes(64))
    with pytest.raises(TypeError, match="doesn't apply to a 'int' object"):
        rt.LaunchPlan.launch(5, 0)


def test_encode_tensor_map_argument_errors():
    def encode(**kw):
        args = dict(dtype="f16", global_address=0x1000, dims=[64, 64],
                    strides_bytes=[128], box=[64, 64])
        args.update(kw)
        return rt.encode_tensor_map(**args)

    with pytest.raises(RuntimeError, match="rank must be 1 to 5, got 6 dims"):
        encode(dims=[2] * 6, strides_bytes=[16] * 5, box=[2] * 6)
    with pytest.raises(RuntimeError, match="rank 2 takes 1 global strides"):
        encode(strides_bytes=[])
    with pytest.raises(RuntimeError, match="rank 2 takes 2 element strides, got 1"):
        encode(element_strides=[1])
    with pytest.raises(RuntimeError, match="global address 0x1008 is not 16-byte aligned"):
        encode(global_address=0x1008)
    with pytest.raises(RuntimeError, match="box dim 0 is 0, must be 1 to 256"):
        encode(box=[0, 64])
    with pytest.raises(ValueError, match="dtype 'f8' is not one of u8, u16"):
        encode(dtype="f8")
    with pytest.raises(ValueError, match="swizzle '256B' is not one of none, 32B, 64B, 128B"):
        encode(swizzle="256B")
    with pytest.raises(ValueError, match="l2_promotion"):
        encode(l2_promotion="512B")
    with pytest.raises(ValueError, match="oob_fill 'inf'"):
        encode(oob_fill="inf")


# -- without a driver ----------------------------------------------------------

NO_DRIVER = (r"^pyptx runtime: cannot load libcuda\.so\.1 \(.*\): "
             r"launching needs an NVIDIA driver$")


def test_driver_available_is_a_bool():
    assert rt.driver_available() is HAS_DRIVER


@no_driver
def test_launch_without_driver():
    plan = rt.LaunchPlan(rt.Kernel(TINY, "tiny", "sm_90a"), 1, 32, 1, 0, ["ptr", "u32"])
    for _ in range(2):  # the second attempt says the same
        with pytest.raises(RuntimeError, match=NO_DRIVER):
            plan.launch(0, 0, 1)
    with pytest.raises(RuntimeError, match=NO_DRIVER):
        rt.synchronize()


@no_driver
def test_encode_tensor_map_without_driver():
    with pytest.raises(RuntimeError, match=NO_DRIVER):
        rt.encode_tensor_map("f32", 0x1000, [64, 64], [256], [32, 32])


def test_launch_shape_checks_name_the_kernel_and_the_shapes():
    from pyptx.runtime import ArgumentError, check_launch_shape
    check_launch_shape("k", (4, 2, 1), (2, 2, 1), {})
    with pytest.raises(ArgumentError, match=r"k: grid \(0, 1, 1\) for N=64 has a zero dim"):
        check_launch_shape("k", (0, 1, 1), (1, 1, 1), {"N": 64})
    with pytest.raises(ArgumentError, match=r"k: cluster \(2, 1, 1\) does not divide grid "
                                            r"\(3, 1, 1\) in x \(3 % 2 = 1\)"):
        check_launch_shape("k", (3, 1, 1), (2, 1, 1), {})
