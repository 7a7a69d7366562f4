"""The original pyptx's cubin cache API, over pyptx's one cubin cache.

Cubins are kept by the launch library (pyptx._runtime): ``compile_ptx``
stores each under the SHA-256 of its PTX, arch and ptxas version in
``pyptx._runtime.cache_dir()`` ($PYPTX_CACHE_DIR, else
$XDG_CACHE_HOME/pyptx, else ~/.cache/pyptx), and every launch reads it
there. ``CubinCache`` adds what that cache does not know: which PTX a kernel
specialisation (a ``CacheKey``: function, template values, input shapes,
arch) compiled to, with metadata. On disk an entry is two files in its
directory, ``<key hash>.ptx`` and ``<key hash>.json``; its cubin is the
runtime's::

    cache = get_global_cache()
    key = CacheKey("gemm", (("BM", 128),), (((4096, 4096), "bf16"),), "sm_90a")
    cache.put(CacheEntry(key, ptx_text, cubin))   # the cubin goes to the runtime's cache
    cache.get(key).cubin_bytes                    # read back from it (compiled if gone)

An entry put without a cubin (cubin_bytes None: "PTX only") comes back
without one. A cubin given to put() is not stored as given: the runtime's
cache keeps what ptxas makes of the entry's PTX (the same bytes for a cubin
made by pyptx). Nothing in pyptx consults this cache by itself.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


def _runtime_cache_dir() -> Path:
    """The runtime's cubin directory (the same rule when it is not built)."""
    try:
        from pyptx import _runtime
        return Path(_runtime.cache_dir())
    except ImportError:
        if os.environ.get("PYPTX_CACHE_DIR"):
            return Path(os.environ["PYPTX_CACHE_DIR"])
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(Path.home(), ".cache")
        return Path(base) / "pyptx"


DEFAULT_CACHE_DIR = _runtime_cache_dir()

_ENTRY_FILE = re.compile(r"[0-9a-f]{32}\.(json|ptx)")
_CUBIN_FILE = re.compile(r"[0-9a-f]{64}\.cubin")


@dataclass(frozen=True)
class CacheKey:
    """One kernel specialisation: fn_id (e.g. the function's __qualname__),
    template_kwargs (sorted (name, value) pairs), input_shapes ((shape,
    dtype name) per input) and the arch."""

    fn_id: str
    template_kwargs: tuple[tuple[str, Any], ...]
    input_shapes: tuple[tuple[tuple[int, ...], str], ...]
    arch: str

    def _fields(self) -> dict:
        return {"fn_id": self.fn_id,
                "template_kwargs": [[k, v] for k, v in self.template_kwargs],
                "input_shapes": [[list(shape), dtype] for shape, dtype in self.input_shapes],
                "arch": self.arch}

    def hash(self) -> str:
        """A stable hex digest (32 characters of SHA-256) of the key; values
        JSON cannot hold count by their str()."""
        text = json.dumps(self._fields(), sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()[:32]


@dataclass
class CacheEntry:
    """One compiled specialisation: its PTX, its cubin (None: PTX only)
    and metadata (JSON-able values; others are stored as their str())."""

    key: CacheKey
    ptx_source: str
    cubin_bytes: bytes | None
    metadata: dict[str, Any] = field(default_factory=dict)


class CubinCache:
    """Entries in memory and, with enable_disk, in `cache_dir` (default
    DEFAULT_CACHE_DIR), their cubins in the runtime's cache. Thread-safe."""

    def __init__(self, cache_dir: Path | None = None, enable_disk: bool = True) -> None:
        self.cache_dir = Path(cache_dir) if cache_dir is not None else DEFAULT_CACHE_DIR
        self.enable_disk = enable_disk
        self._memory: dict[str, CacheEntry] = {}
        self._lock = threading.RLock()

    def get(self, key: CacheKey) -> CacheEntry | None:
        """The entry of `key`: from memory, else from disk (its cubin from
        the runtime's cache, compiled again by ptxas if it was dropped),
        else None."""
        digest = key.hash()
        with self._lock:
            entry = self._memory.get(digest)
            if entry is None and self.enable_disk:
                entry = self._load(key, digest)
                if entry is not None:
                    self._memory[digest] = entry
            return entry

    def put(self, entry: CacheEntry) -> None:
        """Keeps `entry` in memory and, with enable_disk, writes its PTX and
        metadata to cache_dir and (when it has a cubin) compiles its PTX
        into the runtime's cache. RuntimeError when ptxas rejects the PTX."""
        digest = entry.key.hash()
        with self._lock:
            self._memory[digest] = entry
            if not self.enable_disk:
                return
            if entry.cubin_bytes is not None:
                _compile(entry)
            self.cache_dir.mkdir(parents=True, exist_ok=True)
            _write(self.cache_dir / f"{digest}.ptx", entry.ptx_source)
            _write(self.cache_dir / f"{digest}.json", json.dumps(
                {"key": entry.key._fields(), "has_cubin": entry.cubin_bytes is not None,
                 "metadata": entry.metadata}, default=str))

    def clear(self, *, disk: bool = False) -> None:
        """Forgets the entries in memory; with disk=True also deletes the
        entries' files in cache_dir and every cubin of the runtime's
        cache."""
        with self._lock:
            self._memory.clear()
            if not disk:
                return
            for directory, pattern in ((self.cache_dir, _ENTRY_FILE),
                                       (_runtime_cache_dir(), _CUBIN_FILE)):
                if directory.is_dir():
                    for path in directory.iterdir():
                        if pattern.fullmatch(path.name):
                            path.unlink(missing_ok=True)

    def __len__(self) -> int:
        return len(self._memory)

    def __contains__(self, key: CacheKey) -> bool:
        return self.get(key) is not None

    def _load(self, key, digest):
        try:
            meta = json.loads((self.cache_dir / f"{digest}.json").read_text())
            ptx = (self.cache_dir / f"{digest}.ptx").read_text()
        except (OSError, ValueError):
            return None
        if meta.get("key") != json.loads(json.dumps(key._fields(), default=str)):
            return None  # another key with the same digest prefix
        entry = CacheEntry(key, ptx, None, meta.get("metadata", {}))
        if meta.get("has_cubin"):
            entry.cubin_bytes = _compile(entry)
        return entry


def _compile(entry: CacheEntry) -> bytes:
    """The entry's cubin through the runtime's cache (a read when it is
    there)."""
    from pyptx.runtime import log_compile, runtime
    start = time.perf_counter()
    cubin = runtime().compile_ptx(entry.ptx_source, entry.key.arch, entry.key.fn_id)
    log_compile(entry.key.fn_id, time.perf_counter() - start)
    return cubin


def _write(path: Path, text: str) -> None:
    """Writes through a temporary file, so a reader never sees half of it."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}")
    tmp.write_text(text)
    os.replace(tmp, path)


_global: CubinCache | None = None


def get_global_cache() -> CubinCache:
    """The process-wide cache (made at the first call)."""
    global _global
    if _global is None:
        _global = CubinCache()
    return _global


def set_global_cache(cache: CubinCache) -> None:
    """Replaces the process-wide cache (for tests, say)."""
    global _global
    _global = cache
