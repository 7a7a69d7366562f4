"""Launching kernels: what every framework path shares.

`Launch` is one specialisation of a kernel for its arguments' shapes,
dtypes and template parameters: the traced module and the native launch
plan (pyptx._runtime, C++, no MLIR). The framework glue (runtime/torch.py,
runtime/jax.py) checks its arguments against the kernel's Tiles with
`bind_shapes`, caches Launches, and launches on the framework's stream.
"""
from __future__ import annotations

import inspect
import logging

from pyptx._log import logger
from pyptx.toolchain import pin_ptxas_for_runtime

from pyptx.errors import PyptxError

# Raw parameter types -> the native plan's parameter kinds.
_PARAM_KINDS = {
    "u8": "u8", "b8": "u8", "u16": "u16", "b16": "u16", "u32": "u32", "b32": "u32",
    "s32": "s32", "u64": "u64", "b64": "u64", "s64": "s64", "f32": "f32", "f64": "f64",
}


# PTX types -> cuTensorMapEncodeTiled's element types, where the names differ.
_TMA_DTYPES = {"b8": "u8", "s8": "u8", "e4m3": "u8", "e5m2": "u8", "b16": "u16",
               "s16": "u16", "b32": "u32", "b64": "u64"}


class ArgumentError(PyptxError, TypeError):
    """A kernel argument that does not match the kernel's specs: names the
    parameter, what was expected and what was given."""


def launch_kind(kernel, p) -> str:
    """The native plan's kind of raw parameter `p` (a kernel.RawParam): its
    scalar kind; "u64" for a pointer; "tensormap" for a 128-byte array
    aligned to 64 (a CUtensorMap passed by value). Others have no launch
    form: ArgumentError naming the parameter."""
    if not p.count and not p.align and p.type in _PARAM_KINDS:
        return _PARAM_KINDS[p.type]
    if p.count and p.nbytes == 128 and p.align >= 64:
        return "tensormap"
    raise ArgumentError(f"{kernel.name}: raw parameter {p.name!r} ({p.spelling}) cannot "
                        f"be passed at launch (the runtime passes {', '.join(_PARAM_KINDS)} "
                        f"scalars and 128-byte arrays aligned to 64)")


_MISSING = object()  # a raw value to take from the shape variables/template


def split_raw(kernel, args, kwargs, n_in, what, is_array):
    """(inputs, raws) of a call: the first n_in positional arguments are the
    inputs; raw values follow positionally, then by name (popped from
    kwargs), _MISSING for each one to be filled by fill_raw."""
    names = kernel.raw_names
    if len(args) < n_in or len(args) > n_in + len(names):
        raise ArgumentError(
            f"{kernel.name}: expected {n_in} input {what} {kernel.tensor_names[:n_in]}"
            + (f" and the raw parameters {names}" if names else "")
            + f", got {len(args)} positional arguments")
    extra = args[n_in:]
    for name, value in zip(names, extra):
        if is_array(value):
            raise ArgumentError(
                f"{kernel.name}: raw parameter {name!r} takes a number, got an array; "
                f"outputs {kernel.tensor_names[n_in:]} are returned, not passed")
    return args[:n_in], (*extra, *[kwargs.pop(n, _MISSING) for n in names[len(extra):]])


def fill_raw(kernel, raws, env):
    """raws with each _MISSING value taken from `env` (the shape variables
    the inputs bound, then the template parameters); ArgumentError for one
    that env lacks."""
    if not any(v is _MISSING for v in raws):
        return raws
    values = []
    for p, value in zip(kernel.raw_params, raws):
        if value is _MISSING:
            if p.name not in env:
                raise ArgumentError(
                    f"{kernel.name}: raw parameter {p.name!r} ({p.spelling}) needs a "
                    f"value: pass it after the inputs or as {p.name}=..., or name a "
                    f"shape variable or template parameter {p.name!r}")
            value = env[p.name]
            value = float(value) if p.type.startswith("f") else int(value)
        values.append(value)
    return tuple(values)


def raw_env(kernel, bound: dict, template: dict) -> dict:
    """What missing raw values are taken from: the shape variables bound by
    the inputs, else the template parameters (defaults included)."""
    env = {k: v for k, v in kernel.template_params.items()
           if v is not inspect.Parameter.empty}
    env.update(template)
    env.update(bound)
    return env


def runtime():
    """pyptx._runtime, or an ImportError that says what is missing."""
    global _ptxas_pinned
    try:
        from pyptx import _runtime
    except ImportError as e:
        raise ImportError(f"pyptx._runtime (the launch library) is not built: {e}") from e
    if not _ptxas_pinned:  # one ptxas rule for Python and the C++ launch library
        _ptxas_pinned = True
        pin_ptxas_for_runtime()
    return _runtime


_ptxas_pinned = False


def log_compile(name: str, seconds: float) -> None:
    """Logs how the last compile or first launch on this thread got its
    cubin: from the runtime's cache (a hit) or from ptxas (a miss)."""
    if logger.isEnabledFor(logging.INFO):
        hit = runtime().last_compile_cached()
        logger.info("%s: cubin %s (%.1f ms)", name,
                    "from the cache" if hit else "compiled (cache miss)", seconds * 1e3)


def check_arrays(kernel, inputs, array_type, what: str, dtype_of,
                 same_width_int=None) -> dict:
    """The shape variables the inputs bind, after checking that each is an
    `array_type` ("a torch tensor", "a JAX array": `what`) of the dtype
    `dtype_of(tile.dtype)` (or, where `same_width_int(got, want)` says both
    are integers of one width, that one: an int32 tensor for a u32 Tile)
    and of its Tile's shape."""
    for name, tile, x in zip(kernel.tensor_names, kernel.in_specs, inputs):
        if not isinstance(x, array_type):
            raise ArgumentError(f"{kernel.name}: parameter {name!r} must be {what} "
                                f"({tile}), got {type(x).__name__}")
        want = dtype_of(tile.dtype)
        if x.dtype != want and not (same_width_int and same_width_int(x.dtype, want)):
            raise ArgumentError(f"{kernel.name}: parameter {name!r} must be {want} "
                                f"({tile}), got {x.dtype}")
    return bind_shapes(kernel, [tuple(x.shape) for x in inputs])


def bind_shapes(kernel, shapes, names=None) -> dict:
    """The kernel's shape variables bound from the inputs' `shapes` (tuples,
    one per in_spec); raises ArgumentError naming the parameter when a rank
    or a fixed dimension differs, or a variable takes two values."""
    names = names or kernel.tensor_names
    bound: dict = {}
    for name, tile, shape in zip(names, kernel.in_specs, shapes):
        if len(shape) != len(tile.dims):
            raise ArgumentError(f"{kernel.name}: parameter {name!r} must have rank "
                                f"{len(tile.dims)} ({tile}), got shape {tuple(shape)}")
        for axis, (dim, size) in enumerate(zip(tile.dims, shape)):
            if isinstance(dim, str):
                if bound.setdefault(dim, size) != size:
                    raise ArgumentError(
                        f"{kernel.name}: parameter {name!r} dimension {axis} is {dim}="
                        f"{bound[dim]} from an earlier argument, got {size} "
                        f"(shape {tuple(shape)})")
            elif dim != size:
                raise ArgumentError(f"{kernel.name}: parameter {name!r} dimension "
                                    f"{axis} must be {dim} ({tile}), got shape "
                                    f"{tuple(shape)}")
    return bound


def output_shapes(kernel, bound) -> list[tuple]:
    shapes = []
    for name, tile in zip(kernel.tensor_names[len(kernel.in_specs):], kernel.out_specs):
        shape = tile.resolve(bound)
        if shape is None:
            missing = [d for d in tile.symbols if d not in bound]
            raise ArgumentError(f"{kernel.name}: output {name!r} ({tile}) needs "
                                f"{missing}, which no input binds")
        shapes.append(shape)
    return shapes


def check_launch_shape(name: str, grid, cluster, shapes: dict):
    """Raises ArgumentError before a launch the driver would refuse: a grid
    with a zero dimension, or one that is not a whole number of clusters."""
    where = (" for " + ", ".join(f"{k}={v}" for k, v in shapes.items())) if shapes else ""
    if any(d < 1 for d in grid):
        raise ArgumentError(f"{name}: grid {tuple(grid)}{where} has a zero dimension; "
                            f"a launch needs at least one CTA in each")
    cluster = tuple(cluster or (1, 1, 1))
    for axis, g, c in zip("xyz", grid, cluster):
        if g % c:
            raise ArgumentError(f"{name}: cluster {cluster} does not divide grid "
                                f"{tuple(grid)}{where} in {axis} ({g} % {c} = {g % c}); "
                                f"a grid must be a whole number of clusters")


class Launch:
    """One specialisation: the traced module, its output shapes and the
    native launch plan (made on first launch, which needs the driver)."""

    __slots__ = ("module", "out_shapes", "kinds", "raw_env", "_plan")

    def tensor_maps(self, tensors: dict) -> list:
        """The 128-byte descriptors of the module's TMA parameters, encoded
        for `tensors` (parameter name -> (address, shape), shape outermost
        first, row-major and contiguous)."""
        maps = []
        for d in self.module.tma_descs:
            address, shape = tensors[d.tensor]
            # Innermost first, as cuTensorMapEncodeTiled takes them; the
            # rank-3 (striped) form is the descriptor's own geometry.
            dims, strides, box = d.geometry(shape)
            maps.append(runtime().encode_tensor_map(
                _TMA_DTYPES.get(d.dtype.name, d.dtype.name), address, dims, strides, box,
                swizzle=d.swizzle, l2_promotion=d.l2_promotion, oob_fill=d.oob_fill))
        return maps

    def __init__(self, kernel, bound: dict, template: dict):
        shape_kwargs = {k: v for k, v in bound.items() if k in kernel.shape_symbols}
        self.module = kernel.module(**template, **shape_kwargs)
        if self.module.grid is None:
            raise ArgumentError(f"{kernel.name}: launching needs grid=... in @kernel")
        check_launch_shape(kernel.name, self.module.grid, self.module.cluster, shape_kwargs)
        self.out_shapes = output_shapes(kernel, bound)
        self.kinds = ["ptr"] * len(kernel.tensor_names) + [
            launch_kind(kernel, p) for p in kernel.raw_params] + [
            "tensormap"] * len(self.module.tma_descs)
        self.raw_env = raw_env(kernel, bound, template)
        self._plan = None

    @property
    def plan(self):
        if self._plan is None:
            rt = runtime()
            m = self.module
            self._plan = rt.LaunchPlan(rt.Kernel(m.ptx, m.name, m.arch), m.grid, m.block,
                                       m.cluster, m.smem, self.kinds)
        return self._plan
