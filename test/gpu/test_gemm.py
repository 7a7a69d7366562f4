"""The persistent warp-specialised Hopper GEMM (examples/hopper/gemm.py) and
the grouped GEMMs (examples/hopper/grouped_gemm.py) on the GPU: random
bf16 data, a float64 reference, the output memory poisoned with NaN before
each launch (so an element left unwritten fails), relative error <= 1e-2
(bf16 out) / 1e-4 (f32 out). Shapes include non-square ones, several tiles
per CTA (a small persistent grid: the ring wraps across tiles), both B
layouts (each with 1- and 2-CTA clusters), both epilogues, and for the grouped kernel
uneven tokens per expert (empty experts, partial tiles); the ping-pong
schedule with every fused epilogue. Also: the SASS
holds HGMMA and no local-memory traffic."""
import os
import re
import sys

if __name__ == "__main__":  # run as a script (under compute-sanitizer): find the sources
    _ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
    sys.path[:0] = [os.path.join(_ROOT, "python"), _ROOT]

import pytest  # noqa: E402
import torch  # noqa: E402

from examples.hopper import gemm  # noqa: E402
from examples.hopper import grouped_gemm as gg  # noqa: E402
from pyptx.types import bf16, f32  # noqa: E402

SM90 = torch.cuda.get_device_capability() >= (9, 0)
pytestmark = pytest.mark.skipif(not SM90, reason="wgmma, TMA and clusters need sm_90a")

TORCH_DTYPE = {bf16: torch.bfloat16, f32: torch.float32}


def poisoned(shape, dtype):
    """Frees a NaN-filled block of this shape and dtype, so that the next
    allocation of it (the kernel's output) starts as NaN; returns its address."""
    block = torch.full(shape, float("nan"), dtype=dtype, device="cuda")
    torch.cuda.synchronize()
    address = block.data_ptr()
    del block
    return address


def check(out, ref, tol, poisoned_at=None, rows=None):
    if poisoned_at is not None:
        assert out.data_ptr() == poisoned_at, "the output did not reuse the poisoned block"
    out = out.double()
    if rows is not None:
        out, ref = out[:rows], ref[:rows]
    assert not torch.isnan(out).any(), "output elements left unwritten (still NaN)"
    err = ((out - ref).norm() / ref.norm()).item()
    assert err < tol, f"relative error {err:.3e} >= {tol}"
    return err


def tol(out_dtype):
    return 1e-2 if out_dtype == bf16 else 1e-4


DENSE_CASES = [
    # M, N, K, keyword arguments
    (256, 256, 64, dict(cluster=1)),
    (512, 512, 256, dict(cluster=2)),
    (768, 1024, 640, dict(cluster=2)),                         # non-square
    (1024, 768, 1024, dict(cluster=1, epilogue="direct")),
    (512, 1280, 512, dict(cluster=2, epilogue="direct", stages=4)),
    (512, 768, 384, dict(cluster=2, out_dtype=f32)),
    (384, 512, 512, dict(cluster=1, out_dtype=f32)),
    (1024, 1024, 512, dict(cluster=2, num_sms=4)),             # 4 tiles per CTA
    (1024, 1024, 512, dict(cluster=2, num_sms=4, prefetch=False, group_m=2)),
    (768, 512, 320, dict(cluster=1, num_sms=3)),               # 4 tiles per CTA
    (1024, 512, 256, dict(cluster=2, num_sms=2, epilogue="direct")),
    (512, 768, 448, dict(cluster=2, stages=3)),                # whole-tile epilogue
    (512, 512, 640, dict(cluster=1, stages=2, num_sms=2)),
    (512, 1000, 256, dict(cluster=2)),                        # C off the stripes: TMA per stripe
    (256, 520, 136, dict(cluster=1, bn=128, num_sms=2)),
]


@pytest.mark.parametrize("b_major", ["K", "MN"])
@pytest.mark.parametrize("M,N,K,kw", DENSE_CASES)
def test_gemm(M, N, K, kw, b_major):
    out_dtype = kw.get("out_dtype", bf16)
    a = torch.randn(M, K, device="cuda").to(torch.bfloat16)
    if b_major == "K":
        b = torch.randn(N, K, device="cuda").to(torch.bfloat16)
        ref = a.double() @ b.double().T
    else:
        b = torch.randn(K, N, device="cuda").to(torch.bfloat16)
        ref = a.double() @ b.double()
    k = gemm.build_gemm(M, N, K, b_major=b_major, **kw)
    at = poisoned((M, N), TORCH_DTYPE[out_dtype])
    c = k(a, b)
    torch.cuda.synchronize()
    assert c.dtype == TORCH_DTYPE[out_dtype] and c.shape == (M, N)
    check(c, ref, tol(out_dtype), at)


def test_gemm_repeated_launches_agree():
    """Same inputs, three launches: bit-identical outputs (a race would move them)."""
    M = N = K = 1024
    a = torch.randn(M, K, device="cuda").to(torch.bfloat16)
    b = torch.randn(N, K, device="cuda").to(torch.bfloat16)
    k = gemm.build_gemm(M, N, K, num_sms=8)
    outs = [k(a, b) for _ in range(3)]
    torch.cuda.synchronize()
    assert torch.equal(outs[0], outs[1]) and torch.equal(outs[0], outs[2])


@pytest.mark.parametrize("G,M,N,K,out_dtype", [(8, 256, 64, 512, bf16), (3, 384, 128, 256, f32),
                                               (2, 128, 256, 192, bf16)])
def test_grouped_uniform(G, M, N, K, out_dtype):
    a = torch.randn(G * M, K, device="cuda").to(torch.bfloat16)
    b = torch.randn(G * K, N, device="cuda").to(torch.bfloat16)
    ref = torch.bmm(a.double().view(G, M, K), b.double().view(G, K, N)).reshape(G * M, N)
    k = gg.build_grouped_gemm_uniform(G, M, N, K, out_dtype=out_dtype)
    at = poisoned((G * M, N), TORCH_DTYPE[out_dtype])
    c = k(a, b)
    torch.cuda.synchronize()
    check(c, ref, tol(out_dtype), at)


def moe_reference(a, b, counts):
    G, N, K = b.shape
    ref = torch.full((a.shape[0], N), float("nan"), dtype=torch.float64, device="cuda")
    start = 0
    for g, n in enumerate(counts):
        ref[start:start + n] = a[start:start + n].double() @ b[g].double().T
        start += n
    return ref


MOE_CASES = [
    # tokens per expert, N, K, T (rows of A; extra rows past the last expert)
    ([128, 256, 384, 128], 256, 256, 896, dict()),
    ([100, 0, 300, 1, 77, 260], 512, 320, 760, dict()),       # partial tiles, empty expert
    ([0, 513, 0, 255], 768, 192, 800, dict(epilogue="direct")),
    ([130, 7, 400], 256, 512, 600, dict(out_dtype=f32)),
    ([64] * 40, 256, 128, 2560, dict(num_sms=5)),             # many experts, few CTAs
]


@pytest.mark.parametrize("counts,N,K,T,kw", MOE_CASES)
def test_grouped_variable_tokens(counts, N, K, T, kw):
    out_dtype = kw.get("out_dtype", bf16)
    G = len(counts)
    a = torch.randn(T, K, device="cuda").to(torch.bfloat16)
    b = torch.randn(G, N, K, device="cuda").to(torch.bfloat16)
    offs = torch.tensor([sum(counts[:g + 1]) for g in range(G)], dtype=torch.int32,
                        device="cuda")
    k = gg.build_grouped_gemm(T, N, K, G, **kw)
    at = poisoned((T, N), TORCH_DTYPE[out_dtype])
    c = k(a, b.view(G * N, K), offs)
    torch.cuda.synchronize()
    rows = sum(counts)
    check(c, moe_reference(a, b, counts), tol(out_dtype), at, rows=rows)
    # rows past the last expert's end are not written
    assert torch.isnan(c[rows:].float()).all()


PINGPONG_CASES = [
    # M, N, K, keyword arguments of _dense_case (schedule="pingpong", bn 128 unless given).
    # num_sms small: several tiles per CTA, an odd count on some CTAs (the
    # second consumer takes the last turn), k tiles below, equal to and above
    # the ring's stages, so the stage skip wraps in every way
    (512, 512, 256, dict(cluster=1, num_sms=3)),
    (1024, 1024, 768, dict(cluster=2, num_sms=4, bias=True, act="gelu")),
    (768, 640, 448, dict(cluster=1, num_sms=3, stages=3, act="silu")),
    (640, 512, 320, dict(cluster=1, num_sms=2, stages=4, res=True)),
    (512, 1024, 384, dict(cluster=2, num_sms=2, bias=True, res=True, out_dtype=f32)),
    (1000, 1000, 1008, dict(bias=True, act="gelu", res=True, num_sms=5)),   # tails, stripes
    (1000, 1000, 1008, dict(act="silu", res=True, out_dtype=f32, num_sms=5)),
    (200, 200, 136, dict(bias=True, res=True, num_sms=1)),
    (100, 520, 200, dict(bn=64, bias=True, act="gelu", num_sms=3)),          # M < 128
    (520, 768, 136, dict(b_major="MN", cluster=2, res=True, act="silu")),
    (1024, 4096, 1024, dict(bias=True, res=True)),                          # plain grid
]


RESIDUAL_SMEM_CASES = [
    # M, N, K, keyword arguments of _dense_case (residual from shared memory)
    (1000, 1024, 1008, dict(bias=True)),                        # row and k tails
    (512, 512, 256, dict(num_sms=2)),                           # 4 tiles per CTA
    (300, 512, 200, dict(act="gelu", bias=True, out_dtype=f32)),
    (512, 1024, 512, dict(cluster=2, num_sms=4, act="silu")),
    (200, 576, 136, dict(bn=128, num_sms=3)),                   # a column tile past N
]


@pytest.mark.parametrize("M,N,K,kw", RESIDUAL_SMEM_CASES)
def test_residual_from_shared_memory(M, N, K, kw):
    _dense_case(M, N, K, res=True, residual_from="smem", **kw)


RESIDUAL_RING_CASES = RESIDUAL_SMEM_CASES + [
    (300, 520, 200, dict(bn=64, bias=True, num_sms=2)),         # N off the stripes
    (1000, 1000, 1008, dict(bn=128, act="silu", out_dtype=f32, num_sms=5)),
    (256, 200, 72, dict(num_sms=1)),                            # stripes past N
    (640, 4096, 4096, dict(bias=True)),                         # one tile per CTA
    (520, 768, 136, dict(b_major="MN", cluster=2, bias=True)),
    (520, 1024, 256, dict(cluster=2, num_sms=4)),               # M off the cluster's rows
    (512, 512, 256, dict(bn=64, cluster=2, num_sms=2)),
    (1024, 1024, 64, dict(stages=2, cluster=1, num_sms=2)),     # both stages hold the residual
]


@pytest.mark.parametrize("M,N,K,kw", RESIDUAL_RING_CASES)
def test_residual_through_the_ring(M, N, K, kw):
    _dense_case(M, N, K, res=True, residual_from="ring", **kw)


@pytest.mark.parametrize("cluster", [1, 2])
def test_residual_through_the_ring_repeated_launches_agree(cluster):
    """Two stages at bn 256, one k tile: each tile's residual takes the whole
    ring, 16 tiles per CTA; a stage freed too early would show as launches
    that differ."""
    M, N, K = 1024, 1024, 64
    a = torch.randn(M, K, device="cuda").to(torch.bfloat16)
    b = torch.randn(N, K, device="cuda").to(torch.bfloat16)
    r = torch.randn(M, N, device="cuda").to(torch.bfloat16)
    k = gemm.build_gemm(M, N, K, stages=2, cluster=cluster, num_sms=2, residual=True,
                        residual_from="ring")
    ref = a.double() @ b.double().T + r.double()
    outs = []
    for _ in range(4):
        at = poisoned((M, N), torch.bfloat16)
        outs.append(k(a, b, r))
        torch.cuda.synchronize()
        check(outs[-1], ref, tol(bf16), at)
    assert all(torch.equal(outs[0], o) for o in outs[1:])


@pytest.mark.parametrize("M,N,K,kw", [(300, 520, 200, dict(bias=True, num_sms=2)),
                                      (1000, 1000, 1008, dict(act="gelu", bias=True)),
                                      (100, 520, 200, dict(bn=64, num_sms=3))])
def test_residual_from_global(M, N, K, kw):
    """The per-thread loads (preloaded without an activation): the default
    where the ring does not apply (M < 128, ping-pong)."""
    _dense_case(M, N, K, res=True, residual_from="global", **kw)


@pytest.mark.parametrize("M,N,K,kw", PINGPONG_CASES)
def test_pingpong(M, N, K, kw):
    kw = dict(kw)
    _dense_case(M, N, K, schedule="pingpong", bn=kw.pop("bn", 128), **kw)


def test_pingpong_repeated_launches_agree():
    M = N = K = 1024
    a = torch.randn(M, K, device="cuda").to(torch.bfloat16)
    b = torch.randn(N, K, device="cuda").to(torch.bfloat16)
    r = torch.randn(M, N, device="cuda").to(torch.bfloat16)
    k = gemm.build_gemm(M, N, K, bn=128, num_sms=7, schedule="pingpong", residual=True)
    outs = [k(a, b, r) for _ in range(3)]
    torch.cuda.synchronize()
    assert torch.equal(outs[0], outs[1]) and torch.equal(outs[0], outs[2])


def test_sass_has_hgmma_and_no_local_memory():
    sass = gemm.build_gemm(1024, 1024, 1024).sass()
    opcodes = set(re.findall(r"/\*[0-9a-f]{4}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)", sass))
    assert any(o.startswith("HGMMA") for o in opcodes), sorted(opcodes)
    assert not any(o.startswith(("LDL", "STL")) for o in opcodes), sorted(opcodes)


def _dense_case(M, N, K, b_major="K", bias=False, act=None, res=False, out_dtype=bf16,
                split_k=1, **kw):
    """One small launch of build_gemm against float64 (poisoned output)."""
    a = torch.randn(M, K, device="cuda").to(torch.bfloat16)
    b = torch.randn(*((N, K) if b_major == "K" else (K, N)), device="cuda").to(torch.bfloat16)
    vb = torch.randn(N, device="cuda").to(torch.bfloat16)
    r = torch.randn(M, N, device="cuda").to(torch.bfloat16)
    k = gemm.build_gemm(M, N, K, b_major=b_major, bias=bias, activation=act, residual=res,
                        out_dtype=out_dtype, split_k=split_k, **kw)
    at = poisoned((split_k * M, N), TORCH_DTYPE[out_dtype])
    c = k(a, b, *([vb] if bias else []), *([r] if res else []))
    torch.cuda.synchronize()
    z = a.double() @ (b.double().T if b_major == "K" else b.double())
    z = z + (vb.double() if bias else 0)
    if act is not None:
        z = {"gelu": torch.nn.functional.gelu(z, approximate="tanh"),
             "silu": torch.nn.functional.silu(z)}[act]
    z = z + (r.double() if res else 0)
    if split_k > 1:
        return check(c.double().view(split_k, M, N).sum(0), z, 1e-4)
    return check(c, z, tol(out_dtype), at)


SANITIZE_CASES = {
    # name: (M, N, K, keyword arguments) for _dense_case
    "dense-2cta": (512, 512, 256, dict(cluster=2, num_sms=2)),
    "dense-1cta-direct": (512, 512, 256, dict(cluster=1, epilogue="direct", num_sms=2)),
    "odd-mnk-tma-stripes": (200, 200, 136, dict(num_sms=2)),       # N % 64 != 0
    "odd-mnk-f32-direct": (200, 200, 136, dict(out_dtype=f32, num_sms=2)),
    "split-k": (16, 512, 1024, dict(out_dtype=f32, split_k=4, bn=128)),
    "small-m-bn64": (16, 512, 512, dict(bn=64)),
    "bn64-tma": (100, 512, 512, dict(bn=64)),
    "fused-gelu-stripes": (200, 200, 136, dict(bias=True, act="gelu", res=True, num_sms=2)),
    "fused-silu-f32": (300, 520, 200, dict(bias=True, act="silu", res=True, out_dtype=f32)),
    "fused-residual-2cta": (512, 512, 128, dict(res=True, cluster=2, num_sms=2)),
    "mn-major-2cta": (512, 512, 128, dict(b_major="MN", cluster=2, num_sms=2)),
    "mn-major-2cta-partial": (520, 768, 136, dict(b_major="MN", cluster=2)),
    "fused-stripes-2cta-mn": (512, 1000, 256, dict(b_major="MN", cluster=2, bias=True,
                                                   act="gelu", res=True, num_sms=2)),
    "pingpong-2cta": (1024, 512, 448, dict(schedule="pingpong", bn=128, cluster=2, num_sms=2,
                                           bias=True, act="gelu", res=True)),
    "pingpong-odd": (300, 120, 136, dict(schedule="pingpong", bn=128, num_sms=1, res=True,
                                         act="silu")),
    "pingpong-f32": (384, 256, 200, dict(schedule="pingpong", bn=128, num_sms=2, bias=True,
                                         out_dtype=f32)),
    # the residual from shared memory: tails, several tiles per CTA, 2-CTA cluster
    "residual-smem": (300, 512, 200, dict(bias=True, res=True, residual_from="smem",
                                          num_sms=2)),
    "residual-smem-gelu-2cta": (512, 1024, 256, dict(act="gelu", res=True, cluster=2,
                                                     residual_from="smem", num_sms=2)),
    # the residual through the main ring: tails, several tiles per CTA, a cluster
    "residual-ring": (300, 520, 200, dict(bias=True, res=True, residual_from="ring",
                                          num_sms=2)),
    "residual-ring-gelu-2cta": (512, 1024, 256, dict(act="gelu", res=True, cluster=2,
                                                     residual_from="ring", num_sms=2)),
    # bias + residual preloaded into the accumulator, tails, several tiles per CTA
    "preloaded-bias-residual": (300, 520, 200, dict(bias=True, res=True, num_sms=2,
                                                    residual_from="global")),
    "pingpong-preloaded": (300, 520, 200, dict(schedule="pingpong", bn=128, num_sms=2,
                                               bias=True, res=True)),
}


def _grouped_cases():
    ga = torch.randn(2 * 256, 128, device="cuda").to(torch.bfloat16)
    gb = torch.randn(2 * 128, 64, device="cuda").to(torch.bfloat16)
    c = gg.build_grouped_gemm_uniform(2, 256, 64, 128, num_sms=2)(ga, gb)
    torch.cuda.synchronize()
    ref = torch.bmm(ga.double().view(2, 256, 128), gb.double().view(2, 128, 64)).reshape(512, 64)
    yield "grouped-uniform", check(c, ref, 1e-2)
    for name, counts, N, K in (("grouped", [100, 0, 200], 256, 128),
                               ("grouped-off-tile", [130, 7, 100], 200, 72)):
        T = sum(counts) + 20
        ta = torch.randn(T, K, device="cuda").to(torch.bfloat16)
        tb = torch.randn(len(counts), N, K, device="cuda").to(torch.bfloat16)
        offs = torch.tensor([sum(counts[:g + 1]) for g in range(len(counts))],
                            dtype=torch.int32, device="cuda")
        at = poisoned((T, N), torch.bfloat16)
        c = gg.build_grouped_gemm(T, N, K, len(counts), num_sms=2)(ta, tb.view(-1, K), offs)
        torch.cuda.synchronize()
        yield name, check(c, moe_reference(ta, tb, counts), 1e-2, at, rows=sum(counts))


def sanitize_main(names=()):
    """``compute-sanitizer --tool memcheck|racecheck python3 test/gpu/test_gemm.py
    [NAME ...]``: one small launch of each kernel path (dense 1- and 2-CTA, odd
    M/N/K with the striped TMA store and the direct one, split-K, 64-column
    tiles, fused epilogues, the MN-major B in a 2-CTA cluster, the grouped
    kernels), or of those named; prints one line per case."""
    torch.manual_seed(0)
    for name, (M, N, K, kw) in SANITIZE_CASES.items():
        if not names or name in names:
            print(f"ok {name} rel err {_dense_case(M, N, K, **kw):.1e}", flush=True)
    if not names or any(n.startswith("grouped") for n in names):
        for name, err in _grouped_cases():
            print(f"ok {name} rel err {err:.1e}", flush=True)


if __name__ == "__main__":
    sanitize_main(sys.argv[1:])
