"""Row kernels that go through shared memory with sA[r, c] indexing.

build_transpose: Y = X^T, one 32x32 tile per CTA staged through a padded
shared tile (tile[r, c] = x stores, x = tile[c, r] loads with register
indices) so both the global read and the global write are coalesced.

build_l2_normalize: Y[b, :] = X[b, :] / ||X[b, :]||, one row per CTA;
each warp's sum of squares goes through partials[warp, 0], thread 0 adds
them up into total[0, 0].
"""
from pyptx import Tile, kernel, ptx, reg, smem
from pyptx.types import f32, u32

T = 32          # tile edge
WARPS = 8


def build_transpose(R, C, *, arch="sm_80"):
    assert R % T == 0 and C % T == 0

    @kernel(in_specs=(Tile(R, C, f32),), out_specs=(Tile(C, R, f32),),
            grid=(C // T, R // T, 1), block=(32 * WARPS, 1, 1), arch=arch)
    def transpose(X, Y):
        tile = smem.alloc(f32, (T, T + 1))     # +1 column: no bank conflicts
        px, py = ptx.global_ptrs(X, Y)
        tid = reg.from_(ptx.special.tid.x(), u32)
        lane = tid & 31
        warp = tid >> 5
        r0 = reg.from_(ptx.special.ctaid.y(), u32) << 5
        c0 = reg.from_(ptx.special.ctaid.x(), u32) << 5

        for i in range(T // WARPS):
            r = warp + WARPS * i
            x = reg.scalar(f32)
            ptx.inst.ld.global_.f32(x, ptx.addr(px + (((r0 + r) * C + c0 + lane) << 2)))
            tile[r, lane] = x
        ptx.bar.sync(0)
        for i in range(T // WARPS):
            r = warp + WARPS * i
            y = tile[lane, r]
            ptx.inst.st.global_.f32(ptx.addr(py + (((c0 + r) * R + r0 + lane) << 2)), y)
        ptx.ret()

    return transpose


def build_l2_normalize(B, N, *, arch="sm_90a"):
    block = 32 * WARPS
    assert N % block == 0
    per_thread = N // block

    @kernel(in_specs=(Tile(B, N, f32),), out_specs=(Tile(B, N, f32),),
            grid=(B, 1, 1), block=(block, 1, 1), arch=arch)
    def l2_normalize(X, Y):
        partials = smem.alloc(f32, (WARPS, 1))
        total = smem.alloc(f32, (1, 1))
        px, py = ptx.global_ptrs(X, Y)
        tid = reg.from_(ptx.special.tid.x(), u32)
        row_bytes = reg.from_(ptx.special.ctaid.x(), u32) * (N * 4)
        px += row_bytes
        py += row_bytes

        xs = reg.array(f32, per_thread)
        ssq = reg.scalar(f32, init=0.0)
        for i in range(per_thread):
            ptx.inst.ld.global_.f32(xs[i], ptx.addr(px + (tid << 2), i * block * 4))
            ptx.inst.fma.rn.f32(ssq, xs[i], xs[i], ssq)
        ptx.warp.reduce_sum(ssq)
        with ptx.if_((tid & 31) == 0):
            partials[tid >> 5, 0] = ssq
        ptx.bar.sync(0)
        with ptx.if_(tid == 0):
            acc = reg.scalar(f32, init=0.0)
            for w in range(WARPS):
                ptx.inst.add.f32(acc, acc, partials[w, 0])
            total[0, 0] = acc
        ptx.bar.sync(0)

        inv = reg.scalar(f32)
        ptx.inst.rsqrt.approx.f32(inv, total[0, 0])
        for i in range(per_thread):
            ptx.inst.mul.f32(xs[i], xs[i], inv)
            ptx.inst.st.global_.f32(ptx.addr(py + (tid << 2), i * block * 4), xs[i])
        ptx.ret()

    return l2_normalize


BUILDS = [("transpose 64x96 sm_80", lambda: build_transpose(64, 96), {}, "sm_80"),
          ("transpose 128x32 sm_100a", lambda: build_transpose(128, 32, arch="sm_100a"), {},
           "sm_100a"),
          ("l2_normalize 4x1024 sm_90a", lambda: build_l2_normalize(4, 1024), {}, "sm_90a"),
          ("l2_normalize 16x256 sm_80", lambda: build_l2_normalize(16, 256, arch="sm_80"), {},
           "sm_80")]
