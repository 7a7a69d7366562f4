"""One example for one target: what each examples/<family>/<name>.py exposes."""
from __future__ import annotations

import sys
from importlib import import_module


def example(name: str, arch: str):
    """(build_<name> for `arch`, reference, main) of examples/common/<name>.py.

    main([B, N]) prints the kernel's PTX (16 x 1024 by default)."""
    common = import_module(f"examples.common.{name}")
    builder = getattr(common, f"build_{name}")

    def build(*args, **kwargs):
        return builder(*args, arch=arch, **kwargs)

    build.__name__ = build.__qualname__ = f"build_{name}"
    build.__doc__ = f"{builder.__doc__ or ''}\n\nFor {arch}."

    def main(argv=None):
        argv = sys.argv[1:] if argv is None else argv
        B, N = (int(a) for a in argv[:2]) if len(argv) >= 2 else (16, 1024)
        print(build(B, N).ptx(), end="")

    return build, common.reference, main
