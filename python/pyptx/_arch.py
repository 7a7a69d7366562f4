"""Targets: resolving arch="auto" and the default PTX ISA version."""
from __future__ import annotations

import os

from pyptx._trace import isa_table
from pyptx.errors import PyptxError

# Used only when the generated pyptx._isa_table is missing: target -> lowest
# PTX ISA version (x10) that knows it.
_FALLBACK_MIN_PTX = {
    "sm_70": 60, "sm_75": 63, "sm_80": 70, "sm_86": 71, "sm_87": 74, "sm_89": 78,
    "sm_90": 78, "sm_90a": 80, "sm_100": 86, "sm_100a": 86, "sm_101a": 86,
    "sm_120": 87, "sm_120a": 87,
}


def resolve_arch(arch: str) -> str:
    """arch, or for "auto" the current GPU's target: $PYPTX_ARCH if set, else
    torch.cuda's device capability (sm_90 -> sm_90a, sm_100 -> sm_100a, so the
    arch-specific features are available)."""
    if arch != "auto":
        return arch
    env = os.environ.get("PYPTX_ARCH")
    if env:
        return env
    try:
        import torch
        if torch.cuda.is_available():
            major, minor = torch.cuda.get_device_capability()
            sm = f"sm_{major}{minor}"
            return sm + "a" if major in (9, 10) else sm
    except ImportError:
        pass
    raise PyptxError('arch="auto" needs a CUDA GPU visible to torch (none found) or '
                     'the PYPTX_ARCH environment variable (e.g. PYPTX_ARCH=sm_90a)')


def default_version(target: str) -> tuple[int, int]:
    """The lowest PTX ISA version `target` needs, e.g. sm_90a -> (8, 0)."""
    table = isa_table()
    targets = getattr(table, "TARGETS", None) or {}
    if target in targets:
        min_ptx = targets[target][1]
    elif target in _FALLBACK_MIN_PTX:
        min_ptx = _FALLBACK_MIN_PTX[target]
    else:
        raise PyptxError(f"unknown target {target!r}; pass version=(major, minor)")
    return divmod(min_ptx, 10)
