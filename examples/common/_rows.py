"""Helpers shared by the row-wise kernels (one CTA per row, the row held in
registers): how a CTA covers a row, the pointer prologue, vector loads and
stores, and block-wide reductions (warp shuffles, then shared memory).

All of it runs at trace time; every pyptx call below emits one instruction.
"""
from __future__ import annotations

from pyptx import ptx, reg, smem
from pyptx.types import f32, u32, u64

WARP = 32
LOG2E = 1.4426950408889634  # exp(x) = ex2(x * log2(e))
ARCHS = ("sm_80", "sm_90a", "sm_100a")


class RowPlan:
    """How `threads` threads cover a row of N f32: thread t owns the vectors
    j*threads + t (j < vecs_per_thread) of `vec` floats, so each load
    instruction of a warp reads one contiguous 32*vec*4-byte span."""

    def __init__(self, N: int, threads: int | None = None):
        if N <= 0 or N % WARP:
            raise ValueError(f"N must be a positive multiple of {WARP}, not {N}")
        self.N = N
        self.vec = next(v for v in (4, 2, 1) if N % (WARP * v) == 0)
        if threads is None:
            # About 16 floats per thread, 32..1024 threads, dividing the row.
            threads = 1 << max(5, min(10, (N // 16).bit_length() - 1))
            while N % (threads * self.vec):
                threads //= 2
        if threads % WARP or not 32 <= threads <= 1024 or N % (threads * self.vec):
            raise ValueError(f"threads={threads}: need a multiple of 32 in 32..1024 "
                             f"with N={N} a multiple of threads*{self.vec}")
        self.threads = threads
        self.warps = threads // WARP
        self.per_thread = N // threads
        if self.per_thread > 128:
            raise ValueError(f"N={N} needs {self.per_thread} registers of row per "
                             f"thread (more than 128); pass more threads")
        self.vecs_per_thread = self.per_thread // self.vec
        self.stride_bytes = threads * self.vec * 4  # between a thread's vectors

    def offsets(self):
        """(byte offset from the thread's pointer, register slice) per vector."""
        return [(j * self.stride_bytes, slice(j * self.vec, (j + 1) * self.vec))
                for j in range(self.vecs_per_thread)]


def prologue(plan: RowPlan, row_tensors, col_tensors):
    """Global pointers for this thread: row tensors (B x N) at this CTA's
    row, column tensors (N) at row 0; plus tid. Returns (tid, row ptrs, col ptrs)."""
    gptrs = ptx.global_ptrs(*row_tensors, *col_tensors)
    tid = reg.from_(ptx.special.tid.x(), u32)
    row = reg.from_(ptx.special.ctaid.x(), u32)
    thread_off = reg.scalar(u64)
    ptx.inst.mul.wide.u32(thread_off, tid, plan.vec * 4)
    row_off = reg.scalar(u64)
    ptx.inst.mul.wide.u32(row_off, row, plan.N * 4)
    row_off += thread_off
    rows = [p + row_off for p in gptrs[:len(row_tensors)]]
    cols = [p + thread_off for p in gptrs[len(row_tensors):]]
    return tid, rows, cols


def _part(regs, sl):
    part = regs[sl]
    return part[0] if len(part) == 1 else part


def load_row(plan: RowPlan, ptr, regs, space="global"):
    for off, sl in plan.offsets():
        ptx.ld(_part(regs, sl), ptx.addr(ptr, off), space=space)


def store_row(plan: RowPlan, ptr, regs):
    for off, sl in plan.offsets():
        ptx.st(ptx.addr(ptr, off), _part(regs, sl))


class BlockReducer:
    """Block-wide reductions of one f32 per thread. Each warp reduces with
    shfl.sync.bfly; with several warps, lane 0 of each writes its partial to
    its own slot of shared memory (one row of slots per reduction, so no
    barrier is needed before reuse), bar.sync, and every thread combines the
    partials in the same order (vector ld.shared)."""

    def __init__(self, plan: RowPlan, tid, reductions: int):
        self.plan, self.used, self.reductions = plan, 0, reductions
        if plan.warps == 1:
            return
        self.buf = smem.alloc(f32, (reductions, plan.warps), align=16)
        self.lane0 = (tid & (WARP - 1)) == 0
        warp_byte = (tid >> 5) << 2
        self.slot = smem.base(self.buf.name) + warp_byte

    def __call__(self, value, op="add"):
        getattr(ptx.warp, {"add": "reduce_sum", "max": "reduce_max"}[op])(value)
        if self.plan.warps == 1:
            return value
        k = self.used
        self.used += 1
        assert k < self.reductions, "more block reductions than slots"
        base = k * self.plan.warps * 4
        ptx.st(ptx.addr(self.slot, base), value, space="shared", pred=self.lane0)
        ptx.bar.sync(0)
        parts = reg.array(f32, self.plan.warps)
        chunk = min(4, self.plan.warps)
        for i in range(0, self.plan.warps, chunk):
            dst = parts[i] if chunk == 1 else parts[i:i + chunk]
            ptx.ld(dst, ptx.addr(self.buf.name, base + 4 * i), space="shared")
        total = reg.scalar(f32)
        emit = ptx.add if op == "add" else ptx.max
        emit(total, parts[0], parts[1])
        for p in parts[2:]:
            emit(total, total, p)
        return total
