"""One kernel on several GPUs of one process (docs/design.md 11, "Several
GPUs"): each kernel's first launch is on GPU 1, then GPU 0, then GPU 1
again, from PyTorch (eager, torch.compile), from JAX (jax.jit on arrays put
on each device), from several threads, and from PyTorch right after JAX has
left another device's context current in this thread (and with the
driver's current context set to the other GPU by hand). Three kernels: one
with 100 KiB of dynamic shared memory (the opt-in is per function and per
context), one with a TMA descriptor (encoded per launch from the tensor),
and a plain one (rms_norm). Every result is checked against a reference
computed on the host. Skipped, with the reason, where fewer than two GPUs
are visible."""
import threading

import numpy as np
import pytest
import torch

GPUS = torch.cuda.device_count()
if GPUS < 2:
    pytest.skip(f"needs two GPUs of one host; {GPUS} visible", allow_module_level=True)

SM90 = all(torch.cuda.get_device_capability(d)[0] == 9 for d in (0, 1))
ORDER = (1, 0, 1)  # GPU 1 first: nothing is loaded on GPU 0 yet


# -- the kernels: (build, inputs(rng), reference(*inputs), exact) ------------------

def build_mirror():
    """Thread t stores its value at t * 800 bytes of 100 KiB of dynamic shared
    memory and reads back thread 127 - t's: Y is X reversed."""
    from pyptx import Tile, kernel, ptx, reg, smem
    from pyptx.types import u32

    @kernel(in_specs=(Tile(128, u32),), out_specs=(Tile(128, u32),), grid=(1, 1, 1),
            block=(128, 1, 1), smem=100 * 1024, extern_smem=True, arch="sm_90a")
    def mirror(X, Y):
        px, py = ptx.global_ptrs(X, Y)
        base = smem.base()
        tid = reg.from_(ptx.special.tid.x(), u32)
        off = tid * 4
        v = reg.scalar(u32)
        ptx.inst.ld.global_.u32(v, ptx.addr(px + off))
        ptx.inst.st.shared.u32(ptx.addr(base + tid * 800), v)
        ptx.bar.sync(0)
        ptx.inst.ld.shared.u32(v, ptx.addr(base + (127 - tid) * 800))
        ptx.inst.st.global_.u32(ptx.addr(py + off), v)
        ptx.ret()

    return mirror


def build_tma():
    from examples.common.tma_copy import build_tma_copy
    return build_tma_copy(64, 64)


def build_plain():
    from examples.common.rms_norm import build_rms_norm
    return build_rms_norm(64, 1024)


def rms_reference(x, w):
    x64 = x.astype(np.float64)
    return x64 / np.sqrt((x64 * x64).mean(-1, keepdims=True) + 1e-6) * w.astype(np.float64)


KERNELS = {
    "smem_100k": (build_mirror,
                  lambda rng: [rng.integers(0, 1 << 30, 128, dtype=np.uint32)],
                  lambda x: x[::-1], True),
    "tma": (build_tma,
            lambda rng: [rng.standard_normal((64, 64), dtype=np.float32)],
            lambda x: x, True),
    "plain": (build_plain,
              lambda rng: [rng.standard_normal((64, 1024), dtype=np.float32),
                           (rng.random(1024, dtype=np.float32) + 0.5).astype(np.float32)],
              rms_reference, False),
}


@pytest.fixture(params=list(KERNELS))
def case(request):
    if request.param != "plain" and not SM90:
        pytest.skip(f"{request.param}: the kernel is written for sm_90a; GPUs 0 and 1 "
                    f"are {[torch.cuda.get_device_capability(d) for d in (0, 1)]}")
    return request.param, *KERNELS[request.param]


def check(name, out, ref, exact, where):
    out = np.asarray(out)
    if exact:
        assert np.array_equal(out, ref), f"{name} on {where}: differs from the reference"
    else:
        err = np.linalg.norm(out.astype(np.float64) - ref) / np.linalg.norm(ref)
        assert err < 1e-5, f"{name} on {where}: relative error {err:.2e}"


def torch_inputs(arrays, device):
    # uint32 has few torch operations; the kernels take int32 of one width.
    return [torch.from_numpy(a.view(np.int32) if a.dtype == np.uint32 else a).to(device)
            for a in arrays]


def from_torch(t):
    out = t.cpu()
    if out.dtype == torch.uint32:
        out = out.view(torch.int32)
    array = out.numpy()
    return array.view(np.uint32) if array.dtype == np.int32 else array


# -- PyTorch -------------------------------------------------------------------------

def test_torch_eager_gpu1_then_gpu0(case):
    name, build, make, reference, exact = case
    k = build()
    rng = np.random.default_rng(0)
    for device in ORDER:
        arrays = make(rng)
        xs = torch_inputs(arrays, f"cuda:{device}")
        for _ in range(2):  # the second call is the C++ path, where there is one
            out = k(*xs)
            assert out.device == xs[0].device
            torch.cuda.synchronize(device)
            check(name, from_torch(out), reference(*arrays), exact, f"cuda:{device}")


def test_torch_launch_while_another_device_is_current(case):
    # torch's current device (and so the thread's CUDA context) is the other
    # GPU: the launch still goes to the tensors'.
    name, build, make, reference, exact = case
    k = build()
    rng = np.random.default_rng(1)
    for device in ORDER:
        arrays = make(rng)
        xs = torch_inputs(arrays, f"cuda:{device}")
        with torch.cuda.device(1 - device):
            out = k(*xs)
            out2 = k(*xs)
        torch.cuda.synchronize(device)
        for o in (out, out2):
            check(name, from_torch(o), reference(*arrays), exact, f"cuda:{device}")


def test_torch_launch_while_the_driver_has_the_other_gpu_current(case):
    # What XLA leaves behind, made by hand: the other GPU's primary context
    # current in this thread, through the driver, without telling PyTorch.
    import ctypes

    from pyptx.compiled import _check, libcuda

    name, build, make, reference, exact = case
    lib = libcuda()
    k = build()
    rng = np.random.default_rng(5)
    for device in ORDER:
        arrays = make(rng)
        xs = torch_inputs(arrays, f"cuda:{device}")
        previous, other, handle = ctypes.c_void_p(), ctypes.c_void_p(), ctypes.c_int()
        _check(lib, lib.cuCtxGetCurrent(ctypes.byref(previous)), "cuCtxGetCurrent")
        _check(lib, lib.cuDeviceGet(ctypes.byref(handle), 1 - device), "cuDeviceGet")
        _check(lib, lib.cuDevicePrimaryCtxRetain(ctypes.byref(other), handle),
               "cuDevicePrimaryCtxRetain")
        try:
            _check(lib, lib.cuCtxSetCurrent(other), "cuCtxSetCurrent")
            outs = [k(*xs), k(*xs)]
        finally:
            lib.cuCtxSetCurrent(previous)
            lib.cuDevicePrimaryCtxRelease_v2(handle)
        torch.cuda.synchronize(device)
        for out in outs:
            assert out.device == xs[0].device
            check(name, from_torch(out), reference(*arrays), exact, f"cuda:{device}")


def test_torch_compile_gpu1_then_gpu0(case):
    name, build, make, reference, exact = case
    k = build()
    f = torch.compile(lambda *xs: k(*xs), fullgraph=True)
    rng = np.random.default_rng(2)
    for device in ORDER:
        arrays = make(rng)
        out = f(*torch_inputs(arrays, f"cuda:{device}"))
        assert out.device == torch.device(f"cuda:{device}")
        torch.cuda.synchronize(device)
        check(name, from_torch(out), reference(*arrays), exact, f"cuda:{device}")


def test_torch_from_several_threads(case):
    # New threads start with no CUDA context; each launches on its own GPU,
    # GPU 1 first.
    name, build, make, reference, exact = case
    k = build()
    errors = []

    def work(thread):
        try:
            rng = np.random.default_rng(10 + thread)
            for i in range(8):
                device = (thread + i + 1) % 2
                arrays = make(rng)
                out = k(*torch_inputs(arrays, f"cuda:{device}"))
                torch.cuda.synchronize(device)
                check(name, from_torch(out), reference(*arrays), exact,
                      f"cuda:{device}, thread {thread}")
        except Exception as e:  # noqa: BLE001 -- reported by the main thread
            errors.append(f"thread {thread}: {type(e).__name__}: {e}")

    threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, "\n".join(errors)


# -- JAX -------------------------------------------------------------------------------

def jax_gpus():
    jax = pytest.importorskip("jax")
    gpus = [d for d in jax.devices() if d.platform == "gpu"]
    if len(gpus) < 2:
        pytest.skip(f"needs two GPUs visible to JAX; {len(gpus)} are")
    return jax, gpus


def test_jax_jit_gpu1_then_gpu0(case):
    name, build, make, reference, exact = case
    jax, gpus = jax_gpus()
    k = build()
    f = jax.jit(lambda *xs: k(*xs))
    rng = np.random.default_rng(3)
    for device in ORDER:
        arrays = make(rng)
        out = f(*[jax.device_put(a, gpus[device]) for a in arrays])
        assert out.devices() == {gpus[device]}
        check(name, out, reference(*arrays), exact, f"JAX {gpus[device]}")


def test_jax_from_several_threads(case):
    name, build, make, reference, exact = case
    jax, gpus = jax_gpus()
    k = build()
    f = jax.jit(lambda *xs: k(*xs))
    errors = []

    def work(thread):
        try:
            rng = np.random.default_rng(20 + thread)
            for i in range(6):
                device = gpus[(thread + i + 1) % 2]
                arrays = make(rng)
                out = f(*[jax.device_put(a, device) for a in arrays])
                check(name, out, reference(*arrays), exact, f"JAX {device}, thread {thread}")
        except Exception as e:  # noqa: BLE001 -- reported by the main thread
            errors.append(f"thread {thread}: {type(e).__name__}: {e}")

    threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, "\n".join(errors)


def test_torch_after_jax_left_gpu1_current(case):
    # XLA leaves the context of the device it last worked on current in the
    # calling thread; PyTorch's current device then follows it (cudaGetDevice
    # reads the current context). A pyptx launch on a tensor of the other
    # GPU must still go to the tensor's GPU.
    name, build, make, reference, exact = case
    jax, gpus = jax_gpus()
    k = build()
    rng = np.random.default_rng(4)
    for device in ORDER:
        jax.device_put(np.ones(16, np.float32), gpus[1 - device]).block_until_ready()
        arrays = make(rng)
        out = k(*torch_inputs(arrays, f"cuda:{device}"))
        torch.cuda.synchronize(device)
        check(name, from_torch(out), reference(*arrays), exact,
              f"cuda:{device} after JAX on {gpus[1 - device]}")
