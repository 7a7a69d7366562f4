"""The eager path on the GPU: after a plain call, calls of the same
specialisation are checked and launched in C++ (TorchCall); out= writes
preallocated outputs; CUDA graphs capture both; whatever the C++ call does
not take goes through Python, which specialises or names the parameter.
float64 references; outputs poisoned (NaN) before each run."""
import pytest
import torch

from examples.common.rms_norm import build_rms_norm
from pyptx import Tile, kernel, ptx, reg
from pyptx.runtime import ArgumentError
from pyptx.runtime import torch as torch_runtime
from pyptx.types import f32, u32

B, N = 64, 1024


def rel_err(out, ref):
    return ((out.double() - ref).norm() / ref.norm()).item()


def inputs(b=B, n=N):
    return torch.randn(b, n, device="cuda"), torch.rand(n, device="cuda") + 0.5


def ref_rms(x, w):
    x64 = x.double()
    return x64 * torch.rsqrt((x64 * x64).mean(-1, keepdim=True) + 1e-6) * w.double()


def poisoned(*shape):
    return torch.full(shape, float("nan"), device="cuda")


@pytest.fixture
def rms():
    return build_rms_norm(B, N)


@pytest.fixture
def python_path_refused(monkeypatch):
    """After this, a call that leaves the C++ path fails the test."""
    def refuse(k):
        def eager(*args, **kwargs):
            raise AssertionError("the call went through the Python path")
        monkeypatch.setattr(torch_runtime.launcher(k), "eager", eager)
    return refuse


def test_plain_calls_after_the_first_launch_from_cpp(rms, python_path_refused):
    x, w = inputs()
    first = rms(x, w)
    torch.cuda.synchronize()
    assert rel_err(first, ref_rms(x, w)) < 1e-5
    assert torch_runtime.launcher(rms).fast is not None
    python_path_refused(rms)
    for weight in (w, torch.nn.Parameter(w.clone())):
        x, _ = inputs()
        out = rms(x, weight)
        torch.cuda.synchronize()
        assert out.shape == (B, N) and out.dtype == torch.float32
        assert out.data_ptr() not in (x.data_ptr(), first.data_ptr())
        assert rel_err(out, ref_rms(x, weight.detach())) < 1e-5


def test_out_writes_the_given_tensor(rms, python_path_refused):
    x, w = inputs()
    for step in range(3):  # the first through Python, then C++
        if step == 1:
            python_path_refused(rms)
        y = poisoned(B, N)
        x.copy_(torch.randn_like(x))
        for out in (y, (y,)):
            y.fill_(float("nan"))
            result = rms(x, w, out=out)
            torch.cuda.synchronize()
            assert result is y
            assert rel_err(y, ref_rms(x, w)) < 1e-5


def test_out_errors_name_the_output(rms):
    x, w = inputs()
    rms(x, w)  # the C++ call exists; each bad out= misses it and is named
    cases = [
        (poisoned(B, N + 1), r"out= output 'Y' must have shape \(64, 1024\)"),
        (poisoned(B, N).half(), r"out= output 'Y' must be torch.float32"),
        (poisoned(N, B).t(), r"out= output 'Y' must be contiguous"),
        (torch.empty(B, N), r"out= output 'Y' must be on cuda:0 \(the inputs'\), got cpu"),
        ((poisoned(B, N), poisoned(B, N)), r"out= takes 1 tensors \['Y'\], got 2"),
    ]
    for out, message in cases:
        with pytest.raises(ArgumentError, match=message):
            rms(x, w, out=out)


def test_other_arguments_take_the_python_path(rms):
    x, w = inputs()
    rms(x, w)
    with pytest.raises(ArgumentError, match=r"parameter 'W' must be torch.float32"):
        rms(x, w.half())
    with pytest.raises(ArgumentError, match=r"parameter 'X' must be contiguous"):
        rms(x.t().contiguous().t(), w)
    with pytest.raises(ArgumentError, match=r"parameter 'W' must be on a CUDA device"):
        rms(x, w.cpu())
    out = rms(x, w)  # and the C++ call still serves
    torch.cuda.synchronize()
    assert rel_err(out, ref_rms(x, w)) < 1e-5


def test_shapes_that_alternate_stay_right():
    @kernel(in_specs=(Tile("M", "N", f32),), out_specs=(Tile("M", "N", f32),),
            grid=lambda M, N: ((M * N + 127) // 128, 1, 1), block=(128, 1, 1), arch="auto")
    def double(X, Y):
        px, py = ptx.global_ptrs(X, Y)
        i = reg.from_(ptx.special.ctaid.x(), u32) * 128 + reg.from_(ptx.special.tid.x(), u32)
        v = reg.scalar(f32)
        ptx.inst.ld.global_.f32(v, ptx.addr(px + i * 4))
        ptx.inst.add.f32(v, v, v)
        ptx.inst.st.global_.f32(ptx.addr(py + i * 4), v)
        ptx.ret()

    for shape in [(4, 128), (8, 256), (4, 128), (8, 256)]:
        x = torch.randn(*shape, device="cuda")
        y = double(x)
        torch.cuda.synchronize()
        assert y.shape == shape and torch.equal(y, 2 * x)


def test_raw_values_from_the_shapes_survive_explicit_ones(python_path_refused):
    # The plan's slots are shared: an explicit raw value, stored by the
    # Python path, must not leak into the next plain call.
    @kernel(in_specs=(Tile("M", f32),), out_specs=(Tile("M", f32),), grid=(1, 1, 1),
            block=(128, 1, 1), raw_params=[("u32", "M")], arch="auto")
    def scale_by_count(X, Y):
        px, py = ptx.global_ptrs(X, Y)
        m = ptx.param(u32, "M")
        tid = reg.from_(ptx.special.tid.x(), u32)
        v = reg.scalar(f32)
        ptx.inst.ld.global_.f32(v, ptx.addr(px + tid * 4))
        count = reg.scalar(f32)
        ptx.inst.cvt.rn.f32.u32(count, m)
        ptx.inst.mul.f32(v, v, count)
        ptx.inst.st.global_.f32(ptx.addr(py + tid * 4), v)
        ptx.ret()

    x = torch.randn(128, device="cuda")
    assert torch.equal(scale_by_count(x), x * 128)          # M from the shape
    assert torch.equal(scale_by_count(x, 3), x * 3)         # explicit: Python path
    python_path_refused(scale_by_count)
    assert torch.equal(scale_by_count(x), x * 128)          # C++ restores M = 128


def test_two_outputs_made_and_given():
    n = 4096
    vec = Tile(n, f32)

    @kernel(in_specs=(vec, vec), out_specs=(vec, vec), grid=(n // 128, 1, 1),
            block=(128, 1, 1), arch="auto")
    def sum_and_product(A, Bv, S, P):
        pa, pb, ps, pp = ptx.global_ptrs(A, Bv, S, P)
        off = (reg.from_(ptx.special.ctaid.x(), u32) * 128 +
               reg.from_(ptx.special.tid.x(), u32)) * 4
        a, b = reg.scalar(f32), reg.scalar(f32)
        ptx.inst.ld.global_.f32(a, ptx.addr(pa + off))
        ptx.inst.ld.global_.f32(b, ptx.addr(pb + off))
        ptx.inst.st.global_.f32(ptx.addr(ps + off), a + b)
        ptx.inst.st.global_.f32(ptx.addr(pp + off), a * b)
        ptx.ret()

    a, b = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
    for _ in range(2):  # Python, then C++
        s, p = sum_and_product(a, b)
        torch.cuda.synchronize()
        assert torch.equal(s, a + b) and torch.equal(p, a * b)
    s, p = poisoned(n), poisoned(n)
    result = sum_and_product(a, b, out=[s, p])
    torch.cuda.synchronize()
    assert result[0] is s and result[1] is p
    assert torch.equal(s, a + b) and torch.equal(p, a * b)


def test_cuda_graph_captures_the_cpp_path_with_and_without_out(rms, monkeypatch):
    x, w = inputs()
    rms(x, w)
    rms(x, w, out=torch.empty_like(x))
    torch.cuda.synchronize()
    # Count calls that leave the C++ path, but let them run: an exception
    # raised inside a capture would leave torch's graph state broken for
    # every later test in the process.
    launcher = torch_runtime.launcher(rms)
    python_calls = []
    eager = launcher.eager
    monkeypatch.setattr(launcher, "eager",
                        lambda *a, **k: python_calls.append(1) or eager(*a, **k))
    y = poisoned(B, N)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        made = rms(x, w)
        rms(x, w, out=y)
    assert python_calls == [], "a call under capture left the C++ path"
    for _ in range(2):
        made.fill_(float("nan"))
        y.fill_(float("nan"))
        x.copy_(torch.randn_like(x))
        graph.replay()
        torch.cuda.synchronize()
        assert rel_err(made, ref_rms(x, w)) < 1e-5
        assert rel_err(y, ref_rms(x, w)) < 1e-5


def test_a_thread_without_a_context_stays_in_cpp(rms, monkeypatch):
    # A new thread may have no current CUDA context: the C++ call launches
    # in the primary context of the tensors' device anyway
    # (LaunchPlan.launch_on), so Python is never called.
    import threading

    x, w = inputs()
    rms(x, w)
    launcher = torch_runtime.launcher(rms)
    python_calls = []
    eager = launcher.eager
    monkeypatch.setattr(launcher, "eager", lambda *a, **k: python_calls.append(1) or eager(*a, **k))
    results = []
    thread = threading.Thread(target=lambda: results.extend([rms(x, w), rms(x, w)]))
    thread.start()
    thread.join()
    torch.cuda.synchronize()
    assert len(results) == 2 and python_calls == []
    for out in results:
        assert rel_err(out, ref_rms(x, w)) < 1e-5


def test_launches_on_the_current_stream(rms, python_path_refused):
    x, w = inputs()
    rms(x, w)
    python_path_refused(rms)
    stream = torch.cuda.Stream()
    y = poisoned(B, N)
    torch.cuda.synchronize()
    with torch.cuda.stream(stream):
        torch.cuda._sleep(100_000_000)  # holds the side stream for ~50 ms
        rms(x, w, out=y)
    # Read on the default stream, which does not wait for the side one: had
    # the kernel gone anywhere but behind the sleep, y would be written.
    still_poisoned = bool(torch.isnan(y).all())
    assert not stream.query(), "the sleep ended too soon to tell"
    assert still_poisoned
    stream.synchronize()
    assert rel_err(y, ref_rms(x, w)) < 1e-5
