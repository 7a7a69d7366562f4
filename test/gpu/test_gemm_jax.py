"""The Hopper GEMMs (examples/hopper/gemm.py, grouped_gemm.py) called from JAX
under jax.jit: their TMA descriptors are encoded in the FFI handler from
XLA's buffers. Random bf16 inputs, float64 references."""
import numpy as np
import pytest

jax = pytest.importorskip("jax")
if not any(d.platform == "gpu" for d in jax.devices()):
    pytest.skip("no GPU visible to JAX", allow_module_level=True)
if tuple(int(x) for x in jax.devices("gpu")[0].compute_capability.split(".")) < (9, 0):
    pytest.skip("wgmma, TMA and clusters need sm_90a", allow_module_level=True)

import jax.numpy as jnp  # noqa: E402

from examples.hopper import gemm  # noqa: E402
from examples.hopper import grouped_gemm as gg  # noqa: E402


def bf16(rng, *shape):
    return jnp.asarray(rng.standard_normal(shape, dtype=np.float32), jnp.bfloat16)


def f64(x):
    return np.asarray(x.astype(jnp.float32), np.float64)


def rel_err(out, ref):
    out = np.asarray(jnp.asarray(out, jnp.float32), np.float64)
    assert not np.isnan(out).any(), "output elements left unwritten"
    return float(np.linalg.norm(out - ref) / np.linalg.norm(ref))


@pytest.mark.parametrize("cluster", [1, 2])
def test_dense_gemm_under_jit(cluster):
    rng = np.random.default_rng(cluster)
    M, N, K = 512, 512, 256
    k = gemm.build_gemm(M, N, K, cluster=cluster, epilogue="tma", num_sms=4)
    f = jax.jit(lambda a, b: k(a, b))
    for _ in range(2):  # the second run is the compiled executable, on fresh data
        a, b = bf16(rng, M, K), bf16(rng, N, K)
        assert rel_err(f(a, b), f64(a) @ f64(b).T) < 1e-2


def test_grouped_gemms_under_jit():
    rng = np.random.default_rng(7)
    G, M, N, K = 4, 256, 64, 256
    k = gg.build_grouped_gemm_uniform(G, M, N, K)
    a, b = bf16(rng, G * M, K), bf16(rng, G * K, N)
    out = jax.jit(lambda x, y: k(x, y))(a, b)
    assert rel_err(out, gg.reference_uniform(f64(a), f64(b), G)) < 1e-2

    T, N, K, G = 640, 256, 128, 3
    offs = np.array([200, 200, 600], np.int32)
    k = gg.build_grouped_gemm(T, N, K, G, num_sms=4)
    a, b = bf16(rng, T, K), bf16(rng, G * N, K)
    out = jax.jit(lambda x, y, o: k(x, y, o))(a, b, jnp.asarray(offs))
    ref = gg.reference(f64(a), f64(b), offs)
    assert rel_err(np.asarray(jnp.asarray(out, jnp.float32))[:600], ref[:600]) < 1e-2
