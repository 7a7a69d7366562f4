"""``differentiable_kernel``: a forward and a backward kernel as one
torch.autograd operation."""
from __future__ import annotations

import torch


def differentiable(forward_kernel, backward_kernel, save_for_backward=None,
                   num_grad_inputs=None):
    """The autograd operation: forward_kernel(*inputs) gives the outputs;
    backward_kernel(*saved inputs, *output gradients) gives the gradients
    of the first `num_grad_inputs` inputs (None: all of them), in order,
    None where one needs none; the other inputs get no gradient. The saved
    inputs are those at the indices `save_for_backward` (None: all).
    A backward kernel that returns another number of gradients is an
    error (RuntimeError naming both counts)."""
    saved_indices = None if save_for_backward is None else tuple(save_for_backward)

    class Function(torch.autograd.Function):
        @staticmethod
        def forward(ctx, *inputs):
            ctx.n_inputs = len(inputs)
            if num_grad_inputs is not None and not 0 <= num_grad_inputs <= len(inputs):
                raise ValueError(f"differentiable_kernel: num_grad_inputs="
                                 f"{num_grad_inputs} for {len(inputs)} inputs")
            saved = inputs if saved_indices is None else [inputs[i] for i in saved_indices]
            ctx.save_for_backward(*saved)
            with torch.no_grad():
                return forward_kernel(*inputs)

        @staticmethod
        def backward(ctx, *grads):
            # Kernels take contiguous tensors; autograd may hand expanded ones
            # (the gradient of a sum is a broadcast scalar).
            grads = [g.contiguous() if g is not None else g for g in grads]
            with torch.no_grad():
                result = backward_kernel(*ctx.saved_tensors, *grads)
            result = result if isinstance(result, tuple) else (result,)
            wanted = ctx.n_inputs if num_grad_inputs is None else num_grad_inputs
            if len(result) != wanted:
                raise RuntimeError(
                    f"differentiable_kernel: the backward kernel returned "
                    f"{len(result)} gradients for {wanted} inputs"
                    + ("" if num_grad_inputs is None else " (num_grad_inputs)"))
            return (*result, *[None] * (ctx.n_inputs - wanted))

    def op(*inputs):
        return Function.apply(*inputs)

    op.__name__ = getattr(forward_kernel, "name", getattr(forward_kernel, "__name__", "op"))
    op.__doc__ = f"Differentiable pyptx kernel ({op.__name__})"
    op.forward_kernel = forward_kernel
    op.backward_kernel = backward_kernel
    op.save_for_backward = saved_indices
    op.num_grad_inputs = num_grad_inputs
    return op
