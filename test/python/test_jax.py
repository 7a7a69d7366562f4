"""JAX without a GPU: argument checks, and jax.jit lowered for CUDA to the
custom call of the FFI handler. (Launches are test/gpu/'s.)"""
import re

import jax
import jax.numpy as jnp
import pytest

from examples.seeds import build_rms_norm
from pyptx import Tile, kernel, ptx
from pyptx.runtime import ArgumentError
from pyptx.types import f32


@pytest.fixture
def rms_norm():
    return build_rms_norm(4, 64)


def cuda_text(f, *args):
    """The StableHLO of jax.jit(f) lowered for CUDA (no GPU needed)."""
    return jax.jit(f).trace(*args).lower(lowering_platforms=("cuda",)).as_text()


def test_argument_errors_name_the_parameter(rms_norm):
    x, w = jnp.ones((4, 64), jnp.float32), jnp.ones(64, jnp.float32)
    with pytest.raises(ArgumentError, match=r"parameter 'X' must be float32 "
                                            r"\(Tile\(4, 64, f32.*got float16"):
        rms_norm(x.astype(jnp.float16), w)
    with pytest.raises(ArgumentError, match=r"parameter 'W' must have rank 1 .*got "
                                            r"shape \(1, 64\)"):
        rms_norm(x, w[None])
    with pytest.raises(ArgumentError, match=r"parameter 'X' dimension 1 must be 64 "
                                            r".*got shape \(4, 32\)"):
        rms_norm(x[:, :32], w)
    with pytest.raises(ArgumentError, match=r"expected 2 input arrays \['X', 'W'\]"):
        rms_norm(x)
    with pytest.raises(ArgumentError, match=r"parameter 'W' must be a JAX array"):
        rms_norm(x, [1.0] * 64)
    # Eagerly, the arrays must be on the GPU (here they are on the CPU).
    with pytest.raises(ArgumentError, match=r"parameter 'X' must be on a CUDA device, "
                                            r"got cpu"):
        rms_norm(x, w)
    # Under jit the same checks run on the tracers.
    with pytest.raises(ArgumentError, match=r"parameter 'X' must be float32"):
        cuda_text(rms_norm, x.astype(jnp.float16), w)


def test_jit_lowers_to_the_ffi_custom_call(rms_norm):
    x, w = jnp.ones((4, 64), jnp.float32), jnp.ones(64, jnp.float32)
    text = cuda_text(lambda a, b: rms_norm(a, b) * 2.0, x, w)
    call = re.search(r"stablehlo.custom_call @pyptx_launch\(%\w+, %\w+\) (\{.*\}) : "
                     r"\(tensor<4x64xf32>, tensor<64xf32>\) -> tensor<4x64xf32>", text)
    assert call, text
    plan = int(re.search(r"plan = (\d+) : i64", call.group(1)).group(1))
    # The same shapes again: the cached plan; other shapes: another plan.
    assert f"plan = {plan} : i64" in cuda_text(rms_norm, x, w)
    other = build_rms_norm(8, 64)
    text8 = cuda_text(other, jnp.ones((8, 64), jnp.float32), w)
    assert "-> tensor<8x64xf32>" in text8 and f"plan = {plan} : i64" not in text8


def test_raw_parameters_are_static():
    @kernel(in_specs=(Tile("N", f32),), out_specs=(Tile("N", f32),), grid=(1, 1, 1),
            raw_params=[("scale", "f32"), ("count", "u32")], arch="sm_90a")
    def scaled(X, Y):
        ptx.ret()

    x = jnp.ones(8, jnp.float32)
    text = cuda_text(lambda a: scaled(a, 2.0, 3), x)
    assert "custom_call @pyptx_launch(%arg0) " in text and "-> tensor<8xf32>" in text
    assert "plan = " in cuda_text(lambda a: scaled(a, scale=0.5, count=1), x)
    with pytest.raises(ArgumentError, match=r"raw parameter 'scale' \(f32\) takes a "
                                            r"static Python number"):
        cuda_text(lambda a, s: scaled(a, s, 3), x, 2.0)
    with pytest.raises(ArgumentError, match=r"raw parameter 'count' \(u32\) takes a "
                                            r"static Python number.*got float"):
        scaled(x, 2.0, 3.5)


def test_register_plan_and_handler():
    from pyptx import _runtime as rt

    capsule = rt.jax_handler()
    assert type(capsule).__name__ == "PyCapsule"
    k = rt.Kernel("", "k", "sm_90a")
    plan = rt.LaunchPlan(k, 1, 1, params=["ptr", "ptr", "f32", "u32"])
    first = rt.register_plan(plan, (1.5, 7))
    assert rt.register_plan(plan, (1.5, 7)) == first + 1
    with pytest.raises(TypeError, match=r"parameter 3 \(u32\) of kernel 'k' takes an int"):
        rt.register_plan(plan, (1.5, 7.0))
    with pytest.raises(ValueError, match=r"kernel 'k' has 4 parameters, got 5 values"):
        rt.register_plan(plan, (1, 2, 3, 4, 5))
    with pytest.raises(ValueError, match=r"parameter 0 \(f32\) of kernel 'k' is not a "
                                         r"pointer"):
        rt.register_plan(rt.LaunchPlan(k, 1, 1, params=["f32", "ptr"]))
    # The target registers for CUDA without a GPU (jax keeps it for the plugin).
    jax.ffi.register_ffi_target("pyptx_launch_test", capsule, platform="CUDA")
