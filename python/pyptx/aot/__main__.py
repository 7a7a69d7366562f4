"""``python -m pyptx.aot MODULE:KERNEL --shape NAME=VALUE ... -o DIR``

MODULE is a dotted module name or a path to a .py file; KERNEL names, in
it, a @kernel or a function that builds one (``build_gemm(M, N, K, ...)``).
Each ``--shape NAME=VALUE`` goes to the builder when it takes NAME (all of
them to a builder with ``**kwargs``), else to ``Kernel.compile`` (a shape
variable or template parameter). VALUE is read as a Python literal
(``1024``, ``1e-6``, ``True``, ``'K'``), a pyptx type name (``f32``,
``bf16``), else kept as a string. Writes DIR/<name>.cubin, .ptx, .h and .c
and prints what it wrote and the kernel's resources.
"""
from __future__ import annotations

import argparse
import ast
import importlib
import importlib.util
import inspect
import os
import sys

from pyptx.aot import ExportError, c_name, export
from pyptx.compiled import SPILL_POLICIES
from pyptx.kernel import Kernel


def parse_value(text: str):
    """A --shape value: a Python literal, a pyptx type name, else the text."""
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        pass
    from pyptx import types
    found = getattr(types, text, None)
    return found if isinstance(found, types.PtxType) else text


def parse_shapes(items) -> dict:
    values = {}
    for item in items:
        name, sep, text = item.partition("=")
        if not sep or not name.isidentifier():
            raise SystemExit(f"pyptx.aot: --shape takes NAME=VALUE, got {item!r}")
        values[name] = parse_value(text)
    return values


def load_target(target: str):
    """The object MODULE:NAME names (MODULE dotted or a .py path)."""
    module_name, sep, attr = target.rpartition(":")
    if not sep or not module_name or not attr:
        raise SystemExit(f"pyptx.aot: the target is MODULE:KERNEL, got {target!r}")
    if module_name.endswith(".py") or os.sep in module_name:
        spec = importlib.util.spec_from_file_location(
            os.path.splitext(os.path.basename(module_name))[0], module_name)
        if spec is None or not os.path.exists(module_name):
            raise SystemExit(f"pyptx.aot: no file {module_name!r}")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    else:
        if os.getcwd() not in sys.path:  # as `python -m` does for the caller's modules
            sys.path.insert(0, os.getcwd())
        module = importlib.import_module(module_name)
    if not hasattr(module, attr):
        raise SystemExit(f"pyptx.aot: {module_name} has no {attr!r}")
    return getattr(module, attr)


def build_kernel(obj, values: dict):
    """(kernel, compile kwargs): `obj` itself, or what the builder `obj`
    returns for the values it takes by name."""
    if isinstance(obj, Kernel):
        return obj, values
    if not callable(obj):
        raise SystemExit(f"pyptx.aot: {obj!r} is neither a @kernel nor a builder")
    params = inspect.signature(obj).parameters
    if any(p.kind == p.VAR_KEYWORD for p in params.values()):
        takes = set(values)  # a **kwargs builder takes them all
    else:
        takes = set(params)
    kernel = obj(**{k: v for k, v in values.items() if k in takes})
    if not isinstance(kernel, Kernel):
        raise SystemExit(f"pyptx.aot: {getattr(obj, '__name__', obj)} returned "
                         f"{type(kernel).__name__}, not a @kernel")
    return kernel, {k: v for k, v in values.items() if k not in takes}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pyptx.aot", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("target", help="MODULE:KERNEL (a @kernel or a builder of one)")
    parser.add_argument("--shape", nargs="+", action="extend", default=[],
                        metavar="NAME=VALUE", help="shape variables, template and "
                        "builder parameters")
    parser.add_argument("-o", "--out", required=True, help="output directory")
    parser.add_argument("--name", help="prefix of the C functions and files (default: "
                        "the kernel's name)")
    parser.add_argument("--spills", choices=SPILL_POLICIES, default="warn",
                        help="what a cubin that spills does (default: warn)")
    parser.add_argument("--gpu-arch", help="ptxas -arch (default: the PTX's target)")
    args = parser.parse_args(argv)

    values = parse_shapes(args.shape)
    kernel, compile_kwargs = build_kernel(load_target(args.target), values)
    compiled = kernel.compile(spills=args.spills, gpu_arch=args.gpu_arch, **compile_kwargs)
    shapes = " ".join(f"{k}={v}" for k, v in values.items())
    origin = f"python -m pyptx.aot {args.target}" + (f" --shape {shapes}" if shapes else "")
    try:
        paths = export(compiled, args.out, args.name, origin)
    except ExportError as e:
        raise SystemExit(f"pyptx.aot: {e}") from None
    r = compiled.resources
    print(f"{c_name(args.name or compiled.name)}: {compiled.arch}, grid {compiled.grid}, "
          f"block {compiled.block}, cluster {compiled.cluster}, {r.registers} registers, "
          f"{r.static_smem} + {r.dynamic_smem} bytes smem, "
          f"{r.spill_stores + r.spill_loads} bytes spilled")
    for path in paths.values():
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
