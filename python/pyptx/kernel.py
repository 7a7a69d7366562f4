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

This module is the decorator and the specialisation (binding template
parameters and shape variables, the grid, the directives); the trace is
:mod:`pyptx.kernel_trace`, the raw parameters' spellings
:mod:`pyptx.raw_params`, ptxas/cuobjdump/nvdisasm :mod:`pyptx.toolchain`
and ``Kernel.resources``' occupancy figures :mod:`pyptx.occupancy`.
"""
from __future__ import annotations

import inspect
import math
import os
import tempfile
import weakref
from typing import Any, Callable, Sequence

from pyptx import toolchain
from pyptx.occupancy import occupancy
from pyptx.specs import TensorSpec, Tile

# Names that were defined here before the split, kept for code importing
# them from pyptx.kernel (RawParam, TracedModule, _find_tool ...).
from pyptx.kernel_trace import STATIC_SMEM_LIMIT, TracedModule, trace  # noqa: E402,F401
from pyptx.raw_params import RawParam, parse_raw_type, raw_param  # noqa: E402,F401
_find_tool, _run, _ToolFailed = toolchain.find_tool, toolchain.run_tool, toolchain.ToolFailed

def _weak_ref(obj):
    """A function returning `obj` while it lives (no cycle through it)."""
    ref = weakref.ref(obj)
    return lambda: ref()


def _not_compiling() -> bool:
    return False


# Whether torch.compile is tracing the call: torch.compiler's
# is_dynamo_compiling once pyptx.runtime.torch is imported. A traced call skips the launchers keyed
# by the first argument's type: dynamo would check that dict's keys in
# Python at every call of the compiled function.
_torch_compiling = _not_compiling


def _dim3(value, what) -> tuple[int, int, int]:
    value = (value,) if isinstance(value, int) else tuple(value)
    if not 1 <= len(value) <= 3:
        raise ValueError(f"{what} must have 1 to 3 entries, not {value!r}")
    return tuple(int(v) for v in value) + (1,) * (3 - len(value))


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
                 writes: Sequence[str] = (), hazards: str | None = None,
                 debug: bool = False):
        self.fn = fn
        self._debug = bool(debug)
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
        # This kernel, by a function: torch.compile hands a function to code it
        # runs outside its trace as a constant (pyptx.runtime.torch._op_for).
        self.ref = _weak_ref(self)

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

    @property
    def debug(self) -> bool:
        """Whether traces are debug builds: debug=True, or
        $PYPTX_DEBUG_MBARRIER set (not 0) when the kernel is traced."""
        return self._debug or os.environ.get("PYPTX_DEBUG_MBARRIER", "") not in ("", "0")

    def module(self, **kwargs) -> TracedModule:
        """Traces the kernel for these template/shape kwargs. (The original
        pyptx returns its IR Module here; ours gives the traced module:
        ``.ptx``, ``.mlir``, the native module and the launch config.)"""
        return trace(self, kwargs)

    def ptx(self, **kwargs) -> str:
        """Traces and returns the PTX text:
        ``print(k.ptx(M=4096, N=4096, BM=128))``."""
        return self.module(**kwargs).ptx

    def sass(self, **kwargs) -> str:
        """PTX -> cubin (ptxas) -> SASS (cuobjdump -sass, else nvdisasm).
        RuntimeError when the CUDA toolkit is missing or ptxas fails."""
        disasm = toolchain.require_any(("cuobjdump", "nvdisasm"), f"{self.name}.sass()")
        m = self.module(**kwargs)
        with tempfile.TemporaryDirectory(prefix="pyptx-") as tmp:
            cubin, _ = toolchain.assemble(m.ptx, m.arch, tmp, lineinfo=self.lineinfo,
                                          what=self.name)
            if os.path.basename(disasm).startswith("cuobjdump"):
                return toolchain.run_tool([disasm, "-sass", cubin])
            return toolchain.run_tool([disasm, "-g", cubin] if self.lineinfo else
                                      [disasm, cubin])

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
                _, log = toolchain.assemble(m.ptx, m.arch, tmp, extra=["-v"],
                                            lineinfo=self.lineinfo, what=self.name)
            except toolchain.ToolFailed as e:
                return {"ok": False, "ptxas_stderr": e.output}
        return {"ok": True, "ptxas_stderr": log,
                **occupancy(log, m, math.prod(self._block))}

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
        traced = _torch_compiling()
        if args and not traced:  # the common case: one dict lookup on the first
            launcher = self._launchers.get(type(args[0]))  # argument's type
            if launcher is not None:
                # A plain call of the last specialisation: straight to its C++
                # entry (pyptx.runtime.torch), which answers NotImplemented on
                # anything else.
                fast = launcher.fast
                if fast is not None and not kwargs:
                    result = fast(args, None)
                    if result is not NotImplemented:
                        return result
                return launcher(args, kwargs)
        framework = type(args[0]).__module__.split(".")[0] if args else None
        launcher = self._launchers.get(framework)
        if launcher is None:
            launcher = self._launchers[framework] = self._launcher_for(framework, args)
        if args and not traced:
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


def kernel(fn: Callable | None = None, *, arch: str = "sm_90a",
           version: tuple[int, int] | None = None, in_specs=None, out_specs=None,
           grid: Any = None, block=(1, 1, 1), cluster=(1, 1, 1), smem: int = 0,
           raw_params=None, extern_smem: bool | str = False, reqntid=None,
           raw_directives=None, lineinfo: bool = False, isa_policy: str = "strict",
           writes=(), hazards: str | None = None, debug: bool = False):
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
    what the hazard checker's findings do (pyptx.hazards, docs/hazards.md).
    debug=True (or $PYPTX_DEBUG_MBARRIER=1 when the kernel is traced):
    mbarrier waits time out and trap with their name and line, and
    pyptx.debugkit.printf works (docs/debugging.md)."""
    options = dict(arch=arch, version=version, in_specs=in_specs, out_specs=out_specs,
                   grid=grid, block=block, cluster=cluster, smem=smem,
                   raw_params=raw_params, extern_smem=extern_smem, reqntid=reqntid,
                   raw_directives=raw_directives, lineinfo=lineinfo,
                   isa_policy=isa_policy, writes=writes, hazards=hazards, debug=debug)
    if fn is not None:
        return Kernel(fn, **options)
    return lambda f: Kernel(f, **options)
