#!/usr/bin/env python3
"""Launches every example kernel (and the GPU suite's own kernels) once at a
small size, for scripts/sanitize_gpu.sh to run under compute-sanitizer.

Each case builds its kernel, launches it on random inputs, and checks the
result against the example's reference (loosely: the point here is the
sanitizer's verdict, the GPU suite checks accuracy). A case whose kernel
needs a newer GPU than the one present is listed as skipped, with the
reason. Prints one line per case and exits 1 if any case failed.

usage: sanitize_kernels.py [--list] [NAME ...]
"""
from __future__ import annotations

import argparse
import os
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path[:0] = [os.path.join(ROOT, "python"), ROOT]

import numpy as np  # noqa: E402
import torch  # noqa: E402

CASES = {}


def case(name, min_cc=(8, 0)):
    def register(fn):
        CASES[name] = (fn, min_cc)
        return fn
    return register


def close(out, ref, tol):
    out = out.double().cpu()
    ref = torch.as_tensor(np.asarray(ref, np.float64))
    err = ((out - ref).norm() / ref.norm()).item()
    assert err < tol, f"relative error {err:.2e} >= {tol}"


def rand(*shape, dtype=torch.float32):
    return torch.randn(*shape, device="cuda").to(dtype)


def poisoned(*shape, dtype=torch.float32):
    """An output poisoned with NaN, copied from the host: initcheck does not
    see the TMA unit's stores (cp.async.bulk.tensor global <- shared) as
    initializing memory -- a probe on the H100, 2026-11-26: a buffer written
    only by TMA stores and then copied to the host is reported uninitialized,
    the same buffer written by st.global is not, nor one filled first -- so a
    kernel that stores with the TMA writes into memory the host initialized.
    The values check (NaN fails) still catches an element left unwritten."""
    return torch.full(shape, float("nan"), dtype=dtype).cuda()


def _rows(arch_dir):
    from importlib import import_module

    def rms_norm():
        m = import_module(f"examples.{arch_dir}.rms_norm")
        x, w = rand(8, 1024), rand(1024)
        close(m.build_rms_norm(8, 1024)(x, w), m.reference(x.cpu().numpy(), w.cpu().numpy()),
              1e-4)

    def layer_norm():
        m = import_module(f"examples.{arch_dir}.layer_norm")
        x, w, b = rand(8, 1024), rand(1024), rand(1024)
        close(m.build_layer_norm(8, 1024)(x, w, b),
              m.reference(*(t.cpu().numpy() for t in (x, w, b))), 1e-4)

    def softmax():
        m = import_module(f"examples.{arch_dir}.softmax")
        x = rand(8, 1024)
        close(m.build_softmax(8, 1024)(x), m.reference(x.cpu().numpy()), 1e-4)

    def swiglu():
        m = import_module(f"examples.{arch_dir}.swiglu")
        g, u = rand(8, 1024), rand(8, 1024)
        close(m.build_swiglu(8, 1024)(g, u), m.reference(g.cpu().numpy(), u.cpu().numpy()),
              1e-4)

    cc = (9, 0) if arch_dir == "hopper" else (8, 0)
    for fn in (rms_norm, layer_norm, softmax, swiglu):
        case(f"{arch_dir}.{fn.__name__}", cc)(fn)


_rows("ampere")
_rows("hopper")


@case("common.tma_copy", (9, 0))
def tma_copy():
    from examples.common.tma_copy import build_tma_copy
    x = rand(64, 64)
    close(build_tma_copy(64, 64)(x), x.cpu().numpy(), 1e-6)


@case("hopper.tma_pipeline", (9, 0))
def tma_pipeline():
    from examples.hopper import tma_pipeline as m
    x = rand(256, 256)
    out = (poisoned(256, 256), poisoned(256))
    m.build_tma_pipeline(256, 256)(x, out=out)
    refs = m.reference(x.cpu().numpy())
    for o, r in zip(out if isinstance(out, tuple) else (out,),
                    refs if isinstance(refs, tuple) else (refs,)):
        close(o, r, 1e-4)


@case("hopper.gemm_tma_wgmma", (9, 0))
def gemm_tma_wgmma():
    from examples.hopper import gemm_tma_wgmma as m
    a, b = rand(256, 256, dtype=torch.bfloat16), rand(256, 256, dtype=torch.bfloat16)
    close(m.build_gemm(256, 256, 256)(a, b), m.reference(a.float().cpu().numpy(),
                                                         b.float().cpu().numpy()), 1e-2)


@case("hopper.gemm", (9, 0))
def hopper_gemm():
    from examples.hopper import gemm as m
    for kw in (dict(cluster=2, epilogue="tma"), dict(cluster=1, b_major="MN")):
        a = rand(512, 256, dtype=torch.bfloat16)
        b = rand(256, 256, dtype=torch.bfloat16)
        k = m.build_gemm(512, 256, 256, num_sms=2, **kw)
        ref = m.reference(a.float().cpu().numpy(), b.float().cpu().numpy(),
                          kw.get("b_major", "K"))
        c = poisoned(512, 256, dtype=torch.bfloat16)
        k(a, b, out=c)
        close(c, ref, 1e-2)


@case("hopper.gemm_e4m3_out", (9, 0))
def hopper_gemm_e4m3_out():
    """The fused epilogue with the e4m3 output and its amax, row and column
    tails (M, N off the tile)."""
    from pyptx.pipeline.hopper_gemm import build_gemm
    from pyptx.types import e4m3
    M, N, K = 300, 264, 136
    a, w = rand(M, K, dtype=torch.bfloat16), rand(N, K, dtype=torch.bfloat16)
    bias, r = rand(N, dtype=torch.bfloat16), rand(M, N, dtype=torch.bfloat16)
    k = build_gemm(M, N, K, out_dtype=e4m3, bias=True, activation="silu", residual=True,
                   bn=128, num_sms=2)
    z = a.double() @ w.double().T + bias.double()
    z = z * torch.sigmoid(z) + r.double()
    scale = torch.tensor([z.abs().max().item() / 448], device="cuda")
    amax = torch.zeros(1, device="cuda")
    c = k(a, w, bias, r, scale, amax)
    assert abs(amax.item() - z.abs().max().item()) < 1e-2 * z.abs().max().item()
    close(c.double() * scale.item(), z.cpu().numpy(), 0.05)


@case("hopper.grouped_gemm", (9, 0))
def grouped_gemm():
    from examples.hopper import grouped_gemm as m
    G, M, N, K = 2, 128, 64, 128
    a, b = rand(G * M, K, dtype=torch.bfloat16), rand(G * K, N, dtype=torch.bfloat16)
    close(m.build_grouped_gemm_uniform(G, M, N, K)(a, b),
          m.reference_uniform(a.float().cpu().numpy(), b.float().cpu().numpy(), G), 1e-2)
    T, N, K, G = 300, 256, 128, 3
    offs = torch.tensor([100, 100, 300], dtype=torch.int32, device="cuda")
    a, b = rand(T, K, dtype=torch.bfloat16), rand(G * N, K, dtype=torch.bfloat16)
    out = m.build_grouped_gemm(T, N, K, G, num_sms=2)(a, b, offs)
    ref = m.reference(a.float().cpu().numpy(), b.float().cpu().numpy(), offs.cpu().numpy())
    close(out[:300], ref[:300], 1e-2)


@case("hopper.flash_attention", (9, 0))
def flash_attention():
    from examples.hopper import flash_attention as m
    for D, causal in ((64, False), (128, True)):
        q, k, v = (rand(1, 2, 256, D, dtype=torch.bfloat16) for _ in range(3))
        o, lse = m.flash_attention(q, k, v, causal)
        ref_o, ref_lse = m.reference(*(t.float().cpu().numpy() for t in (q, k, v)), causal)
        close(o, ref_o, 2e-2)
        close(lse, ref_lse, 1e-3)


def _ampere(module):
    def run():
        from importlib import import_module
        from examples.ampere import gemm
        build = import_module(f"examples.ampere.{module}").build_gemm
        err, scale = gemm.run_on_gpu(256, 256, 256, build=build)
        assert err <= 1e-2 * scale, (err, scale)
    case(f"ampere.{module}")(run)


for _module in ("gemm", "gemm_pipelined", "gemm_highperf"):
    _ampere(_module)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--list", action="store_true", help="print the case names and exit")
    p.add_argument("names", nargs="*", help="cases to run (default: all)")
    args = p.parse_args()
    if args.list:
        print("\n".join(CASES))
        return 0
    unknown = [n for n in args.names if n not in CASES]
    if unknown:
        p.error(f"unknown cases {unknown}; --list shows them")
    cc = torch.cuda.get_device_capability()
    failed = 0
    torch.manual_seed(0)
    for name in args.names or CASES:
        fn, min_cc = CASES[name]
        if cc < min_cc:
            print(f"SKIP {name}: needs compute capability {min_cc}, the GPU has {cc}")
            continue
        try:
            fn()
            torch.cuda.synchronize()
            print(f"ok   {name}", flush=True)
        except Exception as e:  # noqa: BLE001 -- report every case
            failed += 1
            print(f"FAIL {name}: {type(e).__name__}: {e}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
