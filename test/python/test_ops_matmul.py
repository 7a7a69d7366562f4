"""pyptx.ops.matmul without a GPU: argument checks (each error names the
caller's line), the padding rule, the kernel plan, the activations'
derivatives (against finite differences), the custom op's fake
implementation (the shapes torch.compile sees) and the JAX entry's checks.
The GPU half is test/gpu/test_matmul_op.py."""
import importlib

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import pyptx.ops as ops  # noqa: E402

mm = importlib.import_module("pyptx.ops.matmul")


def bf(*shape):
    return torch.randn(*shape).to(torch.bfloat16)


@pytest.mark.parametrize("args,kw,match", [
    ((bf(4, 64).float(), bf(64, 8)), {}, "bfloat16"),
    ((bf(4, 64), bf(32, 8)), {}, "must equal"),
    ((bf(4, 64), bf(64, 8, 2)), {}, r"b \(K, N\)"),
    ((bf(4, 64), bf(64, 8)), dict(bias=bf(9)), "bias"),
    ((bf(4, 64), bf(64, 8)), dict(residual=bf(4, 9)), "residual"),
    ((bf(4, 64), bf(64, 8)), dict(activation="relu"), "activation"),
    ((bf(4, 64), bf(64, 8)), dict(out_dtype=torch.float16), "out_dtype"),
    ((bf(4, 64), bf(64, 8)), dict(out_dtype=torch.float8_e4m3fn), "out_scale"),
    ((bf(4, 64), bf(64, 8)), dict(out_scale=torch.ones(1)), "only taken with"),
    ((bf(4, 64), bf(64, 8)), dict(out_dtype=torch.float8_e4m3fn, out_scale=torch.ones(2)),
     "one float32"),
    ((bf(4, 64), bf(64, 8)), dict(out_dtype=torch.float8_e4m3fn,
                                  out_scale=torch.ones(1, dtype=torch.float64)), "one float32"),
    ((bf(4, 64).requires_grad_(), bf(64, 8)), dict(out_dtype=torch.float8_e4m3fn,
                                                   out_scale=torch.ones(1)), "no gradient"),
    ((bf(4, 64), bf(64, 8)), {}, "one CUDA device"),
])
def test_bad_input_is_refused_at_the_callers_line(args, kw, match):
    with pytest.raises(mm.MatmulError, match=match) as info:
        ops.matmul(*args, **kw)
    assert str(info.value).startswith(__file__.rstrip("c") + ":")


def test_not_a_tensor():
    with pytest.raises(mm.MatmulError, match="torch.Tensor or a jax.Array"):
        ops.matmul([[1.0]], [[1.0]])


def test_padding_rule():
    assert mm.padded_shape(5, 1001, 999) == (1008, 1000)
    assert mm.padded_shape(5, 8, 40) == (64, 64)
    assert mm.padded_shape(5, 4096, 4096) == (4096, 4096)


def test_kernel_cache_and_plan():
    k1, s1 = mm.gemm_kernel(16, 2048, 4096, "K", False, None, False, "bf16")
    k2, _ = mm.gemm_kernel(16, 2048, 4096, "K", False, None, False, "bf16")
    assert k1 is k2 and s1 == 8 and k1.config.k_tiles == 8
    k3, s3 = mm.gemm_kernel(4096, 4096, 4096, "K", True, "gelu", True, "bf16")
    assert s3 == 1 and "tanh.approx.f32" in k3.ptx()
    k4, s4 = mm.gemm_kernel(4096, 4096, 4096, "K", True, None, False, "e4m3")
    assert s4 == 1 and k4.tensor_names == ["A", "B", "Bias", "OutScale", "Amax", "C"]
    assert k4.writes == ("Amax",) and k4.out_specs[0].dtype.name == "e4m3"


def test_ping_pong_only_for_a_silu_after_the_main_loop():
    """A SiLU runs after the main loop: ping-pong overlaps it. A GELU's math
    interleaves with the cooperative kernel's store chunks (measured
    faster there); a bias or residual alone is preloaded (nothing trails
    the loop): cooperative; so is an e4m3 output."""
    def schedule(bias, activation, residual, out):
        # (the plan does not look at the bias or the residual)
        return mm.call_plan(1024, 4096, 4096, "K", activation, out)["schedule"]
    assert schedule(True, "gelu", True, "bf16") == "cooperative"
    assert schedule(False, "silu", False, "bf16") == "pingpong"
    assert schedule(True, None, True, "bf16") == "cooperative"
    assert schedule(False, None, True, "bf16") == "cooperative"
    assert schedule(True, "gelu", False, "e4m3") == "cooperative"
    k, _ = mm.gemm_kernel(1024, 4096, 4096, "K", True, None, True, "bf16")
    assert not k.config.pingpong and k.config.bn == 256


@pytest.mark.parametrize("activation", ["gelu", "silu"])
def test_activation_derivatives(activation):
    z = np.linspace(-6, 6, 241)
    h = 1e-6
    numeric = (mm.act_value(np, z + h, activation) - mm.act_value(np, z - h, activation)) / (2 * h)
    assert np.allclose(mm.act_grad(np, z, activation), numeric, atol=1e-6)


def test_fake_implementation_gives_the_shape():
    from torch._subclasses.fake_tensor import FakeTensorMode
    with FakeTensorMode():
        a = torch.empty(5, 100, dtype=torch.bfloat16)
        b = torch.empty(100, 30, dtype=torch.bfloat16)
        out = mm.torch_op()(a, b, None, None, "gelu", True)
    assert out.shape == (5, 30) and out.dtype == torch.float32


def test_fake_implementation_of_the_e4m3_output():
    from torch._subclasses.fake_tensor import FakeTensorMode
    with FakeTensorMode():
        a = torch.empty(5, 100, dtype=torch.bfloat16)
        b = torch.empty(100, 30, dtype=torch.bfloat16)
        c, amax = mm.torch_op_e4m3()(a, b, None, None, "silu", torch.ones(1))
    assert c.shape == (5, 30) and c.dtype == torch.float8_e4m3fn
    assert amax.shape == (1,) and amax.dtype == torch.float32


def test_jax_input_is_checked():
    jnp = pytest.importorskip("jax.numpy")
    with pytest.raises(mm.MatmulError, match="bfloat16"):
        ops.matmul(jnp.ones((4, 64), jnp.float32), jnp.ones((64, 8), jnp.bfloat16))
