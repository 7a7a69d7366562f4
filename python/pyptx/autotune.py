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
~/.cache/pyptx). Otherwise every config is launched and timed as a benchmark is: `warmup`
launches, then the median of `reps`, each timed alone (CUDA events through
PyTorch for torch tensors, with the L2 cache flushed before each by a write
of a buffer twice its size; else wall-clock around a synchronised launch).
Configs that fail (too much shared memory, a shape they don't divide) are
recorded and skipped, and the fastest is written to the file.

A kernel that writes one of its arguments (accumulates into it, say) would
see another config's results there: name such arguments in
``restore_value=[...]`` (copied before tuning, copied back before every
timed launch and after tuning) or ``reset_to_zero=[...]`` (zeroed before
every timed launch and after tuning), as Triton's autotuner takes them.

Timings and the choice go to the ``pyptx`` logger (info); with
``PYPTX_PRINT_AUTOTUNING=1`` they are printed as well.

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

from pyptx._log import logger
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


def _l2_flusher():
    """A function that evicts the current device's L2 cache: a write of a
    buffer twice its size (256 MiB where torch does not say)."""
    import torch
    props = torch.cuda.get_device_properties(torch.cuda.current_device())
    size = 2 * getattr(props, "L2_cache_size", 0) or 256 << 20
    buffer = torch.empty(size // 4, dtype=torch.int32, device="cuda")
    return buffer.zero_


def cuda_event_timer(warmup: int = 3, reps: int = 20,
                     flush_l2: bool = True) -> Callable[..., float]:
    """A timer: `warmup` runs, then the median over `reps` runs of the
    milliseconds between CUDA events recorded around each (PyTorch's
    current stream). Before each run, outside the events: ``setup()``
    (restoring written arguments) and, with `flush_l2`, a write of a buffer
    twice the L2's size, so every run starts with a cold cache."""
    import torch

    def time_it(run, setup=None) -> float:
        flush = _l2_flusher() if flush_l2 else None
        for _ in range(warmup):
            if setup:
                setup()
            run()
        torch.cuda.synchronize()
        times = []
        for _ in range(reps):
            if setup:
                setup()
            if flush:
                flush()
            start, end = (torch.cuda.Event(enable_timing=True) for _ in range(2))
            start.record()
            run()
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end))
        return statistics.median(times)
    return time_it


def wall_timer(warmup: int = 3, reps: int = 20) -> Callable[..., float]:
    """A timer for arrays other than torch's: the median wall-clock
    milliseconds of a run and the wait for its results (JAX's
    block_until_ready where the results have it, else a device-wide
    synchronize); ``setup()`` runs before each, untimed."""
    def wait(result):
        jax = sys.modules.get("jax")
        if jax is not None and any(hasattr(leaf, "block_until_ready")
                                   for leaf in jax.tree_util.tree_leaves(result)):
            jax.block_until_ready(result)
        else:
            from pyptx import _runtime
            _runtime.synchronize()

    def time_it(run, setup=None) -> float:
        for _ in range(warmup):
            if setup:
                setup()
            wait(run())
        times = []
        for _ in range(reps):
            if setup:
                setup()
            start = time.perf_counter()
            wait(run())
            times.append((time.perf_counter() - start) * 1e3)
        return statistics.median(times)
    return time_it


def _takes_setup(timer) -> bool:
    try:
        return "setup" in inspect.signature(timer).parameters
    except (TypeError, ValueError):
        return False


class _Restorer:
    """The arguments a tuning must put back: copies of the restore_value
    ones (taken before tuning), and the reset_to_zero ones."""

    def __init__(self, arguments: dict, restore_value, reset_to_zero):
        self.saved = {n: _copy(arguments[n]) for n in restore_value if n in arguments}
        self.zeroed = [arguments[n] for n in reset_to_zero if n in arguments]
        self.arguments = arguments

    def __bool__(self):
        return bool(self.saved or self.zeroed)

    def __call__(self):
        for name, copy in self.saved.items():
            _assign(self.arguments[name], copy)
        for value in self.zeroed:
            _assign(value, 0)


def _copy(value):
    if hasattr(value, "clone"):
        return value.clone()
    if hasattr(value, "copy"):
        return value.copy()
    raise TypeError(f"autotune: cannot keep a copy of a {type(value).__name__} "
                    f"(restore_value takes arrays written in place)")


def _assign(target, value):
    """Writes `value` (an array or 0) into `target` in place."""
    if hasattr(target, "copy_"):      # torch
        if isinstance(value, int):
            target.zero_()
        else:
            target.copy_(value)
    else:                              # NumPy and alike
        target[...] = value


def _printing() -> bool:
    return os.environ.get("PYPTX_PRINT_AUTOTUNING", "") not in ("", "0")


def _report(message: str) -> None:
    logger.info("%s", message)
    if _printing():
        print(message, flush=True)


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
                 reps: int = 20, restore_value: Sequence[str] = (),
                 reset_to_zero: Sequence[str] = (), flush_l2: bool = True):
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
        self.timer, self.warmup, self.reps, self.flush_l2 = timer, warmup, reps, flush_l2
        self.arg_names = _argument_names(fn)
        for what, names in (("restore_value", restore_value),
                            ("reset_to_zero", reset_to_zero)):
            unknown = [n for n in names if n not in self.arg_names]
            if unknown and self.arg_names is not None:
                raise ValueError(f"autotune: {what} names {unknown}, which are not "
                                 f"arguments of {getattr(fn, 'name', fn)} "
                                 f"({self.arg_names})")
        self.restore_value, self.reset_to_zero = list(restore_value), list(reset_to_zero)
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
            stored = self._read(key)
            if stored is not None:
                logger.info("autotune %s: %s from %s", self.__name__, stored, self._path(key))
            chosen = self._chosen[signature] = stored or self._tune(key, args, kwargs)
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
            return cuda_event_timer(self.warmup, self.reps, self.flush_l2)
        return wall_timer(self.warmup, self.reps)

    def _time(self, timer, run, restore) -> float:
        if not restore:
            return float(timer(run))
        if _takes_setup(timer):
            return float(timer(run, setup=restore))
        return float(timer(lambda: (restore(), run())[1]))  # restoring is timed too

    def _tune(self, key, args, kwargs) -> dict:
        timer = self._timer(args)
        named = dict(zip(self.arg_names or (), args), **kwargs)
        restore = _Restorer(named, self.restore_value, self.reset_to_zero)
        results = []
        for n, config in enumerate(self.configs, 1):
            try:
                ms = self._time(timer, lambda: self.fn(*args, **config, **kwargs), restore)
                results.append({"config": _plain(config), "ms": ms})
                _report(f"autotune {self.__name__} [{n}/{len(self.configs)}] {config}: "
                        f"{ms:.4f} ms")
            except Exception as e:  # a config that cannot run is skipped, with why
                results.append({"config": _plain(config),
                                "error": f"{type(e).__name__}: {e}"})
                _report(f"autotune {self.__name__} [{n}/{len(self.configs)}] {config}: "
                        f"failed: {type(e).__name__}: {e}")
        if restore:
            restore()  # the call itself sees the arguments as they were given
        digest = self._hash(key)
        self.results[digest] = results
        timed = [i for i, r in enumerate(results) if "ms" in r]
        if not timed:
            raise RuntimeError(f"autotune {self.__name__}: every config failed:\n" + "\n".join(
                f"  {r['config']}: {r['error']}" for r in results))
        best = min(timed, key=lambda i: results[i]["ms"])  # ties: the first listed
        _report(f"autotune {self.__name__}: chose {self.configs[best]} "
                f"({results[best]['ms']:.4f} ms) for {key['args']}")
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


def _argument_names(fn):
    """The names of `fn`'s positional arguments (a @kernel's tensors), or
    None where they cannot be known."""
    if isinstance(fn, Kernel):
        return list(fn.tensor_names)
    try:
        kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
        return [p.name for p in inspect.signature(fn).parameters.values() if p.kind in kinds]
    except (TypeError, ValueError):
        return None


def autotune(configs: Sequence[dict], *, timer=None, cache_dir=None, device=None,
             warmup: int = 3, reps: int = 20, restore_value: Sequence[str] = (),
             reset_to_zero: Sequence[str] = (),
             flush_l2: bool = True) -> Callable[[Any], Autotuned]:
    """Decorator: ``@autotune(configs=[{...}, ...])`` over a @kernel (or any
    callable taking the configs' keys as keywords) -> Autotuned.

    timer: a function of a no-argument callable returning its time in ms
    (default: CUDA events for torch tensors, else wall-clock; warmup and
    reps set them). cache_dir: where the choices are kept (default
    <runtime cache dir>/autotune). device: a dict describing the machine
    instead of asking the driver (name, capability, driver, ptxas).
    restore_value / reset_to_zero: names of arguments the function writes,
    put back between timed launches (see the module docstring). flush_l2:
    whether the CUDA-event timer evicts the L2 before each timed launch.
    A timer taking ``setup=`` gets the restoring as setup (untimed); one
    taking only the run times it with the run."""
    def wrap(fn) -> Autotuned:
        return Autotuned(fn, configs, timer=timer, cache_dir=cache_dir, device=device,
                         warmup=warmup, reps=reps, restore_value=restore_value,
                         reset_to_zero=reset_to_zero, flush_l2=flush_l2)
    return wrap


__all__ = ["Autotuned", "autotune", "cuda_event_timer", "wall_timer", "describe_device",
           "describe_argument", "kernel_identity", "ptxas_version"]
