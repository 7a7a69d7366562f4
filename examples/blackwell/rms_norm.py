"""Blackwell (sm_100a) rms_norm: the kernel of examples/common/rms_norm.py for sm_100a.

    python examples/blackwell/rms_norm.py [B N]    # prints the PTX
"""
from __future__ import annotations

import os
import sys

if __package__ in (None, ""):  # run as a script: make `examples` importable
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

from examples.common import rms_norm as _common  # noqa: E402

ARCH = "sm_100a"


def build_rms_norm(B: int, N: int, eps: float = 1e-6, threads: int | None = None):
    return _common.build_rms_norm(B, N, eps=eps, arch=ARCH, threads=threads)


def reference(x, w, eps: float = 1e-6):
    return _common.reference(x, w, eps)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    B, N = (int(a) for a in argv[:2]) if len(argv) >= 2 else (16, 1024)
    print(build_rms_norm(B, N).ptx(), end="")


if __name__ == "__main__":
    main()
