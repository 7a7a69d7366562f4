"""Trace every example for this machine's GPU, assemble it with ptxas, and --
where the CUDA driver (libcuda) is there -- launch it and compare with its
NumPy reference. Launching goes through the driver API with ctypes until the
pyptx runtime (issue 6) lands; without a GPU use --arch sm_90a to only
trace and assemble.

    python examples/run_on_gpu.py [--arch sm_90a] [--no-launch]
"""
from __future__ import annotations

import argparse
import ctypes
import importlib
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import numpy as np  # noqa: E402

import examples.common  # noqa: E402,F401  (makes pyptx importable)
from pyptx.kernel import _find_tool  # noqa: E402

EXAMPLES = ("rms_norm", "layer_norm", "softmax", "swiglu")
FAMILY = {8: "ampere", 9: "hopper", 10: "blackwell"}
SHAPES = ((3, 96), (64, 1024), (8, 4096))


def inputs(name, B, N, rng):
    x = rng.standard_normal((B, N), dtype=np.float32)
    if name == "rms_norm":
        return [x, (1 + 0.1 * rng.standard_normal(N)).astype(np.float32)]
    if name == "layer_norm":
        return [x * 3 + 1, (1 + 0.1 * rng.standard_normal(N)).astype(np.float32),
                (0.1 * rng.standard_normal(N)).astype(np.float32)]
    if name == "softmax":
        return [x * 4]
    return [x * 4, rng.standard_normal((B, N), dtype=np.float32)]


class Driver:
    """Just enough of the CUDA driver API to launch one traced kernel."""

    def __init__(self):
        self.cu = ctypes.CDLL("libcuda.so.1")
        self.ok(self.cu.cuInit(0))
        self.dev, ctx = ctypes.c_int(), ctypes.c_void_p()
        self.ok(self.cu.cuDeviceGet(ctypes.byref(self.dev), 0))
        self.ok(self.cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), self.dev))
        self.ok(self.cu.cuCtxSetCurrent(ctx))
        for f in ("cuMemcpyHtoD_v2", "cuMemcpyDtoH_v2", "cuMemFree_v2"):
            getattr(self.cu, f).argtypes = {
                "cuMemcpyHtoD_v2": [ctypes.c_uint64, ctypes.c_void_p, ctypes.c_size_t],
                "cuMemcpyDtoH_v2": [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_size_t],
                "cuMemFree_v2": [ctypes.c_uint64]}[f]

    @staticmethod
    def ok(code):
        if code:
            raise RuntimeError(f"CUDA driver error {code}")

    def capability(self):
        major, minor = ctypes.c_int(), ctypes.c_int()
        self.ok(self.cu.cuDeviceGetAttribute(ctypes.byref(major), 75, self.dev))
        self.ok(self.cu.cuDeviceGetAttribute(ctypes.byref(minor), 76, self.dev))
        return major.value, minor.value

    def run(self, m, arrays, out_shape):
        mod, fn = ctypes.c_void_p(), ctypes.c_void_p()
        self.ok(self.cu.cuModuleLoadData(ctypes.byref(mod), m.ptx.encode() + b"\0"))
        self.ok(self.cu.cuModuleGetFunction(ctypes.byref(fn), mod, m.name.encode()))
        out = np.empty(out_shape, np.float32)
        ptrs = []
        for a in [*arrays, out]:
            p = ctypes.c_uint64()
            self.ok(self.cu.cuMemAlloc_v2(ctypes.byref(p), ctypes.c_size_t(a.nbytes)))
            self.ok(self.cu.cuMemcpyHtoD_v2(p.value, a.ctypes.data, a.nbytes))
            ptrs.append(p)
        params = (ctypes.c_void_p * len(ptrs))(*[ctypes.addressof(p) for p in ptrs])
        self.ok(self.cu.cuLaunchKernel(fn, *m.grid, *m.block, m.smem, None, params, None))
        self.ok(self.cu.cuCtxSynchronize())
        self.ok(self.cu.cuMemcpyDtoH_v2(out.ctypes.data, ptrs[-1].value, out.nbytes))
        for p in ptrs:
            self.ok(self.cu.cuMemFree_v2(p.value))
        self.ok(self.cu.cuModuleUnload(mod))
        return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--arch", help="sm_80 / sm_90a / sm_100a (default: the GPU's)")
    ap.add_argument("--no-launch", action="store_true")
    args = ap.parse_args(argv)
    try:
        driver = None if args.no_launch else Driver()
    except (OSError, RuntimeError) as e:
        print(f"no CUDA driver/GPU ({e}): tracing and assembling only")
        driver = None
    if args.arch:
        arch = args.arch
    elif driver:
        major, minor = driver.capability()
        arch = f"sm_{major}{minor}" + ("a" if major in (9, 10) else "")
    else:
        sys.exit("no GPU found: pass --arch")
    major = int(arch[3:].rstrip("a")) // 10
    family = FAMILY.get(major, "ampere")
    ptxas, failures, rng = _find_tool("ptxas"), 0, np.random.default_rng(0)
    print(f"arch {arch}: examples/{family}, ptxas {ptxas or 'not found'}")
    for name in EXAMPLES:
        mod = importlib.import_module(f"examples.{family}.{name}")
        for B, N in SHAPES:
            m = getattr(mod, f"build_{name}")(B, N).module()
            count = sum(1 for line in m.ptx.split("{", 1)[1].splitlines()
                        if line.strip() and line.strip()[0] not in ".{}$")
            status = "ptxas skipped"
            if ptxas:
                with tempfile.NamedTemporaryFile("w", suffix=".ptx") as f:
                    f.write(m.ptx)
                    f.flush()
                    r = subprocess.run([ptxas, f"-arch={arch}", f.name, "-o", os.devnull],
                                       capture_output=True, text=True)
                status = "ptxas ok" if r.returncode == 0 else "PTXAS FAILED\n" + r.stderr
                failures += r.returncode != 0
            line = f"{name} {family} B={B} N={N}: traced {count} instructions, {status}"
            if driver:
                arrays = inputs(name, B, N, rng)
                out = driver.run(m, arrays, (B, N))
                ref = mod.reference(*arrays)
                err = float(np.max(np.abs(out - ref) / (np.abs(ref) + 1e-3)))
                good = np.allclose(out, ref, rtol=1e-4, atol=1e-5)
                failures += not good
                line += f", max rel err {err:.2e} {'ok' if good else 'MISMATCH'}"
            print(line)
    print("FAILED" if failures else "all ok")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
