"""``differentiable_kernel``: a forward and a backward kernel as one
torch.autograd operation."""
from __future__ import annotations

import torch


def differentiable(forward_kernel, backward_kernel, save_for_backward=()):
    """The autograd operation: forward_kernel(*inputs) gives the outputs;
    backward_kernel(*saved inputs, *output gradients) gives one gradient
    per input (None where an input needs none), the saved inputs being
    those at the indices `save_for_backward`."""
    saved_indices = tuple(save_for_backward)

    class Function(torch.autograd.Function):
        @staticmethod
        def forward(ctx, *inputs):
            ctx.n_inputs = len(inputs)
            ctx.save_for_backward(*[inputs[i] for i in saved_indices])
            return forward_kernel(*inputs)

        @staticmethod
        def backward(ctx, *grads):
            # Kernels take contiguous tensors; autograd may hand expanded ones
            # (the gradient of a sum is a broadcast scalar).
            grads = [g.contiguous() if g is not None else g for g in grads]
            result = backward_kernel(*ctx.saved_tensors, *grads)
            result = result if isinstance(result, tuple) else (result,)
            if len(result) != ctx.n_inputs:
                raise RuntimeError(
                    f"differentiable_kernel: the backward kernel returned "
                    f"{len(result)} gradients for {ctx.n_inputs} inputs")
            return result

    def op(*inputs):
        return Function.apply(*inputs)

    op.forward_kernel = forward_kernel
    op.backward_kernel = backward_kernel
    op.save_for_backward = saved_indices
    return op
