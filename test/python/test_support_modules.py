"""pyptx.cache, pyptx.jax_support and pyptx.torch_support: the original
pyptx's documented names and signatures (docs/api/cache.md,
jax_support.md, torch_support.md), and what each does on pyptx's runtime.
(No GPU: JAX calls are lowered for CUDA, torch ones stop at the device
check or run under FakeTensorMode; ptxas compiles.)"""
import inspect
import os
import re
from pathlib import Path

import pytest

from pyptx import Tile, _runtime as rt
from pyptx.types import f32, u32

torch = pytest.importorskip("torch")
jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

from pyptx import cache, jax_support as js, torch_support as ts  # noqa: E402
from pyptx.runtime import ArgumentError  # noqa: E402


def sig(obj):
    return str(inspect.signature(obj)).replace("'", "")


@pytest.fixture(autouse=True)
def runtime_cache(tmp_path, monkeypatch):
    """An empty runtime cubin cache per test."""
    monkeypatch.setenv("PYPTX_CACHE_DIR", str(tmp_path / "runtime"))
    return tmp_path / "runtime"


SCALE = """.version 8.5
.target sm_90a
.address_size 64

.visible .entry scale(.param .u64 X, .param .u64 Y, .param .u32 n)
{
  .reg .b32 %r<2>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [X];
  ld.param.u64 %rd2, [Y];
  ld.param.u32 %r1, [n];
  ret;
}
"""


# -- pyptx.cache ----------------------------------------------------------------------

def test_cache_signatures():
    assert sig(cache.CacheKey) == ("(fn_id: str, template_kwargs: tuple[tuple[str, Any], "
                                   "...], input_shapes: tuple[tuple[tuple[int, ...], str], "
                                   "...], arch: str) -> None")
    assert sig(cache.CacheEntry) == ("(key: CacheKey, ptx_source: str, cubin_bytes: bytes | "
                                     "None, metadata: dict[str, Any] = <factory>) -> None")
    assert sig(cache.CubinCache) == "(cache_dir: Path | None = None, enable_disk: bool = True) -> None"
    assert sig(cache.CubinCache.get) == "(self, key: CacheKey) -> CacheEntry | None"
    assert sig(cache.CubinCache.put) == "(self, entry: CacheEntry) -> None"
    assert sig(cache.CubinCache.clear) == "(self, *, disk: bool = False) -> None"
    assert sig(cache.CacheKey.hash) == "(self) -> str"
    assert sig(cache.get_global_cache) == "() -> CubinCache"
    assert sig(cache.set_global_cache) == "(cache: CubinCache) -> None"
    assert isinstance(cache.DEFAULT_CACHE_DIR, Path)


def key(**change):
    fields = dict(fn_id="gemm", template_kwargs=(("BM", 128),),
                  input_shapes=(((64, 64), "f32"),), arch="sm_90a")
    fields.update(change)
    return cache.CacheKey(**fields)


def test_cache_key_hash_is_stable_and_tells_keys_apart():
    h = key().hash()
    assert re.fullmatch(r"[0-9a-f]{32}", h) and key().hash() == h
    others = {key(fn_id="gemm2").hash(), key(template_kwargs=(("BM", 64),)).hash(),
              key(input_shapes=(((64, 32), "f32"),)).hash(), key(arch="sm_100a").hash()}
    assert h not in others and len(others) == 4


def test_default_cache_dir_is_the_runtimes(monkeypatch):
    monkeypatch.delenv("PYPTX_CACHE_DIR")
    assert cache._runtime_cache_dir() == Path(rt.cache_dir())


def test_entries_round_trip_through_disk_with_the_runtimes_cubin(tmp_path, runtime_cache):
    entries = tmp_path / "entries"
    first = cache.CubinCache(entries)
    cubin = rt.compile_ptx(SCALE, "sm_90a", "scale")
    first.put(cache.CacheEntry(key(), SCALE, cubin, {"grid": (1, 1, 1)}))
    first.put(cache.CacheEntry(key(fn_id="ptx_only"), SCALE, None))
    assert first.get(key()).cubin_bytes == cubin and len(first) == 2
    names = sorted(os.listdir(entries))
    assert names == sorted(f"{k.hash()}.{ext}" for k in (key(), key(fn_id="ptx_only"))
                           for ext in ("json", "ptx"))
    assert [n for n in os.listdir(runtime_cache) if n.endswith(".cubin")] != []

    second = cache.CubinCache(entries)              # a new process, say
    entry = second.get(key())
    assert entry.ptx_source == SCALE and entry.cubin_bytes == cubin
    assert rt.last_compile_cached()                 # read from the runtime's cache
    assert entry.metadata == {"grid": [1, 1, 1]}
    assert second.get(key(fn_id="ptx_only")).cubin_bytes is None
    assert second.get(key(fn_id="missing")) is None
    assert key() in second and key(fn_id="missing") not in second

    second.clear(disk=True)
    assert len(second) == 0 and os.listdir(entries) == []
    assert not [n for n in os.listdir(runtime_cache) if n.endswith(".cubin")]
    assert cache.CubinCache(entries).get(key()) is None


def test_memory_only_cache_writes_nothing(tmp_path, runtime_cache):
    c = cache.CubinCache(tmp_path / "none", enable_disk=False)
    entry = cache.CacheEntry(key(), SCALE, b"not compiled")
    c.put(entry)
    assert c.get(key()) is entry
    assert not (tmp_path / "none").exists() and not runtime_cache.exists()
    c.clear()
    assert c.get(key()) is None


def test_put_reports_ptxas_errors(tmp_path):
    c = cache.CubinCache(tmp_path / "e")
    with pytest.raises(RuntimeError, match=r"compiling kernel 'gemm'"):
        c.put(cache.CacheEntry(key(), SCALE.replace("ret;", "bogus;"), b""))


def test_global_cache(tmp_path):
    old = cache.get_global_cache()
    assert cache.get_global_cache() is old and old.cache_dir == cache.DEFAULT_CACHE_DIR
    mine = cache.CubinCache(tmp_path, enable_disk=False)
    cache.set_global_cache(mine)
    try:
        assert cache.get_global_cache() is mine
    finally:
        cache.set_global_cache(old)


# -- pyptx.jax_support ------------------------------------------------------------------

LAUNCH = ("cubin_handle: int, out_specs: Sequence[Tile], out_shape_env: dict[str, int], "
          "grid: tuple[int, int, int], block: tuple[int, int, int], cluster: "
          "tuple[int, int, int] = (1, 1, 1), smem_bytes: int = 0) -> Any")


def test_jax_support_signatures():
    assert sig(js.CubinRecord) == (
        "(handle: int, ptx_source: str, kernel_name: str, smem_bytes: int = 0, grid: "
        "tuple[int, int, int] = (1, 1, 1), block: tuple[int, int, int] = (1, 1, 1), "
        "cu_function: Optional[int] = None, module: Any = None, cubin_bytes: "
        "Optional[bytes] = None) -> None")
    assert sig(js.CubinRegistry) == "() -> None"
    assert sig(js.CubinRegistry.register) == (
        "(self, ptx_source: str, kernel_name: str, cubin_bytes: Optional[bytes] = None, "
        "smem_bytes: int = 0, grid: tuple[int, int, int] = (1, 1, 1), block: "
        "tuple[int, int, int] = (1, 1, 1), cu_function: Optional[int] = None, module: Any "
        "= None) -> int")
    assert sig(js.CubinRegistry.get) == "(self, handle: int) -> Optional[CubinRecord]"
    assert sig(js.CubinRegistry.clear) == "(self) -> None"
    assert sig(js.get_cubin_registry) == "() -> CubinRegistry"
    assert sig(js.shim_is_available) == "() -> bool"
    assert sig(js.shim_load_error) == "() -> Optional[str]"
    assert sig(js.compile_ptx_to_cubin) == (
        "(ptx_source: str, arch: str, kernel_name: str = , dynamic_smem_bytes: int = 0) "
        "-> Optional[tuple[int, Any]]")
    assert sig(js.register_launch_config) == (
        "(handle: int, cu_function: int, grid: tuple[int, int, int], block: tuple[int, "
        "int, int], cluster: tuple[int, int, int] = (1, 1, 1), smem_bytes: int = 0) -> None")
    assert sig(js.add_scalar_param_to_shim) == \
        "(handle: int, *, value_bits: int, size_bytes: int) -> None"
    assert sig(js.synthesize_tma_descriptor) == (
        "(shape: tuple[int, ...], dtype, layout, box_shape: tuple[int, ...] | None = None, "
        "placeholder_ptr: int = 0) -> tuple[Any, int, int]")
    assert sig(js.synthesize_tma_descriptor_3d) == (
        "(height: int, width: int, dtype, box_major: int, box_minor: int, *, swizzle_128b: "
        "bool = True, padding: bool = False, placeholder_ptr: int = 0) -> tuple")
    assert sig(js.add_tma_spec_to_shim) == ("(handle: int, xla_arg_index: int, host_blob_ptr: "
                                            "int, device_blob_ptr: int) -> None")
    assert sig(js.set_mock_ffi_callback) == "(callback: Optional[Callable]) -> None"
    assert sig(js.ensure_ffi_registered) == "() -> bool"
    assert sig(js.call_kernel_via_ffi) == f"(*inputs, {LAUNCH}"


@pytest.fixture
def registry():
    r = js.get_cubin_registry()
    r.clear()
    yield r
    r.clear()


def test_registry(registry):
    h = registry.register(SCALE, "", grid=(4,), block=(128, 1, 1))
    assert h == 1 and registry.register(SCALE, "other") == 2 and len(registry) == 2
    record = registry.get(h)
    assert (record.kernel_name, record.grid, record.block, record.cu_function) == \
        ("scale", (4, 1, 1), (128, 1, 1), None)
    assert registry.get(99) is None
    registry.clear()
    assert registry.get(h) is None and registry.register(SCALE, "scale") == 1


def test_the_launch_library_is_the_shim():
    assert js.shim_is_available() is True and js.shim_load_error() is None
    assert js.ensure_ffi_registered() is True


def test_compile_ptx_to_cubin_assembles_into_the_cache(runtime_cache):
    assert js.compile_ptx_to_cubin(SCALE, "sm_90a") is None
    [cubin] = os.listdir(runtime_cache)
    assert cubin.endswith(".cubin")
    with pytest.raises(RuntimeError, match=r"compiling kernel 'scale' with ptxas"):
        js.compile_ptx_to_cubin(SCALE.replace("ret;", "bogus;"), "sm_90a")


def test_launch_config_and_scalars_shape_the_plan(registry):
    h = registry.register(SCALE, "scale")
    js.register_launch_config(h, None, grid=(4, 2), block=(128,), cluster=(2, 1, 1),
                              smem_bytes=1024)
    js.add_scalar_param_to_shim(h, value_bits=7, size_bytes=4)
    record = registry.get(h)
    plan, _ = record.launch_plan(2, grid=(1, 1, 1), block=(1, 1, 1))
    assert plan.params == ["ptr", "ptr", "u32"]
    assert (plan.grid, plan.block, plan.cluster, plan.shared_bytes) == \
        ((4, 2, 1), (128, 1, 1), (2, 1, 1), 1024)
    assert record.scalar_values == [7]
    with pytest.raises(KeyError, match="no kernel is registered under handle 5"):
        js.register_launch_config(5, None, (1, 1, 1), (1, 1, 1))
    with pytest.raises(ValueError, match="size_bytes must be 1, 2, 4 or 8"):
        js.add_scalar_param_to_shim(h, value_bits=1, size_bytes=3)
    with pytest.raises(ValueError, match="does not fit 1 bytes"):
        js.add_scalar_param_to_shim(h, value_bits=256, size_bytes=1)


@pytest.mark.parametrize("call", [
    lambda: js.synthesize_tma_descriptor((64, 64), f32, None),
    lambda: js.synthesize_tma_descriptor_3d(64, 64, f32, 64, 64),
    lambda: js.add_tma_spec_to_shim(1, 0, 0, 0)])
def test_tma_descriptor_slots_are_not_available(call):
    with pytest.raises(NotImplementedError, match=r"pyptx passes TMA descriptors by value.*"
                                                  r"tensor\.tma_desc\(\)"):
        call()


def test_call_kernel_via_ffi_lowers_to_the_launch(registry):
    h = registry.register(SCALE, "scale")
    js.add_scalar_param_to_shim(h, value_bits=512, size_bytes=4)
    x = jnp.ones(512, jnp.float32)

    def f(a):
        return js.call_kernel_via_ffi(a, cubin_handle=h, out_specs=(Tile("N", f32),),
                                      out_shape_env={"N": 512}, grid=(4, 1, 1),
                                      block=(128, 1, 1))

    text = jax.jit(f).trace(x).lower(lowering_platforms=("cuda",)).as_text()
    call = re.search(r"custom_call @pyptx_launch\(%arg0\) \{.*plan = (\d+) : i64.*\} : "
                     r"\(tensor<512xf32>\) -> tensor<512xf32>", text)
    assert call, text
    plan, plan_id = registry.get(h).launch_plan(2, (4, 1, 1), (128, 1, 1))
    assert int(plan_id) == int(call.group(1)) and plan.grid == (4, 1, 1)
    with pytest.raises(KeyError, match=r"out_shape_env lacks \['N'\]"):
        js.call_kernel_via_ffi(x, cubin_handle=h, out_specs=(Tile("N", f32),),
                               out_shape_env={}, grid=(1,), block=(1,))


def test_mock_ffi_callback_intercepts_the_call():
    seen = []
    js.set_mock_ffi_callback(lambda *a, **kw: seen.append((a, kw)) or "mocked")
    try:
        assert js.call_kernel_via_ffi(1, 2, cubin_handle=9, out_specs=(), out_shape_env={},
                                      grid=(1, 1, 1), block=(32, 1, 1)) == "mocked"
    finally:
        js.set_mock_ffi_callback(None)
    assert seen == [((1, 2), dict(cubin_handle=9, out_specs=(), out_shape_env={},
                                  grid=(1, 1, 1), block=(32, 1, 1), cluster=(1, 1, 1),
                                  smem_bytes=0))]
    with pytest.raises(KeyError, match="handle 9"):
        js.call_kernel_via_ffi(1, cubin_handle=9, out_specs=(), out_shape_env={},
                               grid=(1, 1, 1), block=(1, 1, 1))


# -- pyptx.torch_support -----------------------------------------------------------------

def test_torch_support_signatures():
    assert sig(ts.is_torch_tensor) == "(obj: Any) -> bool"
    assert sig(ts.any_torch_tensors) == "(inputs: Sequence[Any]) -> bool"
    assert sig(ts.call_kernel_via_torch) == f"(*inputs, {LAUNCH}"
    assert sig(ts.call_kernel_via_torch_compile) == f"(*inputs, {LAUNCH}"
    assert sig(ts.extract_input_shapes) == "(inputs) -> list[tuple[int, ...]]"
    assert sig(ts.get_or_register_torch_op) == (
        "(cubin_handle: int, out_specs: Sequence[Tile], out_shape_env: dict[str, int], "
        "grid: tuple[int, int, int], block: tuple[int, int, int], cluster: tuple[int, int, "
        "int], smem_bytes: int)")
    assert sig(ts.differentiable_kernel) == (
        "(forward_kernel, backward_kernel, *, save_for_backward: Sequence[int] | None = "
        "None, num_grad_inputs: int | None = None)")


def test_tensor_predicates_and_shapes():
    t = torch.zeros(2, 3)
    assert ts.is_torch_tensor(t) and not ts.is_torch_tensor(jnp.zeros(2))
    assert ts.any_torch_tensors([1, t]) and not ts.any_torch_tensors([1, 2.0])
    assert ts.extract_input_shapes([t, torch.zeros(5)]) == [(2, 3), (5,)]


def test_call_kernel_via_torch_checks_its_inputs(registry):
    h = registry.register(SCALE, "scale")
    launch = dict(cubin_handle=h, out_specs=(Tile("N", f32),), out_shape_env={"N": 8},
                  grid=(1, 1, 1), block=(32, 1, 1))
    with pytest.raises(ValueError, match="at least one input tensor"):
        ts.call_kernel_via_torch(**launch)
    with pytest.raises(ArgumentError, match=r"scale: input 0 must be a contiguous tensor "
                                            r"on the CUDA device of input 0, got one on cpu"):
        ts.call_kernel_via_torch(torch.zeros(8), **launch)


def test_torch_op_gives_output_shapes_and_traces_under_compile(registry):
    from torch._subclasses.fake_tensor import FakeTensorMode

    h = registry.register(SCALE, "scale")
    args = (h, (Tile("N", f32), Tile(2, u32)), {"N": 8}, (1, 1, 1), (32, 1, 1), (1, 1, 1), 0)
    op = ts.get_or_register_torch_op(*args)
    assert ts.get_or_register_torch_op(*args) is op
    assert ts.get_or_register_torch_op(h, args[1], {"N": 16}, *args[3:]) is not op
    # Named by a hash of the kernel and its launch, not a counter: what
    # Inductor's on-disk cache calls by name means the same in every process.
    digest = op._name.split("_", 1)[1]
    h2 = registry.register(SCALE, "scale")
    again = ts.get_or_register_torch_op(h2, *args[1:])
    assert again._name.split("_", 1)[1] == digest and again._name != op._name
    with FakeTensorMode() as mode:
        a, b = op([mode.from_tensor(torch.zeros(8))])
    assert (a.shape, a.dtype, b.shape, b.dtype) == ((8,), torch.float32, (2,), torch.uint32)

    graphs = []

    def backend(gm, example_inputs):
        graphs.append(gm)
        return gm.forward

    def f(x):
        return ts.call_kernel_via_torch_compile(
            x, cubin_handle=h, out_specs=(Tile("N", f32),), out_shape_env={"N": 8},
            grid=(1, 1, 1), block=(32, 1, 1)) * 2

    # Registered eagerly first: a registration cannot be traced.
    ts.get_or_register_torch_op(h, (Tile("N", f32),), {"N": 8}, (1, 1, 1), (32, 1, 1),
                                (1, 1, 1), 0)
    with pytest.raises(ArgumentError, match="must be a contiguous tensor on the CUDA device"):
        torch.compile(f, fullgraph=True, backend=backend)(torch.zeros(8))
    assert "torch.ops.pyptx.handle" in graphs[0].code and "mul" in graphs[0].code
