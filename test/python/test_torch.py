"""PyTorch without a GPU: argument checks, the custom op, its fake
implementation and torch.compile's graph capture. (Launches are
test/gpu/'s.)"""
import re

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
    op = rms_norm._launchers["torch"].op_for(x, w)
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


# -- kernels that write their inputs (issue 18, part 1) ----------------------------

def _op(k, *inputs):
    from pyptx.runtime.torch import launcher
    return launcher(k).op_for(*inputs)


def test_written_inputs_are_mutated_arguments_of_the_custom_op(rms_norm):
    from examples.common.inplace import build_add_one, build_add_one_copy, build_scale_tma

    x = torch.zeros(256)
    op = _op(build_add_one(256), x)
    assert str(op.default._schema).endswith("(Tensor(a0!) X) -> ()")
    op = _op(build_add_one_copy(256), x)
    assert str(op.default._schema).endswith("(Tensor(a0!) X) -> Tensor")
    # Through a TMA store: the tensor the descriptor describes.
    op = _op(build_scale_tma(), torch.zeros(64, 64))
    assert str(op.default._schema).endswith("(Tensor(a0!) X) -> ()")
    op = _op(rms_norm, torch.zeros(4, 64), torch.zeros(64))
    assert str(op.default._schema).endswith("(Tensor X, Tensor W) -> Tensor")


def test_declared_writes_are_mutated_arguments():
    from pyptx import Tile, kernel, ptx
    from pyptx.types import f32

    @kernel(in_specs=(Tile(8, f32), Tile(8, f32)), out_specs=(Tile(8, f32),),
            grid=(1, 1, 1), block=(32, 1, 1), writes=("B",))
    def declared(A, B, C):
        ptx.ret()

    op = _op(declared, torch.zeros(8), torch.zeros(8))
    assert str(op.default._schema).endswith("(Tensor A, Tensor(a1!) B) -> Tensor")


def test_torch_compile_orders_the_write_before_its_readers():
    # The case: torch.compile(lambda t: (add_one(t), t * 2)[1]). The
    # functionalised graph (what every backend compiles) must read t * 2 from
    # the op's written value and write it back to t.
    from torch._dynamo.backends.common import aot_autograd
    from examples.common.inplace import build_add_one

    add_one = build_add_one(256)
    graphs = []

    def capture(gm, example_inputs):
        graphs.append(gm)
        return gm.forward

    f = torch.compile(lambda t: (add_one(t), t * 2)[1], fullgraph=True,
                      backend=aot_autograd(fw_compiler=capture))
    with pytest.raises(ArgumentError, match="must be on a CUDA device"):
        f(torch.zeros(256))  # the real implementation runs: no GPU here
    code = graphs[0].code
    call = re.search(r"(\w+) = torch.ops.higher_order.auto_functionalized\w*\("
                     r"torch.ops.pyptx.add_one_[0-9a-f_]+.default, _X_base_index = 0, "
                     r"_all_bases = \[(\w+)\]\)", code)
    assert call, code
    new = re.search(rf"(\w+) = {call.group(1)}\[1\]", code).group(1)
    assert re.search(rf"mul = torch.ops.aten.mul.Tensor\({new}, 2\)", code), code
    # Returned first: the input's new value, which AOT copies into t.
    assert re.search(rf"return \({new}, mul\)", code), code


def test_kernel_without_effects_is_an_error_under_torch_compile():
    from pyptx import Tile, kernel, ptx
    from pyptx.types import f32

    @kernel(in_specs=(Tile(4, f32),), grid=(1, 1, 1), block=(32, 1, 1))
    def nothing(X):
        ptx.ret()

    f = torch.compile(lambda t: (nothing(t), t * 2)[1], fullgraph=True, backend="eager")
    with pytest.raises(Exception, match=r"nothing: under torch.compile a kernel's "
                                        r"effects are its outputs and the inputs it "
                                        r"writes, and this one has no out_specs and "
                                        r"writes none of its inputs \['X'\]") as info:
        f(torch.zeros(4))
    assert "@kernel(writes=...)" in str(info.value)


def test_symbolic_kernel_traces_at_the_inputs_shapes():
    from pyptx import Tile, kernel, ptx, reg
    from pyptx.runtime.torch import written_inputs
    from pyptx.types import f32

    @kernel(in_specs=(Tile("N", f32),), grid=lambda N: (N // 32, 1, 1), block=(32, 1, 1))
    def bump(X):
        (px,) = ptx.global_ptrs(X)
        v = reg.scalar(f32)
        ptx.inst.ld.global_.f32(v, ptx.addr(px))
        ptx.inst.st.global_.f32(ptx.addr(px), v)
        ptx.ret()

    assert written_inputs(bump, {}, [(64,)]) == ("X",)
    # One op for every shape that writes the same inputs.
    assert _op(bump, torch.zeros(64)) is _op(bump, torch.zeros(128))


def _example_ops():
    """(id, kernel) of every example that launches (has in_specs)."""
    from test_param_effects import EXAMPLES, _build
    found = []
    for key, (args, kwargs, _) in EXAMPLES.items():
        k = _build(key, args, kwargs)
        if k.in_specs:
            found.append(pytest.param(k, id=key))
    return found


@pytest.mark.parametrize("k", _example_ops())
def test_every_example_op_has_its_effects_in_the_schema(k):
    # What opcheck checks without running the kernel (opcheck itself runs it:
    # test/gpu/test_mutation.py): the schema marks exactly the written
    # inputs, and the fake implementation gives each output's shape and
    # dtype.
    from torch._subclasses.fake_tensor import FakeTensorMode
    from pyptx.runtime.torch import torch_dtype

    inputs = [torch.zeros(t.dims, dtype=torch_dtype(t.dtype)) for t in k.in_specs]
    op = _op(k, *inputs)
    m = k.module()
    schema = op.default._schema
    mutated = [a.name for a in schema.arguments
               if a.alias_info is not None and a.alias_info.is_write]
    assert mutated == [n for n in m.writes if n in k.tensor_names[:len(inputs)]]
    with FakeTensorMode() as mode:
        outs = op(*[mode.from_tensor(t) for t in inputs])
    outs = [] if outs is None else [outs] if isinstance(outs, torch.Tensor) else outs
    assert [(tuple(o.shape), o.dtype) for o in outs] == [
        (tuple(t.dims), torch_dtype(t.dtype)) for t in k.out_specs]


# -- what a compiled call costs (issue: no more than the native op) -----------------

def test_compiled_call_writes_and_never_recompiles_for_eager_state():
    # The kernel's launch stands in as t += 1 on the CPU tensor. After the
    # first compile, nothing eager (a new eager specialisation, here `fast`)
    # makes dynamo compile again: the traced call reads none of it.
    from torch._dynamo.testing import CompileCounterWithBackend
    from examples.common.inplace import build_add_one
    from pyptx.runtime.torch import launcher

    k = build_add_one(256)
    run = launcher(k)
    def eager(inputs, raws, template, out=None, remember=False):
        inputs[0].add_(1)  # (returns None: the kernel has no outputs)
    run.eager = eager
    k._launchers[torch.Tensor] = run  # as after an eager call
    counter = CompileCounterWithBackend("aot_eager")
    f = torch.compile(lambda t: (k(t), t * 2)[1], fullgraph=True, backend=counter)
    t = torch.zeros(256)
    for i in range(1, 4):
        assert torch.equal(f(t), torch.full((256,), 2.0 * i)) and torch.equal(
            t, torch.full((256,), float(i)))
    run.fast = lambda args, out: NotImplemented  # a new eager specialisation
    f(t)
    assert torch.equal(t, torch.full((256,), 4.0))
    assert counter.frame_count == 1


def test_ops_are_found_by_the_kernel_itself():
    from examples.common.inplace import build_add_one
    from pyptx.runtime import torch as torch_runtime

    k, other = build_add_one(256), build_add_one(256)
    assert k.ref() is k
    name = torch_runtime._op_name(k.ref, (), None)
    assert torch_runtime._op_name(k.ref, (), None) == name
    assert torch_runtime._op_name(other.ref, (), None) != name
    assert getattr(torch.ops.pyptx, name).default._schema.name == f"pyptx::{name}"


_NAMES_SCRIPT = """
import sys
from examples.common.inplace import build_add_one
from pyptx.runtime import torch as torch_runtime
sizes = [int(a) for a in sys.argv[1:]]
kernels = {n: build_add_one(n) for n in sizes}
names = {n: torch_runtime._op_name(kernels[n].ref, (), None) for n in sizes}
print(" ".join(names[n] for n in sorted(names)))
"""


def test_op_names_are_the_same_in_every_process_whatever_the_order():
    # Inductor's FX-graph cache keeps generated code that calls ops by name
    # across processes: a name must mean the same kernel in each of them.
    import os
    import subprocess
    import sys
    root = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [root, os.path.join(root, "python"), os.environ.get("PYTHONPATH", "")]))

    def names(*sizes):
        out = subprocess.run([sys.executable, "-c", _NAMES_SCRIPT, *map(str, sizes)],
                             capture_output=True, text=True, env=env, cwd=root, check=True)
        return out.stdout.split()

    forward, backward = names(256, 512), names(512, 256)
    assert forward == backward
    assert forward[0] != forward[1]
    assert all(n.startswith("add_one_") for n in forward)


def test_inductor_calls_the_op_implementation_without_the_dispatcher():
    # Inductor's generated code (on the CPU here: the launches stand in as
    # CPU arithmetic) calls each op's implementation by its name in
    # extern_kernels, not torch.ops.pyptx.<op>; the written input and the
    # output stay as the op's schema says, in program order.
    from torch._inductor import config
    from torch._inductor.utils import run_and_get_code
    from examples.common.inplace import build_add_one, build_add_one_copy
    from pyptx.runtime.torch import launcher

    add_one, add_one_copy = build_add_one(256), build_add_one_copy(256)
    calls = []

    def add_one_eager(inputs, raws, template, out=None, remember=False):
        calls.append("add_one")
        inputs[0].add_(1)

    def add_one_copy_eager(inputs, raws, template, out=None, remember=False):
        calls.append("add_one_copy")
        y = inputs[0].clone()
        inputs[0].add_(1)
        return y
    launcher(add_one).eager = add_one_eager
    launcher(add_one_copy).eager = add_one_copy_eager
    f = torch.compile(lambda t: (add_one(t), add_one_copy(t) * 3 + t)[1], fullgraph=True)
    t = torch.randn(256)
    t0 = t.clone()
    with config.patch(force_disable_caches=True):  # a cached graph is not lowered
        out, codes = run_and_get_code(f, t)
    code = "\n".join(codes)
    assert re.search(r"extern_kernels\.pyptx_add_one_[0-9a-f_]+\(", code), code
    assert re.search(r"extern_kernels\.pyptx_add_one_copy_[0-9a-f_]+\(", code), code
    assert not re.search(r"torch\.ops\.pyptx\.\w+\.default\(", code), code
    assert calls == ["add_one", "add_one_copy"]
    assert torch.equal(t, t0 + 1 + 1)
    assert torch.allclose(out, (t0 + 1) * 3 + (t0 + 1 + 1))


def test_inductor_allocates_a_single_output_and_passes_it_as_out():
    # A kernel with one output that writes no input: Inductor's generated
    # code allocates the output (memory planning may reuse it) and the
    # op's implementation fills it through out=.
    from torch._inductor import config
    from torch._inductor.utils import run_and_get_code
    from pyptx import Tile, kernel, ptx
    from pyptx.runtime.torch import launcher
    from pyptx.types import f32

    @kernel(in_specs=(Tile(64, f32),), out_specs=(Tile(64, f32),), grid=(1, 1, 1),
            block=(32, 1, 1), arch="sm_90a")
    def double(X, Y):
        ptx.ret()

    given = []

    def double_eager(inputs, raws, template, out=None, remember=False):
        given.append(out)
        return torch.mul(inputs[0], 2, out=out)
    launcher(double).eager = double_eager
    f = torch.compile(lambda t: double(t + 1) - 1, fullgraph=True)
    t = torch.randn(64)
    with config.patch(force_disable_caches=True):
        out, codes = run_and_get_code(f, t)
    code = "\n".join(codes)
    assert re.search(r"extern_kernels\.pyptx_double_[0-9a-f_]+\(buf\d+, out=buf\d+\)", code), code
    assert len(given) == 1 and isinstance(given[0], torch.Tensor)
    assert torch.allclose(out, (t + 1) * 2 - 1)
