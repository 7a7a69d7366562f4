"""Trace every example for this machine's GPU, assemble it with ptxas, and --
where PyTorch sees a GPU -- launch it (``kernel(*tensors)``, the pyptx
runtime) and compare with its NumPy reference. Without a GPU use --arch
sm_90a to only trace and assemble.

    python examples/run_on_gpu.py [--arch sm_90a] [--no-launch]
"""
from __future__ import annotations

import argparse
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


def gpu():
    """torch, when it sees a GPU; else the reason it cannot launch."""
    try:
        import torch
    except ImportError:
        return None, "PyTorch is not installed"
    if not torch.cuda.is_available():
        return None, "PyTorch sees no GPU"
    return torch, None


def launch(torch, kernel, arrays):
    """kernel(*arrays) on the GPU, back as a NumPy array."""
    out = kernel(*[torch.from_numpy(a).cuda() for a in arrays])
    return out.cpu().numpy()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--arch", help="sm_80 / sm_90a / sm_100a (default: the GPU's)")
    ap.add_argument("--no-launch", action="store_true")
    args = ap.parse_args(argv)
    torch, why = (None, "--no-launch") if args.no_launch else gpu()
    if torch is None:
        print(f"not launching ({why}): tracing and assembling only")
    if args.arch:
        arch = args.arch
    elif torch:
        major, minor = torch.cuda.get_device_capability()
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
            kernel = getattr(mod, f"build_{name}")(B, N)
            m = kernel.module()
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
            if torch:
                arrays = inputs(name, B, N, rng)
                out = launch(torch, kernel, arrays)
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
