"""The CUDA toolkit's programs pyptx runs: ptxas (PTX -> cubin), cuobjdump
and nvdisasm (cubin -> SASS). Each is found on PATH, else in
:data:`TOOL_DIRS`."""
from __future__ import annotations

import os
import shutil
import subprocess

# Where the toolkit's programs are sought after PATH.
TOOL_DIRS = ("/usr/local/cuda/bin",)


class ToolFailed(RuntimeError):
    """A tool exited non-zero; ``output`` is what it printed."""

    def __init__(self, message, output):
        super().__init__(message)
        self.output = output


def find_tool(name):
    """The path of program `name` (PATH, then TOOL_DIRS), or None."""
    return shutil.which(name) or next(
        (os.path.join(d, name) for d in TOOL_DIRS
         if os.access(os.path.join(d, name), os.X_OK)), None)


def where_sought() -> str:
    """Where tools are sought, for messages about one not found."""
    return f"PATH or in {', '.join(TOOL_DIRS)}" if TOOL_DIRS else "PATH"


def run_tool(cmd) -> str:
    """Runs `cmd`; its stdout, or stderr+stdout when stdout is empty.
    ToolFailed when it exits non-zero."""
    proc = subprocess.run(cmd, capture_output=True, text=True)
    output = (proc.stderr + proc.stdout).strip()
    if proc.returncode != 0:
        raise ToolFailed(f"{os.path.basename(cmd[0])} failed:\n{output}", output)
    return proc.stdout if proc.stdout.strip() else output


def assemble(ptx: str, arch: str, directory: str, *, extra=(), lineinfo=False,
             what="pyptx") -> tuple[str, str]:
    """``ptxas -arch=<arch> [extra] [-lineinfo]`` of `ptx` into
    `directory`: (the cubin's path, ptxas's log). RuntimeError when ptxas is
    not found, ToolFailed when it rejects the PTX; `what` names the caller
    in the message."""
    ptxas = find_tool("ptxas")
    if not ptxas:
        raise RuntimeError(f"{what}: needs the CUDA toolkit's ptxas (not found on "
                           f"{where_sought()})")
    src, cubin = os.path.join(directory, "k.ptx"), os.path.join(directory, "k.cubin")
    with open(src, "w") as f:
        f.write(ptx)
    log = run_tool([ptxas, f"-arch={arch}", *extra, *(["-lineinfo"] if lineinfo else []),
                    "-o", cubin, src])
    return cubin, log
