"""Launches from PyTorch: eager, torch.compile, CUDA graphs, argument
errors. References in float64 on the GPU; outputs poisoned before each run."""
import pytest
import torch

from examples.common.rms_norm import build_rms_norm
from pyptx.runtime import ArgumentError

B, N = 2048, 8192  # the size


def rel_err(out, ref):
    return ((out.double() - ref).norm() / ref.norm()).item()


def inputs(b=B, n=N):
    x = torch.randn(b, n, device="cuda")
    w = torch.rand(n, device="cuda") + 0.5
    return x, w


def ref_rms(x, w):
    x64 = x.double()
    return x64 * torch.rsqrt((x64 * x64).mean(-1, keepdim=True) + 1e-6) * w.double()


@pytest.fixture(scope="module")
def rms():
    return build_rms_norm(B, N)


def test_eager_matches_reference(rms):
    for _ in range(2):  # fresh inputs each time; the second call is the cached plan
        x, w = inputs()
        out = rms(x, w)
        torch.cuda.synchronize()
        assert out.shape == (B, N) and out.dtype == torch.float32
        assert rel_err(out, ref_rms(x, w)) < 1e-5


def test_torch_compile_fullgraph(rms):
    x, w = inputs()

    @torch.compile(fullgraph=True)
    def f(a, b):
        return rms(a, b) * 2.0

    out = f(x, w)
    assert rel_err(out, 2.0 * ref_rms(x, w)) < 1e-5


def test_cuda_graph_replay(rms):
    x, w = inputs()
    rms(x, w)  # plan and module loaded before capture
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = rms(x, w)
    out.fill_(float("nan"))
    x.copy_(torch.randn_like(x))
    graph.replay()
    torch.cuda.synchronize()
    assert rel_err(out, ref_rms(x, w)) < 1e-5


def test_non_contiguous_input_is_named(rms):
    x, w = inputs()
    with pytest.raises(ArgumentError, match="parameter 'X' must be contiguous"):
        rms(x.t().contiguous().t(), w)


def test_small_shape_and_other_stream():
    k = build_rms_norm(3, 96)
    x, w = inputs(3, 96)
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        out = k(x, w)
    stream.synchronize()
    assert rel_err(out, ref_rms(x, w)) < 1e-5


def test_differentiable_kernel_backward():
    from pyptx import Tile, differentiable_kernel, kernel, ptx, reg
    from pyptx.types import f32, u32
    n = 4096

    def element_offset():
        i = reg.from_(ptx.special.ctaid.x(), u32) * 128 + reg.from_(ptx.special.tid.x(), u32)
        return i * 4

    def load(ptr, off):
        v = reg.scalar(f32)
        ptx.inst.ld.global_.f32(v, ptx.addr(ptr + off))
        return v

    vec = Tile(n, f32)
    shape = dict(grid=(n // 128, 1, 1), block=(128, 1, 1), arch="auto")

    @kernel(in_specs=(vec, vec), out_specs=(vec,), **shape)
    def mul(X, W, Y):
        px, pw, py = ptx.global_ptrs(X, W, Y)
        off = element_offset()
        y = load(px, off) * load(pw, off)
        ptx.inst.st.global_.f32(ptx.addr(py + off), y)
        ptx.ret()

    @kernel(in_specs=(vec, vec, vec), out_specs=(vec, vec), **shape)
    def mul_backward(X, W, DY, DX, DW):
        px, pw, pdy, pdx, pdw = ptx.global_ptrs(X, W, DY, DX, DW)
        off = element_offset()
        dy = load(pdy, off)
        ptx.inst.st.global_.f32(ptx.addr(pdx + off), dy * load(pw, off))
        ptx.inst.st.global_.f32(ptx.addr(pdw + off), dy * load(px, off))
        ptx.ret()

    op = differentiable_kernel(mul, mul_backward, save_for_backward=[0, 1])
    x = torch.randn(n, device="cuda", requires_grad=True)
    w = torch.randn(n, device="cuda", requires_grad=True)
    g = torch.randn(n, device="cuda")
    y = op(x, w)
    y.backward(g)
    assert rel_err(y.detach(), x.double() * w.double()) < 1e-6
    assert rel_err(x.grad, g.double() * w.double()) < 1e-6
    assert rel_err(w.grad, g.double() * x.double()) < 1e-6


@pytest.mark.parametrize("name", ["rms_norm", "layer_norm", "softmax", "swiglu"])
@pytest.mark.parametrize("shape", [(3, 96), (64, 1024), (8, 4096)])
def test_examples_against_their_references(name, shape):
    # Every example, through Kernel.__call__, for this GPU's architecture,
    # against its NumPy reference in float64.
    import numpy as np

    from examples.common.for_arch import example
    from examples.run_on_gpu import FAMILY, inputs as example_inputs

    major = torch.cuda.get_device_capability()[0]
    arch = {8: "sm_80", 9: "sm_90a", 10: "sm_100a"}[major]
    assert FAMILY[major]
    build, reference, _ = example(name, arch)
    B, N = shape
    arrays = example_inputs(name, B, N, np.random.default_rng(B * N))
    out = build(B, N)(*[torch.from_numpy(a).cuda() for a in arrays])
    ref = reference(*[a.astype(np.float64) for a in arrays])
    err = np.linalg.norm(out.cpu().double().numpy() - ref) / np.linalg.norm(ref)
    assert err < 1e-4, f"{name} {shape}: relative error {err:.2e}"


def test_tma_copy_with_a_descriptor_by_value():
    # The DSL's X.tma_desc(): the launcher encodes the descriptor from the
    # tensor at each launch and passes its 128 bytes as a parameter.
    from examples.common.tma_copy import build_tma_copy

    if torch.cuda.get_device_capability()[0] != 9:
        pytest.skip("the TMA copy is written for sm_90a")
    k = build_tma_copy(64, 64)
    for _ in range(2):
        x = torch.randn(64, 64, device="cuda")
        y = k(x)
        torch.cuda.synchronize()
        assert torch.equal(y, x)


def _sm90():
    if torch.cuda.get_device_capability()[0] != 9:
        pytest.skip("written for sm_90a")


def test_cluster_launch_through_the_dsl():
    # cluster=(2, 1, 1): each CTA writes its rank in the cluster.
    from pyptx import Tile, kernel, ptx, reg
    from pyptx.types import u32

    _sm90()

    @kernel(in_specs=(Tile(4, u32),), out_specs=(Tile(4, u32),), grid=(4, 1, 1),
            block=(32, 1, 1), cluster=(2, 1, 1), arch="sm_90a")
    def ranks(X, Y):
        px, py = ptx.global_ptrs(X, Y)
        cta = reg.from_(ptx.special.ctaid.x(), u32)
        rank = reg.from_(ptx.special.cluster_ctarank(), u32)
        tid = reg.from_(ptx.special.tid.x(), u32)
        with ptx.if_(tid == 0):
            off = cta * 4
            v = reg.scalar(u32)
            ptx.inst.ld.global_.u32(v, ptx.addr(px + off))
            ptx.inst.st.global_.u32(ptx.addr(py + off), v + rank)
        ptx.ret()

    assert ".explicitcluster" in ranks.ptx()
    x = (torch.arange(4, device="cuda", dtype=torch.int32) * 10).to(torch.uint32)
    y = ranks(x)
    torch.cuda.synchronize()
    assert y.cpu().to(torch.int64).tolist() == [0, 11, 20, 31]


def test_dynamic_shared_memory_over_48_kib_through_the_dsl():
    # 100 KiB of dynamic shared memory: thread t stores at t * 800 bytes, and
    # reads back what thread 127 - t stored.
    from pyptx import Tile, kernel, ptx, reg, smem
    from pyptx.types import u32

    _sm90()

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

    x = torch.randint(0, 1 << 30, (128,), device="cuda", dtype=torch.int32)
    y = mirror(x.to(torch.uint32))
    torch.cuda.synchronize()
    assert y.cpu().to(torch.int64).tolist() == x.flip(0).cpu().to(torch.int64).tolist()


def test_each_launch_runs_on_its_tensors_device():
    if torch.cuda.device_count() < 2:
        pytest.skip("needs two GPUs")
    k = build_rms_norm(64, 1024)
    for device in ("cuda:1", "cuda:0", "cuda:1"):
        x = torch.randn(64, 1024, device=device)
        w = torch.rand(1024, device=device) + 0.5
        out = k(x, w)
        assert out.device == x.device
        torch.cuda.synchronize(device)
        assert rel_err(out, ref_rms(x, w)) < 1e-5
