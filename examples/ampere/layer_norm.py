"""Ampere (sm_80) layer_norm: the kernel of examples/common/layer_norm.py for sm_80.

    python examples/ampere/layer_norm.py [B N]    # prints the PTX
"""
from __future__ import annotations

import os
import sys

if __package__ in (None, ""):  # run as a script: make `examples` importable
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

from examples.common import layer_norm as _common  # noqa: E402

ARCH = "sm_80"


def build_layer_norm(B: int, N: int, eps: float = 1e-5, threads: int | None = None):
    return _common.build_layer_norm(B, N, eps=eps, arch=ARCH, threads=threads)


def reference(x, w, b, eps: float = 1e-5):
    return _common.reference(x, w, b, eps)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    B, N = (int(a) for a in argv[:2]) if len(argv) >= 2 else (16, 1024)
    print(build_layer_norm(B, N).ptx(), end="")


if __name__ == "__main__":
    main()
