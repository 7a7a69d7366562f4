"""Hopper (sm_90a) swiglu: the kernel of examples/common/swiglu.py for sm_90a.

    python examples/hopper/swiglu.py [B N]    # prints the PTX
"""
from __future__ import annotations

import os
import sys

if __package__ in (None, ""):  # run as a script: make `examples` importable
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

from examples.common.for_arch import example  # noqa: E402

ARCH = "sm_90a"
build_swiglu, reference, main = example("swiglu", ARCH)

if __name__ == "__main__":
    main()
