"""PyTorch: ``kernel(x, w)`` on CUDA tensors.

Eager calls take a short path: the Launch for the arguments' shapes,
dtypes and device is cached, each call checks contiguity, allocates the
outputs (or takes ``out=``) and launches on the current stream (so CUDA
graphs capture it). After a plain call (no keywords but out=), the next
calls of the same specialisation are checked and launched in C++
(pyptx._runtime.TorchCall); whatever it does not take comes back here.
Under ``torch.compile`` the call goes through an op of a
``torch.library.Library`` (one per kernel, template parameters and the
inputs it writes) whose fake implementation gives the outputs' shapes, so
``fullgraph=True`` traces it; the op launches through the same C++ call
(docs/design.md 11.3).
"""
from __future__ import annotations

import importlib
import os
import time
import weakref

import torch

from pyptx import types as T
from pyptx.errors import PyptxError
from pyptx.runtime import (ArgumentError, Launch, bind_shapes, check_arrays, log_compile,
                           fill_raw, launch_kind, output_shapes, raw_env,
                           runtime, split_raw)
from pyptx.runtime.inductor import call_directly

_DTYPES = {
    "f32": torch.float32, "tf32": torch.float32, "f64": torch.float64,
    "f16": torch.float16, "bf16": torch.bfloat16, "pred": torch.bool,
    "u8": torch.uint8, "b8": torch.uint8, "s8": torch.int8, "s16": torch.int16,
    "s32": torch.int32, "s64": torch.int64,
    "u16": torch.uint16, "b16": torch.uint16, "u32": torch.uint32, "b32": torch.uint32,
    "u64": torch.uint64, "b64": torch.uint64,
    "e4m3": torch.float8_e4m3fn, "e5m2": torch.float8_e5m2,
}

_used_names: dict = {}  # op name -> the kernel's weak ref (registered ops stay)
_LIBRARY = torch.library.Library("pyptx", "FRAGMENT")

# PYPTX_SYNC_LAUNCHES=1: every eager launch is followed by a synchronize, so
# a kernel that faults is named in the error (a fault is otherwise reported
# by whichever later call synchronizes, without the kernel's name).
SYNC_LAUNCHES = os.environ.get("PYPTX_SYNC_LAUNCHES", "") not in ("", "0")


class KernelFault(PyptxError, RuntimeError):
    """A kernel failed on the GPU (PYPTX_SYNC_LAUNCHES=1 names it)."""


def torch_dtype(t: T.PtxType):
    try:
        return _DTYPES[t.name]
    except KeyError:
        raise ArgumentError(f"no torch dtype for the PTX type {t}") from None


def _is_tensor(x) -> bool:
    """A tensor of at least one dimension (what an output would be)."""
    return isinstance(x, torch.Tensor) and x.dim() > 0


def same_width_int(got, want) -> bool:
    """Whether two torch dtypes are integers of one width (int32, uint32)."""
    def integer(d):
        return not d.is_floating_point and not d.is_complex and d != torch.bool
    return integer(got) and integer(want) and got.itemsize == want.itemsize


def _stream_of(device_index: int) -> int:
    return torch.cuda.current_stream(device_index).cuda_stream


# The raw stream handle without making a Stream object (what Triton uses).
_current_stream = getattr(torch._C, "_cuda_getCurrentRawStream", _stream_of)
# torch.cuda.current_device() without its lazy-init check (a CUDA tensor
# exists by the time it is asked).
_current_device = getattr(torch._C, "_cuda_getDevice", torch.cuda.current_device)
_is_compiling = torch.compiler.is_compiling
# (See there. Dynamo's own flag: a plain `return False` when not tracing,
# a quarter of is_compiling's cost on the eager path.)
# (pyptx.kernel the module: the package's attribute `kernel` is the decorator.)
importlib.import_module("pyptx.kernel")._torch_compiling = getattr(
    torch.compiler, "is_dynamo_compiling", _is_compiling)
# What the C++ call takes as tensors, exactly: subclasses (FakeTensor, the
# functional tensors of torch.export) take the Python path.
_TENSOR_TYPES = (torch.Tensor, torch.nn.Parameter)
# DLPack's C exchange table (torch 2.10 and later): C++ reads a tensor's
# address, shape, dtype and device in one call through it, and the stream.
_EXCHANGE_API = getattr(torch.Tensor, "__dlpack_c_exchange_api__", None)


class TorchLauncher:
    """Kernel.__call__ for torch tensors (one per Kernel)."""

    def __init__(self, kernel):
        self.kernel = kernel
        # What the traced call reads instead of `kernel` (a read of both the
        # kernel and its launcher's `kernel` costs a guard in Python).
        self.kernel_ref = kernel.ref
        self.n_in = len(kernel.in_specs)
        self.raw_names = kernel.raw_names
        self.launches: dict = {}
        # Whether the op depends on the inputs' shapes (written_inputs).
        self.symbolic = any(tile.symbols for tile in kernel.in_specs + kernel.out_specs)

    # -- the call ----------------------------------------------------------------
    # The last plain call's specialisation, checked and launched in C++
    # (pyptx._runtime.TorchCall.call): (inputs, out) -> the outputs, or
    # NotImplemented where the arguments differ.
    fast = None

    def __call__(self, args, kwargs):
        out = None
        if kwargs and "out" in kwargs and _out_names_outputs(self.kernel_ref):
            out = kwargs.pop("out")
        # Asked first: under torch.compile nothing eager is read (a read of
        # `fast` would be a guard, and each new specialisation a recompile).
        if _is_compiling() or torch.compiler.is_exporting():
            return self._traced(args, kwargs, out)
        if not kwargs and self.fast is not None:
            result = self.fast(args, out)
            if result is not NotImplemented:
                return result
        plain = not kwargs and len(args) == self.n_in
        if plain and not self.raw_names:
            inputs, raws = args, ()
        else:
            inputs, raws = split_raw(self.kernel, args, kwargs, self.n_in, "tensors",
                                     _is_tensor)
        return self.eager(inputs, raws, kwargs, out, remember=plain)

    def _traced(self, args, kwargs, out):
        """The call under torch.compile (or torch.export): the custom op,
        whose outputs are copied into out= in the graph."""
        if not kwargs and not self.raw_names and len(args) == self.n_in:
            inputs, raws = args, ()
        else:
            inputs, raws = split_raw(self.kernel, args, kwargs, self.n_in, "tensors",
                                     _is_tensor)
        if raws:
            bound = bind_shapes(self.kernel, [tuple(t.shape) for t in inputs])
            raws = fill_raw(self.kernel, raws, raw_env(self.kernel, bound, kwargs))
        result = self.op_for(*inputs, template=kwargs)(*inputs, *raws)
        if isinstance(result, list):
            result = tuple(result)
        return result if out is None else self._copy_into(result, out)

    def op_for(self, *inputs, template=None):
        """The custom op (torch.ops.pyptx.<kernel>_<hash>) of these template
        parameters for these inputs. It depends on the inputs the kernel
        writes, found by tracing it: at the inputs' shapes where its Tiles
        have shape variables (each such call specialises on the shapes),
        without them where the Tiles fix every dim."""
        shapes = (tuple(tuple(int(d) for d in t.shape) for t in inputs)
                  if self.symbolic else None)
        name = _op_name(self.kernel_ref, tuple(template.items()) if template else (),
                        shapes)
        return getattr(torch.ops.pyptx, name)

    def eager(self, inputs, raws, template, out=None, remember=False):
        """Launches on `inputs` (CUDA tensors) into `out` (None: new outputs);
        `remember`: a plain call (no keywords, raw values from the shapes),
        whose specialisation the next calls try first, in C++."""
        try:
            key = (tuple(template.items()) if template else (),
                   *[(t.shape, t.dtype, t.device) for t in inputs])
        except AttributeError:
            self._check(inputs)  # raises: not a tensor
            raise
        launch = self.launches.get(key)
        if launch is None:
            launch = self.launches[key] = self._specialise(inputs, template)
        if raws:
            raws = fill_raw(self.kernel, raws, launch.launch.raw_env)
        device = inputs[0].device
        for t in inputs:
            if not t.is_contiguous():
                self._check_contiguous(inputs)  # raises, naming the parameter
        if out is None:
            outputs = [torch.empty_like(inputs[like]) if like >= 0 else
                       torch.empty(shape, dtype=dtype, device=device)
                       for (shape, dtype), like in zip(launch.outputs, launch.like)]
        else:
            outputs = self._check_out(launch, out, device, inputs)
        index = device.index
        if index != _current_device():
            with torch.cuda.device(index):
                self._launch(launch, index, inputs, outputs, raws)
        else:
            self._launch(launch, index, inputs, outputs, raws)
        if remember:
            self.fast = self._fast_call(launch, inputs, raws)
        if not outputs:
            return None
        return outputs[0] if len(outputs) == 1 else tuple(outputs)

    def _launch(self, launch, index, inputs, outputs, raws):
        maps = ()
        if launch.launch.module.tma_descs:
            tensors = {name: (t.data_ptr(), tuple(t.shape)) for name, t in
                       zip(self.kernel.tensor_names, [*inputs, *outputs])}
            maps = launch.launch.tensor_maps(tensors)
        first = launch.launch._plan is None  # this launch compiles or reads the cache
        start = time.perf_counter() if first else 0.0
        # On the tensors' device, whatever CUDA context this thread has
        # (torch's current device can differ from it: docs/design.md 11).
        launch.launch.plan.launch_on(index, _current_stream(index),
                                     *[t.data_ptr() for t in inputs],
                                     *[t.data_ptr() for t in outputs], *raws, *maps)
        if first:
            log_compile(f"{self.kernel.name} first launch", time.perf_counter() - start)
        if SYNC_LAUNCHES:
            try:
                torch.cuda.synchronize(index)
            except RuntimeError as e:
                raise KernelFault(f"kernel {self.kernel.name!r} failed on the GPU "
                                  f"(cuda:{index}): {e}") from e

    def _fast_call(self, launch, inputs, raws):
        """The C++ call of this specialisation (made once), or None for one
        with tensor maps (encoded per call from the tensors' addresses)."""
        if launch.fast is None and not launch.launch.module.tma_descs and not SYNC_LAUNCHES:
            device = inputs[0].device
            # Empty tensors of the outputs' dtypes: the C++ side reads how
            # DLPack codes each dtype off them.
            samples = [*inputs, *[torch.empty(0, dtype=dtype, device=device)
                                  for _, dtype in launch.outputs]]
            launch.fast = runtime().TorchCall(
                launch.launch.plan, _TENSOR_TYPES,
                [(tuple(t.shape), t.dtype) for t in inputs],
                [(shape, dtype, like) for (shape, dtype), like in
                 zip(launch.outputs, launch.like)],
                samples, device, device.index, raws,
                (_current_stream, torch.empty_like, torch.empty),
                _EXCHANGE_API).call
        return launch.fast

    def _given_outputs(self, out) -> list:
        """out= as a list of one tensor per output (not yet checked)."""
        k = self.kernel
        names = k.tensor_names[self.n_in:]
        if not names:
            raise ArgumentError(f"{k.name}: out= given, but the kernel has no outputs")
        if isinstance(out, (tuple, list)):
            given = list(out)
        elif len(names) == 1:
            given = [out]
        else:
            raise ArgumentError(f"{k.name}: out= takes a tuple of {len(names)} tensors "
                                f"{names}, got {type(out).__name__}")
        if len(given) != len(names):
            raise ArgumentError(f"{k.name}: out= takes {len(names)} tensors {names}, "
                                f"got {len(given)}")
        return given

    def _check_out(self, launch, out, device, inputs=()) -> list:
        """The tensors of out=, checked against the outputs' shapes and
        dtypes, the inputs' device and layout, and for overlap with the
        inputs and each other (the kernel would read what it writes)."""
        k = self.kernel
        given = self._given_outputs(out)
        names = k.tensor_names[self.n_in:]
        for name, tile, (shape, dtype), t in zip(names, k.out_specs, launch.outputs, given):
            what = f"{k.name}: out= output {name!r}"
            if not isinstance(t, torch.Tensor):
                raise ArgumentError(f"{what} must be a torch tensor ({tile}), got "
                                    f"{type(t).__name__}")
            if t.dtype != dtype and not same_width_int(t.dtype, dtype):
                raise ArgumentError(f"{what} must be {dtype} ({tile}), got {t.dtype}")
            if tuple(t.shape) != tuple(shape):
                raise ArgumentError(f"{what} must have shape {tuple(shape)} ({tile}), "
                                    f"got {tuple(t.shape)}")
            if t.device != device:
                raise ArgumentError(f"{what} must be on {device} (the inputs'), got "
                                    f"{t.device}")
            if not t.is_contiguous():
                raise ArgumentError(f"{what} must be contiguous (row-major), got "
                                    f"strides {t.stride()} for shape {tuple(t.shape)}")
        spans = [(name, _span(t)) for name, t in zip(k.tensor_names, [*inputs, *given])]
        for j, (name, (start, end)) in enumerate(spans[len(inputs):], len(inputs)):
            for other, (o_start, o_end) in spans[:j]:
                if start < o_end and o_start < end:
                    raise ArgumentError(f"{k.name}: out= output {name!r} overlaps "
                                        f"{other!r} in memory; outputs must not alias "
                                        f"inputs or each other")
        return given

    def _copy_into(self, result, out):
        """Under torch.compile: the custom op's outputs copied into out=
        (the op allocates; the copy is part of the traced graph)."""
        k = self.kernel
        given = self._given_outputs(out)
        results = result if isinstance(result, tuple) else (result,)
        for name, r, t in zip(k.tensor_names[self.n_in:], results, given):
            if not isinstance(t, torch.Tensor) or t.shape != r.shape or t.dtype != r.dtype:
                raise ArgumentError(
                    f"{k.name}: out= output {name!r} must be a {r.dtype} tensor of shape "
                    f"{tuple(r.shape)}, got {getattr(t, 'dtype', type(t).__name__)} "
                    f"{tuple(getattr(t, 'shape', ()))}")
            t.copy_(r)
        return given[0] if len(given) == 1 else tuple(given)

    # -- specialisation --------------------------------------------------------------
    def _check(self, inputs):
        """The shape variables the inputs bind, after checking their types,
        dtypes, shapes, layout and device (in that order)."""
        k = self.kernel
        bound = check_arrays(k, inputs, torch.Tensor, "a torch tensor", torch_dtype,
                             same_width_int)
        self._check_contiguous(inputs)
        device = inputs[0].device if inputs else None
        for name, t in zip(k.tensor_names, inputs):
            if t.device.type != "cuda":
                raise ArgumentError(f"{k.name}: parameter {name!r} must be on a CUDA "
                                    f"device, got {t.device}")
            if t.device != device:
                raise ArgumentError(f"{k.name}: parameter {name!r} is on {t.device}, "
                                    f"the first input on {device}")
        return bound

    def _check_contiguous(self, inputs):
        for name, t in zip(self.kernel.tensor_names, inputs):
            if not t.is_contiguous():
                raise ArgumentError(f"{self.kernel.name}: parameter {name!r} must be "
                                    f"contiguous (row-major), got strides {t.stride()} "
                                    f"for shape {tuple(t.shape)}")

    def _specialise(self, inputs, template):
        bound = self._check(inputs)
        return _TorchLaunch(Launch(self.kernel, bound, template),
                            [torch_dtype(t.dtype) for t in self.kernel.out_specs], inputs)


@torch.compiler.assume_constant_result
def _out_names_outputs(kernel_ref) -> bool:
    """Whether the keyword out= names a kernel's outputs: unless it has a
    template parameter, raw parameter or shape variable called out.
    `kernel_ref`: Kernel.ref, a function returning the kernel, which dynamo
    passes as a constant: it runs this eagerly and keeps the result."""
    k = kernel_ref()
    return "out" not in {*k.template_params, *k.raw_names, *k.shape_symbols}


def _span(t) -> tuple[int, int]:
    """The bytes a contiguous tensor covers: [start, end)."""
    start = t.data_ptr()
    return start, start + t.numel() * t.element_size()


def launcher(kernel) -> TorchLauncher:
    """The kernel's torch launcher (made once)."""
    found = kernel._launchers.get("torch")
    if found is None:
        found = kernel._launchers["torch"] = TorchLauncher(kernel)
    return found


# kernel -> {(template items, shapes): op name, (template items, writes): op name}.
# Weak keys: the table keeps no kernel alive (a registered op does, since
# torch keeps the op and its implementation holds the kernel).
_op_names: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


@torch.compiler.assume_constant_result
def _op_name(kernel_ref, template: tuple, shapes) -> str:
    """Registers the custom op of a kernel (`kernel_ref()`, see
    _out_names_outputs) for these template parameters (their items) and the
    inputs it writes at these shapes (None: the Tiles fix them), once;
    returns its name in torch.ops.pyptx. Dynamo runs this eagerly (a
    registration cannot be traced) and keeps the name, a constant (it
    refuses the op itself as one)."""
    k = kernel_ref()
    names = _op_names.get(k)
    if names is None:
        names = _op_names[k] = {}
    name = names.get((template, shapes))
    if name is None:
        writes = written_inputs(k, dict(template), shapes)
        name = names.get((template, writes))
        if name is None:
            name = names[(template, writes)] = _register(k, dict(template), writes)
        names[(template, shapes)] = name
    return name


def written_inputs(k, template: dict, shapes=None) -> tuple:
    """The input tensors `k` writes in place for these template parameters
    (TracedModule.writes: found by the analysis, or declared), traced at
    `shapes` (one tuple per input; None where the Tiles fix every dim)."""
    bound = bind_shapes(k, shapes) if shapes is not None else {}
    symbols = k.shape_symbols
    module = k.module(**template, **{n: v for n, v in bound.items() if n in symbols})
    inputs = k.tensor_names[:len(k.in_specs)]
    return tuple(n for n in module.writes if n in inputs)


def _identity(value) -> str:
    """A text for `value` that is the same in every process: plain values by
    repr, functions by where they are written, anything else by its type."""
    if isinstance(value, (bool, int, float, str, type(None))):
        return repr(value)
    if isinstance(value, (tuple, list)):
        return "(" + ",".join(_identity(v) for v in value) + ")"
    code = getattr(value, "__code__", None)
    if code is not None:
        return f"{value.__qualname__}@{code.co_filename}:{code.co_firstlineno}"
    text = repr(value)
    return text if " at 0x" not in text else type(value).__qualname__


def _stable_name(k, template, writes) -> str:
    """The op's name in torch.ops.pyptx: the kernel's name and a hash of what
    tells it apart (its function's place, closure values, specs, launch
    shape, template parameters, written inputs), so that the same program
    names the same kernel alike in every process: Inductor's FX-graph cache
    on disk keeps generated code that calls ops by name, and a counter would
    let a cached graph call another kernel when a new process registers
    kernels in another order. A second kernel object with the same identity
    in this process gets a suffix."""
    import hashlib
    fn = getattr(k, "fn", None)
    cells = getattr(fn, "__closure__", None) or ()
    parts = [getattr(fn, "__module__", ""), _identity(fn),
             _identity([c.cell_contents for c in cells]),
             repr(k.in_specs), repr(k.out_specs),
             *(_identity(getattr(k, a, None)) for a in ("_grid", "_block", "_cluster", "_smem")),
             repr([p.name for p in k.raw_params]),
             _identity(sorted(template.items())), repr(tuple(writes))]
    digest = hashlib.sha1("\x00".join(parts).encode()).hexdigest()[:12]
    name, n = f"{k.name}_{digest}", 1
    while name in _used_names:
        n += 1
        name = f"{k.name}_{digest}_{n}"
    _used_names[name] = k.ref
    return name


def _register(k, template, writes=()) -> str:
    """Registers the custom op of `k` for these template parameters,
    writing the inputs `writes` in place (Tensor(a!) in its schema) and
    returning fresh outputs; returns its name in torch.ops.pyptx."""
    n_in = len(k.in_specs)
    names = k.tensor_names[:n_in]
    n_out = len(k.out_specs)
    if not n_out and not writes:
        from pyptx.errors import KernelError
        raise KernelError(
            f"{k.name}: under torch.compile a kernel's effects are its outputs and the "
            f"inputs it writes, and this one has no out_specs and writes none of its "
            f"inputs {names} (the analysis finds no store through them), so the "
            f"compiled graph would drop the call. Give it out_specs, or name the inputs "
            f"it writes with @kernel(writes=...)", *k._loc)
    raw_names = k.raw_names
    raw_types = []
    for p in k.raw_params:
        kind = launch_kind(k, p)
        if kind == "tensormap":
            raise ArgumentError(f"{k.name}: raw parameter {p.name!r} ({p.spelling}) is "
                                f"a 128-byte array: torch.compile passes numbers only")
        raw_types.append("float" if kind.startswith("f") else "int")
    # A written input is Tensor(aN!): an alias set of its own, mutated.
    tensors = [f"Tensor(a{i}!) {n}" if n in writes else f"Tensor {n}"
               for i, n in enumerate(names)]
    schema = "(" + ", ".join(tensors + [f"{t} {n}" for t, n in zip(raw_types, raw_names)])
    # Several outputs are a tuple, not Tensor[]: functionalization refuses an
    # op that both writes an input and returns a list (torch.library.opcheck's
    # aot_dispatch test says the list carries an alias annotation).
    schema += ") -> " + ("()" if n_out == 0 else "Tensor" if n_out == 1
                         else "(" + ", ".join(["Tensor"] * n_out) + ")")
    out_dtypes = [torch_dtype(t.dtype) for t in k.out_specs]
    plain = not template and not raw_names

    def impl(*args, out=None):
        # A compiled graph calls the op with one specialisation: after the
        # first call, straight to its C++ launch (TorchLauncher.fast). (The
        # launcher is looked up here: made at registration, inside a trace,
        # it would change what the trace's guards saw.) out=: the output
        # allocated by Inductor's generated code (pyptx.runtime.inductor).
        run = launcher(k)
        fast = run.fast
        if plain and fast is not None:
            result = fast(args, out)
            if result is not NotImplemented:
                return tuple(result) if isinstance(result, list) else result
        result = run.eager(args[:n_in], args[n_in:], template, out, remember=plain)
        return tuple(result) if isinstance(result, list) else result

    def fake(*args):
        bound = bind_shapes(k, [tuple(t.shape) for t in args[:n_in]], names)
        outs = [args[0].new_empty(shape, dtype=dtype)
                for shape, dtype in zip(output_shapes(k, bound), out_dtypes)]
        if n_out == 0:
            return None
        return outs[0] if n_out == 1 else tuple(outs)

    # A plain Library op, not torch.library.custom_op: custom_op wraps every
    # call in Python (its autograd, ADInplaceOrView and device layers), which
    # cost a compiled call more than the rest of torch.compile's wrapper.
    # Here the dispatcher's C++ fallbacks pass the call to `impl`, and the
    # written inputs' version counters are bumped by AOTAutograd's wrapper.
    name = _stable_name(k, template, writes)
    _LIBRARY.define(name + schema)
    _LIBRARY.impl(name, impl, "CompositeExplicitAutograd")
    torch.library.register_fake(f"pyptx::{name}", fake, lib=_LIBRARY)
    call_directly(name, impl)
    return name


class _TorchLaunch:
    """A Launch plus its outputs' shapes and torch dtypes, how each is made
    (`like`: the input of the same shape and dtype whose torch.empty_like
    makes it, else -1 for torch.empty, which parses more arguments), and
    its C++ call once made (TorchLauncher._fast_call)."""

    __slots__ = ("launch", "outputs", "like", "fast")

    def __init__(self, launch: Launch, out_dtypes, inputs):
        self.launch = launch
        self.outputs = [(tuple(shape), dtype)
                        for shape, dtype in zip(launch.out_shapes, out_dtypes)]
        self.like = [next((i for i, t in enumerate(inputs)
                           if t.dtype == dtype and tuple(t.shape) == shape), -1)
                     for shape, dtype in self.outputs]
        self.fast = None
