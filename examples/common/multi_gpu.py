"""pyptx kernels on every GPU of one host, from PyTorch and from JAX.

    python -m torch.distributed.run --standalone --nproc_per_node=2 \\
        examples/common/multi_gpu.py torch
    python examples/common/multi_gpu.py jax
    python examples/common/multi_gpu.py        # prints the kernels' PTX (sm_90a)

torch: one process per GPU (NCCL). Each rank normalises its own rows with
rms_norm, adds one to the result in place with add_one, and all-reduces it;
every rank checks the sum against float64 references of all ranks' rows.

jax: one process; jax.shard_map over the local GPUs. Each GPU runs rms_norm
and add_one (an in-place kernel: under JAX an output aliasing its input) on
its block of rows, and a psum adds the blocks' totals; the result is checked
against float64.

Each check prints one line; a mismatch raises (exit status 1).
"""
from __future__ import annotations

import os
import sys

if __package__ in (None, ""):  # run as a script: make `examples` importable
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

import numpy as np  # noqa: E402

import examples.common  # noqa: E402,F401  (makes pyptx importable)
from examples.common.inplace import build_add_one  # noqa: E402
from examples.common.rms_norm import build_rms_norm  # noqa: E402

B, N = 64, 1024  # rows per GPU, columns
SEED = 1000


def arch_of(major: int) -> str:
    """The target of the examples for a GPU of compute capability major.x."""
    return {8: "sm_80", 9: "sm_90a", 10: "sm_100a"}[major]


def rows(rank: int) -> np.ndarray:
    return np.random.default_rng(SEED + rank).standard_normal((B, N), dtype=np.float32)


def weight() -> np.ndarray:
    return (np.random.default_rng(SEED - 1).random(N, dtype=np.float32) + 0.5)


def expected(rank: int) -> np.ndarray:
    """rms_norm(rows(rank)) + 1, in float64."""
    x, w = rows(rank).astype(np.float64), weight().astype(np.float64)
    return x / np.sqrt((x * x).mean(axis=-1, keepdims=True) + 1e-6) * w + 1


def rel_err(out, ref) -> float:
    out = np.asarray(out, np.float64)
    return float(np.linalg.norm(out - ref) / np.linalg.norm(ref))


def torch_step() -> None:
    """One rank's step; run under torch.distributed.run."""
    import torch
    import torch.distributed as dist

    dist.init_process_group("nccl")
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", rank)))
    arch = arch_of(torch.cuda.get_device_capability()[0])
    rms, add_one = build_rms_norm(B, N, arch=arch), build_add_one(B * N, arch=arch)

    x = torch.from_numpy(rows(rank)).cuda()
    w = torch.from_numpy(weight()).cuda()
    y = rms(x, w)
    add_one(y.view(-1))  # y += 1 in place
    own = rel_err(y.cpu(), expected(rank))
    dist.all_reduce(y)
    total = rel_err(y.cpu(), sum(expected(r) for r in range(world)))
    print(f"torch rank {rank}/{world} on {torch.cuda.get_device_name()}: rms_norm + "
          f"add_one rel err {own:.1e}, all_reduce rel err {total:.1e}", flush=True)
    dist.destroy_process_group()
    if not (own < 1e-5 and total < 1e-5):
        raise AssertionError(f"rank {rank}: rel err {own} (own rows), {total} (sum)")


def jax_shard_map() -> None:
    """Every local GPU, one process."""
    import jax
    import jax.numpy as jnp
    from jax.sharding import Mesh, NamedSharding
    from jax.sharding import PartitionSpec as P

    devices = jax.devices("gpu")
    n = len(devices)
    major = int(devices[0].compute_capability.split(".")[0])
    rms, add_one = build_rms_norm(B, N, arch=arch_of(major)), build_add_one(B * N,
                                                                           arch=arch_of(major))
    mesh = Mesh(np.array(devices), ("gpus",))

    def block(x, w):  # one GPU's B rows
        y = add_one(rms(x, w).reshape(-1)).reshape(B, N)
        return y, jax.lax.psum(jnp.sum(y, dtype=jnp.float32), "gpus")

    step = jax.jit(jax.shard_map(block, mesh=mesh, in_specs=(P("gpus", None), P()),
                                 out_specs=(P("gpus", None), P())))
    x = jax.device_put(np.concatenate([rows(r) for r in range(n)]),
                       NamedSharding(mesh, P("gpus", None)))
    y, total = step(x, jnp.asarray(weight()))
    ref = np.concatenate([expected(r) for r in range(n)])
    err, total_err = rel_err(y, ref), abs(float(total) - ref.sum()) / np.abs(ref).sum()
    placed = sorted(s.device.id for s in y.addressable_shards)
    print(f"jax shard_map over {n} GPUs {placed}: rms_norm + add_one rel err {err:.1e}, "
          f"psum rel err {total_err:.1e}", flush=True)
    if not (err < 1e-5 and total_err < 1e-5 and placed == sorted(d.id for d in devices)):
        raise AssertionError(f"shard_map: rel err {err}, psum {total_err}, shards {placed}")


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    which = argv[0] if argv else ""
    if which == "torch":
        torch_step()
    elif which == "jax":
        jax_shard_map()
    elif not which:
        print(build_rms_norm(16, 1024).ptx(), end="")
        print(build_add_one(16 * 1024).ptx(), end="")
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main()
