"""Long runs on the GPU: eight threads tracing and launching different
kernels at once get correct results, and 1,000,000 eager launches leave
host and device memory flat."""
import threading
from concurrent.futures import ThreadPoolExecutor

import torch

from pyptx import Tile, kernel, ptx, reg
from pyptx.types import f32, u32


def _rss_mib() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096 / 2**20


def _add_const(c: float):
    """Y = X + c (X's length a multiple of 128)."""
    @kernel(in_specs=(Tile("N", f32),), out_specs=(Tile("N", f32),),
            grid=lambda N: (N // 128, 1, 1), block=(128, 1, 1), arch="auto")
    def add_const(X, Y):
        px, py = ptx.global_ptrs(X, Y)
        i = reg.from_(ptx.special.ctaid.x(), u32) * 128 + reg.from_(ptx.special.tid.x(), u32)
        v = reg.scalar(f32)
        ptx.inst.ld.global_.f32(v, ptx.addr(px + i * 4))
        ptx.inst.add.f32(v, v, c)
        ptx.inst.st.global_.f32(ptx.addr(py + i * 4), v)
        ptx.ret()
    return add_const


def test_eight_threads_trace_and_launch_different_kernels():
    errors = []

    def work(t):
        torch.cuda.set_device(0)
        k = _add_const(float(t) + 0.5)
        for rep in range(50):
            x = torch.randn(128 * (t + 1) * 4, device="cuda")
            y = k(x)
            if not torch.equal(y, x + (t + 0.5)):
                errors.append((t, rep))
        torch.cuda.synchronize()
        return threading.get_ident()

    with ThreadPoolExecutor(8) as pool:
        idents = set(pool.map(work, range(8)))
    assert not errors, f"wrong results (thread, rep): {errors[:10]}"
    assert len(idents) > 1


def test_a_million_eager_launches_leave_memory_flat():
    k = _add_const(1.0)
    x = torch.randn(1024, device="cuda")
    for _ in range(100_000):  # warm: caches, allocator pools
        k(x)
    torch.cuda.synchronize()
    rss0, free0 = _rss_mib(), torch.cuda.mem_get_info()[0]
    alloc0 = torch.cuda.memory_allocated()
    for _ in range(1_000_000):
        y = k(x)
    torch.cuda.synchronize()
    assert torch.equal(y, x + 1.0)
    del y
    rss1, free1 = _rss_mib(), torch.cuda.mem_get_info()[0]
    assert rss1 - rss0 < 16, f"host RSS grew from {rss0:.1f} to {rss1:.1f} MiB"
    assert torch.cuda.memory_allocated() <= alloc0
    # the device's free memory is global: run this file alone on the GPU
    # (other processes, pytest -n workers among them, move it)
    assert (free0 - free1) / 2**20 < 16, \
        f"free device memory fell by {(free0 - free1) / 2**20:.1f} MiB (another process " \
        f"using the GPU at the same time moves this too)"
