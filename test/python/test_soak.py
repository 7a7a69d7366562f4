"""Long-running processes: many traces in one process, and traces in threads.

Tracing 10,000 different kernels keeps memory bounded and the time per trace
flat (a leak of a native module or context per trace, or a registry that
grows and is searched, shows up in both). Eight threads tracing different
kernels at once give exactly the PTX that one thread gives (each thread has
its own trace stack)."""
import gc
import statistics
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from pyptx import Tile, kernel, ptx, reg
from pyptx.types import f32, u32


def _rss_mib() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096 / 2**20


def _make(i: int):
    """A small kernel, different for every i (its constant and its size)."""
    @kernel(in_specs=(Tile(32 * (1 + i % 7), f32),), grid=(1, 1, 1), block=(32, 1, 1),
            arch="sm_90a")
    def add_const(X):
        (px,) = ptx.global_ptrs(X)
        tid = reg.from_(ptx.special.tid.x(), u32)
        p = px + tid * 4
        v = reg.scalar(f32)
        ptx.inst.ld.global_.f32(v, ptx.addr(p))
        ptx.inst.add.f32(v, v, float(i))
        ptx.inst.st.global_.f32(ptx.addr(p), v)
        ptx.ret()
    return add_const


def test_ten_thousand_traces_keep_memory_and_time_flat():
    chunk_ms, rss = [], []
    for chunk in range(10):
        t0 = time.perf_counter()
        for i in range(chunk * 1000, (chunk + 1) * 1000):
            assert "add.f32" in _make(i).ptx()
        chunk_ms.append((time.perf_counter() - t0) * 1e3)
        gc.collect()
        rss.append(_rss_mib())
    # Memory: after the first 2,000 (allocator and caches warm) it grows by
    # less than 8 MiB over the next 8,000 traces (a leaked module per trace
    # would take far more: each holds an MLIR context and its IR).
    assert rss[-1] - rss[1] < 8, f"RSS per 1,000 traces (MiB): {rss}"
    # Time: the slowest later chunk is within 2.5x of the median of the
    # first three (a per-trace cost growing with the number of traces so far
    # would make the last chunks several times slower; the margin is for a
    # busy machine).
    base = statistics.median(chunk_ms[:3])
    assert max(chunk_ms[3:]) < 2.5 * base + 50, f"ms per 1,000 traces: {chunk_ms}"


def _jobs():
    from examples.common import rms_norm, softmax
    from examples.hopper import gemm, grouped_gemm
    jobs = [lambda i=i: gemm.build_gemm(256 * (1 + i % 3), 256, 64 * (1 + i % 4)).ptx()
            for i in range(6)]
    jobs += [lambda i=i: grouped_gemm.build_grouped_gemm_uniform(2, 128 * (i + 1), 64,
                                                                  128).ptx()
             for i in range(3)]
    jobs += [lambda i=i: _make(i).ptx() for i in range(20)]
    jobs += [lambda n=n: rms_norm.build_rms_norm(32, n).ptx() for n in (1024, 2048)]
    jobs += [lambda n=n: softmax.build_softmax(32, n).ptx() for n in (1024, 2048)]
    return jobs


def test_eight_threads_trace_the_same_ptx_as_one():
    serial = [job() for job in _jobs()]
    seen_threads = set()

    def run(job):
        seen_threads.add(threading.get_ident())
        return job()

    for _ in range(3):
        with ThreadPoolExecutor(8) as pool:
            parallel = list(pool.map(run, _jobs()))
        assert parallel == serial
    assert len(seen_threads) > 1, "the pool ran every job on one thread"


def test_a_trace_in_one_thread_is_invisible_to_another():
    from pyptx._trace import active
    inside, other = threading.Event(), {}

    @kernel(in_specs=(Tile(32, f32),), grid=(1, 1, 1), block=(32, 1, 1), arch="sm_90a")
    def waits(X):
        inside.set()
        worker.join()
        ptx.ret()

    def look():
        inside.wait(10)
        other["active"] = active()

    worker = threading.Thread(target=look)
    worker.start()
    waits.ptx()
    assert other == {"active": False}
