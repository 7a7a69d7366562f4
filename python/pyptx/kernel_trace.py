"""Tracing a :class:`pyptx.kernel.Kernel`: running its function under a
fresh TraceContext, so that every reg/smem/ptx call appends to a new native
module, and wrapping the result in a :class:`TracedModule`.

A trace never depends on earlier ones. A trace whose static shared
allocations exceed 48 KiB runs again with every allocation carved from the
dynamic window (``.extern .shared ... dyn_smem[]``), and the launch then
asks for that many bytes of dynamic shared memory.
"""
from __future__ import annotations

import gc
import warnings

from pyptx._arch import default_version, resolve_arch
from pyptx._trace import TraceContext, author_line_of
from pyptx.errors import KernelError, KernelWarning, at_line
from pyptx.hazards import check_module as check_hazards
from pyptx.smem import check_smem_limit
from pyptx.specs import TensorSpec

# Static shared memory above this needs the dynamic window (and, past it,
# the opt-in the runtime does at the first launch).
STATIC_SMEM_LIMIT = 48 * 1024


class TracedModule:
    """The result of one trace: ``.ptx`` and ``.mlir`` text, the native
    module, and the launch configuration (``.smem``: the bytes of dynamic
    shared memory a launch asks for; ``.dynamic_smem``: whether the shared
    allocations were carved from the dynamic window)."""

    def __init__(self, native, ptx: str, *, name, arch, version, grid, block,
                 cluster, smem, params, tma_descs=(), dynamic_smem=False,
                 intrinsics=(), tensor_names=(), declared_writes=()):
        self.native = native
        self.ptx = ptx
        self.name, self.arch, self.version = name, arch, version
        self.grid, self.block, self.cluster, self.smem = grid, block, cluster, smem
        self.params = params
        self.dynamic_smem = dynamic_smem
        # TMA descriptor parameters (specs.TmaDescriptor), after `params`.
        self.tma_descs = list(tma_descs)
        # @intrinsic calls: (name, arguments, first instruction, end), the
        # instruction indices counting from 0 in emission order.
        self.intrinsics = list(intrinsics)
        self.tensor_names = list(tensor_names)
        self.declared_writes = tuple(declared_writes)
        self._effects = None

    @property
    def writes(self) -> tuple[str, ...]:
        """The tensor parameters the kernel may write, in parameter order:
        those @kernel(writes=...) declares, and those the dialect's
        ParamEffects analysis finds written through (pyptx-opt
        -pyptx-param-effects; a TMA store writes the tensor its descriptor
        describes). Where the analysis cannot attribute a write (a pointer
        loaded from memory), every tensor counts: see writes_reason."""
        written, _ = self._param_effects()
        return tuple(n for n in self.tensor_names
                     if n in written or n in self.declared_writes)

    @property
    def writes_reason(self) -> str:
        """Why the analysis counts every tensor as written ("" when it
        attributed each write to a parameter)."""
        return self._param_effects()[1]

    def _param_effects(self):
        if self._effects is None:
            written, reason = self.native.param_effects(self.name)
            tensor_of = {d.param: d.tensor for d in self.tma_descs}
            self._effects = ({tensor_of.get(n, n) for n in written}, reason)
        return self._effects

    @property
    def mlir(self) -> str:
        return self.native.mlir()

    def __str__(self):
        return self.ptx


def trace(kernel, kwargs: dict) -> TracedModule:
    """Traces `kernel` for these template/shape kwargs (Kernel.module)."""
    # A trace allocates many short-lived objects and no cycles worth
    # collecting; the cyclic GC would only rescan them.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _trace(kernel, kwargs)
    finally:
        if collecting:
            gc.enable()


def _trace(kernel, kwargs) -> TracedModule:
    template, shapes = kernel._bind(kwargs)
    target = resolve_arch(kernel._arch)
    version = kernel.version or default_version(target)
    # Asked for more than the static limit: the allocations go to the
    # dynamic window from the start (an extern_smem array owns it then).
    dynamic = kernel._smem > STATIC_SMEM_LIMIT and not kernel.extern_smem
    traced = _trace_once(kernel, template, shapes, target, version, dynamic)
    if traced is None:  # the static allocations exceed the limit
        traced = _trace_once(kernel, template, shapes, target, version, True)
    return traced


def _run_at_author_lines(fn, tensors, template):
    """Runs the kernel's function; a TypeError or ValueError the DSL raises
    becomes a KernelTypeError/KernelValueError at the author's line (the
    author's own raises pass unchanged)."""
    try:
        fn(*tensors, **template)
    except (TypeError, ValueError) as e:
        if isinstance(e, KernelError):
            raise
        loc = author_line_of(e.__traceback__)
        if loc is None:
            raise
        raise at_line(e, loc).with_traceback(e.__traceback__) from None


def _trace_once(kernel, template, shapes, target, version, dynamic):
    params, added = kernel._params()
    with TraceContext(version=version, target=target, name=kernel.name,
                      params=params, directives=kernel._directive_list,
                      lineinfo=kernel.lineinfo, isa_policy=kernel.isa_policy,
                      loc=kernel._loc, debug=kernel.debug) as ctx:
        for p in added:
            ctx.add_param(p.name, p.type, p.align, p.count, loc=kernel._loc)
        ctx.dynamic_smem = dynamic
        if kernel.extern_smem:
            name = (kernel.extern_smem if isinstance(kernel.extern_smem, str)
                    else "global_smem")
            # 1024-byte alignment: what 128B-swizzled TMA/wgmma tiles need.
            ctx.add_shared(name, "b8", 0, 1024, extern=True, loc=kernel._loc)
            ctx.extern_smem_name = name
        tiles = kernel._in_specs + kernel._out_specs
        tensors = [TensorSpec.from_tile(n, t, shapes) if t else
                   TensorSpec(n) for n, t in
                   zip(kernel.tensor_names, tiles or [None] * len(kernel.tensor_names))]
        _run_at_author_lines(kernel.fn, tensors, template)
        if not ctx.dynamic_smem and ctx.smem_bytes > STATIC_SMEM_LIMIT:
            if kernel.extern_smem:
                raise KernelError(
                    f"{kernel.name}: static shared allocations take {ctx.smem_bytes} "
                    f"bytes, over the 48 KiB static limit, and extern_smem's array "
                    f"'{ctx.extern_smem_name}' owns the dynamic window they would "
                    f"move to: carve them from smem.base() instead, or drop "
                    f"extern_smem", *kernel._loc)
            return None
        # The dynamic bytes the launch asks for come on top of static
        # allocations, and hold the carved ones.
        total = (max(kernel._smem, ctx.smem_bytes) if ctx.dynamic_smem
                 else ctx.smem_bytes + kernel._smem)
        check_smem_limit(ctx, total, f"{kernel.name}: its shared allocations and "
                         f"smem={kernel._smem} take", loc=kernel._loc)
        ctx.finish()
        text = ctx._call(ctx.module.ptx, loc=kernel._loc)
        for file, line, column, message in ctx.module.warnings:
            warnings.warn_explicit(message, KernelWarning, file or "<pyptx>",
                                   line or 0)
        check_hazards(ctx.module, kernel.hazards, kernel.name)
    smem = max(kernel._smem, ctx.smem_bytes) if ctx.dynamic_smem else kernel._smem
    return TracedModule(ctx.module, text, name=kernel.name, arch=target,
                        version=version, grid=kernel._grid_for(template, shapes),
                        block=kernel._block, cluster=kernel._cluster, smem=smem,
                        params=params + [tuple(p) for p in added],
                        tma_descs=ctx.tma_descs, dynamic_smem=ctx.dynamic_smem,
                        intrinsics=ctx.units.get("intrinsic", ()),
                        tensor_names=kernel.tensor_names, declared_writes=kernel.writes)
