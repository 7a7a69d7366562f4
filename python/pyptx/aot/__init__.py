"""Ahead-of-time export: a compiled kernel as a cubin, a C header and a C
launcher (driver API, ``cuLaunchKernelEx``) that a C or C++ program builds
and links without Python::

    python -m pyptx.aot examples.hopper.rms_norm:build_rms_norm --shape B=16 N=1024 -o out/

writes ``out/rms_norm.{cubin,ptx,h,c}``. ``rms_norm.h`` declares
``rms_norm_load()``, ``rms_norm_launch(CUstream, CUdeviceptr X, CUdeviceptr W,
CUdeviceptr Y)``, ``rms_norm_unload()`` and ``rms_norm_last_error()``, and
the launch configuration as macros. Shapes are fixed at export: the grid,
the TMA descriptors' geometry and every raw parameter named like a shape
variable or template parameter are baked in; the launcher takes one
``CUdeviceptr`` per tensor, the other raw parameters (C scalars, or
``const CUtensorMap *`` for a 128-byte descriptor) and encodes the tensors'
TMA descriptors itself (``cuTensorMapEncodeTiled``) at each launch.

From Python: ``export(kernel.compile(...), "out/")`` or
``write_c(compiled, name)`` for the texts.
"""
from __future__ import annotations

import os
import re

from pyptx.aot import templates
from pyptx.errors import PyptxError
from pyptx.runtime import _TMA_DTYPES, launch_kind, raw_env

# Launch kinds -> C parameter types.
_C_TYPES = {"u8": "uint8_t", "u16": "uint16_t", "u32": "uint32_t", "s32": "int32_t",
            "u64": "uint64_t", "s64": "int64_t", "f32": "float", "f64": "double",
            "tensormap": "const CUtensorMap *"}

_TMA_ENUMS = {"u8": "UINT8", "u16": "UINT16", "u32": "UINT32", "s32": "INT32",
              "u64": "UINT64", "s64": "INT64", "f16": "FLOAT16", "f32": "FLOAT32",
              "f64": "FLOAT64", "bf16": "BFLOAT16", "tf32": "TFLOAT32"}
_SWIZZLES = {"none": "NONE", "32B": "32B", "64B": "64B", "128B": "128B"}
_PROMOTIONS = {"none": "NONE", "64B": "L2_64B", "128B": "L2_128B", "256B": "L2_256B"}
_OOB_FILLS = {"zero": "NONE", "nan": "NAN_REQUEST_ZERO_FMA"}

_C_KEYWORDS = frozenset(
    "auto break case char const continue default do double else enum extern float for "
    "goto if inline int long register restrict return short signed sizeof static struct "
    "switch typedef union unsigned void volatile while bool true false "
    # the launcher's own names
    "stream result config attributes params cubin drv module function retained "
    "retained_device last_error fail open_driver context".split())


class ExportError(PyptxError, ValueError):
    """A kernel that cannot be exported as it stands (says which parameter
    or setting, and why)."""


def c_name(name: str) -> str:
    """`name` as a C identifier that collides with no keyword or local of
    the launcher (a trailing underscore added where it would)."""
    name = re.sub(r"\W", "_", name)
    return name + "_" if name in _C_KEYWORDS or name[:1].isdigit() else name


def _tensor_shapes(compiled) -> dict:
    """Tensor parameter name -> its shape where a Tile gives it."""
    kernel = compiled.kernel
    tiles = list(kernel.in_specs) + list(kernel.out_specs)
    shapes = {}
    for name, tile in zip(kernel.tensor_names, tiles):
        shape = tile.resolve(compiled.shapes)
        if shape is not None:
            shapes[name] = (tuple(shape), tile)
    return shapes


def _parameters(compiled):
    """The launcher's arguments as (C declaration, doc) pairs, the
    kernelParams entries in the .entry's order, the TMA locals and encodes."""
    kernel, module = compiled.kernel, compiled.module
    shapes = _tensor_shapes(compiled)
    n_in = len(kernel.in_specs)
    args, docs, params, locals_, encodes, baked = [], [], [], [], [], []
    for index, name in enumerate(kernel.tensor_names):
        c = c_name(name)
        args.append(f"CUdeviceptr {c}")
        params.append(f"&{c}")
        if name in shapes:
            shape, tile = shapes[name]
            role = "output" if index >= n_in else (
                "input, written in place" if name in getattr(kernel, "writes", ()) else "input")
            dims = "".join(f"[{n}]" for n in shape)
            docs.append(f"{c}: device address of {tile.dtype.name}{dims}, row-major ({role})")
        else:
            docs.append(f"{c}: device address (tensor parameter '{name}')")
    env = raw_env(kernel, compiled.shapes, compiled.template)
    for p in kernel.raw_params:
        try:
            kind = launch_kind(kernel, p)
        except TypeError as e:
            raise ExportError(str(e)) from None
        c = c_name(p.name)
        if p.name in env and kind != "tensormap":
            value = env[p.name]
            literal = repr(float(value)) if kind in ("f32", "f64") else str(int(value))
            locals_.append(f"  {_C_TYPES[kind]} {c} = {literal};  /* baked at export */\n")
            baked.append(f"{p.name}={literal}")
            params.append(f"&{c}")
        else:
            args.append(f"{_C_TYPES[kind]}{'' if kind == 'tensormap' else ' '}{c}")
            params.append(f"(void *){c}" if kind == "tensormap" else f"&{c}")
            docs.append(f"{c}: raw parameter {p.spelling}")
    for d in module.tma_descs:
        if d.tensor not in shapes:
            raise ExportError(f"{kernel.name}: tensor {d.tensor!r} has a TMA descriptor "
                              f"but no Tile with a known shape; export needs in_specs/"
                              f"out_specs and the shape variables")
        locals_.append(_tma_locals(d, shapes[d.tensor][0]))
        encodes.append(_tma_encode(kernel, d))
        params.append(f"&{c_name(d.param)}")
    if baked:
        docs.append(f"(baked: {', '.join(baked)})")
    return args, docs, params, locals_, encodes


def _tma_locals(d, shape) -> str:
    dims, strides, box = d.geometry(shape)
    return templates.TMA_LOCALS.substitute(
        map=c_name(d.param), dims=", ".join(f"{n}u" for n in dims),
        strides=", ".join(f"{n}u" for n in strides) or "0u",
        box=", ".join(f"{n}u" for n in box), ones=", ".join("1u" for _ in dims))


def _tma_encode(kernel, d) -> str:
    dtype = _TMA_DTYPES.get(d.dtype.name, d.dtype.name)
    fields = {"dtype": (_TMA_ENUMS, dtype, "CU_TENSOR_MAP_DATA_TYPE_"),
              "swizzle": (_SWIZZLES, d.swizzle, "CU_TENSOR_MAP_SWIZZLE_"),
              "l2_promotion": (_PROMOTIONS, d.l2_promotion, "CU_TENSOR_MAP_L2_PROMOTION_"),
              "oob_fill": (_OOB_FILLS, d.oob_fill, "CU_TENSOR_MAP_FLOAT_OOB_FILL_")}
    values = {}
    for field, (table, value, prefix) in fields.items():
        if value not in table:
            raise ExportError(f"{kernel.name}: the TMA descriptor of {d.tensor!r} has "
                              f"{field} {value!r}, which export does not know (known: "
                              f"{', '.join(table)})")
        values[field] = prefix + table[value]
    return templates.TMA_ENCODE.substitute(map=c_name(d.param), rank=len(d.box),
                                           tensor=c_name(d.tensor), **values)


def _cubin_bytes(cubin: bytes) -> str:
    rows = (", ".join(f"0x{b:02x}" for b in cubin[i:i + 16])
            for i in range(0, len(cubin), 16))
    return ",\n".join(f"  {row}" for row in rows)


def write_c(compiled, name: str | None = None, origin: str = "") -> tuple[str, str]:
    """(header, source) of the launcher of `compiled` (a CompiledKernel);
    `name` (default the .entry's) prefixes the C functions and names the
    files; `origin` is noted in both (what was exported, with which shapes)."""
    module, r = compiled.module, compiled.resources
    if module.grid is None:
        raise ExportError(f"{compiled.name}: export needs grid=... in @kernel (the "
                          f"launcher's grid is fixed at export)")
    prefix = c_name(name or compiled.name)
    args, docs, params, locals_, encodes = _parameters(compiled)
    (gx, gy, gz), (bx, by, bz), (cx, cy, cz) = module.grid, module.block, module.cluster
    common = dict(
        entry=compiled.name, prefix=prefix, macro=prefix.upper(), arch=compiled.arch,
        origin=origin or f"kernel {compiled.name}", file_h=f"{prefix}.h",
        file_c=f"{prefix}.c", file_cubin=f"{prefix}.cubin",
        launch_params=", ".join(["CUstream stream", *args]),
        dynamic_smem=module.smem)
    header = templates.HEADER.substitute(
        common, guard=f"PYPTX_AOT_{prefix.upper()}_H", registers=r.registers,
        spilled=r.spill_stores + r.spill_loads, local_memory=r.local_memory,
        static_smem=r.static_smem,
        param_docs="".join(f" *   {doc}\n" for doc in docs) or " *   (none)\n",
        grid_x=gx, grid_y=gy, grid_z=gz, block_x=bx, block_y=by, block_z=bz,
        cluster_x=cx, cluster_y=cy, cluster_z=cz)
    source = templates.SOURCE.substitute(
        common, cubin_size=len(compiled.cubin), cubin_bytes=_cubin_bytes(compiled.cubin),
        smem_optin=(templates.SMEM_OPTIN.substitute(dynamic_smem=module.smem)
                    if module.smem > 48 * 1024 else ""),
        locals=("".join(locals_) + (f"  void *params[] = {{{', '.join(params)}}};\n"
                                    if params else "")),
        encodes="".join(encodes), params_arg="params" if params else "NULL")
    return header, source


def export(compiled, out_dir: str, name: str | None = None, origin: str = "") -> dict:
    """Writes <name>.cubin, .ptx, .h and .c of `compiled` into `out_dir`
    (made if missing); returns {"cubin", "ptx", "header", "source"} -> path."""
    header, source = write_c(compiled, name, origin)
    prefix = c_name(name or compiled.name)
    os.makedirs(out_dir, exist_ok=True)
    paths = {kind: os.path.join(out_dir, prefix + ext) for kind, ext in
             (("cubin", ".cubin"), ("ptx", ".ptx"), ("header", ".h"), ("source", ".c"))}
    contents = {"cubin": compiled.cubin, "ptx": compiled.ptx, "header": header,
                "source": source}
    for kind, path in paths.items():
        data = contents[kind]
        with open(path, "wb" if isinstance(data, bytes) else "w") as f:
            f.write(data)
    return paths


__all__ = ["ExportError", "c_name", "export", "write_c"]
