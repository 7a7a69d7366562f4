"""Targets: the current GPU's arch (``pyptx.detect_arch``), resolving
arch="auto", and the default PTX ISA version of a target."""
from __future__ import annotations

import functools
import os

from pyptx import _isa_facts
from pyptx.errors import PyptxError


def _capability_from_torch():
    try:
        import torch
        if torch.cuda.is_available():
            return tuple(torch.cuda.get_device_capability(0))
    except Exception:  # no torch, or a torch without CUDA: try the next
        pass
    return None


def _capability_from_jax():
    try:
        import jax
        for device in jax.devices("gpu"):
            major, minor = str(device.compute_capability).split(".")
            return int(major), int(minor)
    except Exception:  # no jax, or no GPU backend
        pass
    return None


def detect_arch() -> str:
    """The PTX target of the first CUDA device: ``"sm_80"`` (A100),
    ``"sm_86"``/``"sm_89"`` (RTX 30xx/40xx, L40), ``"sm_90a"`` (H100, H200),
    ``"sm_100a"`` (B200, GB200), ``"sm_103a"`` (B300), ``"sm_120"`` (RTX 50xx,
    RTX Pro 6000).

    Datacenter Hopper and Blackwell (compute capability 9.x, 10.x, 11.x) get
    the ``a`` suffix, which unlocks wgmma, setmaxnreg and tcgen05; the others
    have no arch-specific features pyptx uses. The device is asked through
    PyTorch, else JAX. Cached after the first call (``detect_arch.cache_clear()``
    forgets it).

    Raises RuntimeError when no CUDA device is visible.
    """
    return _detect()


@functools.lru_cache(maxsize=1)
def _detect() -> str:
    capability = _capability_from_torch() or _capability_from_jax()
    if capability is None:
        raise RuntimeError(
            "pyptx.detect_arch(): no CUDA device found (asked PyTorch and JAX); pass "
            "an explicit target such as @kernel(arch='sm_90a')")
    major, minor = capability
    arch = f"sm_{major}{minor}"
    return arch + "a" if major in (9, 10, 11) else arch


def _cache_info():
    """detect_arch's cache statistics (functools.lru_cache's cache_info)."""
    return _detect.cache_info()


def _cache_clear():
    """Forgets the detected arch: the next detect_arch() asks the device."""
    _detect.cache_clear()


detect_arch.cache_info = _cache_info
detect_arch.cache_clear = _cache_clear


def resolve_arch(arch: str) -> str:
    """arch, or for "auto" the current GPU's target: $PYPTX_ARCH if set, else
    detect_arch()."""
    if arch != "auto":
        return arch
    env = os.environ.get("PYPTX_ARCH")
    if env:
        return env
    try:
        return detect_arch()
    except RuntimeError:
        raise PyptxError('arch="auto" needs a CUDA GPU visible to torch or jax (none '
                         'found) or the PYPTX_ARCH environment variable (e.g. '
                         'PYPTX_ARCH=sm_90a)') from None


def min_version(target: str) -> tuple[int, int]:
    """The lowest PTX ISA version that knows `target`, e.g. sm_90a -> (8, 0)
    (Targets.td)."""
    min_ptx = _isa_facts.targets().get(target)
    if min_ptx is None:
        raise PyptxError(f"unknown target {target!r}; pass version=(major, minor)")
    return divmod(min_ptx, 10)


def default_version(target: str) -> tuple[int, int]:
    """The PTX ISA version a kernel gets without version=: the original
    pyptx's defaults -- 8.8 for sm_100*/sm_101*, 8.7 for sm_12*, 8.5 for the
    rest -- raised to the lowest version that knows the target where that
    is higher (sm_103a: 8.8, sm_110a: 9.0, sm_121a: 8.8)."""
    if target.startswith(("sm_100", "sm_101")):
        original = (8, 8)
    elif target.startswith("sm_12"):
        original = (8, 7)
    else:
        original = (8, 5)
    return max(original, min_version(target))
