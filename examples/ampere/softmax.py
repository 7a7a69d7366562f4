"""Ampere (sm_80) softmax: the kernel of examples/common/softmax.py for sm_80.

    python examples/ampere/softmax.py [B N]    # prints the PTX
"""
from __future__ import annotations

import os
import sys

if __package__ in (None, ""):  # run as a script: make `examples` importable
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

from examples.common import softmax as _common  # noqa: E402

ARCH = "sm_80"


def build_softmax(B: int, N: int, threads: int | None = None):
    return _common.build_softmax(B, N, arch=ARCH, threads=threads)


def reference(x):
    return _common.reference(x)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    B, N = (int(a) for a in argv[:2]) if len(argv) >= 2 else (16, 1024)
    print(build_softmax(B, N).ptx(), end="")


if __name__ == "__main__":
    main()
