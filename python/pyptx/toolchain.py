"""The CUDA toolkit's programs pyptx runs: ptxas (PTX -> cubin), cuobjdump
and nvdisasm (cubin -> SASS), found by one rule that the runtime,
``Kernel.compile``/``sass``/``resources``, AOT export and autotune share.

A tool is sought, in this order:

1. its environment variable (``PYPTX_PTXAS``, ``PYPTX_CUOBJDUMP``,
   ``PYPTX_NVDISASM``): a path, used as given (``PYPTX_PTXAS=none``: no
   ptxas, the driver compiles the PTX at launch);
2. ``$CUDA_HOME/bin``, then ``$CUDA_PATH/bin``;
3. the NVIDIA wheel in site-packages (``nvidia/cuda_nvcc/bin/ptxas`` of
   ``nvidia-cuda-nvcc``; ``nvidia-cuda-cuobjdump``, ``nvidia-cuda-nvdisasm``);
4. ``PATH``;
5. :data:`TOOL_DIRS` (``/usr/local/cuda/bin``).

A tool not found raises :class:`ToolNotFound` naming each place and what
was there.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time

from pyptx._log import logger
from pyptx.errors import PyptxError

# Where the toolkit's programs are sought last.
TOOL_DIRS = ("/usr/local/cuda/bin",)

# The variable that names each tool's path outright.
TOOL_VARIABLES = {"ptxas": "PYPTX_PTXAS", "cuobjdump": "PYPTX_CUOBJDUMP",
                  "nvdisasm": "PYPTX_NVDISASM"}

# Each tool's directory inside the site-packages of its NVIDIA wheel.
WHEEL_DIRS = {"ptxas": ("nvidia", "cuda_nvcc", "bin"),
              "cuobjdump": ("nvidia", "cuda_cuobjdump", "bin"),
              "nvdisasm": ("nvidia", "cuda_nvdisasm", "bin")}


class ToolFailed(PyptxError, RuntimeError):
    """A tool exited non-zero; ``output`` is what it printed."""

    def __init__(self, message, output):
        super().__init__(message)
        self.output = output


class ToolNotFound(PyptxError, RuntimeError):
    """A CUDA toolkit program was not found; ``tried`` lists (place, what
    was found there)."""

    def __init__(self, message, tried):
        super().__init__(message)
        self.tried = tried


def _executable(path) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


def _site_dirs():
    """sys.path's directories, where a wheel's files are."""
    return [p for p in sys.path if p and os.path.isdir(p)]


def locate(name) -> tuple[str | None, list[tuple[str, str]]]:
    """(path of tool `name` or None, [(place, what was found there)]) by
    the module's order; stops at the first place that decides."""
    tried = []
    variable = TOOL_VARIABLES.get(name)
    given = os.environ.get(variable, "") if variable else ""
    if given:
        if given == "none":
            tried.append((f"${variable}", "'none': no ptxas wanted"))
            return None, tried
        if _executable(given):
            return given, tried
        # A path set on purpose is not overridden by a search elsewhere.
        tried.append((f"${variable}={given}", "not an executable file"))
        return None, tried
    if variable:
        tried.append((f"${variable}", "not set"))
    for home in ("CUDA_HOME", "CUDA_PATH"):
        root = os.environ.get(home, "")
        if not root:
            tried.append((f"${home}", "not set"))
            continue
        path = os.path.join(root, "bin", name)
        if _executable(path):
            return path, tried
        tried.append((f"${home}/bin ({path})", "no such executable"))
    wheel_dir = WHEEL_DIRS.get(name)
    if wheel_dir:
        for site in _site_dirs():
            path = os.path.join(site, *wheel_dir, name)
            if _executable(path):
                return path, tried
        tried.append((f"{'/'.join(wheel_dir)}/{name} in sys.path", "not installed"))
    on_path = shutil.which(name)
    if on_path:
        return on_path, tried
    tried.append(("PATH", "not on it"))
    for d in TOOL_DIRS:
        path = os.path.join(d, name)
        if _executable(path):
            return path, tried
        tried.append((d, "no such executable"))
    return None, tried


def find_tool(name) -> str | None:
    """The path of program `name`, or None (see the module docstring)."""
    path, _ = locate(name)
    if path:
        logger.debug("%s: %s", name, path)
    return path


_WHEELS = {"ptxas": "nvidia-cuda-nvcc", "cuobjdump": "nvidia-cuda-cuobjdump",
           "nvdisasm": "nvidia-cuda-nvdisasm"}


def not_found_message(searches, what="pyptx") -> str:
    """The message for tools not found: `searches` is [(name, tried)]."""
    names = [name for name, _ in searches]
    lines = [f"{what}: the CUDA toolkit's {' or '.join(names)} not found; looked in:"]
    for name, tried in searches:
        lines += [f"  {place}: {found}" for place, found in tried]
    lines.append("Set " + " or ".join(f"${TOOL_VARIABLES[n]}" for n in names)
                 + ", or $CUDA_HOME to the toolkit, install "
                 + " or ".join(_WHEELS[n] for n in names)
                 + ", or put the toolkit's bin/ on PATH.")
    return "\n".join(lines)


def require_tool(name, what="pyptx") -> str:
    """The path of program `name`; ToolNotFound naming where it looked."""
    return require_any((name,), what)


def require_any(names, what="pyptx") -> str:
    """The path of the first of `names` found; ToolNotFound naming where
    each was sought."""
    searches = []
    for name in names:
        path, tried = locate(name)
        if path:
            logger.debug("%s: %s", name, path)
            return path
        searches.append((name, tried))
    raise ToolNotFound(not_found_message(searches, what),
                       [entry for _, tried in searches for entry in tried])


def pin_ptxas_for_runtime() -> None:
    """Gives the launch library (C++, which reads only $PYPTX_PTXAS, PATH
    and /usr/local/cuda/bin) the ptxas this resolver finds, so both use one
    rule: sets $PYPTX_PTXAS when it is unset and a ptxas is found."""
    if os.environ.get("PYPTX_PTXAS"):
        return
    path = find_tool("ptxas")
    if path:
        os.environ["PYPTX_PTXAS"] = path
        logger.debug("runtime: ptxas %s", path)


def run_tool(cmd) -> str:
    """Runs `cmd`; its stdout, or stderr+stdout when stdout is empty.
    ToolFailed when it exits non-zero."""
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    logger.debug("%s: %.1f ms (exit %d)", " ".join(map(str, cmd)),
                 (time.perf_counter() - start) * 1e3, proc.returncode)
    output = (proc.stderr + proc.stdout).strip()
    if proc.returncode != 0:
        raise ToolFailed(f"{os.path.basename(cmd[0])} failed:\n{output}", output)
    return proc.stdout if proc.stdout.strip() else output


def assemble(ptx: str, arch: str, directory: str, *, extra=(), lineinfo=False,
             what="pyptx") -> tuple[str, str]:
    """``ptxas -arch=<arch> [extra] [-lineinfo]`` of `ptx` into
    `directory`: (the cubin's path, ptxas's log). ToolNotFound (a
    RuntimeError) when ptxas is not found, ToolFailed when it rejects the
    PTX; `what` names the caller in the message."""
    ptxas = require_tool("ptxas", what)
    src, cubin = os.path.join(directory, "k.ptx"), os.path.join(directory, "k.cubin")
    with open(src, "w") as f:
        f.write(ptx)
    start = time.perf_counter()
    log = run_tool([ptxas, f"-arch={arch}", *extra, *(["-lineinfo"] if lineinfo else []),
                    "-o", cubin, src])
    logger.info("%s: ptxas -arch=%s took %.1f ms", what, arch,
                (time.perf_counter() - start) * 1e3)
    return cubin, log
