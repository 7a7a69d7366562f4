"""pyptx's log: the ``pyptx`` logger of Python's logging.

What it tells: ptxas runs and their time, cubin cache hits and misses,
which tool was found where (debug), autotune's timings and choices (info).
Like any library's logger it has no handler of its own: configure logging
as usual (``logging.getLogger("pyptx").setLevel(logging.DEBUG)``), or set
``PYPTX_LOG=debug|info|warning`` for a stderr handler at that level.
"""
from __future__ import annotations

import logging
import os

logger = logging.getLogger("pyptx")

LEVELS = {"debug": logging.DEBUG, "info": logging.INFO, "warning": logging.WARNING,
          "error": logging.ERROR}


class _EnvHandler(logging.StreamHandler):
    """The handler PYPTX_LOG adds (told apart so it is added once)."""


def configure_from_env(value: str | None = None) -> None:
    """Adds a stderr handler at the level $PYPTX_LOG names (or `value`);
    nothing when it is unset or empty. ValueError for an unknown level."""
    value = (os.environ.get("PYPTX_LOG", "") if value is None else value).strip().lower()
    if not value:
        return
    if value not in LEVELS:
        raise ValueError(f"PYPTX_LOG={value!r}: expected one of {', '.join(LEVELS)}")
    handler = next((h for h in logger.handlers if isinstance(h, _EnvHandler)), None)
    if handler is None:
        handler = _EnvHandler()
        handler.setFormatter(logging.Formatter("[pyptx %(levelname)s] %(message)s"))
        logger.addHandler(handler)
    logger.setLevel(LEVELS[value])


try:
    configure_from_env()
except ValueError as e:  # a typo in the environment must not stop the import
    import warnings
    warnings.warn(str(e), stacklevel=2)
