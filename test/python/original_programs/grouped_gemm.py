"""Grouped GEMM: C[g] = A[g] @ B[g]^T for G problems of one shape.

The tensors arrive flattened -- A (G*M, K), B_T (G*N, K) K-major, C (G*M, N)
-- and ctaid.z picks the problem. The K loop runs at run time
(ptx.loop with a predicate); both operands are K-major, so the wgmma
descriptors are built by hand with make_descriptor (128B swizzle: 1024-byte
groups of eight 128-byte rows).
"""
from pyptx import Tile, kernel, ptx, reg, smem
from pyptx.specs import Layout
from pyptx.types import b32, bf16, f32, pred, u32

BM, BN, BK = 64, 64, 64
TILE_BYTES = BM * BK * 2 + BN * BK * 2


def build(G, M, N, K):
    assert M % BM == 0 and N % BN == 0 and K % BK == 0

    @kernel(
        in_specs=(Tile(G * M, K, bf16, Layout.TMA_128B, tma_box=(BM, BK)),
                  Tile(G * N, K, bf16, Layout.TMA_128B, tma_box=(BN, BK))),
        out_specs=(Tile(G * M, N, f32, Layout.ROW),),
        grid=(N // BN, M // BM, G),
        block=(128, 1, 1),
        arch="sm_90a",
    )
    def grouped_gemm(A, B_T, C):
        sA = smem.wgmma_tile(bf16, (BM, BK), major="K")
        sB = smem.wgmma_tile(bf16, (BN, BK), major="K")
        bar = smem.mbarrier(1)
        phase = reg.scalar(b32, init=0)
        acc = reg.array(f32, BN // 2)

        group = reg.from_(ptx.special.ctaid.z(), u32)
        a_row = reg.scalar(u32)
        ptx.mad(u32, a_row, group, M, reg.from_(ptx.special.ctaid.y(), u32) << 6)
        b_row = reg.scalar(u32)
        ptx.mad(u32, b_row, group, N, reg.from_(ptx.special.ctaid.x(), u32) << 6)
        tid = reg.from_(ptx.special.tid.x(), u32)

        with ptx.if_(tid == 0):
            ptx.mbarrier.init(bar[0], 1)
            ptx.fence.proxy_async_shared_cta()
        ptx.bar.sync(0)

        k = reg.scalar(u32, init=0)
        more = reg.scalar(pred)
        ptx.setp("lt", u32, more, k, K)
        with ptx.loop("k_loop", pred=more):
            with ptx.if_(tid == 0):
                ptx.mbarrier.arrive_expect_tx(bar[0], TILE_BYTES)
                ptx.cp.async_.bulk.tensor_2d(dst=sA[0], src=A.tma_desc(), coord=(k, a_row),
                                             mbar=bar[0])
                ptx.cp.async_.bulk.tensor_2d(dst=sB[0], src=B_T.tma_desc(), coord=(k, b_row),
                                             mbar=bar[0])
            ptx.mbarrier.wait(bar[0], phase)
            phase ^= 1

            accumulate = k != 0
            ptx.wgmma.fence()
            for kk in range(BK // 16):
                a_desc = ptx.wgmma.make_descriptor(sA, leading_byte_offset=16,
                                                   stride_byte_offset=1024,
                                                   swizzle=ptx.wgmma.SWIZZLE_128B,
                                                   addr_byte_offset=kk * 32)
                b_desc = ptx.wgmma.make_descriptor(sB, leading_byte_offset=16,
                                                   stride_byte_offset=1024,
                                                   swizzle=ptx.wgmma.SWIZZLE_128B,
                                                   addr_byte_offset=kk * 32)
                ptx.wgmma.mma_async(shape=(64, BN, 16), dtype_d=f32, dtype_a=bf16,
                                    dtype_b=bf16, d=acc, a=a_desc, b=b_desc,
                                    scale_d=accumulate if kk == 0 else True,
                                    trans_a=0, trans_b=0)
            ptx.wgmma.commit_group()
            ptx.wgmma.wait_group(0)
            ptx.bar.sync(0)

            k += BK
            ptx.setp("lt", u32, more, k, K)

        # Fragment scatter: 2 columns of rows r and r+8 per 8-column group.
        lane = tid & 31
        row = a_row + ((tid >> 5) << 4) + (lane >> 2)
        col = (reg.from_(ptx.special.ctaid.x(), u32) << 6) + ((lane & 3) << 1)
        (pc,) = ptx.global_ptrs(C)
        top = pc + ((row * N + col) << 2)
        bottom = top + 8 * N * 4
        for g in range(BN // 8):
            for half, base in enumerate((top, bottom)):
                ptx.st(f32, ptx.addr(base, g * 32), acc[4 * g + 2 * half])
                ptx.st(f32, ptx.addr(base, g * 32 + 4), acc[4 * g + 2 * half + 1])
        ptx.ret()

    return grouped_gemm


BUILDS = [("grouped_gemm G3 M128 N64 K128", lambda: build(3, 128, 64, 128), {}, "sm_90a"),
          ("grouped_gemm G8 M64 N128 K256", lambda: build(8, 64, 128, 256), {}, "sm_90a")]
