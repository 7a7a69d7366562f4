"""``Kernel.compile(**shapes)``: one specialisation assembled to a cubin.

A :class:`CompiledKernel` holds the PTX, the cubin ptxas made of it, the
``ptxas -v`` report and the :class:`Resources` read from it::

    ck = gemm.compile(M=4096, N=4096, K=4096, spills="error")
    ck.resources.registers, ck.resources.spill_stores, ck.resources.static_smem
    open("gemm.cubin", "wb").write(ck.cubin)
    print(ck.sass())

``spills`` decides what a cubin that spills registers or uses local memory
(a stack frame) does: "error" raises :class:`SpillError` at the kernel's
``def`` line, "warn" (the default) warns there, "ignore" says nothing.

The cubin is assembled as the runtime assembles it (``ptxas -arch=<target>``,
``-lineinfo`` for a ``lineinfo=True`` kernel) plus ``-v``; ptxas records its
options in the cubin, so the bytes differ from the runtime's cached cubin in
that note alone, not in the machine code.
"""
from __future__ import annotations

import ctypes
import os
import re
import tempfile
import warnings
from dataclasses import asdict, dataclass

from pyptx.errors import KernelError, KernelWarning
from pyptx.toolchain import ToolFailed, assemble, find_tool, require_any, run_tool

SPILL_POLICIES = ("error", "warn", "ignore")

# Hopper's register file (and Ampere's and Blackwell's): 65536 32-bit
# registers per SM in 4 sub-partitions, each warp on one of them, allocated
# per warp in units of 256 registers.
_REGS_PER_PARTITION = 16384
_REG_ALLOC_UNIT = 256
_MAX_THREADS_PER_BLOCK = 1024


class SpillError(KernelError):
    """A compiled kernel spills registers or uses local memory, under
    ``spills="error"``."""


@dataclass(frozen=True)
class Resources:
    """What one thread and one CTA of a compiled kernel use, from ptxas's
    report: ``registers`` per thread; ``spill_stores``/``spill_loads`` bytes
    per thread; ``local_memory`` (the stack frame, bytes per thread);
    ``static_smem`` (``.shared`` declared in the PTX) and ``dynamic_smem``
    (what the launch asks for) bytes per CTA; ``barriers`` (named barriers
    used); ``max_threads_per_block`` (as the driver reports it,
    CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: the registers' bound and 1024;
    measured on an H100, the driver does not lower it for ``.reqntid``)."""

    registers: int
    spill_stores: int
    spill_loads: int
    local_memory: int
    static_smem: int
    dynamic_smem: int
    barriers: int
    max_threads_per_block: int

    @property
    def spills(self) -> bool:
        """Whether ptxas spilled registers to local memory."""
        return bool(self.spill_stores or self.spill_loads)

    @property
    def smem(self) -> int:
        """Shared memory bytes per CTA, static and dynamic."""
        return self.static_smem + self.dynamic_smem

    def as_dict(self) -> dict:
        return asdict(self)


def _number(pattern, text) -> int:
    found = re.search(pattern, text)
    return int(found.group(1)) if found else 0


def parse_ptxas_report(log: str, entry: str) -> dict:
    """The figures ``ptxas -v`` gives for `entry`: registers, barriers,
    static_smem, local_memory, spill_stores, spill_loads. ValueError when the
    log has no report of that entry."""
    start = log.find(f"Compiling entry function '{entry}'")
    if start < 0:
        raise ValueError(f"ptxas -v reported no entry function {entry!r}:\n{log}")
    following = log.find("Compiling entry function", start + 1)
    section = log[start:following if following > 0 else len(log)]
    # The line after "Function properties for <entry>" (a .func it calls
    # has its own such line).
    props = re.search(rf"Function properties for {re.escape(entry)}\s*\n([^\n]*)", log)
    frame = props.group(1) if props else ""
    return {"registers": _number(r"Used (\d+) registers", section),
            "barriers": _number(r"used (\d+) barriers", section),
            "static_smem": _number(r"(\d+) bytes smem", section),
            "local_memory": _number(r"(\d+) bytes stack frame", frame),
            "spill_stores": _number(r"(\d+) bytes spill stores", frame),
            "spill_loads": _number(r"(\d+) bytes spill loads", frame)}


def max_threads_per_block(registers: int, thread_caps=()) -> int:
    """The largest block the registers allow: each warp takes registers*32
    rounded up to 256 from one of 4 sub-partitions of 16384, and a block's
    warps spread evenly over them; then 1024 and each cap in `thread_caps`
    (the products of .maxntid/.reqntid)."""
    threads = _MAX_THREADS_PER_BLOCK
    if registers:
        per_warp = -(-registers * 32 // _REG_ALLOC_UNIT) * _REG_ALLOC_UNIT
        threads = min(threads, 4 * (_REGS_PER_PARTITION // per_warp) * 32)
    return min([threads, *thread_caps])


class CompiledKernel:
    """One specialisation of a Kernel, assembled: ``ptx``, ``cubin``
    (bytes), ``ptxas_log``, ``resources`` (:class:`Resources`), ``sass()``,
    ``function_attributes()`` (the driver's view; needs a GPU), and the
    launch configuration (``name``, ``arch``: the cubin's GPU, ``grid``,
    ``block``, ``cluster``, ``smem``; ``module``: the TracedModule)."""

    def __init__(self, kernel, module, cubin: bytes, ptxas_log: str, *, arch: str,
                 template: dict, shapes: dict):
        self.kernel, self.module = kernel, module
        self.cubin, self.ptxas_log, self.arch = cubin, ptxas_log, arch
        self.template, self.shapes = dict(template), dict(shapes)
        report = parse_ptxas_report(ptxas_log, module.name)
        self.resources = Resources(
            dynamic_smem=module.smem,
            max_threads_per_block=max_threads_per_block(report["registers"]),
            **report)

    name = property(lambda self: self.module.name)
    ptx = property(lambda self: self.module.ptx)
    grid = property(lambda self: self.module.grid)
    block = property(lambda self: self.module.block)
    cluster = property(lambda self: self.module.cluster)
    smem = property(lambda self: self.module.smem,
                    doc="Dynamic shared memory bytes a launch asks for.")

    def check_spills(self, policy: str) -> None:
        """Applies a spill policy ("error", "warn", "ignore") to this cubin."""
        if policy not in SPILL_POLICIES:
            raise ValueError(f"{self.name}: spills={policy!r}; expected one of "
                             f"{', '.join(map(repr, SPILL_POLICIES))}")
        r = self.resources
        if policy == "ignore" or not (r.spills or r.local_memory):
            return
        message = (f"kernel '{self.name}' for {self.arch}: {r.spill_stores} bytes spill "
                   f"stores, {r.spill_loads} bytes spill loads, {r.local_memory} bytes "
                   f"of local memory (stack frame) per thread, with {r.registers} "
                   f"registers; lower the live registers (or raise .maxnreg), or "
                   f"keep arrays indexed at run time out of registers")
        file, line, _ = self.kernel._loc
        if policy == "error":
            raise SpillError(message, file, line, 0)
        warnings.warn_explicit(message, KernelWarning, file or "<pyptx>", line or 0)

    def sass(self) -> str:
        """The cubin's SASS: ``nvdisasm -g`` (with the Python lines) for a
        lineinfo kernel where nvdisasm is found, else ``cuobjdump -sass``,
        else ``nvdisasm``. RuntimeError without either tool."""
        nvdisasm, cuobjdump = find_tool("nvdisasm"), find_tool("cuobjdump")
        if not (nvdisasm or cuobjdump):
            require_any(("cuobjdump", "nvdisasm"), "CompiledKernel.sass()")  # raises
        with tempfile.TemporaryDirectory(prefix="pyptx-") as tmp:
            path = os.path.join(tmp, f"{self.name}.cubin")
            with open(path, "wb") as f:
                f.write(self.cubin)
            if nvdisasm and (self.kernel.lineinfo or not cuobjdump):
                return run_tool([nvdisasm, "-g", path] if self.kernel.lineinfo else
                                [nvdisasm, path])
            return run_tool([cuobjdump, "-sass", path])

    def function_attributes(self) -> dict:
        """The driver's attributes of the loaded function (cuFuncGetAttribute):
        max_threads_per_block, shared_size_bytes, const_size_bytes,
        local_size_bytes, num_regs, ptx_version, binary_version,
        max_dynamic_shared_size_bytes. Loads the cubin into the current CUDA
        context (device 0's primary context when none is current); needs a
        GPU and its driver (RuntimeError otherwise)."""
        return driver_function_attributes(self.cubin, self.name)

    def __repr__(self):
        r = self.resources
        return (f"<CompiledKernel {self.name} {self.arch}: {r.registers} registers, "
                f"{r.smem} bytes smem, {r.spill_stores + r.spill_loads} bytes spilled>")


def compile_kernel(kernel, kwargs: dict, *, spills: str = "warn",
                   gpu_arch: str | None = None) -> CompiledKernel:
    """Kernel.compile's body: trace, run ``ptxas -v``, read the report,
    apply the spill policy."""
    if spills not in SPILL_POLICIES:
        raise ValueError(f"{kernel.name}.compile: spills={spills!r}; expected one of "
                         f"{', '.join(map(repr, SPILL_POLICIES))}")
    template, shapes = kernel._bind(kwargs)
    module = kernel.module(**kwargs)
    arch = gpu_arch or module.arch
    with tempfile.TemporaryDirectory(prefix="pyptx-") as tmp:
        try:
            path, log = assemble(module.ptx, arch, tmp, extra=["-v"],
                                 lineinfo=kernel.lineinfo, what=f"{kernel.name}.compile")
        except ToolFailed as e:
            raise RuntimeError(f"{kernel.name}: ptxas -arch={arch} rejected the PTX:\n"
                               f"{e.output}") from None
        with open(path, "rb") as f:
            cubin = f.read()
    compiled = CompiledKernel(kernel, module, cubin, log, arch=arch, template=template,
                              shapes=shapes)
    compiled.check_spills(spills)
    return compiled


# -- the driver, through ctypes (no build needed) ------------------------------------

_FUNC_ATTRIBUTES = {"max_threads_per_block": 0, "shared_size_bytes": 1,
                    "const_size_bytes": 2, "local_size_bytes": 3, "num_regs": 4,
                    "ptx_version": 5, "binary_version": 6,
                    "max_dynamic_shared_size_bytes": 8}


def libcuda():
    """libcuda.so.1 through ctypes, initialised (cuInit); RuntimeError when
    there is no driver."""
    try:
        lib = ctypes.CDLL("libcuda.so.1")
    except OSError as e:
        raise RuntimeError(f"cannot load libcuda.so.1 ({e}): this needs an NVIDIA "
                           f"driver") from None
    _check(lib, lib.cuInit(0), "cuInit")
    return lib


def _check(lib, result: int, what: str) -> None:
    if result:
        name = ctypes.c_char_p()
        lib.cuGetErrorName(result, ctypes.byref(name))
        raise RuntimeError(f"{what}: {(name.value or b'CUDA error').decode()} ({result})")


def _current_context(lib) -> None:
    """Makes device 0's primary context current when no context is (what
    the CUDA runtime and pyptx's runtime do)."""
    context = ctypes.c_void_p()
    _check(lib, lib.cuCtxGetCurrent(ctypes.byref(context)), "cuCtxGetCurrent")
    if not context.value:
        device = ctypes.c_int()
        _check(lib, lib.cuDeviceGet(ctypes.byref(device), 0), "cuDeviceGet")
        _check(lib, lib.cuDevicePrimaryCtxRetain(ctypes.byref(context), device),
               "cuDevicePrimaryCtxRetain")
        _check(lib, lib.cuCtxSetCurrent(context), "cuCtxSetCurrent")


def driver_function_attributes(cubin: bytes, name: str) -> dict:
    """cuFuncGetAttribute's values (_FUNC_ATTRIBUTES' names) for entry
    `name` of `cubin`, loaded into the current context and unloaded."""
    lib = libcuda()
    _current_context(lib)
    module, function = ctypes.c_void_p(), ctypes.c_void_p()
    _check(lib, lib.cuModuleLoadData(ctypes.byref(module), ctypes.c_char_p(cubin)),
           f"loading the cubin of '{name}'")
    try:
        _check(lib, lib.cuModuleGetFunction(ctypes.byref(function), module,
                                            name.encode()), f"finding '{name}'")
        values = {}
        for key, attribute in _FUNC_ATTRIBUTES.items():
            value = ctypes.c_int()
            _check(lib, lib.cuFuncGetAttribute(ctypes.byref(value), attribute, function),
                   f"cuFuncGetAttribute({key}) of '{name}'")
            values[key] = value.value
        return values
    finally:
        lib.cuModuleUnload(module)
