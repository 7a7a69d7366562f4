"""Inductor's generated code calls a pyptx op's implementation directly.

Inductor has no lowering for a pyptx op (torch.ops.pyptx.<kernel>_<n>), so
it runs it as a fallback kernel: the generated code calls
``torch.ops.pyptx.<op>.default(...)``, through the dispatcher (boxing the
arguments, the autograd and ADInplaceOrView fallbacks, the Python kernel's
unboxing) to the op's Python implementation, which calls the kernel's C++
launch. Here each op gets a lowering that makes the same fallback kernel
(its outputs, and the inputs it writes, as Inductor makes them) but names
the op's implementation in Inductor's ``extern_kernels`` namespace, which
the generated code imports: the dispatcher is skipped, and a compiled call
costs what an eager one does (docs/design.md 11.4).

With the C++ wrapper (AOTInductor) the op keeps the dispatcher. Where this
torch's Inductor lacks one of the pieces used here, so do all ops: the
result is the same, only slower.
"""
from __future__ import annotations

import torch


def call_directly(name: str, implementation) -> None:
    """Makes Inductor's generated code call `implementation` (the op
    torch.ops.pyptx.<name>'s, taking the op's arguments) instead of the op."""
    try:
        from torch._inductor import ir, lowering
        from torch._inductor.select_algorithm import extern_kernels
        from torch._inductor.virtualized import V
    except ImportError:
        return
    op = getattr(torch.ops.pyptx, name).default
    attribute = f"pyptx_{name}"
    # Set now, not when lowering: a graph loaded from Inductor's cache in a
    # later process is not lowered again, and the op is registered there
    # before its graph runs (while dynamo traces the call).
    setattr(extern_kernels, attribute, implementation)
    fallback = lowering.fallback_handler(op, add_to_fallback_set=False)

    def lower(*args, **kwargs):
        first = len(V.graph.operations)
        result = fallback(*args, **kwargs)
        if not V.graph.cpp_wrapper and not getattr(V.graph, "fx_wrapper", False):
            for node in V.graph.operations[first:]:
                if isinstance(node, ir.FallbackKernel) and node.op_overload is op:
                    node.python_kernel_name = f"extern_kernels.{attribute}"
        return result

    lowering.register_lowering(op, type_promotion_kind=None)(lower)
    # What Inductor's own fallback would ask for, and what a kernel needs:
    # row-major inputs (a written input is copied back after the call).
    lowering.add_layout_constraint(op, lowering.require_contiguous)
