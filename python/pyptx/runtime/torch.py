"""PyTorch: ``kernel(x, w)`` on CUDA tensors.

Eager calls take a short path: the Launch for the arguments' shapes,
dtypes and device is cached, each call checks contiguity, allocates the
outputs and launches on the current stream (so CUDA graphs capture it).
Under ``torch.compile`` the call goes through a ``torch.library.custom_op``
(one per kernel and template parameters) whose fake implementation gives
the outputs' shapes, so ``fullgraph=True`` traces it.
"""
from __future__ import annotations

import itertools

import torch

from pyptx import types as T
from pyptx.runtime import (ArgumentError, Launch, bind_shapes, check_arrays,
                           fill_raw, launch_kind, output_shapes, raw_env,
                           split_raw)

_DTYPES = {
    "f32": torch.float32, "tf32": torch.float32, "f64": torch.float64,
    "f16": torch.float16, "bf16": torch.bfloat16, "pred": torch.bool,
    "u8": torch.uint8, "b8": torch.uint8, "s8": torch.int8, "s16": torch.int16,
    "s32": torch.int32, "s64": torch.int64,
    "u16": torch.uint16, "b16": torch.uint16, "u32": torch.uint32, "b32": torch.uint32,
    "u64": torch.uint64, "b64": torch.uint64,
    "e4m3": torch.float8_e4m3fn, "e5m2": torch.float8_e5m2,
}

_op_ids = itertools.count()


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


class TorchLauncher:
    """Kernel.__call__ for torch tensors (one per Kernel)."""

    def __init__(self, kernel):
        self.kernel = kernel
        self.n_in = len(kernel.in_specs)
        self.raw_names = kernel.raw_names
        self.launches: dict = {}
        self.ops: dict = {}  # template items -> the custom op's caller

    # -- the call ----------------------------------------------------------------
    def __call__(self, args, kwargs):
        if len(args) == self.n_in and not self.raw_names:
            inputs, raws = args, ()
        else:
            inputs, raws = split_raw(self.kernel, args, kwargs, self.n_in, "tensors",
                                     _is_tensor)
        if torch.compiler.is_compiling() or torch.compiler.is_exporting():
            if raws:
                bound = bind_shapes(self.kernel, [tuple(t.shape) for t in inputs])
                raws = fill_raw(self.kernel, raws, raw_env(self.kernel, bound, kwargs))
            return self._op(kwargs)(*inputs, *raws)
        return self.eager(inputs, raws, kwargs)

    def eager(self, inputs, raws, template):
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
        outputs = [torch.empty(shape, dtype=dtype, device=device)
                   for shape, dtype in launch.outputs]
        index = device.index
        if index != torch.cuda.current_device():
            with torch.cuda.device(index):
                self._launch(launch, index, inputs, outputs, raws)
        else:
            self._launch(launch, index, inputs, outputs, raws)
        if not outputs:
            return None
        return outputs[0] if len(outputs) == 1 else tuple(outputs)

    def _launch(self, launch, index, inputs, outputs, raws):
        maps = ()
        if launch.launch.module.tma_descs:
            tensors = {name: (t.data_ptr(), tuple(t.shape)) for name, t in
                       zip(self.kernel.tensor_names, [*inputs, *outputs])}
            maps = launch.launch.tensor_maps(tensors)
        launch.launch.plan.launch(_current_stream(index),
                                  *[t.data_ptr() for t in inputs],
                                  *[t.data_ptr() for t in outputs], *raws, *maps)

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
        launch = _TorchLaunch(Launch(self.kernel, bound, template),
                              [torch_dtype(t.dtype) for t in self.kernel.out_specs])
        return launch

    # -- torch.compile ---------------------------------------------------------------
    def _op(self, template):
        """The custom op's caller for these template parameters. Under
        torch.compile it is registered through _op_name, which dynamo runs
        eagerly (a registration cannot be traced)."""
        key = tuple(template.items())
        op = self.ops.get(key)
        if op is None:
            name = _op_name(self.kernel.uid, repr(key))
            op = self.ops[key] = _caller(getattr(torch.ops.pyptx, name))
        return op


def launcher(kernel) -> TorchLauncher:
    """The kernel's torch launcher (made once)."""
    found = kernel._launchers.get("torch")
    if found is None:
        found = kernel._launchers["torch"] = TorchLauncher(kernel)
    return found


_registered: dict = {}  # (kernel uid, repr of template items) -> op name


@torch.compiler.assume_constant_result
def _op_name(kernel_uid: int, template_key: str) -> str:
    """Registers the custom op of a kernel for these template parameters,
    once; returns its name in torch.ops.pyptx."""
    name = _registered.get((kernel_uid, template_key))
    if name is None:
        from pyptx.kernel import KERNELS
        # template_key is the repr of a tuple of (name, constant) pairs
        op = _register(KERNELS[kernel_uid], dict(eval(template_key)))
        name = _registered[(kernel_uid, template_key)] = op._name
    return name


def _register(k, template):
    n_in = len(k.in_specs)
    names = k.tensor_names[:n_in]
    raw_names = k.raw_names
    raw_types = []
    for p in k.raw_params:
        kind = launch_kind(k, p)
        if kind == "tensormap":
            raise ArgumentError(f"{k.name}: raw parameter {p.name!r} ({p.spelling}) is "
                                f"a 128-byte array: torch.compile passes numbers only")
        raw_types.append("float" if kind.startswith("f") else "int")
    n_out = len(k.out_specs)
    schema = "(" + ", ".join([f"Tensor {n}" for n in names] +
                             [f"{t} {n}" for t, n in zip(raw_types, raw_names)])
    schema += ") -> " + ("()" if n_out == 0 else "Tensor" if n_out == 1 else "Tensor[]")
    out_dtypes = [torch_dtype(t.dtype) for t in k.out_specs]

    def impl(*args):
        result = launcher(k).eager(args[:n_in], args[n_in:], template)
        return list(result) if isinstance(result, tuple) else result

    def fake(*args):
        bound = bind_shapes(k, [tuple(t.shape) for t in args[:n_in]], names)
        outs = [args[0].new_empty(shape, dtype=dtype)
                for shape, dtype in zip(output_shapes(k, bound), out_dtypes)]
        if n_out == 0:
            return None
        return outs[0] if n_out == 1 else outs

    op = torch.library.custom_op(f"pyptx::{k.name}_{next(_op_ids)}", impl,
                                 mutates_args=(), schema=schema)
    op.register_fake(fake)
    return op


def _caller(op):
    def call(*args):
        result = op(*args)
        return tuple(result) if isinstance(result, list) else result
    call.op = op
    return call


class _TorchLaunch:
    """A Launch plus the torch dtypes of its outputs."""

    __slots__ = ("launch", "outputs")

    def __init__(self, launch: Launch, out_dtypes):
        self.launch = launch
        self.outputs = list(zip(launch.out_shapes, out_dtypes))
