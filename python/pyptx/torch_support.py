"""The original pyptx's PyTorch runtime API, on pyptx's runtime.

``Kernel.__call__`` on torch tensors needs none of this (it goes through
pyptx.runtime.torch). These names serve code written against the
original's lower layer: launching a kernel registered in
``pyptx.jax_support.get_cubin_registry()`` on CUDA tensors, eagerly
(call_kernel_via_torch) or through a ``torch.library.custom_op`` that
torch.compile traces (call_kernel_via_torch_compile), and
``differentiable_kernel`` for autograd. The kernel gets the input
tensors' addresses, then the outputs' (allocated here, on the first
input's device, from `out_specs` with `out_shape_env`), then the scalars
added with add_scalar_param_to_shim, on the current CUDA stream.

Importing this module needs neither PyTorch nor a GPU.
"""
from __future__ import annotations

from typing import Any, Sequence

from pyptx.jax_support import _out_shape, get_cubin_registry
from pyptx.specs import Tile


def is_torch_tensor(obj: Any) -> bool:
    """Whether `obj` is a torch.Tensor (False without PyTorch installed)."""
    torch = _torch()
    return torch is not None and isinstance(obj, torch.Tensor)


def any_torch_tensors(inputs: Sequence[Any]) -> bool:
    """Whether any of `inputs` is a torch.Tensor."""
    return any(is_torch_tensor(x) for x in inputs)


def extract_input_shapes(inputs) -> list[tuple[int, ...]]:
    """The shape of each input, as a tuple of ints."""
    return [tuple(int(d) for d in x.shape) for x in inputs]


def _torch():
    try:
        import torch
    except ImportError:
        return None
    return torch


def call_kernel_via_torch(*inputs, cubin_handle: int, out_specs: Sequence[Tile],
                          out_shape_env: dict[str, int], grid: tuple[int, int, int],
                          block: tuple[int, int, int],
                          cluster: tuple[int, int, int] = (1, 1, 1),
                          smem_bytes: int = 0) -> Any:
    """Launches the kernel under `cubin_handle` on `inputs` (contiguous
    tensors on one CUDA device) with the registered launch configuration,
    else `grid`, `block`, `cluster`, `smem_bytes`. Returns the output
    tensor, or a tuple of them. ValueError without inputs; ArgumentError
    for an input not on a CUDA device or not contiguous."""
    import torch

    from pyptx.runtime import ArgumentError
    from pyptx.runtime.torch import _current_stream, torch_dtype

    if not inputs:
        raise ValueError("call_kernel_via_torch: a kernel launch takes at least one "
                         "input tensor")
    record = get_cubin_registry().record(cubin_handle)
    device = inputs[0].device
    for index, t in enumerate(inputs):
        if t.device != device or device.type != "cuda" or not t.is_contiguous():
            raise ArgumentError(f"{record.kernel_name}: input {index} must be a contiguous "
                                f"tensor on the CUDA device of input 0, got one on "
                                f"{t.device} with strides {t.stride()}")
    outputs = [torch.empty(_out_shape(tile, out_shape_env), dtype=torch_dtype(tile.dtype),
                           device=device) for tile in out_specs]
    plan, _ = record.launch_plan(len(inputs) + len(outputs), grid, block, cluster,
                                 smem_bytes)
    with torch.cuda.device(device):
        plan.launch(_current_stream(device.index),
                    *[t.data_ptr() for t in (*inputs, *outputs)], *record.scalar_values)
    return outputs[0] if len(outputs) == 1 else tuple(outputs)


_ops: dict = {}
_op_names: set = set()


def _handle_op_name(key) -> str:
    """``handle<h>_<hash>``: the hash is of the kernel's PTX and entry name
    and the launch arguments, not of the process's handle number, so a
    graph that Inductor's on-disk cache kept from another process (where
    handle h was another kernel) cannot call this one by mistake."""
    import hashlib
    record = get_cubin_registry().get(key[0])
    source = (record.ptx_source, record.kernel_name) if record is not None else ("", "")
    digest = hashlib.sha1(repr((source, key[1:])).encode()).hexdigest()[:12]
    name, n = f"handle{key[0]}_{digest}", 1
    while name in _op_names:
        n += 1
        name = f"handle{key[0]}_{digest}_{n}"
    _op_names.add(name)
    return name


def get_or_register_torch_op(cubin_handle: int, out_specs: Sequence[Tile],
                             out_shape_env: dict[str, int], grid: tuple[int, int, int],
                             block: tuple[int, int, int], cluster: tuple[int, int, int],
                             smem_bytes: int):
    """The ``torch.library.custom_op`` (schema ``(Tensor[] inputs) ->
    Tensor[]``) that launches the kernel under `cubin_handle` with these
    arguments; its fake implementation gives the outputs' shapes, so
    torch.compile traces it. Registered once per handle and arguments."""
    import torch

    from pyptx.runtime.torch import torch_dtype

    key = (cubin_handle, tuple(map(repr, out_specs)), tuple(sorted(out_shape_env.items())),
           tuple(grid), tuple(block), tuple(cluster), smem_bytes)
    op = _ops.get(key)
    if op is not None:
        return op
    launch = dict(cubin_handle=cubin_handle, out_specs=out_specs,
                  out_shape_env=dict(out_shape_env), grid=grid, block=block,
                  cluster=cluster, smem_bytes=smem_bytes)
    shapes = [(_out_shape(t, out_shape_env), torch_dtype(t.dtype)) for t in out_specs]

    def impl(inputs):
        result = call_kernel_via_torch(*inputs, **launch)
        return [result] if isinstance(result, torch.Tensor) else list(result)

    def fake(inputs):
        return [inputs[0].new_empty(shape, dtype=dtype) for shape, dtype in shapes]

    op = torch.library.custom_op(f"pyptx::{_handle_op_name(key)}", impl,
                                 mutates_args=(), schema="(Tensor[] inputs) -> Tensor[]")
    op.register_fake(fake)
    _ops[key] = op
    return op


def call_kernel_via_torch_compile(*inputs, cubin_handle: int, out_specs: Sequence[Tile],
                                  out_shape_env: dict[str, int],
                                  grid: tuple[int, int, int], block: tuple[int, int, int],
                                  cluster: tuple[int, int, int] = (1, 1, 1),
                                  smem_bytes: int = 0) -> Any:
    """call_kernel_via_torch through get_or_register_torch_op's custom op,
    which torch.compile traces. Returns the output, or a tuple of them."""
    op = get_or_register_torch_op(cubin_handle, out_specs, out_shape_env, grid, block,
                                  cluster, smem_bytes)
    outputs = op(list(inputs))
    return outputs[0] if len(outputs) == 1 else tuple(outputs)


def differentiable_kernel(forward_kernel, backward_kernel, *,
                          save_for_backward: Sequence[int] | None = None,
                          num_grad_inputs: int | None = None):
    """Pairs a forward and a backward kernel as one torch.autograd operation::

        op = differentiable_kernel(fwd, bwd, save_for_backward=[0, 1])
        out = op(x, w)          # fwd(x, w)
        out.sum().backward()    # bwd(x, w, grad_out) -> (grad_x, grad_w)

    The backward kernel is called with the saved inputs (those at the
    indices `save_for_backward`; None, the default: all inputs) and then
    the output gradients, and returns the gradients of the first
    `num_grad_inputs` inputs (None: all), the others getting none. A
    backward kernel returning another number of gradients raises
    RuntimeError. Both kernels run under torch.no_grad."""
    from pyptx.runtime.autograd import differentiable
    return differentiable(forward_kernel, backward_kernel, save_for_backward,
                          num_grad_inputs)
