"""Several GPUs of one host (issue 18, part 4): examples/common/multi_gpu.py's
torch.distributed step (NCCL, one process per GPU, started by
torch.distributed.run) and its JAX shard_map over every local GPU, each in
a fresh process. The script checks its results against float64 and exits
non-zero on a mismatch. Skipped, with the reason, where fewer than two GPUs
are visible."""
import os
import subprocess
import sys

import pytest
import torch

GPUS = torch.cuda.device_count()
if GPUS < 2:
    pytest.skip(f"needs two GPUs of one host; {GPUS} visible", allow_module_level=True)

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SCRIPT = os.path.join(ROOT, "examples", "common", "multi_gpu.py")


def run(*command):
    env = dict(os.environ, PYTHONUNBUFFERED="1", XLA_PYTHON_CLIENT_PREALLOCATE="false")
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (os.path.join(ROOT, "python"), ROOT, env.get("PYTHONPATH")) if p)
    proc = subprocess.run([sys.executable, *command], capture_output=True, text=True,
                          env=env, timeout=400)
    assert proc.returncode == 0, f"{command}:\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


def test_torch_distributed_step_on_every_gpu():
    out = run("-m", "torch.distributed.run", "--standalone", f"--nproc_per_node={GPUS}",
              SCRIPT, "torch")
    ranks = sorted(int(line.split()[2].split("/")[0]) for line in out.splitlines()
                   if line.startswith("torch rank "))
    assert ranks == list(range(GPUS)), out


def test_jax_shard_map_over_every_gpu():
    out = run(SCRIPT, "jax")
    assert f"jax shard_map over {GPUS} GPUs" in out, out
