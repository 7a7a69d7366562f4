"""``@kernel``: trace a Python function into one PTX ``.entry``.

Positional parameters are tensors (``in_specs`` then ``out_specs``); each
becomes a ``.param .u64`` named after the parameter, followed by
``raw_params``. Keyword-only parameters are template parameters, baked into
the trace. Other keyword arguments of ``.ptx()``/``.module()`` bind the shape
variables of the Tiles and of a ``grid`` lambda::

    @kernel(in_specs=(Tile("M", "K", bf16),), out_specs=(Tile("M", "K", f32),),
            grid=lambda M: (M // 128, 1, 1), block=(128, 1, 1), arch="sm_90a")
    def copy(A, B, *, BM=128): ...

    print(copy.ptx(M=4096, BM=64))

Tracing runs the function; every reg/smem/ptx call appends to a fresh native
module, so a trace never depends on earlier ones. A trace whose static
shared allocations exceed 48 KiB runs again with every allocation carved
from the dynamic window (``.extern .shared ... dyn_smem[]``), and the
launch then asks for that many bytes of dynamic shared memory.

Raw parameters (``raw_params``) are ``(type, name)`` pairs, the type in the
original pyptx's spelling: a PTX type, then dot-separated parts ``ptr``,
a state space (``global``, ``shared``, ``local``, ``const``, ``param``,
after ``ptr``), ``alignN`` (the parameter's alignment), ``palignN`` (the
pointee's alignment) and ``arrayN`` (N elements)::

    raw_params=[("u32", "M"), ("u64.ptr.global.palign1", "A"),
                ("b8.align64.array128", "tmap")]

``(name, type)`` pairs are accepted too (whichever element is a type
spelling is the type).
"""
from __future__ import annotations

import gc
import inspect
import itertools
import math
import os
import re
import shutil
import subprocess
import tempfile
import warnings
import weakref
from typing import Any, Callable, Sequence

from pyptx._arch import default_version, resolve_arch
from pyptx._trace import TraceContext
from pyptx.errors import KernelError, KernelWarning
from pyptx.hazards import check_module as check_hazards
from pyptx.specs import TensorSpec, Tile

_TOOL_DIRS = ("/usr/local/cuda/bin",)

# Static shared memory above this needs the dynamic window (and, past it,
# the opt-in the runtime does at the first launch).
STATIC_SMEM_LIMIT = 48 * 1024

KERNELS: "weakref.WeakValueDictionary[int, Kernel]" = weakref.WeakValueDictionary()
_kernel_ids = itertools.count()


def _dim3(value, what) -> tuple[int, int, int]:
    value = (value,) if isinstance(value, int) else tuple(value)
    if not 1 <= len(value) <= 3:
        raise ValueError(f"{what} must have 1 to 3 entries, not {value!r}")
    return tuple(int(v) for v in value) + (1,) * (3 - len(value))


# -- raw parameters -------------------------------------------------------------

_PARAM_TYPES = frozenset({"b8", "b16", "b32", "b64", "u8", "u16", "u32", "u64",
                          "s8", "s16", "s32", "s64", "f16", "bf16", "f32", "f64"})
_PTR_SPACES = ("global", "shared", "local", "const", "param")
_SIZED_PART = re.compile(r"(palign|align|array)(\d+)")


class RawParam(tuple):
    """One raw parameter: the pair ``(name, type)`` (``type`` the PTX
    element type, e.g. "u32"), plus ``align`` (0: none), ``count`` (0: a
    scalar, N: ``name[N]``), ``ptr_space``/``ptr_align`` (the ``.ptr``
    attributes, None/0 without) and ``spelling`` (the type as written)."""

    def __new__(cls, name, type, *, align=0, count=0, ptr_space=None, ptr_align=0,
                spelling=None):
        self = super().__new__(cls, (name, type))
        self.align, self.count = align, count
        self.ptr_space, self.ptr_align = ptr_space, ptr_align
        self.spelling = spelling or type
        return self

    name = property(lambda self: self[0])
    type = property(lambda self: self[1])

    @property
    def is_ptr(self) -> bool:
        return self.ptr_align > 0

    @property
    def nbytes(self) -> int:
        """Bytes of the parameter (count elements, or one)."""
        bits = int(re.sub(r"\D", "", self.type) or 8)
        return max(self.count, 1) * bits // 8


def parse_raw_type(spelling):
    """The type spelling's details as keyword arguments of RawParam, or
    None when `spelling` is no type spelling (a parameter name)."""
    if not isinstance(spelling, str):
        return None
    parts = spelling.lstrip(".").split(".")
    if parts[0] not in _PARAM_TYPES:
        return None
    details = dict(align=0, count=0, ptr_space=None, ptr_align=0)
    is_ptr = False
    for part in parts[1:]:
        sized = _SIZED_PART.fullmatch(part)
        if part == "ptr":
            is_ptr = True
        elif part in _PTR_SPACES and is_ptr:
            details["ptr_space"] = part
        elif sized and int(sized.group(2)) > 0:
            key = {"palign": "ptr_align", "align": "align", "array": "count"}[sized.group(1)]
            details[key] = int(sized.group(2))
        else:
            raise ValueError(
                f"raw parameter type {spelling!r}: unknown part {part!r} (a type is "
                f"written like 'u32', 'u64.ptr.global.palign1' or 'b8.align64.array128': "
                f"ptr, then a state space {'/'.join(_PTR_SPACES)}, alignN, palignN, "
                f"arrayN)")
    if is_ptr:
        if parts[0] not in ("u64", "b64", "s64"):
            raise ValueError(f"raw parameter type {spelling!r}: .ptr needs a 64-bit "
                             f"integer type (u64)")
        details["ptr_align"] = details["ptr_align"] or 1
    elif details["ptr_align"]:
        raise ValueError(f"raw parameter type {spelling!r}: palignN needs .ptr before it")
    return details


def raw_param(entry) -> RawParam:
    """A RawParam of a ``(type, name)`` or ``(name, type)`` pair: the element
    that is a type spelling is the type (when both are, the first)."""
    if isinstance(entry, RawParam):
        return entry
    try:
        first, second = entry
    except (TypeError, ValueError):
        raise TypeError(f"raw_params entries are (type, name) pairs, got {entry!r}") from None
    for spelling, name in ((first, second), (second, first)):
        details = parse_raw_type(spelling)
        if details is not None:
            if not isinstance(name, str) or not name:
                raise TypeError(f"raw parameter {entry!r}: the name must be a string")
            return RawParam(name, spelling.lstrip(".").split(".")[0], spelling=spelling,
                            **details)
    raise ValueError(f"raw parameter {entry!r}: neither element is a PTX type (write "
                     f"('u32', 'n'), ('u64.ptr.global.palign1', 'ptr') or "
                     f"('b8.align64.array128', 'tmap'))")


class TmaDescriptorHandle:
    """A symbolic TMA descriptor of a tensor parameter, named
    ``<tensor>_tma_desc``. Inside a trace, ``tensor.tma_desc()`` returns the
    register holding the descriptor's address instead; this handle is what
    code outside a trace can name."""

    __slots__ = ("tensor", "name")

    def __init__(self, tensor: TensorSpec) -> None:
        self.tensor = tensor
        self.name = f"{tensor.name}_tma_desc"

    def __repr__(self):
        return f"TmaDescriptorHandle({self.name!r})"


# -- the trace's result -----------------------------------------------------------

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


class Kernel:
    """A traced PTX kernel; see the module docstring."""

    def __init__(self, fn: Callable, arch: str = "sm_90a",
                 version: tuple[int, int] | None = None,
                 in_specs: Sequence[Tile] | None = None,
                 out_specs: Sequence[Tile] | None = None,
                 grid: Any = None, block=(1, 1, 1), cluster=(1, 1, 1), smem: int = 0,
                 raw_params: Sequence[tuple[str, str]] | None = None,
                 extern_smem: bool | str = False,
                 reqntid: tuple[int, ...] | None = None,
                 raw_directives: Sequence[tuple[str, tuple]] | None = None,
                 lineinfo: bool = False, isa_policy: str = "strict",
                 writes: Sequence[str] = (), hazards: str | None = None):
        self.fn = fn
        self.isa_policy = isa_policy
        self.hazards = hazards
        self.name = fn.__name__
        self._arch = arch
        self.version = tuple(version) if version is not None else None
        self._in_specs = tuple(in_specs or ())
        self._out_specs = tuple(out_specs or ())
        self._grid = grid
        self._block = _dim3(block, "block")
        self._cluster = _dim3(cluster, "cluster")
        self._smem = int(smem)
        self.raw_params = [raw_param(p) for p in (raw_params or ())]
        self.extern_smem = extern_smem
        self.reqntid = tuple(reqntid) if reqntid else None
        self.raw_directives = [(name.lstrip("."), [v] if isinstance(v, int) else list(v))
                               for name, v in (raw_directives or ())]
        self.lineinfo = lineinfo

        sig = inspect.signature(fn)
        kinds = inspect.Parameter
        self.tensor_names = [p.name for p in sig.parameters.values()
                             if p.kind in (kinds.POSITIONAL_ONLY, kinds.POSITIONAL_OR_KEYWORD)]
        if any(p.kind in (kinds.VAR_POSITIONAL, kinds.VAR_KEYWORD)
               for p in sig.parameters.values()):
            raise TypeError(f"@kernel {self.name}: *args/**kwargs are not supported")
        self._template = {p.name: p.default for p in sig.parameters.values()
                          if p.kind == kinds.KEYWORD_ONLY}
        specs = self._in_specs + self._out_specs
        if specs and len(specs) != len(self.tensor_names):
            raise TypeError(f"@kernel {self.name}: {len(specs)} tensor specs but "
                            f"{len(self.tensor_names)} positional parameters "
                            f"{self.tensor_names}")
        names = self.tensor_names + [p.name for p in self.raw_params]
        if len(set(names)) != len(names):
            raise TypeError(f"@kernel {self.name}: parameter names repeat: {names}")
        self.writes = (writes,) if isinstance(writes, str) else tuple(writes)
        for name in self.writes:
            if name not in self.tensor_names:
                raise TypeError(f"@kernel {self.name}: writes names {name!r}, which is "
                                f"not a tensor parameter (they are {self.tensor_names})")
        self._directive_list = self._directives()
        self._loc = (fn.__code__.co_filename, fn.__code__.co_firstlineno, 0)
        self._launchers: dict = {}  # framework name, or a first argument type -> launcher
        # A number that names this kernel to code that runs outside a trace
        # of torch.compile (pyptx.runtime.torch._op_name).
        self.uid = next(_kernel_ids)
        KERNELS[self.uid] = self

    # -- properties of the documented API ---------------------------------------
    in_specs = property(lambda self: self._in_specs, doc="Input tensor specs.")
    out_specs = property(lambda self: self._out_specs, doc="Output tensor specs.")
    grid = property(lambda self: self._grid, doc="Grid tuple or resolver callable.")
    block = property(lambda self: self._block, doc="CUDA block dimensions.")
    cluster = property(lambda self: self._cluster, doc="CTA cluster dimensions.")
    smem = property(lambda self: self._smem,
                    doc="Dynamic shared memory bytes asked for (a trace may ask more: "
                        "TracedModule.smem).")
    arch = property(lambda self: self._arch, doc='Target, e.g. "sm_90a" (or "auto").')

    @property
    def template_params(self) -> dict[str, Any]:
        """Keyword-only parameters and their defaults (inspect.Parameter.empty
        when required)."""
        return dict(self._template)

    @property
    def raw_names(self) -> list[str]:
        """The raw parameters' names, in order."""
        return [p.name for p in self.raw_params]

    @property
    def shape_symbols(self) -> list[str]:
        """Names kwargs may bind besides template parameters."""
        names = []
        for tile in self._in_specs + self._out_specs:
            names += [s for s in tile.symbols if s not in names]
        if callable(self._grid):
            names += [n for n in inspect.signature(self._grid).parameters
                      if n not in names and n not in self._template]
        return names

    # -- specialisation ---------------------------------------------------------
    def _bind(self, kwargs):
        template = dict(self._template)
        shapes = {}
        symbols = self.shape_symbols
        for key, value in kwargs.items():
            if key in template:
                template[key] = value
            elif key in symbols:
                shapes[key] = value
            else:
                raise TypeError(f"{self.name}: unexpected keyword {key!r}; template "
                                f"parameters: {list(self._template)}, shape "
                                f"variables: {symbols}")
        missing = [k for k, v in template.items() if v is inspect.Parameter.empty]
        if missing:
            raise TypeError(f"{self.name}: missing template parameters {missing}")
        return template, shapes

    def resolve_grid(self, **kwargs) -> tuple[int, int, int] | None:
        """The grid for these kwargs (a lambda gets the shape variables and
        template parameters it names)."""
        template, shapes = self._bind(kwargs)
        return self._grid_for(template, shapes)

    def _grid_for(self, template, shapes):
        if self._grid is None:
            return None
        if not callable(self._grid):
            return _dim3(self._grid, "grid")
        env = {**template, **shapes}
        args = {}
        for name, p in inspect.signature(self._grid).parameters.items():
            if name in env:
                args[name] = env[name]
            elif p.default is inspect.Parameter.empty:
                raise TypeError(f"{self.name}: the grid needs {name!r}; pass "
                                f"{name}=... to ptx()/module()")
        return _dim3(self._grid(**args), "grid")

    def _directives(self):
        """The .entry's directives: reqntid, then the cluster's, then
        raw_directives; one that raw_directives also gives is emitted once
        (a disagreeing value is an error)."""
        raw = dict(self.raw_directives)
        implied = []
        if self.reqntid:
            implied.append(("reqntid", list(_dim3(self.reqntid, "reqntid")), "reqntid"))
        if self._cluster != (1, 1, 1):
            implied.append(("explicitcluster", [], "cluster"))
            implied.append(("reqnctapercluster", list(self._cluster), "cluster"))
        directives = []
        for name, values, option in implied:
            if name not in raw:
                directives.append((name, values))
            elif values and list(_dim3(raw[name], name)) != values:
                raise ValueError(f"@kernel {self.name}: {option}={tuple(values)} but "
                                 f"raw_directives give .{name} {tuple(raw[name])}; "
                                 f"pass one of them")
        return directives + self.raw_directives

    def _params(self):
        """(name, type) of the .entry's leading parameters, and the raw
        parameters that need add_param (alignment or arrays)."""
        params = [(n, "u64") for n in self.tensor_names]
        plain = not any(p.align or p.count for p in self.raw_params)
        if plain:
            return params + [tuple(p) for p in self.raw_params], []
        return params, self.raw_params

    def module(self, **kwargs) -> TracedModule:
        """Traces the kernel for these template/shape kwargs. (The original
        pyptx returns its IR Module here; ours gives the traced module:
        ``.ptx``, ``.mlir``, the native module and the launch config.)"""
        # A trace allocates many short-lived objects and no cycles worth
        # collecting; the cyclic GC would only rescan them.
        collecting = gc.isenabled()
        gc.disable()
        try:
            return self._trace(kwargs)
        finally:
            if collecting:
                gc.enable()

    def _trace(self, kwargs) -> TracedModule:
        template, shapes = self._bind(kwargs)
        target = resolve_arch(self._arch)
        version = self.version or default_version(target)
        # Asked for more than the static limit: the allocations go to the
        # dynamic window from the start (an extern_smem array owns it then).
        dynamic = self._smem > STATIC_SMEM_LIMIT and not self.extern_smem
        traced = self._trace_once(template, shapes, target, version, dynamic)
        if traced is None:  # the static allocations exceed the limit
            traced = self._trace_once(template, shapes, target, version, True)
        return traced

    def _trace_once(self, template, shapes, target, version, dynamic):
        params, added = self._params()
        with TraceContext(version=version, target=target, name=self.name,
                          params=params, directives=self._directive_list,
                          lineinfo=self.lineinfo, isa_policy=self.isa_policy,
                          loc=self._loc) as ctx:
            for p in added:
                ctx.add_param(p.name, p.type, p.align, p.count, loc=self._loc)
            ctx.dynamic_smem = dynamic
            if self.extern_smem:
                name = (self.extern_smem if isinstance(self.extern_smem, str)
                        else "global_smem")
                # 1024-byte alignment: what 128B-swizzled TMA/wgmma tiles need.
                ctx.add_shared(name, "b8", 0, 1024, extern=True, loc=self._loc)
                ctx.extern_smem_name = name
            tiles = self._in_specs + self._out_specs
            tensors = [TensorSpec.from_tile(n, t, shapes) if t else
                       TensorSpec(n) for n, t in
                       zip(self.tensor_names, tiles or [None] * len(self.tensor_names))]
            self.fn(*tensors, **template)
            if not ctx.dynamic_smem and ctx.smem_bytes > STATIC_SMEM_LIMIT:
                if self.extern_smem:
                    raise KernelError(
                        f"{self.name}: static shared allocations take {ctx.smem_bytes} "
                        f"bytes, over the 48 KiB static limit, and extern_smem's array "
                        f"'{ctx.extern_smem_name}' owns the dynamic window they would "
                        f"move to: carve them from smem.base() instead, or drop "
                        f"extern_smem", *self._loc)
                return None
            ctx.finish()
            text = ctx._call(ctx.module.ptx, loc=self._loc)
            for file, line, column, message in ctx.module.warnings:
                warnings.warn_explicit(message, KernelWarning, file or "<pyptx>",
                                       line or 0)
            check_hazards(ctx.module, self.hazards, self.name)
        smem = max(self._smem, ctx.smem_bytes) if ctx.dynamic_smem else self._smem
        return TracedModule(ctx.module, text, name=self.name, arch=target,
                            version=version, grid=self._grid_for(template, shapes),
                            block=self._block, cluster=self._cluster, smem=smem,
                            params=params + [tuple(p) for p in added],
                            tma_descs=ctx.tma_descs, dynamic_smem=ctx.dynamic_smem,
                            intrinsics=ctx.units.get("intrinsic", ()),
                            tensor_names=self.tensor_names, declared_writes=self.writes)

    def ptx(self, **kwargs) -> str:
        """Traces and returns the PTX text:
        ``print(k.ptx(M=4096, N=4096, BM=128))``."""
        return self.module(**kwargs).ptx

    def _cubin(self, m, tmp, extra=()):
        ptxas = _find_tool("ptxas")
        if not ptxas:
            raise RuntimeError(f"{self.name}: needs the CUDA toolkit's ptxas (not found on "
                               f"PATH or in {', '.join(_TOOL_DIRS)})")
        src, cubin = os.path.join(tmp, "k.ptx"), os.path.join(tmp, "k.cubin")
        with open(src, "w") as f:
            f.write(m.ptx)
        out = _run([ptxas, f"-arch={m.arch}", *extra,
                    *(["-lineinfo"] if self.lineinfo else []), "-o", cubin, src])
        return cubin, out

    def sass(self, **kwargs) -> str:
        """PTX -> cubin (ptxas) -> SASS (cuobjdump -sass, else nvdisasm).
        RuntimeError when the CUDA toolkit is missing or ptxas fails."""
        disasm = _find_tool("cuobjdump") or _find_tool("nvdisasm")
        if not disasm:
            raise RuntimeError(f"Kernel.sass() needs the CUDA toolkit: cuobjdump or "
                               f"nvdisasm not found on PATH or in {', '.join(_TOOL_DIRS)}")
        m = self.module(**kwargs)
        with tempfile.TemporaryDirectory(prefix="pyptx-") as tmp:
            cubin, _ = self._cubin(m, tmp)
            if os.path.basename(disasm).startswith("cuobjdump"):
                return _run([disasm, "-sass", cubin])
            return _run([disasm, "-g", cubin] if self.lineinfo else [disasm, cubin])

    def resources(self, **kwargs) -> dict:
        """Assembles with ``ptxas -v`` and reports what one CTA uses and how
        many CTAs fit on an SM by each resource::

            {"ok", "ptxas_stderr", "registers", "registers_rounded",
             "spill_stores_bytes", "spill_loads_bytes", "threads_per_cta",
             "smem_per_cta", "setmaxnreg_values", "ctas_per_sm_by",
             "ctas_per_sm", "binding_constraint"}

        smem_per_cta is the static shared memory ptxas reports plus the
        dynamic bytes the launch asks for. When ptxas rejects the PTX, only
        ok=False and ptxas_stderr are given."""
        m = self.module(**kwargs)
        with tempfile.TemporaryDirectory(prefix="pyptx-") as tmp:
            try:
                _, log = self._cubin(m, tmp, extra=["-v"])
            except _ToolFailed as e:
                return {"ok": False, "ptxas_stderr": e.output}
        return {"ok": True, "ptxas_stderr": log,
                **_occupancy(log, m, math.prod(self._block))}

    def compile(self, *, spills: str = "warn", gpu_arch: str | None = None, **kwargs):
        """Traces for these template/shape kwargs and assembles with
        ``ptxas -v``: a pyptx.compiled.CompiledKernel with ``.ptx``,
        ``.cubin`` (bytes), ``.sass()`` and ``.resources`` (registers,
        spill_stores, spill_loads, local_memory, static_smem, dynamic_smem,
        barriers, max_threads_per_block). spills: "error" (SpillError at the
        kernel's line when ptxas spills or uses local memory), "warn" or
        "ignore". gpu_arch: ptxas's -arch, default the PTX's target (an
        sm_80 kernel for an H100: "sm_90")."""
        from pyptx.compiled import compile_kernel
        return compile_kernel(self, kwargs, spills=spills, gpu_arch=gpu_arch)

    def __call__(self, *args, **kwargs):
        """Launches the kernel on framework arrays: ``out = k(x, w)`` takes
        the in_specs' tensors and returns the out_specs' tensors, allocated
        for the call (outputs are not passed in). Raw parameters follow the
        inputs positionally or come by name; one not given takes the shape
        variable or template parameter of its name (raw "M" gets M from the
        inputs' shapes). Other keywords are template parameters. PyTorch
        tensors (eager, torch.compile, CUDA graphs) go through
        pyptx.runtime.torch, JAX arrays (eager, jax.jit) through
        pyptx.runtime.jax."""
        if args:  # the common case: one dict lookup on the first argument's type
            launcher = self._launchers.get(type(args[0]))
            if launcher is not None:
                # A plain call of the last specialisation: straight to its C++
                # entry (pyptx.runtime.torch), which answers NotImplemented on
                # anything else.
                fast = launcher.fast
                if fast is not None and not kwargs and not launcher.compiling():
                    result = fast(args, None)
                    if result is not NotImplemented:
                        return result
                return launcher(args, kwargs)
        framework = type(args[0]).__module__.split(".")[0] if args else None
        launcher = self._launchers.get(framework)
        if launcher is None:
            launcher = self._launchers[framework] = self._launcher_for(framework, args)
        if args:
            self._launchers[type(args[0])] = launcher
        return launcher(args, kwargs)

    def _launcher_for(self, framework, args):
        if framework in ("torch", "jax", "jaxlib") and not self._in_specs:
            raise NotImplementedError(
                f"{self.name} has no in_specs: launching needs in_specs/out_specs on "
                f"@kernel (their Tiles give the arguments' and outputs' shapes); "
                f".ptx() shows the PTX without them")
        if framework == "torch":
            from pyptx.runtime.torch import launcher
            return launcher(self)
        if framework in ("jax", "jaxlib"):
            from pyptx.runtime.jax import launcher
            return launcher(self)
        raise TypeError(f"{self.name}: launching takes PyTorch tensors or JAX arrays; got "
                        f"{type(args[0]).__name__ if args else 'no arguments'}")

    def __repr__(self):
        return f"<pyptx.Kernel {self.name} arch={self._arch}>"


# -- tools ----------------------------------------------------------------------

class _ToolFailed(RuntimeError):
    def __init__(self, message, output):
        super().__init__(message)
        self.output = output


def _find_tool(name):
    return shutil.which(name) or next(
        (os.path.join(d, name) for d in _TOOL_DIRS
         if os.access(os.path.join(d, name), os.X_OK)), None)


def _run(cmd) -> str:
    proc = subprocess.run(cmd, capture_output=True, text=True)
    output = (proc.stderr + proc.stdout).strip()
    if proc.returncode != 0:
        raise _ToolFailed(f"{os.path.basename(cmd[0])} failed:\n{output}", output)
    return proc.stdout if proc.stdout.strip() else output


# Per-SM limits by compute capability: (registers, threads, shared bytes
# the CTAs of one SM may use).
_SM_LIMITS = {80: (65536, 2048, 164 * 1024), 86: (65536, 1536, 100 * 1024),
              87: (65536, 2048, 164 * 1024), 89: (65536, 1536, 100 * 1024),
              90: (65536, 2048, 228 * 1024), 100: (65536, 2048, 228 * 1024),
              103: (65536, 2048, 228 * 1024), 120: (65536, 1536, 100 * 1024)}
_CTA_RESERVED_SMEM = 1024  # the driver keeps 1 KiB per CTA (sm_80 on)


def _occupancy(log: str, m: TracedModule, threads: int) -> dict:
    """The resource fields of Kernel.resources from ptxas -v's log."""
    def number(pattern):
        found = re.search(pattern, log)
        return int(found.group(1)) if found else 0

    regs = number(r"Used (\d+) registers")
    static_smem = number(r"(\d+) bytes smem")
    smem = static_smem + m.smem
    regs8 = -(-regs // 8) * 8
    cc = int(re.sub(r"\D", "", m.arch) or 0)
    reg_limit, thread_limit, smem_limit = _SM_LIMITS.get(cc, _SM_LIMITS[90])
    bounds = {"regs": reg_limit // (threads * regs8) if regs8 else None,
              "threads": thread_limit // threads,
              "smem": smem_limit // (smem + _CTA_RESERVED_SMEM) if smem else None}
    known = {k: v for k, v in bounds.items() if v is not None}
    ctas = min(known.values())
    return {"registers": regs, "registers_rounded": regs8,
            "spill_stores_bytes": number(r"(\d+) bytes spill stores"),
            "spill_loads_bytes": number(r"(\d+) bytes spill loads"),
            "threads_per_cta": threads, "smem_per_cta": smem,
            "setmaxnreg_values": sorted({int(v) for v in re.findall(
                r"setmaxnreg\.(?:inc|dec)\.sync\.aligned\.u32 (\d+)", m.ptx)}),
            "ctas_per_sm_by": bounds, "ctas_per_sm": ctas,
            "binding_constraint": [k for k, v in known.items() if v == ctas]}


def kernel(fn: Callable | None = None, *, arch: str = "sm_90a",
           version: tuple[int, int] | None = None, in_specs=None, out_specs=None,
           grid: Any = None, block=(1, 1, 1), cluster=(1, 1, 1), smem: int = 0,
           raw_params=None, extern_smem: bool | str = False, reqntid=None,
           raw_directives=None, lineinfo: bool = False, isa_policy: str = "strict",
           writes=(), hazards: str | None = None):
    """Decorator: ``@kernel`` or ``@kernel(arch="sm_100a", ...)`` -> Kernel.

    arch: the target ("sm_80", "sm_90a", "sm_100a", or "auto": $PYPTX_ARCH,
    else pyptx.detect_arch(), resolved when the kernel is traced).
    version: the PTX ISA version; default 8.5 (8.8 for sm_100/sm_101, 8.7
    for sm_12x), or the lowest that knows the target where that is higher.
    block, grid (a tuple or a lambda of shape variables and template
    parameters), cluster (!= (1, 1, 1) adds .explicitcluster and
    .reqnctapercluster), reqntid, raw_directives ([("maxnreg", (168,)), ...];
    one that repeats reqntid's or the cluster's is emitted once).
    smem: dynamic shared memory bytes to launch with (over 48 KiB, the
    shared allocations come from the dynamic window too).
    raw_params: [("u32", "M"), ...], see the module docstring.
    extern_smem: True (the array ``global_smem``) or a name: declares
    ``.extern .shared .align 1024 .b8 <name>[]`` for smem.base().
    lineinfo=True emits ``.file``/``.loc`` so ptxas (-lineinfo) maps SASS to
    the Python lines. isa_policy: "strict" (every instruction must be in the
    ISA description), "warn-unknown" (instructions newer than it pass, with
    a warning) or "off" -- pyptx-opt's --pyptx-isa.
    writes: names of input tensors the kernel writes in place, where the
    analysis that finds them (TracedModule.writes) cannot see it; the
    frameworks then treat them as mutated (torch.compile's mutates_args,
    JAX's input_output_aliases).
    hazards: "warn" (default; $PYPTX_HAZARDS overrides), "error" or "off":
    what the hazard checker's findings do (pyptx.hazards, docs/hazards.md)."""
    options = dict(arch=arch, version=version, in_specs=in_specs, out_specs=out_specs,
                   grid=grid, block=block, cluster=cluster, smem=smem,
                   raw_params=raw_params, extern_smem=extern_smem, reqntid=reqntid,
                   raw_directives=raw_directives, lineinfo=lineinfo,
                   isa_policy=isa_policy, writes=writes, hazards=hazards)
    if fn is not None:
        return Kernel(fn, **options)
    return lambda f: Kernel(f, **options)
