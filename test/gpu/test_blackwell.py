"""The Blackwell (sm_100a) examples on the GPU machine.

SASS (any GPU machine with the CUDA toolkit; no Blackwell GPU needed): each
example kernel is assembled with ptxas -arch=sm_100a and disassembled
(Kernel.sass(): cuobjdump -sass, found on PATH or in /usr/local/cuda/bin,
else nvdisasm); its SASS must hold the tensor-memory instructions of its
primitives. The mnemonics were read from ptxas 13.0 and cuobjdump 13.2
(2026-11-26): UTCHMMA (tcgen05.mma kind::f16 and tf32), UTCQMMA (f8f6f4),
UTCIMMA (i8), UTCBAR (tcgen05.commit), UTCCP (cp), UTCSHIFT (shift), LDTM
and STTM (ld, st), UTCATOMSWS (alloc, dealloc), UTMALDG (TMA loads); the
cta_group::2 forms carry .2CTA (UTCHMMA.2CTA, UTCBAR.2CTA.MULTICAST,
UTMALDG.2D.2CTA, UTCATOMSWS.2CTA...). The check compares the mnemonic up
to its first dot, and the .2CTA modifier for the pair's kernel.

Correctness (only where the GPU is sm_100, compute capability 10.0: an
sm_100a cubin loads nowhere else; skipped with that reason otherwise):
every case of examples/blackwell/tcgen05_suite.py, the 1-SM and 2-SM GEMMs
and the grouped GEMM against float64 on random data, with the output
memory poisoned (NaN) before each launch."""
import re

import pytest
import torch

from examples.blackwell import gemm
from examples.blackwell import grouped_gemm as gg
from examples.blackwell import tcgen05_alloc_mma, tcgen05_cp_shift, tcgen05_ld_st
from examples.blackwell import tcgen05_suite as suite
from pyptx.types import bf16, f32

CAPABILITY = torch.cuda.get_device_capability()
SM100 = CAPABILITY == (10, 0)
needs_sm100 = pytest.mark.skipif(
    not SM100, reason=f"the tcgen05 kernels are built for sm_100a (a B200/GB200); this GPU "
                      f"is sm_{CAPABILITY[0]}{CAPABILITY[1]}")


# -- SASS --------------------------------------------------------------------------------

def sass_mnemonics(k):
    """The opcodes (with their dotted modifiers) of a kernel's SASS."""
    sass = k.sass()
    found = re.findall(r"/\*[0-9a-f]{4}\*/\s+(?:@!?U?P[T0-9]+\s+)?([A-Z][A-Za-z0-9_.]*)", sass)
    assert found, f"no instructions found in the SASS:\n{sass[:2000]}"
    return set(found)


SASS_CASES = {
    # example kernel: mnemonics (up to the first dot) its SASS must hold
    "tcgen05_alloc_mma": (lambda: tcgen05_alloc_mma.build_tcgen05_alloc_mma(64, 64),
                          {"UTCATOMSWS", "UTCHMMA", "UTCBAR", "LDTM"}),
    "tcgen05_ld_st": (lambda: tcgen05_ld_st.build_tcgen05_ld_st(32), {"STTM", "LDTM"}),
    "tcgen05_cp_shift": (lambda: tcgen05_cp_shift.build_tcgen05_cp_shift(True),
                         {"UTCCP", "UTCSHIFT", "UTCBAR", "LDTM"}),
    "suite_alloc": (suite.build_alloc, {"UTCATOMSWS"}),
    "suite_mma_bf16": (lambda: suite.build_mma("bf16"), {"UTCHMMA", "UTCBAR", "LDTM"}),
    "suite_mma_tf32": (lambda: suite.build_mma("tf32"), {"UTCHMMA", "UTCBAR"}),
    "suite_mma_e4m3": (lambda: suite.build_mma("e4m3"), {"UTCQMMA", "UTCBAR"}),
    "suite_mma_e4m3_e5m2": (lambda: suite.build_mma("e4m3", "e5m2"), {"UTCQMMA"}),
    "suite_mma_s8": (lambda: suite.build_mma("s8"), {"UTCIMMA", "UTCBAR"}),
    "suite_ld_st_16x256b": (lambda: suite.build_ld_st("16x256b"), {"STTM", "LDTM"}),
    "suite_ld_st_16x32bx2": (lambda: suite.build_ld_st("16x32bx2"), {"STTM", "LDTM"}),
    "suite_ld_st_pack": (suite.build_ld_st_pack, {"STTM", "LDTM"}),
    "suite_cp_128x128b": (suite.build_cp_128x128b, {"UTCCP", "UTCBAR", "LDTM"}),
    "gemm_1sm": (lambda: gemm.build_gemm(1024, 1024, 1024),
                 {"UTMALDG", "UTCHMMA", "UTCBAR", "LDTM", "UTCATOMSWS"}),
    "gemm_2sm": (lambda: gemm.build_gemm(1024, 1024, 1024, cta_group=2),
                 {"UTMALDG", "UTCHMMA", "UTCBAR", "LDTM", "UTCATOMSWS"}),
    "grouped_gemm": (lambda: gg.build_grouped_gemm(4096, 768, 2048, 8),
                     {"UTMALDG", "UTCHMMA", "UTCBAR", "LDTM"}),
}


@pytest.mark.parametrize("name", list(SASS_CASES))
def test_sass_holds_the_tensor_memory_instructions(name):
    build, expected = SASS_CASES[name]
    k = build()
    mnemonics = sass_mnemonics(k)
    bases = {m.split(".")[0] for m in mnemonics}
    print(name, sorted(m for m in mnemonics if m.startswith(("UTC", "LDTM", "STTM", "UTMA"))))
    assert expected <= bases, (sorted(expected - bases), sorted(mnemonics))
    if name.startswith(("gemm", "grouped")):      # no spills to local memory
        assert not bases & {"LDL", "STL"}, sorted(mnemonics)
    pair = name == "gemm_2sm"
    for family in ("UTCHMMA", "UTCBAR", "UTMALDG", "UTCATOMSWS"):
        forms = [m for m in mnemonics if m.split(".")[0] == family]
        if name.startswith(("gemm", "grouped")) and forms and family != "UTCATOMSWS":
            # the pair's kernel uses the 2-CTA forms only; the others never
            assert all((".2CTA" in m) == pair for m in forms), (family, forms)
    if pair:
        assert any(m.startswith("UTCBAR.2CTA") and "MULTICAST" in m for m in mnemonics), \
            sorted(mnemonics)
        assert any(m.startswith("UTCATOMSWS.2CTA") for m in mnemonics), sorted(mnemonics)


# -- correctness on a B200 ---------------------------------------------------------------------

@needs_sm100
@pytest.mark.parametrize("name", [c.name for c in suite.CASES])
def test_suite_case(name):
    problem = suite.run_case(suite.case(name))
    assert problem is None, problem


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


GEMM_CASES = [
    # M, N, K, keyword arguments
    (128, 256, 64, dict()),
    (512, 512, 256, dict()),
    (768, 1024, 640, dict(out_dtype=f32)),
    (1024, 768, 1024, dict(num_sms=3)),                 # several tiles per CTA: both accumulators
    (512, 512, 512, dict(bn=128, stages=2, num_sms=2)),  # the ring wraps many times
    (384, 256, 320, dict(bn=64, epi_cols=64)),
    (256, 256, 64, dict(cta_group=2)),
    (1024, 1024, 512, dict(cta_group=2)),
    (1024, 768, 448, dict(cta_group=2, out_dtype=f32, num_sms=4)),
    (512, 512, 256, dict(cta_group=2, bn=128, stages=3, num_sms=2)),
]


@needs_sm100
@pytest.mark.parametrize("M,N,K,kw", GEMM_CASES)
def test_gemm(M, N, K, kw):
    out_dtype = kw.get("out_dtype", bf16)
    a = torch.randn(M, K, device="cuda").to(torch.bfloat16)
    b = torch.randn(N, K, device="cuda").to(torch.bfloat16)
    k = gemm.build_gemm(M, N, K, **kw)
    at = poisoned((M, N), TORCH_DTYPE[out_dtype])
    c = k(a, b)
    torch.cuda.synchronize()
    assert c.dtype == TORCH_DTYPE[out_dtype] and c.shape == (M, N)
    check(c, a.double() @ b.double().T, tol(out_dtype), at)


@needs_sm100
@pytest.mark.parametrize("cta_group", [1, 2])
def test_gemm_repeated_launches_agree(cta_group):
    """Same inputs, three launches: bit-identical outputs (a race would move them)."""
    M = N = K = 1024
    a = torch.randn(M, K, device="cuda").to(torch.bfloat16)
    b = torch.randn(N, K, device="cuda").to(torch.bfloat16)
    k = gemm.build_gemm(M, N, K, cta_group=cta_group, num_sms=8)
    outs = [k(a, b) for _ in range(3)]
    torch.cuda.synchronize()
    assert torch.equal(outs[0], outs[1]) and torch.equal(outs[0], outs[2])


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
    ([130, 7, 400], 256, 512, 600, dict(out_dtype=f32)),
    ([64] * 40, 128, 128, 2560, dict(bn=128, num_sms=5)),     # many experts, few CTAs
    ([256] * 8, 256, 512, 2048, dict()),                      # G equal problems
]


@needs_sm100
@pytest.mark.parametrize("counts,N,K,T,kw", MOE_CASES)
def test_grouped_gemm(counts, N, K, T, kw):
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
    assert torch.isnan(c[rows:].float()).all()      # rows past the last expert: not written
