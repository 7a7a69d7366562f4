"""Blackwell (sm_100a) softmax: the kernel of examples/common/softmax.py for sm_100a.

    python examples/blackwell/softmax.py [B N]    # prints the PTX
"""
from __future__ import annotations

import os
import sys

if __package__ in (None, ""):  # run as a script: make `examples` importable
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

from examples.common.for_arch import example  # noqa: E402

ARCH = "sm_100a"
build_softmax, reference, main = example("softmax", ARCH)

if __name__ == "__main__":
    main()
