"""Autotuning: pick a kernel's template configuration by timing them all on
the first call for a shape, and remember the choice on disk::

    @autotune(configs=[dict(BM=64), dict(BM=128), dict(BM=128, STAGES=4)])
    @kernel(in_specs=..., out_specs=..., grid=lambda M, BM: (M // BM, 1, 1), ...)
    def gemm(A, B, C, *, BM=128, STAGES=3): ...

    C = gemm(A, B)   # first call for these shapes: times each config, keeps the fastest

Each call is keyed by its arguments (arrays by shape and dtype, other
values as they are) with the kernel (module and qualified name, a hash of
its source, its target) and the machine (device name, compute capability,
driver version, ptxas version) and the configs. A key seen before in this
process reuses its choice; one seen before on this machine reads it from
``<cache dir>/autotune/<kernel>-<hash>.json`` (the cache dir is the
runtime's: $PYPTX_CACHE_DIR, else $XDG_CACHE_HOME/pyptx, else
~/.cache/pyptx). Otherwise every config is launched and timed (CUDA events
through PyTorch for torch tensors: warm-up launches, then the median of
`reps`; else wall-clock around a synchronised launch), configs that fail
(too much shared memory, a shape they don't divide) are recorded and
skipped, and the fastest is written to the file.

Anything callable with the configs as keywords can be tuned, not only a
@kernel (a Python function that launches several kernels, say).
"""
from __future__ import annotations

import hashlib
import inspect
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Sequence

from pyptx.kernel import Kernel
from pyptx.toolchain import find_tool


def _plain(value):
    """`value` as JSON keeps it (tuples become lists, others their str())."""
    return json.loads(json.dumps(value, sort_keys=True, default=str))


def describe_argument(value):
    """What of an argument keys the choice: an array's shape and dtype, a
    plain value itself, anything else its type's name."""
    if hasattr(value, "shape") and hasattr(value, "dtype"):
        return {"shape": [int(n) for n in value.shape], "dtype": str(value.dtype)}
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return type(value).__name__


def kernel_identity(fn) -> dict:
    """Module and qualified name, a hash of the source (of the traced
    function for a @kernel) and, for a @kernel, its target."""
    target = fn.fn if isinstance(fn, Kernel) else fn
    try:
        source = inspect.getsource(target).encode()
    except (OSError, TypeError):
        code = getattr(target, "__code__", None)
        source = code.co_code if code else repr(target).encode()
    identity = {"name": f"{getattr(target, '__module__', '')}."
                        f"{getattr(target, '__qualname__', type(target).__name__)}",
                "source": hashlib.sha256(source).hexdigest()[:16]}
    if isinstance(fn, Kernel):
        identity["arch"] = fn.arch
    return identity


_PTXAS_VERSION: dict = {}


def ptxas_version() -> str:
    """ptxas's version ("13.0.88"), "none" without ptxas."""
    ptxas = find_tool("ptxas")
    if not ptxas:
        return "none"
    if ptxas not in _PTXAS_VERSION:
        out = subprocess.run([ptxas, "--version"], capture_output=True, text=True).stdout
        found = re.search(r"V(\d+(?:\.\d+)+)", out)
        _PTXAS_VERSION[ptxas] = found.group(1) if found else out.strip()[-40:]
    return _PTXAS_VERSION[ptxas]


def describe_device(index: int = 0) -> dict:
    """name, capability, driver (cuDriverGetVersion) of CUDA device `index`
    and the ptxas version; RuntimeError without a driver."""
    import ctypes
    from pyptx.compiled import _check, libcuda
    lib = libcuda()
    device, major, minor, driver = (ctypes.c_int() for _ in range(4))
    _check(lib, lib.cuDeviceGet(ctypes.byref(device), index), f"device {index}")
    name = ctypes.create_string_buffer(256)
    _check(lib, lib.cuDeviceGetName(name, 256, device), "cuDeviceGetName")
    for value, attribute in ((major, 75), (minor, 76)):  # COMPUTE_CAPABILITY_MAJOR/MINOR
        _check(lib, lib.cuDeviceGetAttribute(ctypes.byref(value), attribute, device),
               "cuDeviceGetAttribute")
    _check(lib, lib.cuDriverGetVersion(ctypes.byref(driver)), "cuDriverGetVersion")
    return {"name": name.value.decode(), "capability": f"{major.value}.{minor.value}",
            "driver": driver.value, "ptxas": ptxas_version()}


def cuda_event_timer(warmup: int = 3, reps: int = 20) -> Callable[[Callable], float]:
    """A timer: `warmup` runs, then the median over `reps` runs of the
    milliseconds between CUDA events recorded around each (PyTorch's
    current stream)."""
    import torch

    def time_it(run) -> float:
        for _ in range(warmup):
            run()
        torch.cuda.synchronize()
        times = []
        for _ in range(reps):
            start, end = (torch.cuda.Event(enable_timing=True) for _ in range(2))
            start.record()
            run()
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end))
        return statistics.median(times)
    return time_it


def wall_timer(warmup: int = 3, reps: int = 20) -> Callable[[Callable], float]:
    """A timer for arrays other than torch's: the median wall-clock
    milliseconds of a run and the wait for its results (JAX's
    block_until_ready where the results have it, else a device-wide
    synchronize)."""
    def wait(result):
        jax = sys.modules.get("jax")
        if jax is not None and any(hasattr(leaf, "block_until_ready")
                                   for leaf in jax.tree_util.tree_leaves(result)):
            jax.block_until_ready(result)
        else:
            from pyptx import _runtime
            _runtime.synchronize()

    def time_it(run) -> float:
        for _ in range(warmup):
            wait(run())
        times = []
        for _ in range(reps):
            start = time.perf_counter()
            wait(run())
            times.append((time.perf_counter() - start) * 1e3)
        return statistics.median(times)
    return time_it


def _default_cache_dir() -> Path:
    from pyptx.cache import _runtime_cache_dir
    return _runtime_cache_dir() / "autotune"


class Autotuned:
    """A kernel (or any callable) with template configurations to choose
    from; see the module docstring. ``config_for(*args, **kwargs)`` gives
    the choice for a call, ``tune(...)`` times again ignoring the caches,
    ``cache_path(...)`` names the file, ``results[key hash]`` holds the
    timings of the tunings this process made."""

    def __init__(self, fn, configs: Sequence[dict], *, timer=None, cache_dir=None,
                 device: dict | Callable[[int], dict] | None = None, warmup: int = 3,
                 reps: int = 20):
        configs = [dict(c) for c in configs]
        if not configs:
            raise ValueError("autotune: configs is empty; give at least one dict of "
                             "template parameters")
        if isinstance(fn, Kernel):
            known = fn.template_params
            for config in configs:
                unknown = [k for k in config if k not in known]
                if unknown:
                    raise ValueError(f"autotune: config {config} sets {unknown}, which are "
                                     f"not template parameters of {fn.name} "
                                     f"({list(known)})")
        self.fn, self.configs = fn, configs
        self.timer, self.warmup, self.reps = timer, warmup, reps
        self.cache_dir = Path(cache_dir) if cache_dir is not None else None
        self.device = device
        self._identity = kernel_identity(fn)
        self._devices: dict[int, dict] = {}
        # A call's signature (hashable, cheap to make) -> its config: a
        # launch through the tuner costs a dict lookup once it has chosen.
        self._chosen: dict[tuple, dict] = {}
        self.results: dict[str, list] = {}
        self.__name__ = getattr(fn, "name", getattr(fn, "__name__", "autotuned"))
        self.__doc__ = getattr(fn, "__doc__", None)

    # -- the key ----------------------------------------------------------------
    @staticmethod
    def _device_index(args) -> int:
        return next((a.device.index or 0 for a in args
                     if getattr(getattr(a, "device", None), "type", None) == "cuda"), 0)

    def _device(self, index: int) -> dict:
        if isinstance(self.device, dict):
            return dict(self.device)
        if index not in self._devices:  # the machine does not change in a process
            self._devices[index] = (self.device or describe_device)(index)
        return self._devices[index]

    def key(self, *args, **kwargs) -> dict:
        """The description of a call its choice is kept under."""
        return _plain({"kernel": self._identity,
                       "device": self._device(self._device_index(args)),
                       "args": [describe_argument(a) for a in args],
                       "kwargs": {k: describe_argument(v) for k, v in sorted(kwargs.items())},
                       "configs": self.configs})

    @staticmethod
    def _signature(args, kwargs) -> tuple:
        def one(v):
            if hasattr(v, "shape") and hasattr(v, "dtype"):
                return (tuple(v.shape), str(v.dtype), getattr(getattr(v, "device", None),
                                                              "index", None))
            if v is None or isinstance(v, (bool, int, float, str)):
                return (type(v).__name__, v)
            return type(v).__name__
        return tuple(map(one, args)), tuple(sorted((k, one(v)) for k, v in kwargs.items()))

    @staticmethod
    def _hash(key: dict) -> str:
        return hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:24]

    def cache_path(self, *args, **kwargs) -> Path:
        return self._path(self.key(*args, **kwargs))

    def _path(self, key) -> Path:
        name = re.sub(r"[^\w.-]", "_", key["kernel"]["name"].rsplit(".", 1)[-1])
        return (self.cache_dir or _default_cache_dir()) / f"{name}-{self._hash(key)}.json"

    # -- choosing ---------------------------------------------------------------
    def _check_kwargs(self, kwargs):
        chosen = sorted({k for c in self.configs for k in c} & set(kwargs))
        if chosen:
            raise TypeError(f"autotune {self.__name__}: {chosen} are chosen by autotune "
                            f"(they are in its configs); call without them, or call the "
                            f"kernel itself")

    def config_for(self, *args, **kwargs) -> dict:
        """The chosen config for this call: remembered in this process, else
        read from the cache file, else tuned now (the call's arguments are
        launched with each config)."""
        signature = self._signature(args, kwargs)
        chosen = self._chosen.get(signature)
        if chosen is None:
            self._check_kwargs(kwargs)
            key = self.key(*args, **kwargs)
            chosen = self._chosen[signature] = (self._read(key)
                                                or self._tune(key, args, kwargs))
        return chosen

    def tune(self, *args, **kwargs) -> dict:
        """Times every config for this call now (ignoring both caches),
        writes the cache file and returns the fastest config."""
        self._check_kwargs(kwargs)
        key = self.key(*args, **kwargs)
        chosen = self._chosen[self._signature(args, kwargs)] = self._tune(key, args, kwargs)
        return chosen

    def _read(self, key):
        path = self._path(key)
        try:
            stored = json.loads(path.read_text())
            best = stored["best"]
            if stored["key"] == key and _plain(self.configs[best]) == stored["config"]:
                return self.configs[best]
        except (OSError, ValueError, KeyError, IndexError, TypeError):
            pass
        return None

    def _timer(self, args):
        if self.timer is not None:
            return self.timer
        if any(type(a).__module__.startswith("torch") for a in args):
            return cuda_event_timer(self.warmup, self.reps)
        return wall_timer(self.warmup, self.reps)

    def _tune(self, key, args, kwargs) -> dict:
        timer = self._timer(args)
        results = []
        for config in self.configs:
            try:
                ms = float(timer(lambda: self.fn(*args, **config, **kwargs)))
                results.append({"config": _plain(config), "ms": ms})
            except Exception as e:  # a config that cannot run is skipped, with why
                results.append({"config": _plain(config),
                                "error": f"{type(e).__name__}: {e}"})
        digest = self._hash(key)
        self.results[digest] = results
        timed = [i for i, r in enumerate(results) if "ms" in r]
        if not timed:
            raise RuntimeError(f"autotune {self.__name__}: every config failed:\n" + "\n".join(
                f"  {r['config']}: {r['error']}" for r in results))
        best = min(timed, key=lambda i: results[i]["ms"])  # ties: the first listed
        self._write(key, {"key": key, "best": best, "config": _plain(self.configs[best]),
                          "results": results,
                          "tuned_at": time.strftime("%Y-%m-%dT%H:%M:%S%z")})
        return self.configs[best]

    def _write(self, key, record) -> None:
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        # Written whole, then renamed: a reader never sees half a file.
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
        with os.fdopen(fd, "w") as f:
            json.dump(record, f, indent=1, sort_keys=True)
        os.replace(tmp, path)

    def __call__(self, *args, **kwargs):
        return self.fn(*args, **self.config_for(*args, **kwargs), **kwargs)

    def __repr__(self):
        return f"<pyptx.Autotuned {self.__name__}: {len(self.configs)} configs>"


def autotune(configs: Sequence[dict], *, timer=None, cache_dir=None, device=None,
             warmup: int = 3, reps: int = 20) -> Callable[[Any], Autotuned]:
    """Decorator: ``@autotune(configs=[{...}, ...])`` over a @kernel (or any
    callable taking the configs' keys as keywords) -> Autotuned.

    timer: a function of a no-argument callable returning its time in ms
    (default: CUDA events for torch tensors, else wall-clock; warmup and
    reps set them). cache_dir: where the choices are kept (default
    <runtime cache dir>/autotune). device: a dict describing the machine
    instead of asking the driver (name, capability, driver, ptxas)."""
    def wrap(fn) -> Autotuned:
        return Autotuned(fn, configs, timer=timer, cache_dir=cache_dir, device=device,
                         warmup=warmup, reps=reps)
    return wrap


__all__ = ["Autotuned", "autotune", "cuda_event_timer", "wall_timer", "describe_device",
           "describe_argument", "kernel_identity", "ptxas_version"]
