#!/usr/bin/env python3
"""Broken kernels that really misbehave on the GPU, each beside its fix.

Each entry of PAIRS shows one hazard kind of the checker (pyptx.hazards):
`build(broken)` gives the kernel with the one line missing or wrong
(broken=True) or the correct one, `run(k, torch)` launches it on fresh
inputs and returns (wrong output elements, all of them). How each broken
kernel fails:

- async-copy-pending: each thread poisons its shared chunks, issues 8
  `cp.async` copies of 16 bytes from global memory, and reads the chunks
  back with no `cp.async.wait_all`: the copies (hundreds of cycles) have not
  landed, the thread reads its poison -> wrong result;
- async-copy-pending, bulk store: a warp writes a tile, lane 0 stores it
  with the TMA, and the warp overwrites the tile with poison without
  `cp.async.bulk.wait_group.read 0` between (and the CTA exits with the
  store unwaited): the TMA unit is still reading it -> wrong result (or a
  fault: a launch that raises counts as misbehaving too);
- mbarrier-accounting: thread 0 announces 16 more transaction bytes than
  the bulk copy brings; the phase never completes and the `mbarrier` wait
  spins forever -> hang;
- divergent-barrier: the `bar.sync` that publishes the producers' shared
  memory to the consumers is predicated on `tid < 64`: the consumer warps
  skip it and read the poison the producers have not yet overwritten (their
  values come from global memory, hundreds of cycles away) -> wrong result
  (or a hang, where the hardware waits for the warps that skipped it);
- async-proxy: thread 0 writes a tile with `st.shared` (128 stores back to
  back) and stores it with the TMA, with no `fence.proxy.async.shared::cta`
  between: the TMA unit
  may read shared memory before the stores reach it -> wrong result, some
  of the time (a race: the test counts how often); and the same for a
  warpgroup's `st.shared` of wgmma operands then the wgmma (pair
  wgmma_operands);
- wgmma-pending: reading the accumulator right after `wgmma.commit_group`
  with no `wgmma.wait_group 0` -- ptxas injects the wait itself, so this
  broken form computes the right result (the test checks that).

Every kernel traces, passes the ISA verifier and assembles with ptxas, in
both forms (test/python/test_hazard_kernels.py). The GPU test
(test/gpu/test_hazards_gpu.py) launches each pair in a subprocess, through
this file's command line, so that a hang is caught by a timeout:

    python test/gpu/hazard_kernels.py PAIR [REPEATS]    # PAIR: a key of PAIRS

runs the fixed kernel, then the broken one, REPEATS times each, printing
two lines per launch -- "launch fixed|broken", then "result fixed|broken
WRONG TOTAL" (or "error fixed|broken MESSAGE" and exit 3 if the launch
raised) -- and flushing after each.
"""
from __future__ import annotations

import os
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
if os.path.join(ROOT, "python") not in sys.path:
    sys.path[:0] = [os.path.join(ROOT, "python"), ROOT]

from pyptx import Tile, kernel, ptx, reg, smem  # noqa: E402
from pyptx.types import bf16, f32, s32, u32  # noqa: E402

ARCH = "sm_90a"
POISON = -12345.0   # written to shared memory before the data that should replace it


def _tid():
    return reg.from_(ptx.special.tid.x(), u32)


def _poison4():
    p = reg.scalar(f32, init=POISON)
    return [p, p, p, p]


# -- async-copy-pending: cp.async read before cp.async.wait_all -------------------

CP_THREADS = 128
CP_CHUNKS = 8                              # 16-byte cp.async copies per thread
CP_TILE = CP_THREADS * CP_CHUNKS * 4       # floats per CTA: 16 KiB of shared memory
CP_N = 64 * CP_TILE                        # 64 CTAs


def build_cp_async(broken: bool, **options):
    @kernel(in_specs=(Tile(CP_N, f32),), out_specs=(Tile(CP_N, f32),),
            grid=(CP_N // CP_TILE, 1, 1), block=(CP_THREADS, 1, 1), arch=ARCH, **options)
    def cp_async_read(X, Y):
        px, py = ptx.global_ptrs(X, Y)
        buf = smem.alloc(f32, (CP_TILE,))
        tid = _tid()
        first = reg.from_(ptx.special.ctaid.x(), u32) * CP_TILE + tid * 4
        src = px + first * 4                   # chunk c: CP_THREADS * 16 bytes further on
        dst = py + first * 4
        mine = reg.from_(buf, u32) + tid * 16
        poison = _poison4()
        for c in range(CP_CHUNKS):
            ptx.inst.st.shared.v4.f32(ptx.addr(mine, c * CP_THREADS * 16), poison)
        for c in range(CP_CHUNKS):
            ptx.cp.async_.cg(ptx.addr(mine, c * CP_THREADS * 16),
                             ptx.addr(src, c * CP_THREADS * 16), 16)
        ptx.cp.async_.commit_group()
        if not broken:
            ptx.cp.async_.wait_all()
        v = reg.array(f32, 4)
        for c in range(CP_CHUNKS):
            ptx.inst.ld.shared.v4.f32(v, ptx.addr(mine, c * CP_THREADS * 16))
            ptx.inst.st.global_.v4.f32(ptx.addr(dst, c * CP_THREADS * 16), v)
        ptx.ret()

    return cp_async_read


def run_cp_async(k, torch):
    x = torch.randn(CP_N, device="cuda")
    y = torch.full((CP_N,), float("nan"), device="cuda")
    k(x, out=y)
    torch.cuda.synchronize()
    return int((y != x).sum()), CP_N


# -- wgmma-pending: accumulator read before wgmma.wait_group ----------------------
# Not a misbehaving pair: ptxas sees the accumulator registers used while the
# wgmma may be in flight and injects the wait itself ("(C7517) warpgroup.wait
# is injected ... to allow use of registers defined by GMMA"; likewise
# warpgroup.arrive, C7519, for a missing wgmma.fence), so the broken form
# computes the right result. The tests check that ptxas note (CPU) and the
# right result (GPU): the checker's finding is still worth having (the PTX is
# wrong, and the injected wait serialises the wgmma pipeline).

WG_M, WG_N, WG_BK = 64, 64, 64
WG_KT = 8                                  # k-tiles: K = 512, 32 wgmma m64n64k16 in flight
WG_K = WG_BK * WG_KT
WG_BYTES = (WG_M + WG_N) * WG_K * 2        # 128 KiB of bf16 tiles


def build_wgmma(broken: bool, **options):
    @kernel(in_specs=(Tile(WG_M, WG_K, bf16), Tile(WG_N, WG_K, bf16)),
            out_specs=(Tile(WG_M, WG_N, f32),),
            grid=(1, 1, 1), block=(128, 1, 1), arch=ARCH, **options)
    def wgmma_read(A, B_T, C):
        a_desc = A.tma_desc(box=(WG_M, WG_BK), swizzle="128B")
        b_desc = B_T.tma_desc(box=(WG_N, WG_BK), swizzle="128B")
        (pc,) = ptx.global_ptrs(C)
        sA = smem.wgmma_tile(bf16, (WG_KT, WG_M, WG_BK), major="K")
        sB = smem.wgmma_tile(bf16, (WG_KT, WG_N, WG_BK), major="K")
        bar = smem.mbarrier(1)
        tid = _tid()
        with ptx.if_(tid == 0):
            ptx.mbarrier.init(bar[0], 1)
            ptx.fence.proxy_async_shared_cta()
            ptx.mbarrier.arrive_expect_tx(bar[0], WG_BYTES)
            for kt in range(WG_KT):
                ptx.cp.async_.bulk.tensor_2d(dst=sA[kt], src=a_desc, coord=(kt * WG_BK, 0),
                                             mbar=bar[0])
                ptx.cp.async_.bulk.tensor_2d(dst=sB[kt], src=b_desc, coord=(kt * WG_BK, 0),
                                             mbar=bar[0])
        ptx.bar.sync(0)
        ptx.mbarrier.wait(bar[0], 0)

        acc = reg.wgmma_frag(m=WG_M, n=WG_N, dtype=f32)
        for r in acc:
            ptx.inst.mov.f32(r, 0.0)
        ptx.wgmma.fence()
        for kt in range(WG_KT):
            for j in range(WG_BK // 16):
                ptx.wgmma.mma_async(shape=(WG_M, WG_N, 16), dtype_d=f32, dtype_a=bf16,
                                    dtype_b=bf16, d=acc, a=sA[kt], b=sB[kt], scale_d=True,
                                    a_k_offset=32 * j, b_k_offset=32 * j)
        ptx.wgmma.commit_group()
        if not broken:
            ptx.wgmma.wait_group(0)

        # The m64nNk16 fragment: thread t of warp w holds rows w*16 + t/4 (+8)
        # and, per 8-column group j, columns j*8 + 2*(t%4) (+1).
        lane = tid & 31
        row = (tid >> 5) * 16 + (lane >> 2)
        col = (lane & 3) * 2
        out = pc + reg.from_(row * WG_N + col, u32) * 4
        for j in range(WG_N // 8):
            for half in range(2):
                pair = [acc[4 * j + 2 * half], acc[4 * j + 2 * half + 1]]
                ptx.inst.st.global_.v2.f32(ptx.addr(out, 4 * (8 * half * WG_N + 8 * j)), pair)
        ptx.ret()

    return wgmma_read


def run_wgmma(k, torch):
    # Small integers: exact in bf16, and every partial sum exact in f32, so a
    # right answer is bit-equal to the reference.
    a = torch.randint(-2, 3, (WG_M, WG_K), device="cuda").to(torch.bfloat16)
    b_t = torch.randint(-2, 3, (WG_N, WG_K), device="cuda").to(torch.bfloat16)
    c = torch.full((WG_M, WG_N), float("nan"), device="cuda")
    k(a, b_t, out=c)
    torch.cuda.synchronize()
    ref = a.double() @ b_t.double().T
    return int((c.double() != ref).sum()), c.numel()



# -- async-copy-pending: bulk-store source overwritten before wait_group.read -----

BS_ROWS, BS_COLS = 64, 32                  # an 8 KiB f32 tile per CTA, one warp
BS_CTAS = 64
BS_V4 = BS_ROWS * BS_COLS // 4 // 32       # 16-byte stores per lane


def _fill_tile(px, tile_base, row0, lane, cols):
    """Each lane copies its 16-byte pieces of the CTA's rows of X into the
    tile (row-major, like the TMA box)."""
    src = px + (row0 * cols + lane * 4) * 4
    dst = tile_base + lane * 16
    v = reg.array(f32, 4)
    for i in range(BS_V4):
        ptx.inst.ld.global_.v4.f32(v, ptx.addr(src, i * 512))
        ptx.inst.st.shared.v4.f32(ptx.addr(dst, i * 512), v)


def build_bulk_store(broken: bool, **options):
    M = BS_ROWS * BS_CTAS

    @kernel(in_specs=(Tile(M, BS_COLS, f32),), out_specs=(Tile(M, BS_COLS, f32),),
            grid=(BS_CTAS, 1, 1), block=(32, 1, 1), arch=ARCH, **options)
    def bulk_store_overwrite(X, Y):
        (px,) = ptx.global_ptrs(X)
        store_desc = Y.tma_desc(box=(BS_ROWS, BS_COLS))
        tile = smem.alloc(f32, (BS_ROWS, BS_COLS))
        lane = _tid()
        row0 = reg.from_(ptx.special.ctaid.x(), u32) * BS_ROWS
        base = reg.from_(tile, u32)
        _fill_tile(px, base, row0, lane, BS_COLS)
        ptx.fence.proxy_async_shared_cta()   # the tile, visible to the TMA unit
        ptx.bar.sync(0)
        leader = lane == 0
        with ptx.if_(leader):
            ptx.cp.async_.bulk.tensor_2d.store(dst=store_desc, src=tile, coord=(0, row0))
            ptx.cp.async_.bulk.commit_group()
            if not broken:
                ptx.cp.async_.bulk.wait_group(0, read=True)
        ptx.bar.sync(0)
        # Reuse the tile: here, overwrite it with poison. (The .read wait is
        # the only one: the kernel's end makes the store's writes visible.)
        dst = base + lane * 16
        poison = _poison4()
        for i in range(BS_V4):
            ptx.inst.st.shared.v4.f32(ptx.addr(dst, i * 512), poison)
        ptx.ret()

    return bulk_store_overwrite


def run_bulk_store(k, torch):
    x = torch.randn(BS_ROWS * BS_CTAS, BS_COLS, device="cuda")
    y = torch.full_like(x, float("nan"))
    k(x, out=y)
    torch.cuda.synchronize()
    return int((y != x).sum()), x.numel()


# -- async-proxy: st.shared then a TMA store without fence.proxy.async --------------

AP_ROWS, AP_COLS = 16, 32                  # a 2 KiB tile per CTA, written by thread 0
AP_CTAS = 128


def build_async_proxy(broken: bool, **options):
    @kernel(in_specs=(Tile(AP_CTAS, f32),), out_specs=(Tile(AP_CTAS * AP_ROWS, AP_COLS, f32),),
            grid=(AP_CTAS, 1, 1), block=(32, 1, 1), arch=ARCH, **options)
    def async_proxy_store(S, Y):
        (ps,) = ptx.global_ptrs(S)
        store_desc = Y.tma_desc(box=(AP_ROWS, AP_COLS))
        tile = smem.alloc(f32, (AP_ROWS, AP_COLS))
        cta = reg.from_(ptx.special.ctaid.x(), u32)
        with ptx.if_(_tid() == 0):
            # Tile element (r, c) = S[cta] + c % 4. One thread writes it all,
            # back to back from registers, so its last stores are still on
            # their way when it issues the TMA store.
            seed = reg.scalar(f32)
            ptx.inst.ld.global_.f32(seed, ptx.addr(ps + cta * 4))
            v = reg.array(f32, 4)
            for q in range(4):
                ptx.inst.add.f32(v[q], seed, float(q))
            base = reg.from_(tile, u32)
            for i in range(AP_ROWS * AP_COLS // 4):
                ptx.inst.st.shared.v4.f32(ptx.addr(base, 16 * i), v)
            if not broken:
                ptx.fence.proxy_async_shared_cta()
            ptx.cp.async_.bulk.tensor_2d.store(dst=store_desc, src=tile,
                                               coord=(0, cta * AP_ROWS))
            ptx.cp.async_.bulk.commit_group()
            ptx.cp.async_.bulk.wait_group(0)
        ptx.ret()

    return async_proxy_store


def run_async_proxy(k, torch):
    # Integer seeds: seed + c % 4 is exact. A fresh seed per launch, so a
    # tile left by the previous launch is wrong.
    seeds = torch.randint(0, 1 << 20, (AP_CTAS,), device="cuda").float()
    y = torch.full((AP_CTAS * AP_ROWS, AP_COLS), float("nan"), device="cuda")
    k(seeds, out=y)
    torch.cuda.synchronize()
    columns = torch.arange(AP_COLS, device="cuda") % 4
    ref = seeds.repeat_interleave(AP_ROWS)[:, None] + columns[None, :]
    return int((y != ref).sum()), y.numel()


# -- async-proxy: wgmma reads operands written by st.shared without a proxy fence ----
# The fill is one value per operand, so the tile's swizzled layout does not
# matter: C = K * a * b everywhere. Launches alternate two (a, b), so a wgmma
# that reads the previous launch's tile gives the other product (the way
# sgl-project/sglang#39124 exposed the same race on tcgen05).

WO_M = WO_N = WO_K = 64
WO_CTAS = 32
_launches = [0]


def build_wgmma_operands(broken: bool, **options):
    @kernel(in_specs=(Tile(2, s32),), out_specs=(Tile(WO_CTAS * WO_M, WO_N, f32),),
            grid=(WO_CTAS, 1, 1), block=(128, 1, 1), arch=ARCH, **options)
    def wgmma_operands(V, C):
        pv, pc = ptx.global_ptrs(V, C)
        sA = smem.wgmma_tile(bf16, (WO_M, WO_K), major="K")
        sB = smem.wgmma_tile(bf16, (WO_N, WO_K), major="K")
        tid = _tid()
        for tile, offset in ((sA, 0), (sB, 4)):   # V holds a and b, each as a bf16 pair
            value = reg.scalar(u32)
            ptx.inst.ld.global_.u32(value, ptx.addr(pv, offset))
            mine = reg.from_(tile, u32) + tid * 64
            for q in range(4):                    # 128 threads x 64 bytes: the 8 KiB tile
                ptx.inst.st.shared.v4.u32(ptx.addr(mine, 16 * q), [value] * 4)
        if not broken:
            ptx.fence.proxy_async_shared_cta()
        ptx.bar.sync(0)

        acc = reg.wgmma_frag(m=WO_M, n=WO_N, dtype=f32)
        for r in acc:
            ptx.inst.mov.f32(r, 0.0)
        ptx.wgmma.fence()
        for j in range(WO_K // 16):
            ptx.wgmma.mma_async(shape=(WO_M, WO_N, 16), dtype_d=f32, dtype_a=bf16,
                                dtype_b=bf16, d=acc, a=sA, b=sB, scale_d=True,
                                a_k_offset=32 * j, b_k_offset=32 * j)
        ptx.wgmma.commit_group()
        ptx.wgmma.wait_group(0)
        lane = tid & 31
        row = reg.from_(ptx.special.ctaid.x(), u32) * WO_M + (tid >> 5) * 16 + (lane >> 2)
        out = pc + reg.from_(row * WO_N + (lane & 3) * 2, u32) * 4
        for j in range(WO_N // 8):
            for half in range(2):
                two = [acc[4 * j + 2 * half], acc[4 * j + 2 * half + 1]]
                ptx.inst.st.global_.v2.f32(ptx.addr(out, 4 * (8 * half * WO_N + 8 * j)), two)
        ptx.ret()

    return wgmma_operands


def run_wgmma_operands(k, torch):
    a, b = (1.0, 2.0) if _launches[0] % 2 == 0 else (3.0, 1.0)
    _launches[0] += 1
    bits = torch.tensor([a, b], dtype=torch.bfloat16).view(torch.int16).to(torch.int32)
    v = ((bits << 16) | bits).cuda()          # positive values: no sign bit to spill
    c = torch.full((WO_CTAS * WO_M, WO_N), float("nan"), device="cuda")
    k(v, out=c)
    torch.cuda.synchronize()
    return int((c != WO_K * a * b).sum()), c.numel()


# -- mbarrier-accounting: expect_tx announces more bytes than the copy brings -------

TX_FLOATS = 1024                           # one 4 KiB bulk copy
TX_BYTES = TX_FLOATS * 4


def build_expect_tx(broken: bool, **options):
    @kernel(in_specs=(Tile(TX_FLOATS, f32),), out_specs=(Tile(TX_FLOATS, f32),),
            grid=(1, 1, 1), block=(256, 1, 1), arch=ARCH, **options)
    def expect_tx_bytes(X, Y):
        px, py = ptx.global_ptrs(X, Y)
        buf = smem.alloc(f32, (TX_FLOATS,))
        bar = smem.mbarrier(1)
        tid = _tid()
        with ptx.if_(tid == 0):
            ptx.mbarrier.init(bar[0], 1)
            ptx.fence.proxy_async_shared_cta()
            ptx.mbarrier.arrive_expect_tx(bar[0], TX_BYTES + 16 if broken else TX_BYTES)
            # The plain (non-tensor) bulk copy: its size is in the PTX.
            ptx.inst.cp.async_.bulk.shared__cluster.global_.mbarrier__complete_tx__bytes(
                ptx.addr(reg.from_(buf, u32)), ptx.addr(px), TX_BYTES,
                ptx.addr(reg.from_(bar, u32)))
        ptx.bar.sync(0)
        ptx.mbarrier.wait(bar[0], 0)
        v = reg.array(f32, 4)
        ptx.inst.ld.shared.v4.f32(v, ptx.addr(reg.from_(buf, u32) + tid * 16))
        ptx.inst.st.global_.v4.f32(ptx.addr(py + tid * 16), v)
        ptx.ret()

    return expect_tx_bytes


def run_expect_tx(k, torch):
    x = torch.randn(TX_FLOATS, device="cuda")
    y = torch.full_like(x, float("nan"))
    k(x, out=y)
    torch.cuda.synchronize()
    return int((y != x).sum()), x.numel()


# -- divergent-barrier: the publishing bar.sync taken by half the CTA ---------------

DB_THREADS = 128                           # warps 0-1 produce, warps 2-3 consume
DB_HALF = DB_THREADS // 2
DB_CTAS = 64


def build_divergent_barrier(broken: bool, **options):
    N = DB_HALF * DB_CTAS

    @kernel(in_specs=(Tile(N, f32),), out_specs=(Tile(N, f32),),
            grid=(DB_CTAS, 1, 1), block=(DB_THREADS, 1, 1), arch=ARCH, **options)
    def divergent_barrier(X, Y):
        px, py = ptx.global_ptrs(X, Y)
        buf = smem.alloc(f32, (DB_HALF,))
        tid = _tid()
        base = reg.from_(ptx.special.ctaid.x(), u32) * DB_HALF
        producer = tid < DB_HALF
        with ptx.if_(producer):
            ptx.inst.st.shared.f32(ptx.addr(reg.from_(buf, u32) + tid * 4), POISON)
        ptx.bar.sync(0)
        with ptx.if_(producer):     # a global load: hundreds of cycles
            v = reg.scalar(f32)
            ptx.inst.ld.global_.f32(v, ptx.addr(px + (base + tid) * 4))
            ptx.inst.st.shared.f32(ptx.addr(reg.from_(buf, u32) + tid * 4), v)
        ptx.bar.sync(0, pred=producer if broken else None)
        with ptx.if_(tid >= DB_HALF):
            i = tid - DB_HALF
            w = reg.scalar(f32)
            ptx.inst.ld.shared.f32(w, ptx.addr(reg.from_(buf, u32) + i * 4))
            ptx.inst.st.global_.f32(ptx.addr(py + (base + i) * 4), w)
        ptx.ret()

    return divergent_barrier


def run_divergent_barrier(k, torch):
    x = torch.randn(DB_HALF * DB_CTAS, device="cuda")
    y = torch.full_like(x, float("nan"))
    k(x, out=y)
    torch.cuda.synchronize()
    return int((y != x).sum()), x.numel()


# -- the registry --------------------------------------------------------------

class Pair:
    """A broken kernel and its fix. expect: how the broken one misbehaves on
    the GPU -- "wrong" (every launch gives a wrong result), "hang" (the first
    launch never finishes), "hang-or-wrong", "sometimes-wrong" (a race: some
    launches give a wrong result) or "repaired" (ptxas repairs it: right
    result). line: the PTX line the fix has and the broken form lacks;
    broken_line: what the broken form has instead (None: nothing)."""

    def __init__(self, kind, build, run, expect, line, broken_line=None):
        self.kind, self.build, self.run, self.expect = kind, build, run, expect
        self.line, self.broken_line = line, broken_line


PAIRS = {
    "cp_async": Pair("async-copy-pending", build_cp_async, run_cp_async, "wrong",
                     "cp.async.wait_all;"),
    "bulk_store": Pair("async-copy-pending", build_bulk_store, run_bulk_store, "wrong",
                       "cp.async.bulk.wait_group.read 0;"),
    "expect_tx": Pair("mbarrier-accounting", build_expect_tx, run_expect_tx, "hang",
                      f"mbarrier.arrive.expect_tx.shared::cta.b64 %bd0, [mbar_0], {TX_BYTES};",
                      f"mbarrier.arrive.expect_tx.shared::cta.b64 %bd0, [mbar_0], "
                      f"{TX_BYTES + 16};"),
    "divergent_barrier": Pair("divergent-barrier", build_divergent_barrier,
                              run_divergent_barrier, "hang-or-wrong", "bar.sync 0;",
                              "@%p0 bar.sync 0;"),
    "async_proxy": Pair("async-proxy", build_async_proxy, run_async_proxy, "sometimes-wrong",
                        "fence.proxy.async.shared::cta;"),
    "wgmma_operands": Pair("async-proxy", build_wgmma_operands, run_wgmma_operands,
                           "sometimes-wrong", "fence.proxy.async.shared::cta;"),
    "wgmma": Pair("wgmma-pending", build_wgmma, run_wgmma, "repaired",
                  "wgmma.wait_group.sync.aligned 0;"),
}


def checker_missing() -> str | None:
    """Why the hazard checker cannot be asked (None: it can): it is
    pyptx.hazards and @kernel(hazards=...)."""
    import importlib.util
    import inspect

    import pyptx
    if importlib.util.find_spec("pyptx.hazards") is None:
        return "the hazard checker is not in this tree (no pyptx.hazards module)"
    if "hazards" not in inspect.signature(pyptx.kernel).parameters:
        return "the hazard checker is not wired into @kernel (no hazards= parameter)"
    return None


def unchecked(pair: Pair, broken: bool):
    """The kernel of one form with the checker off where there is one (a
    broken form must trace even under PYPTX_HAZARDS=error)."""
    return pair.build(broken, **({} if checker_missing() else {"hazards": "off"}))


def findings(pair: Pair, broken: bool) -> list:
    """The checker's findings on one form: the messages of the KernelWarnings
    that tracing it with hazards="warn" gives."""
    import warnings

    from pyptx.errors import KernelWarning
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pair.build(broken, hazards="warn").ptx()
    # The kind is in the message ("divergent-barrier: ...") or, where the
    # warning carries it as an attribute, put in front of it.
    return [f"{getattr(w.message, 'kind', '')}: {w.message}".lstrip(": ")
            for w in caught if issubclass(w.category, KernelWarning)]


def main(argv):
    import torch
    name = argv[0]
    repeats = int(argv[1]) if len(argv) > 1 else 3
    pair = PAIRS[name]
    kernels = {"fixed": unchecked(pair, False), "broken": unchecked(pair, True)}
    for form in ("fixed", "broken"):
        kernels[form].ptx()     # traced before the timed launches
    torch.zeros(1, device="cuda")   # and the CUDA context made
    # One launch of the fixed form before the timed ones: PyTorch's lazily
    # loaded kernels and the first module load take seconds on a fresh
    # process, which the hang timeout must not count.
    pair.run(kernels["fixed"], torch)
    torch.cuda.synchronize()
    print("ready", flush=True)
    for form in ("fixed", "broken"):
        for _ in range(repeats):
            print(f"launch {form}", flush=True)
            try:
                wrong, total = pair.run(kernels[form], torch)
            except Exception as e:  # a fault: the context is gone, stop here
                print(f"error {form} {type(e).__name__}: {e}".replace("\n", " "), flush=True)
                return 3
            print(f"result {form} {wrong} {total}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
