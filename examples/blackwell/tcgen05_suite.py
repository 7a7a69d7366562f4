"""Blackwell (sm_100a) tcgen05 primitives, each in isolation, with the
expected result of each -- run this first on a Blackwell GPU to check the
runtime stack and the descriptors.

    python examples/blackwell/tcgen05_suite.py          # print every case's PTX
    python examples/blackwell/tcgen05_suite.py --run    # on a B200: PASS/FAIL per case

Cases (``CASES``; each a small kernel of one CTA, 128 threads, with a NumPy
reference or a check that holds whatever the hardware's free choices):

- ``alloc``: ``tcgen05.alloc`` twice (64 and 32 columns), the TMEM addresses
  written out, ``dealloc`` both, ``relinquish_alloc_permit``; the two ranges
  must be lane 0, inside the 512 columns and disjoint.
- ``mma_<type>``: one 128 x 64 tile D = A @ B.T of one 128-byte k tile per
  row (K = 64 bf16/f16, 32 tf32, 128 e4m3/e5m2/s8), i.e. four
  ``tcgen05.mma`` (kind::f16, tf32, f8f6f4, i8) of 32 bytes of K each from
  128B-swizzled K-major shared memory, through ``descriptor``s built from
  the ``SmemDesc`` constant, an ``InstrDesc`` immediate, ``commit`` to an
  mbarrier, the fences around the barriers, ``tcgen05.ld.32x32b`` and
  ``wait::ld``. fp8 and s8 inputs are chosen so that every sum is exact.
- ``ld_st_<shape>``: ``tcgen05.st`` of 8 or 16 registers per thread with
  shape 32x32b, 16x64b, 16x128b, 16x256b or 16x32bx2, ``wait::st``,
  ``tcgen05.ld`` with the same shape (must give the registers back) and the
  TMEM image read by 32x32b: the 16 lanes the shape covers hold exactly the
  stored values, the other lanes the sentinel written first. ``ld_st_pack``:
  ``st.unpack::16b`` then ``ld.pack::16b`` give the packed halves back.
- ``cp_128x128b``: ``tcgen05.cp`` of a 128 x 4 f32 tile from the no-swizzle
  core-matrix layout into TMEM, committed, read back.
- the three examples beside this file: ``alloc_mma`` (tcgen05_alloc_mma.py,
  K = 128), ``ld_st_roundtrip`` (tcgen05_ld_st.py), ``cp_shift`` and
  ``cp_noshift`` (tcgen05_cp_shift.py: ``tcgen05.shift``).

Not run on a Blackwell GPU yet (none was available); each kernel assembles
with ptxas -arch=sm_100a (test/python/test_blackwell_suite.py) and
test/gpu/test_blackwell.py runs every case where the GPU is sm_100.
"""
from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from typing import Callable

if __package__ in (None, ""):  # run as a script: make `examples` importable
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

import numpy as np  # noqa: E402

import examples.common  # noqa: E402,F401  (makes pyptx importable)
from examples.blackwell import tcgen05_alloc_mma, tcgen05_cp_shift, tcgen05_ld_st  # noqa: E402
from pyptx import Tile, kernel, ptx, reg, smem  # noqa: E402
from pyptx.hw.tcgen05_desc import InstrDesc  # noqa: E402
from pyptx.types import b32, bf16, f16, f32, pred, s8, s32, u8, u32, u64  # noqa: E402

ARCH = "sm_100a"
ROWS = THREADS = 128
ROW_BYTES = 128              # one k tile: a 128-byte swizzled row
ATOM_BYTES = 8 * ROW_BYTES   # 8 swizzled rows: the stride byte offset
MMA_N = 64
SENTINEL = -1.0


def _prologue(ncols, bar_count=0):
    """Slot, barrier, thread/warp registers; warp 0 allocates `ncols`."""
    slot = smem.alloc(b32, (1,))
    bar = smem.mbarrier(1) if bar_count else None
    tid = reg.from_(ptx.special.tid.x(), u32)
    warp = tid >> 5
    if bar is not None:
        with ptx.if_(tid == 0):
            ptx.mbarrier.init(bar[0], bar_count)
            ptx.fence.mbarrier_init()
    with ptx.if_(warp == 0):
        ptx.tcgen05.alloc(slot, ncols)
    return slot, bar, tid, warp


def _publish(slot):
    """The fence / barrier / fence pair, then every thread reads the address."""
    ptx.tcgen05.fence_before_thread_sync()
    ptx.bar.sync(0)
    ptx.tcgen05.fence_after_thread_sync()
    tmem = reg.scalar(b32)
    ptx.inst.ld.shared.b32(tmem, ptx.addr(slot))
    return tmem


def _epilogue(warp, tmem, ncols):
    ptx.tcgen05.fence_before_thread_sync()
    ptx.bar.sync(0)
    with ptx.if_(warp == 0):
        ptx.tcgen05.dealloc(tmem, ncols)
        ptx.tcgen05.relinquish_alloc_permit()
    ptx.ret()


def _wait(bar, phase, name):
    done = reg.scalar(pred)
    again = ptx.label(name)
    ptx.inst.mbarrier.try_wait.parity.shared__cta.b64(done, ptx.addr(bar), phase)
    ptx.bra(again, pred=~done)
    ptx.tcgen05.fence_after_thread_sync()


# -- alloc / dealloc / relinquish -----------------------------------------------------------

ALLOC_COLS = (64, 32)


def build_alloc(arch: str = ARCH):
    """Out (4,) s32: the two TMEM addresses, then their column counts."""

    @kernel(in_specs=(Tile(1, s32),), out_specs=(Tile(4, s32),), grid=(1, 1, 1),
            block=(THREADS, 1, 1), arch=arch)
    def tcgen05_alloc_twice(X, Out):
        (po,) = ptx.global_ptrs(Out)
        slots = smem.alloc(b32, (2,))
        tid = reg.from_(ptx.special.tid.x(), u32)
        warp = tid >> 5
        with ptx.if_(warp == 0):
            ptx.tcgen05.alloc(slots, ALLOC_COLS[0])
            ptx.tcgen05.alloc(ptx.addr(slots, 4), ALLOC_COLS[1])
        ptx.tcgen05.fence_before_thread_sync()
        ptx.bar.sync(0)
        ptx.tcgen05.fence_after_thread_sync()
        first, second = reg.scalar(b32), reg.scalar(b32)
        ptx.inst.ld.shared.b32(first, ptx.addr(slots))
        ptx.inst.ld.shared.b32(second, ptx.addr(slots, 4))
        with ptx.if_(tid == 0):
            ptx.inst.st.global_.v4.b32(ptx.addr(po), [first, second, reg.scalar(b32, init=64),
                                                      reg.scalar(b32, init=32)])
        ptx.tcgen05.fence_before_thread_sync()
        ptx.bar.sync(0)
        with ptx.if_(warp == 0):
            ptx.tcgen05.dealloc(first, ALLOC_COLS[0])
            ptx.tcgen05.dealloc(second, ALLOC_COLS[1])
            ptx.tcgen05.relinquish_alloc_permit()
        ptx.ret()

    return tcgen05_alloc_twice


def check_alloc(out) -> str | None:
    """None if the two allocations are lane 0, inside 512 columns and
    disjoint; else what is wrong."""
    addrs = [int(x) & 0xFFFFFFFF for x in np.asarray(out).ravel()[:2]]
    spans = []
    for a, n in zip(addrs, ALLOC_COLS):
        lane, col = a >> 16, a & 0xFFFF
        if lane or col + n > 512:
            return f"address {a:#x}: lane {lane}, columns {col}..{col + n - 1}"
        spans.append(set(range(col, col + n)))
    return None if not spans[0] & spans[1] else f"overlapping allocations {addrs}"


# -- mma of each kind ---------------------------------------------------------------------

@dataclass(frozen=True)
class MmaType:
    kind: str          # tcgen05.mma .kind
    idesc_name: str    # the InstrDesc type name
    storage: object    # the Tile dtype the bytes travel in
    nbytes: int        # bytes per element


MMA_TYPES = {
    "bf16": MmaType("f16", "bf16", bf16, 2),
    "f16": MmaType("f16", "f16", f16, 2),
    "tf32": MmaType("tf32", "tf32", f32, 4),
    "e4m3": MmaType("f8f6f4", "e4m3", u8, 1),
    "e5m2": MmaType("f8f6f4", "e5m2", u8, 1),
    "s8": MmaType("i8", "s8", s8, 1),
}


def mma_k(a_type: str) -> int:
    """K of the one 128-byte k tile."""
    return ROW_BYTES // MMA_TYPES[a_type].nbytes


def mma_idesc(a_type: str, b_type: str | None = None, n: int = MMA_N) -> int:
    t = MMA_TYPES[a_type]
    b = MMA_TYPES[b_type or a_type].idesc_name
    return InstrDesc.for_kind(t.kind, m=ROWS, n=n, d="s32" if t.kind == "i8" else "f32",
                              a=t.idesc_name, b=b).encode()


def swizzled(row: int, chunk: int) -> int:
    """Byte offset of 16-byte chunk `chunk` of row `row` of a K-major tile in
    the 128B-swizzle layout the descriptors describe (SBO 1024)."""
    return (row // 8) * ATOM_BYTES + (row % 8) * ROW_BYTES + ((chunk ^ (row % 8)) << 4)


def build_mma(a_type: str = "bf16", b_type: str | None = None, n: int = MMA_N,
              arch: str = ARCH):
    """Kernel D[128, n] = A[128, K] @ B[n, K].T, K = mma_k(a_type)."""
    b_type = b_type or a_type
    ta, tb = MMA_TYPES[a_type], MMA_TYPES[b_type]
    if ta.kind != tb.kind or ta.nbytes != tb.nbytes:
        raise ValueError(f"build_mma: {a_type} x {b_type} is not one tcgen05.mma kind")
    k = mma_k(a_type)
    d_type = s32 if ta.kind == "i8" else f32
    idesc = mma_idesc(a_type, b_type, n)

    @kernel(in_specs=(Tile(ROWS, k, ta.storage), Tile(n, ROW_BYTES // tb.nbytes, tb.storage)),
            out_specs=(Tile(ROWS, n, d_type),), grid=(1, 1, 1), block=(THREADS, 1, 1),
            arch=arch)
    def tcgen05_mma_kind(A, B, D):
        pa, pb, pd = ptx.global_ptrs(A, B, D)
        sa = smem.alloc(u8, (ROWS, ROW_BYTES), swizzle="128B", align=1024)
        sb = smem.alloc(u8, (n, ROW_BYTES), swizzle="128B", align=1024)
        slot, bar, tid, warp = _prologue(n, bar_count=1)
        # thread t copies chunk t % 8 of rows t / 8 + 16 j into its swizzled place
        row, chunk = tid >> 3, tid & 7
        place = (row >> 3) * ATOM_BYTES + (row & 7) * ROW_BYTES + ((chunk ^ (row & 7)) << 4)
        data = reg.array(b32, 4)
        for src, dst, rows in ((pa, sa, ROWS), (pb, sb, n)):
            g = src + reg.from_(row * ROW_BYTES + (chunk << 4), u64)
            s = reg.from_(dst, u32) + place
            for j in range(rows // 16):
                ptx.inst.ld.global_.v4.b32(data, ptx.addr(g, j * 16 * ROW_BYTES))
                ptx.inst.st.shared.v4.b32(ptx.addr(s, j * 2 * ATOM_BYTES), data)
        ptx.fence.proxy_async_shared_cta()       # the tensor core reads through the async proxy
        tmem = _publish(slot)
        with ptx.if_(tid == 0):
            da = ptx.tcgen05.descriptor(sa, stride_bytes=ATOM_BYTES, swizzle="128B")
            db = ptx.tcgen05.descriptor(sb, stride_bytes=ATOM_BYTES, swizzle="128B")
            for kk in range(4):                     # 32 bytes of K each: +2 in 16-byte units
                ptx.tcgen05.mma(tmem, da + 2 * kk if kk else da, db + 2 * kk if kk else db,
                                idesc, kind=ta.kind, enable_input_d=kk > 0)
            ptx.tcgen05.commit(bar[0])
        _wait(bar[0], 0, "wait_mma")
        acc = reg.array(d_type, n)
        ptx.tcgen05.ld(acc, tmem + (warp << 21), shape="32x32b", count=n)
        ptx.tcgen05.wait_ld()
        gd = pd + reg.from_(tid * (n * 4), u64)
        for c in range(0, n, 4):
            ptx.inst.st.global_.v4.b32(ptx.addr(gd, 4 * c), acc[c:c + 4])
        _epilogue(warp, tmem, n)

    return tcgen05_mma_kind


def _fp8_decode(codes, exp_bits: int, man_bits: int) -> np.ndarray:
    """Values of fp8 codes (finite ones) for e4m3 (4, 3) or e5m2 (5, 2)."""
    codes = np.asarray(codes, np.int64)
    bias = (1 << (exp_bits - 1)) - 1
    sign = np.where(codes >> 7, -1.0, 1.0)
    e = (codes >> man_bits) & ((1 << exp_bits) - 1)
    m = codes & ((1 << man_bits) - 1)
    normal = (1 + m / (1 << man_bits)) * np.exp2(e - bias)
    subnormal = m / (1 << man_bits) * np.exp2(1 - bias)
    return sign * np.where(e == 0, subnormal, normal)


FP8_BITS = {"e4m3": (4, 3), "e5m2": (5, 2)}


def decode(a_type: str, x) -> np.ndarray:
    """float64 values of an input array as the tensor core reads it."""
    if a_type in FP8_BITS:
        return _fp8_decode(x, *FP8_BITS[a_type])
    return np.asarray(x, np.float64)


def mma_inputs(a_type: str, b_type: str | None, n: int, rng) -> list:
    """Random A (128, K) and B (n, K) of the types (fp8 as codes, u8)."""
    out = []
    for t, rows in ((a_type, ROWS), (b_type or a_type, n)):
        k = mma_k(t)
        if t in FP8_BITS:
            e, m = FP8_BITS[t]
            bias = (1 << (e - 1)) - 1
            exps = rng.integers(bias - 1, bias + 2, (rows, k))     # values in [1/2, 4)
            codes = rng.integers(0, 2, (rows, k)) << 7 | exps << m | rng.integers(0, 1 << m,
                                                                                (rows, k))
            out.append(codes.astype(np.uint8))
        elif t == "s8":
            out.append(rng.integers(-128, 128, (rows, k)).astype(np.int8))
        elif t == "tf32":      # f32 whose low 13 bits are clear: exactly tf32
            x = rng.standard_normal((rows, k)).astype(np.float32)
            out.append((x.view(np.uint32) & np.uint32(0xFFFFE000)).view(np.float32))
        elif t == "f16":
            out.append(rng.standard_normal((rows, k)).astype(np.float16))
        else:
            out.append(tcgen05_alloc_mma.round_to_bf16(rng.standard_normal((rows, k))))
    return out


def mma_reference(a_type, b_type, a, b) -> np.ndarray:
    return decode(a_type, a) @ decode(b_type or a_type, b).T


# -- ld / st shapes -------------------------------------------------------------------------

# shape: (count, registers per thread); every case covers 16 columns
LD_ST_SHAPES = {"32x32b": (16, 16), "16x64b": (8, 8), "16x128b": (4, 8), "16x256b": (2, 8),
                "16x32bx2": (8, 8)}
IMAGE_COLS = 16
HALF_SPLITOFF = 8            # 16x32bx2: the second 16x32b half starts 8 columns on


def lanes_of(shape: str) -> int:
    return 32 if shape == "32x32b" else 16


def build_ld_st(shape: str, arch: str = ARCH):
    """Kernel ld_st(X[128, r] f32) -> (Y[128, r], Z[128, 16]) f32: Y the
    registers tcgen05.ld gives back after tcgen05.st of X with `shape`, Z
    the TMEM image (32x32b: thread t = lane t), sentinel-filled first."""
    count, nregs = LD_ST_SHAPES[shape]
    split = HALF_SPLITOFF if shape == "16x32bx2" else None

    @kernel(in_specs=(Tile(ROWS, nregs, f32),),
            out_specs=(Tile(ROWS, nregs, f32), Tile(ROWS, IMAGE_COLS, f32)),
            grid=(1, 1, 1), block=(THREADS, 1, 1), arch=arch)
    def tcgen05_ld_st_shape(X, Y, Z):
        px, py, pz = ptx.global_ptrs(X, Y, Z)
        slot, _, tid, warp = _prologue(32)
        tmem = _publish(slot)
        lane_base = tmem + (warp << 21)
        fill = reg.array(f32, IMAGE_COLS)
        for r in fill:
            ptx.inst.mov.f32(r, SENTINEL)
        ptx.tcgen05.st(lane_base, fill, shape="32x32b", count=IMAGE_COLS)
        ptx.tcgen05.wait_st()
        x = reg.array(f32, nregs)
        gx = px + reg.from_(tid * (nregs * 4), u64)
        for c in range(0, nregs, 4):
            ptx.inst.ld.global_.v4.f32(x[c:c + 4], ptx.addr(gx, 4 * c))
        ptx.tcgen05.st(lane_base, x, shape=shape, count=count, half_splitoff=split)
        ptx.tcgen05.wait_st()
        y = reg.array(f32, nregs)
        ptx.tcgen05.ld(y, lane_base, shape=shape, count=count, half_splitoff=split)
        z = reg.array(f32, IMAGE_COLS)
        ptx.tcgen05.ld(z, lane_base, shape="32x32b", count=IMAGE_COLS)
        ptx.tcgen05.wait_ld()
        gy = py + reg.from_(tid * (nregs * 4), u64)
        gz = pz + reg.from_(tid * (IMAGE_COLS * 4), u64)
        for c in range(0, nregs, 4):
            ptx.inst.st.global_.v4.f32(ptx.addr(gy, 4 * c), y[c:c + 4])
        for c in range(0, IMAGE_COLS, 4):
            ptx.inst.st.global_.v4.f32(ptx.addr(gz, 4 * c), z[c:c + 4])
        _epilogue(warp, tmem, 32)

    return tcgen05_ld_st_shape


def ld_st_inputs(shape: str) -> np.ndarray:
    """Distinct values, exact in f32: thread t, register r -> 64 t + r + 0.5."""
    nregs = LD_ST_SHAPES[shape][1]
    return (np.arange(ROWS)[:, None] * 64 + np.arange(nregs)[None, :] + 0.5).astype(np.float32)


def check_ld_st(shape: str, x, y, z) -> str | None:
    """None if Y == X and the image holds each warp's stored values exactly
    once in the shape's lanes (32x32b: lane t, column r = X[t, r]), the
    sentinel elsewhere; else what is wrong."""
    x, y, z = (np.asarray(v, np.float64) for v in (x, y, z))
    if not np.array_equal(x, y):
        bad = np.argwhere(x != y)[0]
        return f"ld gave back {y[tuple(bad)]} for thread {bad[0]} register {bad[1]}, " \
               f"stored {x[tuple(bad)]}"
    if shape == "32x32b":
        return None if np.array_equal(z, x) else "the 32x32b image is not X"
    lanes = lanes_of(shape)
    for w in range(4):
        covered = z[32 * w:32 * w + lanes]
        if sorted(covered.ravel()) != sorted(x[32 * w:32 * w + 32].ravel()):
            return f"warp {w}: lanes 0..{lanes - 1} do not hold exactly the stored values"
        if not (z[32 * w + lanes:32 * w + 32] == SENTINEL).all():
            return f"warp {w}: a lane past {lanes - 1} was written"
    return None


def build_ld_st_pack(arch: str = ARCH):
    """Kernel (X[128, 8] s32) -> Y[128, 8] s32: st.unpack::16b then
    ld.pack::16b (32x32b.x8: 16 columns of 16-bit halves) gives X back."""

    @kernel(in_specs=(Tile(ROWS, 8, s32),), out_specs=(Tile(ROWS, 8, s32),), grid=(1, 1, 1),
            block=(THREADS, 1, 1), arch=arch)
    def tcgen05_ld_st_pack(X, Y):
        px, py = ptx.global_ptrs(X, Y)
        slot, _, tid, warp = _prologue(32)
        tmem = _publish(slot)
        lane_base = tmem + (warp << 21)
        x, y = reg.array(b32, 8), reg.array(b32, 8)
        row = reg.from_(tid * 32, u64)
        for c in (0, 4):
            ptx.inst.ld.global_.v4.b32(x[c:c + 4], ptx.addr(px + row, 4 * c))
        ptx.tcgen05.st(lane_base, x, shape="32x32b", count=8, unpack=True)
        ptx.tcgen05.wait_st()
        ptx.tcgen05.ld(y, lane_base, shape="32x32b", count=8, pack=True)
        ptx.tcgen05.wait_ld()
        for c in (0, 4):
            ptx.inst.st.global_.v4.b32(ptx.addr(py + row, 4 * c), y[c:c + 4])
        _epilogue(warp, tmem, 32)

    return tcgen05_ld_st_pack


# -- cp 128x128b ----------------------------------------------------------------------------

CP_SBO = 128                 # 8 rows x 16 bytes: one core matrix per 8-row group


def build_cp_128x128b(arch: str = ARCH):
    """Kernel (X[128, 4] f32) -> Y = X through shared memory (core-matrix
    layout: row r at (r / 8) * 128 + (r % 8) * 16), tcgen05.cp.128x128b and
    tcgen05.ld.32x32b.x4."""

    @kernel(in_specs=(Tile(ROWS, 4, f32),), out_specs=(Tile(ROWS, 4, f32),), grid=(1, 1, 1),
            block=(THREADS, 1, 1), arch=arch)
    def tcgen05_cp_128x128b(X, Y):
        px, py = ptx.global_ptrs(X, Y)
        tile = smem.alloc(f32, (ROWS, 4), align=128)
        slot, bar, tid, warp = _prologue(32, bar_count=1)
        data = reg.array(b32, 4)
        row = reg.from_(tid * 16, u64)
        ptx.inst.ld.global_.v4.b32(data, ptx.addr(px + row))
        # (r / 8) * 128 + (r % 8) * 16 is 16 r: the rows are contiguous
        ptx.inst.st.shared.v4.b32(ptx.addr(reg.from_(tile, u32) + (tid << 4)), data)
        ptx.fence.proxy_async_shared_cta()
        tmem = _publish(slot)
        with ptx.if_(tid == 0):
            desc = ptx.tcgen05.descriptor(tile, leading_bytes=ROWS * 16, stride_bytes=CP_SBO,
                                          swizzle="NONE")
            ptx.tcgen05.cp(tmem, desc, size="128x128b")
            ptx.tcgen05.commit(bar[0])
        _wait(bar[0], 0, "wait_cp")
        y = reg.array(b32, 4)
        ptx.tcgen05.ld(y, tmem + (warp << 21), shape="32x32b", count=4)
        ptx.tcgen05.wait_ld()
        ptx.inst.st.global_.v4.b32(ptx.addr(py + row), y)
        _epilogue(warp, tmem, 32)

    return tcgen05_cp_128x128b


# -- the cases --------------------------------------------------------------------------------

@dataclass
class Case:
    """build() -> the kernel; inputs(rng) -> its input arrays (NumPy; bf16
    as float32 values, fp8 as uint8 codes); check(inputs, outputs) -> None
    when right, else a message. torch_dtypes: the input arrays' torch dtype
    names."""
    name: str
    build: Callable
    inputs: Callable
    check: Callable
    torch_dtypes: tuple


def _close(ref, out, tol) -> str | None:
    out, ref = np.asarray(out, np.float64), np.asarray(ref, np.float64)
    if np.isnan(out).any():
        return "output elements left unwritten (NaN)"
    err = np.linalg.norm(out - ref) / max(np.linalg.norm(ref), 1e-30)
    return None if err <= tol else f"relative error {err:.3e} > {tol}"


TORCH_OF = {"bf16": "bfloat16", "f16": "float16", "tf32": "float32", "e4m3": "uint8",
            "e5m2": "uint8", "s8": "int8"}


def _mma_case(a_type, b_type=None):
    exact = a_type in FP8_BITS or a_type == "s8"
    name = f"mma_{a_type}" + (f"_{b_type}" if b_type else "")

    def check(inputs, outputs):
        ref = mma_reference(a_type, b_type, *inputs)
        out = np.asarray(outputs[0], np.float64)
        if exact:
            return None if np.array_equal(out, ref) else \
                f"{int((out != ref).sum())} elements differ from the exact result"
        return _close(ref, out, 1e-5)

    return Case(name, lambda: build_mma(a_type, b_type),
                lambda rng: mma_inputs(a_type, b_type, MMA_N, rng), check,
                (TORCH_OF[a_type], TORCH_OF[b_type or a_type]))


def _ld_st_case(shape):
    return Case(f"ld_st_{shape}", lambda: build_ld_st(shape), lambda rng: [ld_st_inputs(shape)],
                lambda i, o: check_ld_st(shape, i[0], o[0], o[1]), ("float32",))


def _cp_shift_case(shift):
    def check(inputs, outputs):
        ref = tcgen05_cp_shift.reference(inputs[0], shift)
        keep = ~np.isnan(ref)
        return None if np.array_equal(np.asarray(outputs[0])[keep], ref[keep]) else \
            "rows differ from X moved down one lane"
    return Case("cp_shift" if shift else "cp_noshift",
                lambda: tcgen05_cp_shift.build_tcgen05_cp_shift(shift),
                lambda rng: [rng.standard_normal((128, 8)).astype(np.float32)], check,
                ("float32",))


def _alloc_mma_inputs(rng):
    bf = tcgen05_alloc_mma.round_to_bf16
    return [bf(rng.standard_normal((128, 128))), bf(rng.standard_normal((64, 128)))]


CASES = [
    Case("alloc", build_alloc, lambda rng: [np.zeros(1, np.int32)],
         lambda i, o: check_alloc(o[0]), ("int32",)),
    *[_mma_case(t) for t in ("bf16", "f16", "tf32", "e4m3", "e5m2", "s8")],
    _mma_case("e4m3", "e5m2"),
    *[_ld_st_case(s) for s in LD_ST_SHAPES],
    Case("ld_st_pack", build_ld_st_pack,
         lambda rng: [rng.integers(-2**31, 2**31, (ROWS, 8)).astype(np.int32)],
         lambda i, o: None if np.array_equal(i[0], o[0]) else "pack(unpack(x)) != x",
         ("int32",)),
    Case("cp_128x128b", build_cp_128x128b,
         lambda rng: [rng.standard_normal((ROWS, 4)).astype(np.float32)],
         lambda i, o: None if np.array_equal(i[0], o[0]) else "Y != X", ("float32",)),
    Case("alloc_mma", lambda: tcgen05_alloc_mma.build_tcgen05_alloc_mma(64, 128),
         _alloc_mma_inputs,
         lambda i, o: _close(tcgen05_alloc_mma.reference(*i), o[0], 1e-5),
         ("bfloat16", "bfloat16")),
    Case("ld_st_roundtrip", lambda: tcgen05_ld_st.build_tcgen05_ld_st(64),
         lambda rng: [rng.standard_normal((128, 64)).astype(np.float32)],
         lambda i, o: None if np.array_equal(tcgen05_ld_st.reference(i[0]), o[0]) else
         "Y != 2 X", ("float32",)),
    _cp_shift_case(True),
    _cp_shift_case(False),
]


def case(name: str) -> Case:
    return next(c for c in CASES if c.name == name)


def run_case(c: Case, seed: int = 0) -> str | None:
    """Launches one case through PyTorch (needs a Blackwell GPU): None when
    right, else what is wrong. The outputs' memory is NaN before the launch."""
    import torch

    inputs = c.inputs(np.random.default_rng(seed))
    tensors = [torch.from_numpy(np.ascontiguousarray(x)).to("cuda").to(getattr(torch, dt))
               for x, dt in zip(inputs, c.torch_dtypes)]
    k = c.build()
    poison = [torch.full(tuple(t.shape), float("nan"), device="cuda") for t in k.out_specs]
    torch.cuda.synchronize()
    del poison                   # the outputs, allocated next, reuse these NaN blocks
    outs = k(*tensors)
    outs = outs if isinstance(outs, (tuple, list)) else (outs,)
    torch.cuda.synchronize()
    return c.check(inputs, [o.float().cpu().numpy() if o.dtype in (torch.bfloat16,
                                                                   torch.float16)
                            else o.cpu().numpy() for o in outs])


def run_suite() -> list[tuple[str, str | None]]:
    return [(c.name, run_case(c)) for c in CASES]


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if "--run" not in argv:
        for c in CASES:
            print(f"// ---- {c.name}")
            print(c.build().ptx(), end="")
        return 0
    results = run_suite()
    for name, problem in results:
        print(f"[{'PASS' if problem is None else 'FAIL'}] {name}" +
              (f": {problem}" if problem else ""))
    failed = sum(p is not None for _, p in results)
    print(f"{len(results) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
