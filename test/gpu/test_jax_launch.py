"""Launches from JAX: under jax.jit and eagerly, through the XLA FFI
handler. References in float64 NumPy."""
import numpy as np
import pytest

jax = pytest.importorskip("jax")
if not any(d.platform == "gpu" for d in jax.devices()):
    pytest.skip("no GPU visible to JAX", allow_module_level=True)

import jax.numpy as jnp  # noqa: E402

from examples.common.rms_norm import build_rms_norm  # noqa: E402

B, N = 2048, 8192  # the size


def rel_err(out, ref):
    return float(np.linalg.norm(np.asarray(out, np.float64) - ref) / np.linalg.norm(ref))


def inputs(seed, b=B, n=N):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((b, n), dtype=np.float32)
    w = (rng.random(n, dtype=np.float32) + 0.5).astype(np.float32)
    return x, w


def ref_rms(x, w):
    x64 = x.astype(np.float64)
    return x64 / np.sqrt((x64 * x64).mean(-1, keepdims=True) + 1e-6) * w.astype(np.float64)


@pytest.fixture(scope="module")
def rms():
    return build_rms_norm(B, N)


def test_eager_matches_reference(rms):
    for seed in range(2):  # the second call is the cached plan
        x, w = inputs(seed)
        out = rms(jnp.asarray(x), jnp.asarray(w))
        assert out.shape == (B, N) and out.dtype == jnp.float32
        assert rel_err(out, ref_rms(x, w)) < 1e-5


def test_jit_matches_reference(rms):
    f = jax.jit(lambda a, b: rms(a, b) * 2.0)
    for seed in range(2):  # fresh inputs; the second run is the compiled executable
        x, w = inputs(seed + 10)
        out = f(jnp.asarray(x), jnp.asarray(w))
        assert rel_err(out, 2.0 * ref_rms(x, w)) < 1e-5


def test_jit_two_kernels_and_small_shape():
    small = build_rms_norm(3, 96)
    x, w = inputs(20, 3, 96)

    @jax.jit
    def f(a, b):
        y = small(a, b)
        return small(y, b)  # the output of one launch feeds the next

    out = f(jnp.asarray(x), jnp.asarray(w))
    y = ref_rms(x, w).astype(np.float32)
    assert rel_err(out, ref_rms(y, w)) < 1e-5


def test_handler_errors_name_the_kernel(rms):
    from pyptx.runtime.jax import launcher

    x, w = (jnp.asarray(a) for a in inputs(30))
    rms(x, w).block_until_ready()  # the target and a plan registered
    (_, plan), = launcher(rms).calls.values()
    out = jax.ShapeDtypeStruct((B, N), jnp.float32)
    with pytest.raises(Exception, match=r"kernel 'rms_norm' takes 3 buffers \(inputs, "
                                        r"then outputs\), got 1 inputs and 1 outputs"):
        jax.ffi.ffi_call("pyptx_launch", out)(x, plan=plan).block_until_ready()
    with pytest.raises(Exception, match=r"no launch plan 1000000"):
        call = jax.ffi.ffi_call("pyptx_launch", out)
        call(x, w, plan=np.int64(10**6)).block_until_ready()


def test_jit_on_the_second_gpu():
    gpus = [d for d in jax.devices() if d.platform == "gpu"]
    if len(gpus) < 2:
        pytest.skip("needs two GPUs")
    k = build_rms_norm(64, 1024)
    x, w = inputs(7, 64, 1024)
    f = jax.jit(lambda a, b: k(a, b))
    for device in (gpus[1], gpus[0], gpus[1]):
        out = f(jax.device_put(x, device), jax.device_put(w, device))
        assert out.devices() == {device}
        assert rel_err(out, ref_rms(x, w)) < 1e-5
