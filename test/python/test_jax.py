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


# -- TMA descriptors and inputs written in place (issue 18, parts 1 and 3) ------

def _custom_call(text):
    call = re.search(r"stablehlo.custom_call @pyptx_launch\(.*", text)
    assert call, text
    return call.group(0)


def test_tma_kernel_lowers_and_its_plan_encodes_the_map_at_launch():
    from examples.common.tma_copy import build_tma_copy
    from pyptx.runtime.jax import launcher

    k = build_tma_copy(64, 64)
    x = jnp.ones((64, 64), jnp.float32)
    call = _custom_call(cuda_text(k, x))
    assert call.endswith(": (tensor<64x64xf32>) -> tensor<64x64xf32>")
    assert "output_operand_aliases" not in call  # tma_copy writes Y only
    (_, plan), = launcher(k).calls.values()
    assert f"plan = {plan} : i64" in call


def test_input_written_in_place_is_an_aliased_output():
    from examples.common.inplace import build_add_one, build_add_one_copy, build_scale_tma

    x = jnp.zeros(1024, jnp.float32)
    alias = ("output_operand_aliases = [#stablehlo.output_operand_alias<"
             "output_tuple_indices = [{}], operand_index = 0, operand_tuple_indices = []>]")
    call = _custom_call(cuda_text(build_add_one(1024), x))
    assert alias.format("") in call and call.endswith("(tensor<1024xf32>) -> tensor<1024xf32>")
    # After the kernel's own output Y: the new X, aliasing input 0.
    call = _custom_call(cuda_text(build_add_one_copy(1024), x))
    assert alias.format("1") in call
    assert call.endswith("(tensor<1024xf32>) -> (tensor<1024xf32>, tensor<1024xf32>)")
    # Written through a TMA store, and the map encoded at launch.
    call = _custom_call(cuda_text(build_scale_tma(), jnp.zeros((64, 64), jnp.float32)))
    assert alias.format("") in call
    # Donated, XLA reuses the input's buffer for it.
    text = (jax.jit(build_add_one(1024), donate_argnums=0).trace(x)
            .lower(lowering_platforms=("cuda",)).as_text())
    assert re.search(r"@main\(%arg0: tensor<1024xf32> \{tf.aliasing_output = 0 : i32\}\)",
                     text), text


def test_declared_write_is_an_aliased_output():
    @kernel(in_specs=(Tile(8, f32), Tile(8, f32)), out_specs=(Tile(8, f32),),
            grid=(1, 1, 1), writes=("B",), arch="sm_90a")
    def declared(A, B, C):
        ptx.ret()

    x = jnp.zeros(8, jnp.float32)
    call = _custom_call(cuda_text(declared, x, x))
    assert ("output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices"
            " = [1], operand_index = 1, operand_tuple_indices = []>]") in call
    assert call.endswith("-> (tensor<8xf32>, tensor<8xf32>)")


def test_plan_encodes_tensor_maps_and_skips_aliased_outputs():
    from pyptx import _runtime as rt

    k = rt.Kernel("", "k", "sm_90a")
    plan = rt.LaunchPlan(k, 1, 1, params=["ptr", "ptr", "u32", "tensormap"])
    plan.encode_at_launch(3, 1, "f32", [64, 64], [256], [64, 64], swizzle="none")
    with pytest.raises(RuntimeError, match=r"kernel 'k': parameter 2 is not a tensor map"):
        plan.encode_at_launch(2, 1, "f32", [64, 64], [256], [64, 64])
    with pytest.raises(RuntimeError, match=r"parameter 2 \(the tensor map's source\) is "
                                           r"not a pointer"):
        plan.encode_at_launch(3, 2, "f32", [64, 64], [256], [64, 64])
    with pytest.raises(RuntimeError, match=r"global stride 0 is 250 bytes, must be a "
                                           r"multiple of 16"):
        plan.encode_at_launch(3, 1, "f32", [64, 64], [250], [64, 64])
    with pytest.raises(ValueError, match=r"dtype 'f33' is not one of"):
        plan.encode_at_launch(3, 1, "f33", [64, 64], [256], [64, 64])
    # The map's value is the plan's: any 128 bytes at registration.
    first = rt.register_plan(plan, (7, bytes(128)), aliased_outputs=1)
    assert rt.register_plan(plan, (7, bytes(128))) == first + 1


def test_shard_map_launches_on_each_shard():
    # examples/common/multi_gpu.py's step, lowered for CUDA over the devices
    # here (one CPU): each shard's block of rows is one launch of each
    # kernel, add_one's output aliases its input, and psum all-reduces.
    import numpy as np
    from jax.sharding import Mesh
    from jax.sharding import PartitionSpec as P
    from examples.common import multi_gpu as mg

    mesh = Mesh(np.array(jax.devices()), ("gpus",))
    rms, add_one = mg.build_rms_norm(mg.B, mg.N), mg.build_add_one(mg.B * mg.N)

    def block(x, w):
        y = add_one(rms(x, w).reshape(-1)).reshape(mg.B, mg.N)
        return y, jax.lax.psum(jnp.sum(y), "gpus")

    step = jax.shard_map(block, mesh=mesh, in_specs=(P("gpus", None), P()),
                         out_specs=(P("gpus", None), P()))
    n = len(jax.devices())
    text = cuda_text(step, jnp.zeros((n * mg.B, mg.N), jnp.float32),
                     jnp.zeros(mg.N, jnp.float32))
    calls = re.findall(r"stablehlo.custom_call @pyptx_launch\(.*", text)
    assert len(calls) == 2 and "stablehlo.all_reduce" in text, text
    assert calls[0].endswith(f"(tensor<{mg.B}x{mg.N}xf32>, tensor<{mg.N}xf32>) -> "
                             f"tensor<{mg.B}x{mg.N}xf32>")
    assert "output_operand_aliases" in calls[1]
