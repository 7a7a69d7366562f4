"""Ampere (sm_80) swiglu: the kernel of examples/common/swiglu.py for sm_80.

    python examples/ampere/swiglu.py [B N]    # prints the PTX
"""
from __future__ import annotations

import os
import sys

if __package__ in (None, ""):  # run as a script: make `examples` importable
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

from examples.common import swiglu as _common  # noqa: E402

ARCH = "sm_80"


def build_swiglu(B: int, F: int, threads: int = 256):
    return _common.build_swiglu(B, F, arch=ARCH, threads=threads)


def reference(gate, up):
    return _common.reference(gate, up)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    B, N = (int(a) for a in argv[:2]) if len(argv) >= 2 else (16, 1024)
    print(build_swiglu(B, N).ptx(), end="")


if __name__ == "__main__":
    main()
