"""JAX: ``kernel(x, w)`` on JAX arrays, eagerly or under ``jax.jit``.

Every call is ``jax.ffi.ffi_call("pyptx_launch", ...)``: an XLA custom call
whose typed FFI handler (C++, in pyptx._runtime) fills a launch plan's
pointer slots with the input and output buffers' device addresses and
launches on XLA's stream. The plan is named by the call's ``plan`` attribute,
an id from ``_runtime.register_plan``, made once per shapes, dtypes,
template parameters and raw values; raw values are static (Python numbers,
as under ``jax.jit``) and stored into the plan at registration. TMA
descriptors are encoded by the plan at each launch from the buffer of the
tensor they describe (LaunchPlan.encode_at_launch).

An input the kernel writes in place (TracedModule.writes: found by the
analysis, or declared with @kernel(writes=...)) is also an output of the
call, aliasing the input (``input_output_aliases``): the call returns the
kernel's outputs, then the new values of the inputs it writes. Under
``jax.jit(..., donate_argnums=...)`` XLA then reuses the input's buffer;
otherwise it copies the input first, and the caller's array is unchanged.
"""
from __future__ import annotations

import operator

import jax
import jax.numpy as jnp
import numpy as np

from pyptx import types as T
from pyptx.runtime import (_MISSING, _TMA_DTYPES, ArgumentError, Launch, check_arrays,
                           fill_raw, runtime, split_raw)

TARGET = "pyptx_launch"

_DTYPES = {
    "f32": jnp.float32, "tf32": jnp.float32, "f64": jnp.float64,
    "f16": jnp.float16, "bf16": jnp.bfloat16, "pred": jnp.bool_,
    "u8": jnp.uint8, "b8": jnp.uint8, "s8": jnp.int8, "s16": jnp.int16,
    "s32": jnp.int32, "s64": jnp.int64,
    "u16": jnp.uint16, "b16": jnp.uint16, "u32": jnp.uint32, "b32": jnp.uint32,
    "u64": jnp.uint64, "b64": jnp.uint64,
    "e4m3": jnp.float8_e4m3fn, "e5m2": jnp.float8_e5m2,
}

_registered = False


def jax_dtype(t: T.PtxType) -> np.dtype:
    try:
        return np.dtype(_DTYPES[t.name])
    except KeyError:
        raise ArgumentError(f"no JAX dtype for the PTX type {t}") from None


def _is_array(x) -> bool:
    """An array of at least one dimension (what an output would be)."""
    return isinstance(x, (jax.Array, np.ndarray)) and x.ndim > 0


def same_width_int(got, want) -> bool:
    """Whether two dtypes are integers of one width (int32, uint32)."""
    got, want = np.dtype(got), np.dtype(want)
    return got.kind in "iu" and want.kind in "iu" and got.itemsize == want.itemsize


def _register_target():
    """The FFI handler under TARGET for CUDA, once per process."""
    global _registered
    if not _registered:
        jax.ffi.register_ffi_target(TARGET, runtime().jax_handler(), platform="CUDA")
        _registered = True


class JaxLauncher:
    """Kernel.__call__ for JAX arrays (one per Kernel)."""

    fast = None  # no C++ call path (Kernel.__call__ tries a launcher's first)

    def __init__(self, kernel):
        self.kernel = kernel
        self.n_in = len(kernel.in_specs)
        self.raw_params = kernel.raw_params
        self.calls: dict = {}  # key -> (the ffi_call, its plan attribute)

    def __call__(self, args, kwargs):
        k = self.kernel
        if len(args) == self.n_in and not self.raw_params:
            inputs, raws = args, ()
        else:
            inputs, raws = split_raw(k, args, kwargs, self.n_in, "arrays", _is_array)
        values = self._static(raws) if raws else ()
        try:
            key = (tuple(kwargs.items()) if kwargs else (), values,
                   *[(x.shape, x.dtype) for x in inputs])
        except AttributeError:
            self._check(inputs)  # raises: not an array
            raise
        found = self.calls.get(key)
        if found is None:
            found = self.calls[key] = self._specialise(inputs, values, kwargs)
        for name, x in zip(k.tensor_names, inputs):
            if not isinstance(x, jax.core.Tracer):  # concrete: on the GPU?
                self._check_device(name, x)
        call, plan = found
        outputs = call(*inputs, plan=plan)
        if not outputs:
            return None
        return outputs[0] if len(outputs) == 1 else tuple(outputs)

    # -- specialisation --------------------------------------------------------------
    def _check(self, inputs):
        """The shape variables the inputs bind, after checking their types
        and dtypes."""
        return check_arrays(self.kernel, inputs, jax.Array, "a JAX array", jax_dtype,
                            same_width_int)

    def _check_device(self, name, x):
        platforms = {d.platform for d in x.devices()}
        if platforms != {"gpu"}:
            raise ArgumentError(f"{self.kernel.name}: parameter {name!r} must be on a "
                                f"CUDA device, got {', '.join(sorted(platforms))}")

    def _static(self, raws):
        """The raw values as Python numbers; raises ArgumentError naming the
        parameter for a value that is not one (a traced value, say)."""
        values = []
        for p, value in zip(self.raw_params, raws):
            name, t = p
            if value is _MISSING:  # filled from the shapes when specialised
                values.append(value)
                continue
            try:
                if isinstance(value, (str, bytes)):
                    raise TypeError
                values.append(float(value) if T.as_type(t).is_float
                              else operator.index(value))
            except (TypeError, ValueError):  # a tracer's ConcretizationTypeError too
                raise ArgumentError(
                    f"{self.kernel.name}: raw parameter {name!r} ({t}) takes a static "
                    f"Python number (it is compiled into the launch), got "
                    f"{type(value).__name__}") from None
        return tuple(values)

    def _specialise(self, inputs, values, template):
        k = self.kernel
        bound = self._check(inputs)
        launch = Launch(k, bound, template)
        module = launch.module
        values = fill_raw(k, values, launch.raw_env)
        _register_target()
        plan = launch.plan
        shapes = dict(zip(k.tensor_names, [*(x.shape for x in inputs), *launch.out_shapes]))
        first_map = len(k.tensor_names) + len(k.raw_params)
        for i, d in enumerate(module.tma_descs):
            dims, strides, box = d.geometry(shapes[d.tensor])
            plan.encode_at_launch(first_map + i, k.tensor_names.index(d.tensor),
                                  _TMA_DTYPES.get(d.dtype.name, d.dtype.name), dims,
                                  strides, box, swizzle=d.swizzle,
                                  l2_promotion=d.l2_promotion, oob_fill=d.oob_fill)
        written = [i for i, name in enumerate(k.tensor_names[:self.n_in])
                   if name in module.writes]
        # The maps' bytes are the plan's to encode; any placeholder does here.
        aliased = {"aliased_outputs": len(written)} if written else {}
        plan_id = np.int64(runtime().register_plan(
            plan, (*values, *[bytes(128)] * len(module.tma_descs)), **aliased))
        results = [jax.ShapeDtypeStruct(shape, jax_dtype(tile.dtype))
                   for shape, tile in zip(launch.out_shapes, k.out_specs)]
        aliases = {i: len(results) + j for j, i in enumerate(written)}
        results += [jax.ShapeDtypeStruct(inputs[i].shape, inputs[i].dtype) for i in written]
        call = jax.ffi.ffi_call(TARGET, results, has_side_effect=not results,
                                input_output_aliases=aliases)
        return call, plan_id


def launcher(kernel) -> JaxLauncher:
    """The kernel's JAX launcher (made once)."""
    found = kernel._launchers.get("jax")
    if found is None:
        found = kernel._launchers["jax"] = JaxLauncher(kernel)
    return found
