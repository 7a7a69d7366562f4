"""JAX (issue 18, part 3): kernels with TMA descriptors under jax.jit (each
descriptor encoded by the launch plan from XLA's buffer of its tensor), and
kernels that write their inputs (an output aliasing the input). Random
inputs; the kernels' arithmetic is exact (copies, x + 1, 2 * x), so results
are compared exactly, row sums against float64."""
import numpy as np
import pytest

jax = pytest.importorskip("jax")
if not any(d.platform == "gpu" for d in jax.devices()):
    pytest.skip("no GPU visible to JAX", allow_module_level=True)
if tuple(int(x) for x in jax.devices("gpu")[0].compute_capability.split(".")) < (9, 0):
    pytest.skip("TMA needs sm_90", allow_module_level=True)

import jax.numpy as jnp  # noqa: E402

from examples.common.inplace import (build_add_one, build_add_one_copy,  # noqa: E402
                                     build_scale_tma)
from examples.common.tma_copy import build_tma_copy  # noqa: E402
from examples.hopper.tma_pipeline import build_tma_pipeline  # noqa: E402

N = 1 << 20


def rand(seed, *shape):
    return np.random.default_rng(seed).standard_normal(shape, dtype=np.float32)


def test_tma_copy_under_jit_and_eagerly():
    k = build_tma_copy(64, 64)
    f = jax.jit(lambda x: k(x) * 2)
    for seed in range(3):  # fresh buffers: the maps are encoded again
        x = rand(seed, 64, 64)
        np.testing.assert_array_equal(np.asarray(f(jnp.asarray(x))), 2 * x)
    x = rand(3, 64, 64)
    np.testing.assert_array_equal(np.asarray(k(jnp.asarray(x))), x)


def test_tma_pipeline_loads_and_stores_through_two_maps():
    # X's map (an input buffer) for the loads, Y's (an output buffer) for the
    # stores.
    M, Ncols = 256, 256
    k = build_tma_pipeline(M, Ncols)
    f = jax.jit(lambda x: k(x))
    for seed in range(2):
        x = rand(10 + seed, M, Ncols)
        y, s = f(jnp.asarray(x))
        np.testing.assert_array_equal(np.asarray(y), x)
        ref = x.astype(np.float64).sum(axis=1)
        assert np.abs(np.asarray(s, np.float64) - ref).max() < 1e-4 * np.abs(x).sum(1).max()


def test_written_input_aliases_its_output_under_jit():
    k = build_add_one(N)
    f = jax.jit(k, donate_argnums=0)
    x0 = rand(20, N)
    x = jnp.asarray(x0)
    before = x.unsafe_buffer_pointer()
    y = f(x)
    np.testing.assert_array_equal(np.asarray(y), x0 + np.float32(1))
    # Donated: the kernel wrote the input's own buffer, which is the result.
    assert x.is_deleted() and y.unsafe_buffer_pointer() == before


def test_written_input_without_donation_leaves_the_argument():
    k = build_add_one(N)
    x0 = rand(21, N)
    x = jnp.asarray(x0)
    for y in (jax.jit(k)(x), k(x)):  # XLA copies the input first
        np.testing.assert_array_equal(np.asarray(y), x0 + np.float32(1))
        np.testing.assert_array_equal(np.asarray(x), x0)


def test_outputs_come_before_written_inputs():
    k = build_add_one_copy(N)
    x0 = rand(22, N)
    y, x1 = jax.jit(k)(jnp.asarray(x0))
    np.testing.assert_array_equal(np.asarray(y), x0)
    np.testing.assert_array_equal(np.asarray(x1), x0 + np.float32(1))


def test_tma_store_in_place_under_jit():
    k = build_scale_tma(64, 64)
    f = jax.jit(lambda x: k(x) + 1, donate_argnums=0)
    x0 = rand(23, 64, 64)
    np.testing.assert_array_equal(np.asarray(f(jnp.asarray(x0))), 2 * x0 + 1)
