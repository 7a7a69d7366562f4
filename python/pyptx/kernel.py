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
module, so a trace never depends on earlier ones.
"""
from __future__ import annotations

import gc
import inspect
import itertools
import os
import shutil
import subprocess
import tempfile
import warnings
import weakref
from typing import Any, Callable, Sequence

from pyptx._arch import default_version, resolve_arch
from pyptx._trace import TraceContext
from pyptx.errors import KernelWarning
from pyptx.specs import TensorSpec, Tile

_TOOL_DIRS = ("/usr/local/cuda/bin",)

KERNELS: "weakref.WeakValueDictionary[int, Kernel]" = weakref.WeakValueDictionary()
_kernel_ids = itertools.count()


def _dim3(value, what) -> tuple[int, int, int]:
    value = tuple(value)
    if not 1 <= len(value) <= 3:
        raise ValueError(f"{what} must have 1 to 3 entries, not {value!r}")
    return tuple(int(v) for v in value) + (1,) * (3 - len(value))


class TracedModule:
    """The result of one trace: ``.ptx`` and ``.mlir`` text, the native
    module, and the launch configuration."""

    def __init__(self, native, ptx: str, *, name, arch, version, grid, block,
                 cluster, smem, params, tma_descs=()):
        self.native = native
        self.ptx = ptx
        self.name, self.arch, self.version = name, arch, version
        self.grid, self.block, self.cluster, self.smem = grid, block, cluster, smem
        self.params = params
        # TMA descriptor parameters (specs.TmaDescriptor), after `params`.
        self.tma_descs = list(tma_descs)

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
                 lineinfo: bool = False, isa_policy: str = "strict"):
        self.fn = fn
        self.isa_policy = isa_policy
        self.name = fn.__name__
        self._arch = arch
        self.version = tuple(version) if version is not None else None
        self._in_specs = tuple(in_specs or ())
        self._out_specs = tuple(out_specs or ())
        self._grid = grid
        self._block = _dim3(block, "block")
        self._cluster = _dim3(cluster, "cluster")
        self._smem = smem
        self.raw_params = [(n, t.lstrip(".")) for n, t in (raw_params or ())]
        self.extern_smem = extern_smem
        self.reqntid = tuple(reqntid) if reqntid else None
        self.raw_directives = list(raw_directives or ())
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
        self._loc = (fn.__code__.co_filename, fn.__code__.co_firstlineno, 0)
        self._launchers: dict = {}  # framework name -> its launcher
        # A number that names this kernel to code that runs outside a trace
        # of torch.compile (pyptx.runtime.torch._op_name).
        self.uid = next(_kernel_ids)
        KERNELS[self.uid] = self

    # -- properties of the seeds' API ------------------------------------------
    in_specs = property(lambda self: self._in_specs, doc="Input tensor specs.")
    out_specs = property(lambda self: self._out_specs, doc="Output tensor specs.")
    grid = property(lambda self: self._grid, doc="Grid tuple or resolver callable.")
    block = property(lambda self: self._block, doc="CUDA block dimensions.")
    cluster = property(lambda self: self._cluster, doc="CTA cluster dimensions.")
    smem = property(lambda self: self._smem, doc="Dynamic shared memory bytes.")
    arch = property(lambda self: self._arch, doc='Target, e.g. "sm_90a" (or "auto").')

    @property
    def template_params(self) -> dict[str, Any]:
        """Keyword-only parameters and their defaults (inspect.Parameter.empty
        when required)."""
        return dict(self._template)

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
        directives = []
        if self.reqntid:
            directives.append(("reqntid", list(self.reqntid)))
        if self._cluster != (1, 1, 1):
            directives.append(("explicitcluster", []))
            directives.append(("reqnctapercluster", list(self._cluster)))
        for name, values in self.raw_directives:
            values = [values] if isinstance(values, int) else list(values)
            directives.append((name.lstrip("."), values))
        return directives

    def module(self, **kwargs) -> TracedModule:
        """Traces the kernel for these template/shape kwargs."""
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
        params = [(n, "u64") for n in self.tensor_names] + self.raw_params
        with TraceContext(version=version, target=target, name=self.name,
                          params=params, directives=self._directives(),
                          lineinfo=self.lineinfo, isa_policy=self.isa_policy,
                          loc=self._loc) as ctx:
            if self.extern_smem:
                name = self.extern_smem if isinstance(self.extern_smem, str) else "smem"
                # 1024-byte alignment: what 128B-swizzled TMA/wgmma tiles need.
                ctx.add_shared(name, "b8", 0, 1024, extern=True, loc=self._loc)
                ctx.extern_smem_name = name
            tiles = self._in_specs + self._out_specs
            tensors = [TensorSpec(n, t.resolve(shapes), t.dtype, t.layout) if t else
                       TensorSpec(n) for n, t in
                       zip(self.tensor_names, tiles or [None] * len(self.tensor_names))]
            self.fn(*tensors, **template)
            ctx.finish()
            text = ctx._call(ctx.module.ptx, loc=self._loc)
            for file, line, column, message in ctx.module.warnings:
                warnings.warn_explicit(message, KernelWarning, file or "<pyptx>",
                                       line or 0)
        return TracedModule(ctx.module, text, name=self.name, arch=target,
                            version=version, grid=self._grid_for(template, shapes),
                            block=self._block, cluster=self._cluster, smem=self._smem,
                            params=params, tma_descs=ctx.tma_descs)

    def ptx(self, **kwargs) -> str:
        """Traces and returns the PTX text."""
        return self.module(**kwargs).ptx

    def sass(self, **kwargs) -> str:
        """PTX -> cubin (ptxas) -> SASS (cuobjdump -sass, else nvdisasm)."""
        ptxas = _find_tool("ptxas")
        disasm = _find_tool("cuobjdump") or _find_tool("nvdisasm")
        if not ptxas or not disasm:
            missing = [n for n, t in (("ptxas", ptxas), ("cuobjdump or nvdisasm", disasm))
                       if not t]
            raise RuntimeError(f"Kernel.sass() needs the CUDA toolkit: {', '.join(missing)} "
                               f"not found on PATH or in {', '.join(_TOOL_DIRS)}")
        m = self.module(**kwargs)
        with tempfile.TemporaryDirectory(prefix="pyptx-") as tmp:
            src, cubin = os.path.join(tmp, "k.ptx"), os.path.join(tmp, "k.cubin")
            with open(src, "w") as f:
                f.write(m.ptx)
            _run([ptxas, f"-arch={m.arch}", *(["-lineinfo"] if self.lineinfo else []),
                  "-o", cubin, src])
            if os.path.basename(disasm).startswith("cuobjdump"):
                return _run([disasm, "-sass", cubin])
            return _run([disasm, "-g", cubin] if self.lineinfo else [disasm, cubin])

    def __call__(self, *args, **kwargs):
        """Launches the kernel on framework arrays: ``out = k(x, w)`` takes
        the in_specs' tensors (then raw_params' values, or them by name),
        allocates and returns the out_specs' tensors; other keywords are
        template parameters. PyTorch tensors (eager, torch.compile, CUDA
        graphs) go through pyptx.runtime.torch."""
        framework = type(args[0]).__module__.split(".")[0] if args else None
        launcher = self._launchers.get(framework)
        if launcher is None:
            launcher = self._launchers[framework] = self._launcher_for(framework, args)
        return launcher(args, kwargs)

    def _launcher_for(self, framework, args):
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


def _find_tool(name):
    return shutil.which(name) or next(
        (os.path.join(d, name) for d in _TOOL_DIRS
         if os.access(os.path.join(d, name), os.X_OK)), None)


def _run(cmd) -> str:
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{os.path.basename(cmd[0])} failed:\n{proc.stderr}{proc.stdout}")
    return proc.stdout


def kernel(fn: Callable | None = None, *, arch: str = "sm_90a",
           version: tuple[int, int] | None = None, in_specs=None, out_specs=None,
           grid: Any = None, block=(1, 1, 1), cluster=(1, 1, 1), smem: int = 0,
           raw_params=None, extern_smem: bool | str = False, reqntid=None,
           raw_directives=None, lineinfo: bool = False, isa_policy: str = "strict"):
    """Decorator: ``@kernel`` or ``@kernel(arch="sm_100a", ...)`` -> Kernel.

    lineinfo=True emits ``.file``/``.loc`` so ptxas (-lineinfo) maps SASS to
    the Python lines. isa_policy: "strict" (every instruction must be in the
    ISA description), "warn-unknown" (instructions newer than it pass, with
    a warning) or "off" -- pyptx-opt's --pyptx-isa."""
    options = dict(arch=arch, version=version, in_specs=in_specs, out_specs=out_specs,
                   grid=grid, block=block, cluster=cluster, smem=smem,
                   raw_params=raw_params, extern_smem=extern_smem, reqntid=reqntid,
                   raw_directives=raw_directives, lineinfo=lineinfo,
                   isa_policy=isa_policy)
    if fn is not None:
        return Kernel(fn, **options)
    return lambda f: Kernel(f, **options)
