"""Warp shuffles and the reductions built from them: ``ptx.shfl``
(one ``shfl.sync``) and ``ptx.warp.reduce_sum/max/min`` and
``ptx.warp.argmax/argmin`` (butterfly reductions over groups of lanes).

A butterfly step with offset o exchanges values between lanes l and l^o;
after the steps o = width/2, ..., 2, 1 every lane of a group of `width`
lanes holds the group's result, so no broadcast is needed. Each helper
says how many instructions it emits; all are ``shfl.sync.bfly.b32`` plus
the combining instructions, on 32-bit registers.
"""
from __future__ import annotations

from pyptx import reg as _reg
from pyptx import types as T
from pyptx._inst import emit
from pyptx._operands import Pipe

_MODES = ("up", "down", "bfly", "idx")


def _mask_operand(mask):
    # Printed as -1 rather than 4294967295, like nvcc.
    return mask - (1 << 32) if isinstance(mask, int) and mask >= 1 << 31 else mask


def _clamp(width: int) -> int:
    """shfl's c operand for groups of `width` lanes (segment mask in bits
    8-12, the highest lane 31 in bits 0-4)."""
    return ((32 - width) << 8) | 0x1F


def _check_32bit(what: str, r):
    if not isinstance(r, _reg.Reg) or r.dtype.bits != 32 or r.dtype == T.pred:
        raise TypeError(f"{what} takes a 32-bit register (f32, u32, s32, b32), not {r!r}")


def _check_width(width):
    if width not in (2, 4, 8, 16, 32):
        raise ValueError(f"width must be a power of two from 2 to 32, not {width!r}")


def shfl(mode: str, dst, src, lane, clamp=None, mask=0xFFFFFFFF, pred_out=None):
    """``shfl.sync.{mode}.b32 dst[|pred_out], src, lane, clamp, mask;`` -- one
    instruction: dst gets `src` of another lane of the warp.

    mode: "bfly" (lane ^ `lane`), "down" (lane + `lane`), "up" (lane -
    `lane`) or "idx" (lane number `lane`). lane: an int or a 32-bit
    register. clamp: the c operand; default 0x1F (the whole warp) for
    bfly/down/idx and 0 for up. pred_out: a predicate register set where
    the source lane was in range. dst and src are 32-bit registers
    (f32, u32, s32, b32). Returns dst."""
    if mode not in _MODES:
        raise ValueError(f"shfl mode must be one of {', '.join(_MODES)}, not {mode!r}")
    _check_32bit("shfl", dst)
    _check_32bit("shfl", src)
    if clamp is None:
        clamp = 0 if mode == "up" else 0x1F
    out = dst if pred_out is None else Pipe(dst, pred_out)
    emit(f"shfl.sync.{mode}.b32", out, src, lane, clamp, _mask_operand(mask))
    return dst


class Warp:
    """``ptx.warp``: butterfly reductions over groups of `width` lanes (32:
    the warp; 4: the 4 lanes that share a row of a wgmma or mma.sync
    accumulator fragment). Every lane ends with its group's result; `mask`
    is shfl.sync's membermask (every lane it names must execute the call).

    ============================  =================================  ==================
    helper                        per butterfly step                 width 32 (5 steps)
    ============================  =================================  ==================
    reduce_sum / _max / _min      shfl + add/max/min: 2              10 instructions
    argmax / argmin               2 shfl + 3 setp + 2 selp: 7        35 instructions
    ============================  =================================  ==================

    Steps: log2(width), with offsets width/2, ..., 2, 1.
    """

    @staticmethod
    def _reduce(val, combine, width, mask):
        _check_32bit("warp reductions", val)
        _check_width(width)
        tmp = _reg.scalar(val.dtype)
        t = _reg._arith_type(val.dtype)
        offset = width // 2
        while offset:
            emit("shfl.sync.bfly.b32", tmp, val, offset, _clamp(width), _mask_operand(mask))
            emit(f"{combine}{t.ptx}", val, val, tmp)
            offset //= 2
        return val

    def reduce_sum(self, val, width=32, mask=0xFFFFFFFF):
        """val = the sum over each group of `width` lanes, in place:
        ``shfl.sync.bfly.b32`` + ``add`` per step, 2 * log2(width)
        instructions (10 for the warp). f32 sums are added in butterfly
        order, the same in every lane. Returns val."""
        return self._reduce(val, "add", width, mask)

    def reduce_max(self, val, width=32, mask=0xFFFFFFFF):
        """val = the maximum over each group of `width` lanes, in place:
        ``shfl`` + ``max`` per step, 2 * log2(width) instructions. Returns val."""
        return self._reduce(val, "max", width, mask)

    def reduce_min(self, val, width=32, mask=0xFFFFFFFF):
        """val = the minimum over each group of `width` lanes, in place:
        ``shfl`` + ``min`` per step, 2 * log2(width) instructions. Returns val."""
        return self._reduce(val, "min", width, mask)

    @staticmethod
    def _arg_reduce(val, index, better, width, mask):
        _check_32bit("warp argmax/argmin", val)
        _check_32bit("warp argmax/argmin", index)
        if not index.dtype.is_int and index.dtype.kind != "b":
            raise TypeError(f"the index of argmax/argmin is an integer register, not "
                            f"{index.dtype}")
        _check_width(width)
        vt, it = _reg._arith_type(val.dtype), _reg._arith_type(index.dtype)
        other_val, other_index = _reg.scalar(val.dtype), _reg.scalar(index.dtype)
        take = _reg.scalar(T.pred)
        offset = width // 2
        while offset:
            for mine, theirs in ((val, other_val), (index, other_index)):
                emit("shfl.sync.bfly.b32", theirs, mine, offset, _clamp(width),
                     _mask_operand(mask))
            # take = other better, or equal with the lower index: a total
            # order, so both lanes of a pair agree.
            emit(f"setp.lt{it.ptx}", take, other_index, index)
            emit(f"setp.eq.and{vt.ptx}", take, other_val, val, take)
            emit(f"setp.{better}.or{vt.ptx}", take, other_val, val, take)
            emit(f"selp{vt.ptx}", val, other_val, val, take)
            emit(f"selp{it.ptx}", index, other_index, index, take)
            offset //= 2
        return val, index

    def argmax(self, val, index, width=32, mask=0xFFFFFFFF):
        """Key/value reduction: (val, index) = the largest val over each
        group of `width` lanes and its index, in place; ties go to the lower
        index. val: a 32-bit value register (f32, s32, u32); index: a 32-bit
        integer register (a column, a lane, ...). A NaN never wins against a
        number. Per step 2 ``shfl.sync.bfly.b32`` (value and index), 3
        ``setp`` (lower index; equal-and; greater-or) and 2 ``selp``: 7 *
        log2(width) instructions (35 for the warp). Returns (val, index)."""
        return self._arg_reduce(val, index, "gt", width, mask)

    def argmin(self, val, index, width=32, mask=0xFFFFFFFF):
        """As :meth:`argmax` for the smallest val (ties to the lower index):
        7 * log2(width) instructions. Returns (val, index)."""
        return self._arg_reduce(val, index, "lt", width, mask)


warp = Warp()

__all__ = ["shfl", "warp", "Warp"]
