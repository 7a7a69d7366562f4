"""Kernel builders shared by examples/{ampere,hopper,blackwell}.

Importing this package makes ``pyptx`` importable from a source checkout
(python/ next to examples/) when it is not installed.
"""
import os as _os
import sys as _sys

try:
    import pyptx  # noqa: F401
except ImportError:
    _sys.path.insert(0, _os.path.join(_os.path.dirname(_os.path.abspath(__file__)),
                                      "..", "..", "python"))
    import pyptx  # noqa: F401
