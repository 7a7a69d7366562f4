"""PyTorch without a GPU: argument checks, the custom op, its fake
implementation and torch.compile's graph capture. (Launches are
test/gpu/'s.)"""
import pytest

torch = pytest.importorskip("torch", reason="PyTorch is installed by scripts/setup.sh")

from examples.seeds import build_rms_norm  # noqa: E402
from pyptx.runtime import ArgumentError  # noqa: E402


@pytest.fixture
def rms_norm():
    return build_rms_norm(4, 64)


def test_argument_errors_name_the_parameter(rms_norm):
    x, w = torch.randn(4, 64), torch.randn(64)
    with pytest.raises(ArgumentError, match=r"parameter 'X' must be torch.float32 "
                                            r"\(Tile\(4, 64, f32.*got torch.float16"):
        rms_norm(x.half(), w)
    with pytest.raises(ArgumentError, match=r"parameter 'W' must have rank 1 .*got "
                                            r"shape \(1, 64\)"):
        rms_norm(x, w[None])
    with pytest.raises(ArgumentError, match=r"parameter 'X' dimension 1 must be 64 "
                                            r".*got shape \(4, 32\)"):
        rms_norm(x[:, :32].contiguous(), w)
    with pytest.raises(ArgumentError, match=r"parameter 'X' must be contiguous"):
        rms_norm(torch.randn(64, 4).t(), w)
    with pytest.raises(ArgumentError, match=r"parameter 'X' must be on a CUDA device, "
                                            r"got cpu"):
        rms_norm(x, w)
    with pytest.raises(ArgumentError, match=r"expected 2 input tensors \['X', 'W'\]"):
        rms_norm(x)
    with pytest.raises(ArgumentError, match=r"parameter 'W' must be a torch tensor"):
        rms_norm(x, [1.0] * 64)


def test_shape_variables_bind_across_parameters():
    from pyptx import Tile, kernel, ptx
    from pyptx.types import f32

    @kernel(in_specs=(Tile("M", "N", f32), Tile("N", f32)),
            out_specs=(Tile("M", "N", f32),), grid=lambda M: (M, 1, 1), arch="sm_90a")
    def k(X, W, Y):
        ptx.ret()

    with pytest.raises(ArgumentError, match=r"parameter 'W' dimension 0 is N=64 from "
                                            r"an earlier argument, got 32"):
        k(torch.randn(4, 64), torch.randn(32))


def _captured(fn, *args):
    graphs = []

    def backend(gm, example_inputs):
        graphs.append(gm)
        return gm.forward

    compiled = torch.compile(fn, fullgraph=True, backend=backend)
    with pytest.raises(ArgumentError, match="must be on a CUDA device"):
        compiled(*args)  # the real implementation runs: no GPU here
    return graphs


def test_torch_compile_traces_one_custom_op(rms_norm):
    x, w = torch.randn(4, 64), torch.randn(64)
    graphs = _captured(lambda a, b: rms_norm(a, b) * 2, x, w)
    assert len(graphs) == 1
    code = graphs[0].code
    assert "torch.ops.pyptx.rms_norm_" in code and "mul" in code


def test_fake_implementation_gives_the_output_shape(rms_norm):
    from torch._subclasses.fake_tensor import FakeTensorMode

    x, w = torch.randn(4, 64), torch.randn(64)
    with pytest.raises(ArgumentError):
        rms_norm(x, w)  # registers nothing yet: eager path
    op = rms_norm._launchers["torch"]._op({}).op
    with FakeTensorMode() as mode:
        out = op(mode.from_tensor(x), mode.from_tensor(w))
    assert out.shape == (4, 64) and out.dtype == torch.float32
    schema = str(op.default._schema)
    assert schema.endswith("(Tensor X, Tensor W) -> Tensor"), schema


def test_differentiable_kernel_wires_autograd():
    # Any callables stand in for kernels here (no GPU): what is checked is
    # which tensors reach the backward and where its gradients go.
    from pyptx import differentiable_kernel

    seen = {}

    def forward(x, w):
        return x * w

    def backward(w, x, dy):
        seen["saved"] = (w, x)
        return dy * w, dy * x

    op = differentiable_kernel(forward, backward, save_for_backward=[1, 0])
    x = torch.randn(8, requires_grad=True)
    w = torch.randn(8, requires_grad=True)
    op(x, w).sum().backward()
    assert torch.equal(seen["saved"][0], w) and torch.equal(seen["saved"][1], x)
    assert torch.allclose(x.grad, w.detach()) and torch.allclose(w.grad, x.detach())

    bad = differentiable_kernel(forward, lambda w, dy: dy, save_for_backward=[1])
    with pytest.raises(RuntimeError, match="returned 1 gradients for 2 inputs"):
        bad(x, w).sum().backward()
