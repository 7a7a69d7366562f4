"""The original pyptx's JAX runtime API, on pyptx's runtime.

``Kernel.__call__`` on JAX arrays needs none of this (it goes through
pyptx.runtime.jax). These names serve code written against the original's
lower layer: a registry of PTX kernels under integer handles, their launch
configuration and raw parameter values, and a ``jax.ffi.ffi_call`` that
launches one on XLA's stream::

    handle = get_cubin_registry().register(ptx_text, "scale")
    register_launch_config(handle, None, grid=(4, 1, 1), block=(128, 1, 1))
    add_scalar_param_to_shim(handle, value_bits=128, size_bytes=4)
    y = call_kernel_via_ffi(x, cubin_handle=handle, out_specs=(Tile("N", f32),),
                            out_shape_env={"N": 512}, grid=(4, 1, 1),
                            block=(128, 1, 1))

"The shim" of the original (a ctypes-loaded C++ library) is pyptx._runtime
here: one native module with the launcher and the XLA FFI handler. The
kernel's parameters are the call's input buffers, then its output buffers,
then the scalar values added with add_scalar_param_to_shim.

What the original does with cuda-python objects has no counterpart: pyptx's
runtime hands out no CUfunction pointers (compile_ptx_to_cubin returns None),
and TMA descriptors are encoded at each launch and passed by value
(synthesize_tma_descriptor* and add_tma_spec_to_shim raise
NotImplementedError saying so). Importing this module needs neither JAX nor
a GPU.
"""
from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Sequence

from pyptx.specs import Tile

_SCALAR_KINDS = {1: "u8", 2: "u16", 4: "u32", 8: "u64"}


def _dim3(value) -> tuple[int, int, int]:
    value = (value,) if isinstance(value, int) else tuple(value)
    return tuple(int(v) for v in value) + (1,) * (3 - len(value))


def _entry_name(ptx_source: str) -> str:
    found = re.search(r"\.entry\s+([A-Za-z_$][\w$]*)", ptx_source)
    if not found:
        raise ValueError("no .entry in the PTX source: pass kernel_name")
    return found.group(1)


def _target(ptx_source: str) -> str:
    found = re.search(r"^\s*\.target\s+(sm_\w+)", ptx_source, re.MULTILINE)
    if not found:
        raise ValueError("no .target line in the PTX source")
    return found.group(1)


# -- the registry -----------------------------------------------------------------

@dataclass
class CubinRecord:
    """A registered kernel and its launch configuration.

    ``cu_function`` and ``module`` are kept as given (pyptx's runtime needs
    neither: it compiles ``ptx_source`` through its cubin cache and loads it
    at the first launch); ``cubin_bytes`` likewise. ``cluster`` and the
    scalar parameters (``scalars``: (value_bits, size_bytes) pairs) are set
    by register_launch_config and add_scalar_param_to_shim."""

    handle: int
    ptx_source: str
    kernel_name: str
    smem_bytes: int = 0
    grid: tuple[int, int, int] = (1, 1, 1)
    block: tuple[int, int, int] = (1, 1, 1)
    cu_function: Optional[int] = None
    module: Any = None
    cubin_bytes: Optional[bytes] = None
    cluster: tuple[int, int, int] = field(default=(1, 1, 1), init=False)
    scalars: list = field(default_factory=list, init=False)
    configured: bool = field(default=False, init=False)
    _kernel: Any = field(default=None, init=False, repr=False)
    _plans: dict = field(default_factory=dict, init=False, repr=False)

    def launch_plan(self, n_buffers: int, grid, block, cluster=(1, 1, 1),
                    smem_bytes: int = 0):
        """The runtime's LaunchPlan for `n_buffers` device pointers and the
        scalars, with the registered configuration (register_launch_config),
        else the one given. Made once per shape of call."""
        if self.configured:
            config = (self.grid, self.block, self.cluster, self.smem_bytes)
        else:
            config = (_dim3(grid), _dim3(block), _dim3(cluster), int(smem_bytes))
        key = (n_buffers, config, tuple(self.scalars))
        found = self._plans.get(key)
        if found is None:
            from pyptx.runtime import runtime
            rt = runtime()
            if self._kernel is None:
                self._kernel = rt.Kernel(self.ptx_source, self.kernel_name,
                                         _target(self.ptx_source))
            kinds = ["ptr"] * n_buffers + [_SCALAR_KINDS[size] for _, size in self.scalars]
            found = self._plans[key] = [rt.LaunchPlan(self._kernel, *config, kinds), None]
        return found

    @property
    def scalar_values(self) -> list[int]:
        return [bits for bits, _ in self.scalars]


class CubinRegistry:
    """Thread-safe process-local table: handle (1, 2, ...) -> CubinRecord."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._records: dict[int, CubinRecord] = {}
        self._next = 1

    def register(self, ptx_source: str, kernel_name: str,
                 cubin_bytes: Optional[bytes] = None, smem_bytes: int = 0,
                 grid: tuple[int, int, int] = (1, 1, 1),
                 block: tuple[int, int, int] = (1, 1, 1),
                 cu_function: Optional[int] = None, module: Any = None) -> int:
        """Records a kernel (its PTX and `.entry` name, "" to take it from
        the PTX) and returns its handle."""
        with self._lock:
            handle = self._next
            self._next += 1
            self._records[handle] = CubinRecord(
                handle, ptx_source, kernel_name or _entry_name(ptx_source),
                int(smem_bytes), _dim3(grid), _dim3(block), cu_function, module,
                cubin_bytes)
            return handle

    def get(self, handle: int) -> Optional[CubinRecord]:
        """The record of `handle`, or None."""
        with self._lock:
            return self._records.get(handle)

    def clear(self) -> None:
        """Drops every record; handles start at 1 again."""
        with self._lock:
            self._records.clear()
            self._next = 1

    def __len__(self) -> int:
        return len(self._records)

    def record(self, handle: int) -> CubinRecord:
        found = self.get(handle)
        if found is None:
            raise KeyError(f"no kernel is registered under handle {handle} "
                           f"(get_cubin_registry().register(ptx, name) gives one)")
        return found


_REGISTRY = CubinRegistry()


def get_cubin_registry() -> CubinRegistry:
    """The process-wide registry."""
    return _REGISTRY


# -- the launch library ("the shim") ---------------------------------------------

_load_error: Optional[str] = None


def shim_is_available() -> bool:
    """Whether pyptx's launch library (pyptx._runtime: the launcher and the
    XLA FFI handler) imports. Launching needs a driver besides."""
    global _load_error
    try:
        from pyptx.runtime import runtime
        runtime()
    except ImportError as e:
        _load_error = str(e)
        return False
    return True


def shim_load_error() -> Optional[str]:
    """Why the launch library or the FFI registration failed last, or None."""
    shim_is_available()
    return _load_error


def compile_ptx_to_cubin(ptx_source: str, arch: str, kernel_name: str = "",
                         dynamic_smem_bytes: int = 0) -> Optional[tuple[int, Any]]:
    """Assembles `ptx_source` for `arch` with ptxas into the runtime's
    cubin cache (pyptx._runtime.compile_ptx), so its errors surface here
    (RuntimeError with ptxas's messages); without ptxas it does nothing
    (the driver compiles the PTX at the first launch).

    Returns None: pyptx's runtime hands out no (CUfunction, CUmodule) pair
    -- it loads the kernel itself at the first launch, and opts into
    `dynamic_smem_bytes` above 48 KiB then. Register the PTX with
    get_cubin_registry() and launch with call_kernel_via_ffi or
    pyptx.torch_support.call_kernel_via_torch."""
    from pyptx.runtime import runtime
    name = kernel_name or _entry_name(ptx_source)
    try:
        runtime().compile_ptx(ptx_source, arch, name)
    except RuntimeError as e:
        if ": no ptxas" not in str(e):
            raise
    return None


def register_launch_config(handle: int, cu_function: int, grid: tuple[int, int, int],
                           block: tuple[int, int, int],
                           cluster: tuple[int, int, int] = (1, 1, 1),
                           smem_bytes: int = 0) -> None:
    """Sets the launch configuration of the kernel under `handle`: its later
    launches use it whatever the call passes. `cu_function` is kept on the
    record, unused (None is fine)."""
    record = _REGISTRY.record(handle)
    record.cu_function = cu_function
    record.grid, record.block = _dim3(grid), _dim3(block)
    record.cluster, record.smem_bytes = _dim3(cluster), int(smem_bytes)
    record.configured = True


def add_scalar_param_to_shim(handle: int, *, value_bits: int, size_bytes: int) -> None:
    """Appends a raw scalar parameter to the kernel under `handle`: its
    `size_bytes` (1, 2, 4 or 8) little-endian bytes `value_bits` (a float's
    bit pattern for a float parameter), passed after the buffers."""
    if size_bytes not in _SCALAR_KINDS:
        raise ValueError(f"size_bytes must be 1, 2, 4 or 8, got {size_bytes}")
    if not 0 <= value_bits < 1 << (8 * size_bytes):
        raise ValueError(f"value_bits {value_bits} does not fit {size_bytes} bytes")
    _REGISTRY.record(handle).scalars.append((int(value_bits), size_bytes))


_TMA_INSTEAD = ("pyptx passes TMA descriptors by value, encoded at each launch: call "
                "tensor.tma_desc() in the kernel and launch it with Kernel.__call__, "
                "or encode one with pyptx._runtime.encode_tensor_map")


def synthesize_tma_descriptor(shape: tuple[int, ...], dtype, layout,
                              box_shape: tuple[int, ...] | None = None,
                              placeholder_ptr: int = 0) -> tuple[Any, int, int]:
    """Not available: the original builds a cuda-python CUtensorMap and a
    device copy of it. Raises NotImplementedError (see the message)."""
    raise NotImplementedError(f"synthesize_tma_descriptor: {_TMA_INSTEAD}")


def synthesize_tma_descriptor_3d(height: int, width: int, dtype, box_major: int,
                                 box_minor: int, *, swizzle_128b: bool = True,
                                 padding: bool = False, placeholder_ptr: int = 0) -> tuple:
    """Not available (see synthesize_tma_descriptor); the rank-3 Hopper
    encoding is Tile(..., tma_rank=3) with tensor.tma_desc()."""
    raise NotImplementedError(f"synthesize_tma_descriptor_3d: {_TMA_INSTEAD} (rank 3: "
                              f"Tile(..., tma_rank=3))")


def add_tma_spec_to_shim(handle: int, xla_arg_index: int, host_blob_ptr: int,
                         device_blob_ptr: int) -> None:
    """Not available: there are no device-side descriptor slots to patch.
    Raises NotImplementedError (see the message)."""
    raise NotImplementedError(f"add_tma_spec_to_shim: {_TMA_INSTEAD}")


# -- JAX --------------------------------------------------------------------------

_mock: Optional[Callable] = None
_ffi_lock = threading.Lock()


def set_mock_ffi_callback(callback: Optional[Callable]) -> None:
    """A test hook: while set, call_kernel_via_ffi returns
    ``callback(*inputs, cubin_handle=..., out_specs=..., out_shape_env=...,
    grid=..., block=..., cluster=..., smem_bytes=...)`` instead of building
    the XLA call. None removes it."""
    global _mock
    _mock = callback


def ensure_ffi_registered() -> bool:
    """Registers the runtime's FFI handler with JAX for CUDA as
    "pyptx_launch", once. False (the reason in shim_load_error()) when JAX
    or the launch library is missing or JAX refuses the target."""
    global _load_error
    with _ffi_lock:
        try:
            from pyptx.runtime.jax import _register_target
            _register_target()
        except Exception as e:  # ImportError, or JAX refusing the target
            _load_error = f"{type(e).__name__}: {e}"
            return False
    return True


def call_kernel_via_ffi(*inputs, cubin_handle: int, out_specs: Sequence[Tile],
                        out_shape_env: dict[str, int], grid: tuple[int, int, int],
                        block: tuple[int, int, int],
                        cluster: tuple[int, int, int] = (1, 1, 1),
                        smem_bytes: int = 0) -> Any:
    """Launches the kernel under `cubin_handle` on `inputs` (JAX arrays,
    eagerly or under jax.jit) through ``jax.ffi.ffi_call``: the outputs are
    allocated by XLA from `out_specs` with `out_shape_env` binding their
    shape variables, and the kernel gets the input buffers, the output
    buffers, then the scalars. Returns the output, or a tuple of them."""
    if _mock is not None:
        return _mock(*inputs, cubin_handle=cubin_handle, out_specs=out_specs,
                     out_shape_env=out_shape_env, grid=grid, block=block,
                     cluster=cluster, smem_bytes=smem_bytes)
    import jax
    import numpy as np

    from pyptx.runtime import runtime
    from pyptx.runtime.jax import TARGET, jax_dtype

    record = _REGISTRY.record(cubin_handle)
    results = [jax.ShapeDtypeStruct(_out_shape(tile, out_shape_env), jax_dtype(tile.dtype))
               for tile in out_specs]
    if not ensure_ffi_registered():
        raise RuntimeError(f"pyptx: cannot register the FFI target: {_load_error}")
    slot = record.launch_plan(len(inputs) + len(results), grid, block, cluster, smem_bytes)
    if slot[1] is None:  # the plan's id for the handler, registered once
        slot[1] = np.int64(runtime().register_plan(slot[0], record.scalar_values))
    outputs = jax.ffi.ffi_call(TARGET, results, has_side_effect=not results)(
        *inputs, plan=slot[1])
    return outputs[0] if len(outputs) == 1 else tuple(outputs)


def _out_shape(tile: Tile, env: dict) -> tuple:
    shape = tile.resolve(env)
    if shape is None:
        missing = [d for d in tile.symbols if d not in env]
        raise KeyError(f"out_shape_env lacks {missing} for the output {tile}")
    return shape
