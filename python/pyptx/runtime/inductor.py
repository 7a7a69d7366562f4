"""Inductor's generated code calls a pyptx op's implementation directly.

Inductor has no lowering for a pyptx op (torch.ops.pyptx.<kernel>_<hash>), so
it runs it as a fallback kernel: the generated code calls
``torch.ops.pyptx.<op>.default(...)``, through the dispatcher (boxing the
arguments, the autograd and ADInplaceOrView fallbacks, the Python kernel's
unboxing) to the op's Python implementation, which calls the kernel's C++
launch. Here each op gets a lowering that makes the same fallback kernel
(its outputs, and the inputs it writes, as Inductor makes them) but names
the op's implementation in Inductor's ``extern_kernels`` namespace, which
the generated code imports: the dispatcher is skipped (docs/design.md
11.4). An op with one output that writes no input is called with the
output Inductor allocated (``implementation(x, out=buf0)``), as Inductor
calls its own extern kernels.

With the C++ wrapper (AOTInductor) the op keeps the dispatcher. Where this
torch's Inductor lacks one of the pieces used here, so do all ops: the
result is the same, only slower.
"""
from __future__ import annotations

import torch


def call_directly(name: str, implementation) -> None:
    """Makes Inductor's generated code call `implementation` (the op
    torch.ops.pyptx.<name>'s, taking the op's arguments, and out=) instead
    of the op."""
    op = getattr(torch.ops.pyptx, name).default
    try:  # Inductor's private API: another torch may lack a piece
        from torch._inductor import ir, lowering
        from torch._inductor.select_algorithm import extern_kernels
        from torch._inductor.virtualized import V
        fallback = lowering.fallback_handler(op, add_to_fallback_set=False)
        register, constrain = lowering.register_lowering, lowering.add_layout_constraint
        contiguous = lowering.require_contiguous
        out_kernel, layout_of = ir.ExternKernelOut, ir.FallbackKernel.tensor_to_layout
        realize, box = ir.ExternKernel.realize_input, ir.TensorBox.create
    except (ImportError, AttributeError, TypeError):
        return
    callee = f"extern_kernels.pyptx_{name}"
    # Set now, not when lowering: a graph loaded from Inductor's cache in a
    # later process is not lowered again, and the op is registered there
    # before its graph runs (while dynamo traces the call).
    setattr(extern_kernels, f"pyptx_{name}", implementation)
    schema = op._schema
    one_new_output = len(schema.returns) == 1 and not any(
        a.alias_info is not None and a.alias_info.is_write for a in schema.arguments)

    def python_wrapper() -> bool:
        return not V.graph.cpp_wrapper and not getattr(V.graph, "fx_wrapper", False)

    def lower(*args, **kwargs):
        value = V.graph.current_node.meta.get("val")
        if one_new_output and python_wrapper() and isinstance(value, torch.Tensor):
            # Inductor allocates the output (its memory planning may reuse
            # the buffer) and passes it: implementation(*args, out=buf).
            return box(out_kernel(
                layout=layout_of(value),
                inputs=[realize(a) for a in args if isinstance(a, ir.IRNode)],
                constant_args=[a for a in args if not isinstance(a, ir.IRNode)],
                python_kernel_name=callee))
        operations = getattr(V.graph, "operations", None)  # (older Inductors: none)
        first = None if operations is None else len(operations)
        result = fallback(*args, **kwargs)
        if first is not None and python_wrapper():
            for node in operations[first:]:
                if isinstance(node, ir.FallbackKernel) and node.op_overload is op:
                    node.python_kernel_name = callee
        return result

    register(op, type_promotion_kind=None)(lower)
    # What Inductor's own fallback would ask for, and what a kernel needs:
    # row-major inputs (a written input is copied back after the call).
    constrain(op, contiguous)
