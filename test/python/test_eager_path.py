"""The eager PyTorch path without a GPU: pyptx._runtime.TorchCall (the C++
call of one specialisation) hits on the tensors it was made for and misses,
launching nothing, on anything else; out= is checked and named; under
torch.compile out= is a copy in the graph. (Launches: test/gpu/test_eager_out.py.)"""
import pytest

torch = pytest.importorskip("torch", reason="PyTorch is installed by scripts/setup.sh")

from examples.seeds import build_rms_norm  # noqa: E402
from pyptx import Tile, kernel, ptx  # noqa: E402
from pyptx.runtime import ArgumentError, Launch, runtime  # noqa: E402
from pyptx.runtime import torch as torch_runtime  # noqa: E402
from pyptx.types import f32, u32  # noqa: E402

# A kernel that touches no memory: a hit may launch it wherever a driver is.
PTX = """.version 8.0
.target sm_90a
.address_size 64
.visible .entry f(.param .u64 x, .param .u64 w, .param .u64 y, .param .u32 n)
{
    ret;
}
"""
B, N = 4, 64
API = getattr(torch.Tensor, "__dlpack_c_exchange_api__", None)
PATHS = [pytest.param(None, id="attributes")]
if API is not None:
    PATHS.insert(0, pytest.param(API, id="dlpack"))


class Recorder:
    """torch_functions for TorchCall, recording the outputs it makes."""

    def __init__(self):
        self.made = []

    def functions(self):
        def empty_like(t):
            self.made.append(("like", tuple(t.shape), t.dtype))
            return torch.empty_like(t)

        def empty(shape, dtype, device):
            self.made.append(("empty", tuple(shape), dtype))
            return torch.empty(shape, dtype=dtype, device=device)

        return (lambda index: 0, empty_like, empty)


def torch_call(api, rec, out_dtype=torch.float32, like=0, raws=(7,)):
    rt = runtime()
    plan = rt.LaunchPlan(rt.Kernel(PTX, "f", "sm_90a"), 1, 32,
                         params=["ptr", "ptr", "ptr", "u32"])
    x, w = torch.randn(B, N), torch.randn(N)
    samples = [x, w, torch.empty(0, dtype=out_dtype)]
    return rt.TorchCall(plan, torch_runtime._TENSOR_TYPES,
                        [((B, N), torch.float32), ((N,), torch.float32)],
                        [((B, N), out_dtype, like)], samples, x.device, 0, list(raws),
                        rec.functions(), api).call


def went_through(call, inputs, out=None) -> bool:
    """Whether `call` took the arguments: True where it got as far as the
    launch, which needs a driver (none here); False for a miss."""
    try:
        result = call(inputs, out)
    except RuntimeError as e:
        assert "pyptx runtime: cannot load libcuda.so.1" in str(e), str(e)
        return True
    assert result is NotImplemented, result
    return False


@pytest.fixture(autouse=True)
def _no_driver(request):
    if "api" in request.fixturenames and runtime().driver_available():
        pytest.skip("a CUDA driver is here, so hits launch: test/gpu/test_eager_out.py "
                    "has them")


class Subclass(torch.Tensor):
    pass


@pytest.mark.parametrize("api", PATHS)
def test_hits_on_its_tensors_and_misses_on_anything_else(api):
    rec = Recorder()
    call = torch_call(api, rec)
    x, w = torch.randn(B, N), torch.randn(N)
    assert went_through(call, (x, w))
    assert went_through(call, (x, torch.nn.Parameter(w)))
    misses = {
        "dtype": (x, w.half()),
        "shape": (x, w[: N // 2].contiguous()),
        "rank": (x, w[None]),
        "strided": (x, torch.randn(2 * N)[::2]),
        "transposed": (torch.randn(N, B).t(), w),
        "count": (x,),
        "extra": (x, w, 5),
        "not a tensor": (x, [1.0] * N),
        "subclass": (x.as_subclass(Subclass), w),
    }
    for what, inputs in misses.items():
        assert call(inputs, None) is NotImplemented, what
    assert call([x, w], None) is NotImplemented  # inputs come as a tuple
    assert rec.made == [("like", (B, N), torch.float32)] * 2  # made before launching


@pytest.mark.parametrize("api", PATHS)
def test_out_is_checked_like_an_input(api):
    rec = Recorder()
    call = torch_call(api, rec)
    x, w, y = torch.randn(B, N), torch.randn(N), torch.empty(B, N)
    for out in (y, (y,), [y]):
        assert went_through(call, (x, w), out)
    assert rec.made == []  # nothing made where out= is given
    for what, out in {"shape": torch.empty(B, N + 1), "dtype": torch.empty(B, N).half(),
                      "strided": torch.empty(N, B).t(), "count": (y, y), "type": 1.0,
                      "subclass": y.as_subclass(Subclass)}.items():
        assert call((x, w), out) is NotImplemented, what
    # An output that overlaps an input goes to Python, which names the two.
    big = torch.randn(2 * B * N)
    assert call((x, w), x) is NotImplemented
    assert call((big[:B * N].view(B, N), w), big[B * N // 2:][:B * N].view(B, N)) \
        is NotImplemented
    assert went_through(call, (big[:B * N].view(B, N), w), big[B * N:].view(B, N))


@pytest.mark.parametrize("api", PATHS)
def test_outputs_of_another_dtype_are_made_by_torch_empty(api):
    rec = Recorder()
    call = torch_call(api, rec, out_dtype=torch.int32, like=-1)
    x, w = torch.randn(B, N), torch.randn(N)
    assert went_through(call, (x, w))
    assert rec.made == [("empty", (B, N), torch.int32)]
    assert call((x, w), torch.empty(B, N)) is NotImplemented  # float32, not int32
    assert went_through(call, (x, w), torch.empty(B, N, dtype=torch.int32))


def test_construction_errors_say_what_is_wrong():
    rt = runtime()
    kern = rt.Kernel(PTX, "f", "sm_90a")
    rec = Recorder()
    x = torch.randn(B, N)

    def make(params, raws=(7,), like=0):
        plan = rt.LaunchPlan(kern, 1, 32, params=params)
        return rt.TorchCall(plan, (torch.Tensor,), [((B, N), torch.float32)],
                            [((B, N), torch.float32, like)], [x, x], x.device, 0,
                            list(raws), rec.functions(), None)

    with pytest.raises(ValueError, match=r"kernel 'f' has 3 parameters, got 2 tensors "
                                         r"and 2 raw values"):
        make(["ptr", "ptr", "u32"], raws=(1, 2))
    with pytest.raises(ValueError, match=r"parameter 1 is u32: the tensors' pointers "
                                         r"come first"):
        make(["ptr", "u32", "ptr"])
    with pytest.raises(TypeError, match=r"parameter 2 \(u32\) of kernel 'f' takes an int"):
        make(["ptr", "ptr", "u32"], raws=("seven",))
    with pytest.raises(ValueError, match=r"made like input 1 of 1"):
        make(["ptr", "ptr", "u32"], like=1)


# -- the launcher's out= (checked in Python where the C++ call misses) --------------

@pytest.fixture
def rms_norm():
    return build_rms_norm(B, N)


def cpu_launch(k, inputs):
    """A specialisation of `k` for CPU tensors (nothing here launches it)."""
    bound = torch_runtime.check_arrays(k, inputs, torch.Tensor, "a torch tensor",
                                       torch_runtime.torch_dtype)
    dtypes = [torch_runtime.torch_dtype(t.dtype) for t in k.out_specs]
    return torch_runtime._TorchLaunch(Launch(k, bound, {}), dtypes, inputs)


def test_out_errors_name_the_output(rms_norm):
    x, w = torch.randn(B, N), torch.randn(N)
    launcher = torch_runtime.launcher(rms_norm)
    launch = cpu_launch(rms_norm, (x, w))
    assert launch.like == [0] and launch.outputs == [((B, N), torch.float32)]
    cpu = x.device
    y = torch.empty(B, N)
    assert launcher._check_out(launch, y, cpu) == [y]
    assert launcher._check_out(launch, (y,), cpu) == [y]
    cases = [
        (torch.empty(B, N + 1), r"out= output 'Y' must have shape \(4, 64\) "
                                r"\(Tile\(4, 64, f32.*got \(4, 65\)"),
        (y.half(), r"out= output 'Y' must be torch.float32 .*got torch.float16"),
        (torch.empty(N, B).t(), r"out= output 'Y' must be contiguous"),
        ([1.0], r"out= output 'Y' must be a torch tensor .*got float"),
        ((y, y), r"out= takes 1 tensors \['Y'\], got 2"),
        (torch.empty(B, N, device="meta"), r"out= output 'Y' must be on cpu "
                                           r"\(the inputs'\), got meta"),
    ]
    for out, message in cases:
        with pytest.raises(ArgumentError, match=message):
            launcher._check_out(launch, out, cpu)


def test_out_of_a_kernel_without_outputs_or_with_a_keyword_named_out():
    @kernel(in_specs=(Tile(32, f32),), grid=(1, 1, 1), block=(32, 1, 1), arch="sm_90a")
    def in_place(X):
        ptx.ret()

    @kernel(in_specs=(Tile(32, f32),), out_specs=(Tile(32, f32),), grid=(1, 1, 1),
            block=(32, 1, 1), arch="sm_90a")
    def scaled(X, Y, *, out=2):
        ptx.ret()

    with pytest.raises(ArgumentError, match=r"in_place: out= given, but the kernel has "
                                            r"no outputs"):
        torch_runtime.launcher(in_place)._given_outputs(torch.empty(32))
    assert torch_runtime._out_names_outputs(in_place.ref)
    assert not torch_runtime._out_names_outputs(scaled.ref)


def test_outputs_unlike_every_input_are_made_by_torch_empty():
    @kernel(in_specs=(Tile(8, 32, f32),), out_specs=(Tile(8, 32, u32), Tile(8, f32)),
            grid=(1, 1, 1), block=(32, 1, 1), arch="sm_90a")
    def split(X, BITS, ROW):
        ptx.ret()

    launch = cpu_launch(split, (torch.randn(8, 32),))
    assert launch.outputs == [((8, 32), torch.uint32), ((8,), torch.float32)]
    assert launch.like == [-1, -1]


def test_torch_compile_copies_into_out(rms_norm):
    graphs = []

    def backend(gm, example_inputs):
        graphs.append(gm)
        return gm.forward

    compiled = torch.compile(lambda a, b, o: rms_norm(a, b, out=o), fullgraph=True,
                             backend=backend)
    x, w, y = torch.randn(B, N), torch.randn(N), torch.empty(B, N)
    with pytest.raises(ArgumentError, match="must be on a CUDA device"):
        compiled(x, w, y)  # the real implementation runs: no GPU here
    code = graphs[0].code
    assert "torch.ops.pyptx.rms_norm_" in code and "copy_" in code, code
