"""The hazard checker on traced kernels: hangs and races of asynchronous PTX
(an accumulator read while its wgmma is in flight, a TMA that reads shared
memory written without ``fence.proxy.async``, a ``bar.sync`` only some
threads reach, ...), found before the kernel runs. The analysis is the
dialect's (``pyptx-opt -pyptx-check-hazards``; docs/hazards.md lists what
it finds); this module applies the policy:

- ``@kernel(hazards="warn")`` (the default): each finding is a
  :class:`~pyptx.errors.KernelWarning` at the author's Python line;
- ``hazards="error"``: the first finding raises :class:`KernelError`,
  all of them listed;
- ``hazards="off"``: no check.

The environment variable ``PYPTX_HAZARDS`` (warn, error or off) sets the
policy of every kernel that does not name one.
"""
from __future__ import annotations

import os
import warnings

from pyptx.errors import KernelError, KernelWarning

POLICIES = ("warn", "error", "off")


def policy(requested: str | None) -> str:
    """The policy in force: the kernel's, else PYPTX_HAZARDS, else "warn"."""
    chosen = requested or os.environ.get("PYPTX_HAZARDS", "").strip().lower() or "warn"
    if chosen not in POLICIES:
        raise ValueError(f"hazards must be one of {', '.join(POLICIES)}; got {chosen!r}"
                         + ("" if requested else " (from PYPTX_HAZARDS)"))
    return chosen


def describe(finding) -> str:
    kind, message = finding[0], finding[1]
    return f"{kind}: {message}"


def check_module(native_module, requested: str | None, name: str = "") -> list:
    """Runs the analysis on a traced module and applies the policy; returns
    the findings as (kind, message, file, line, column, cause_file,
    cause_line, cause_column) tuples."""
    chosen = policy(requested)
    if chosen == "off":
        return []
    findings = native_module.check_hazards()
    if not findings:
        return findings
    if chosen == "error":
        kind, message, file, line, column = findings[0][:5]
        raise KernelError(
            f"{name + ': ' if name else ''}{describe(findings[0])}", file, line, column,
            diagnostics=[("error", f[2], f[3], f[4], describe(f)) for f in findings])
    for finding in findings:
        warnings.warn_explicit(describe(finding), KernelWarning,
                               finding[2] or "<pyptx>", finding[3] or 0)
    return findings
