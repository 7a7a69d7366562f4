"""Hopper GEMM: C = A @ B, bf16 in, f32 out, one 64x64 tile per CTA.

A two-slot ring: while wgmma works on slot s, TMA fills slot s^1. The
K loop is unrolled in Python (K is known when the kernel is built); each
slot has its own mbarrier and phase register. The leading dimension of C
comes in as a raw u32 parameter.
"""
from pyptx import Tile, kernel, ptx, reg, smem
from pyptx.types import b32, bf16, f32, u32

BM, BN, BK = 64, 64, 64
SLOTS = 2
A_BYTES = BM * BK * 2
B_BYTES = BK * BN * 2


def build(M, N, K):
    assert M % BM == 0 and N % BN == 0 and K % BK == 0
    k_tiles = K // BK

    @kernel(
        in_specs=(Tile.wgmma_a(M, K, bf16, tile_m=BM, tile_k=BK),
                  Tile.wgmma_b(K, N, bf16, tile_k=BK, tile_n=BN)),
        out_specs=(Tile(M, N, f32),),
        grid=(N // BN, M // BM, 1),
        block=(128, 1, 1),
        raw_params=[("u32", "ldc")],
        arch="sm_90a",
    )
    def hopper_gemm(A, B, C):
        sA = smem.wgmma_tile(bf16, (SLOTS, BM, BK), major="K")
        sB = smem.wgmma_tile(bf16, (SLOTS, BK, BN), major="MN")
        full = smem.mbarrier(SLOTS)
        phase = [reg.scalar(b32, init=0) for _ in range(SLOTS)]
        acc = reg.wgmma_frag(m=64, n=BN, dtype=f32)

        ldc = ptx.param(u32, "ldc")
        m0 = reg.from_(ptx.special.ctaid.y(), u32) * BM
        n0 = reg.from_(ptx.special.ctaid.x(), u32) * BN
        tid = reg.from_(ptx.special.tid.x(), u32)
        leader = tid == 0

        with ptx.if_(leader):
            for s in range(SLOTS):
                ptx.mbarrier.init(full[s], 1)
            ptx.fence.proxy_async_shared_cta()
        ptx.bar.sync(0)

        def load(kt):
            s = kt % SLOTS
            with ptx.if_(leader):
                ptx.mbarrier.arrive_expect_tx(full[s], A_BYTES + B_BYTES)
                ptx.cp.async_.bulk.tensor_2d(dst=sA[s], src=A.tma_desc(),
                                             coord=(kt * BK, m0), mbar=full[s])
                ptx.cp.async_.bulk.tensor_2d(dst=sB[s], src=B.tma_desc(),
                                             coord=(n0, kt * BK), mbar=full[s])

        load(0)
        for kt in range(k_tiles):
            s = kt % SLOTS
            if kt + 1 < k_tiles:
                load(kt + 1)
            ptx.mbarrier.wait(full[s], phase[s])
            phase[s] ^= 1
            ptx.wgmma.fence()
            for kk in range(BK // 16):
                ptx.wgmma.mma_async(shape=(64, BN, 16), dtype_d=f32, dtype_a=bf16,
                                    dtype_b=bf16, d=acc, a=sA[s], b=sB[s],
                                    scale_d=(kt + kk > 0), trans_a=0, trans_b=1,
                                    a_k_offset=kk * 32, b_k_offset=kk * 16 * BN * 2)
            ptx.wgmma.commit_group()
            ptx.wgmma.wait_group(0)
            # Every thread is past this slot's wgmma before TMA refills it.
            ptx.bar.sync(0)

        # Accumulator fragment: register 4g+j of a thread holds row
        # 16*warp + lane/4 (+8 for j >= 2), column 8g + 2*(lane%4) + j%2.
        warp = tid >> 5
        lane = tid & 31
        row = m0 + (warp << 4) + (lane >> 2)
        col = n0 + ((lane & 3) << 1)
        (pc,) = ptx.global_ptrs(C)
        row_bytes = reg.scalar(u32)
        ptx.mul(u32, row_bytes, ldc, 4)
        top = pc + (row * row_bytes + col * 4)
        bottom = top + (row_bytes << 3)
        for g in range(BN // 8):
            ptx.inst.st.global_.v2.f32(ptx.addr(top, g * 32), [acc[4 * g], acc[4 * g + 1]])
            ptx.inst.st.global_.v2.f32(ptx.addr(bottom, g * 32), [acc[4 * g + 2], acc[4 * g + 3]])
        ptx.ret()

    return hopper_gemm


BUILDS = [("hopper_gemm 128x192x256", lambda: build(128, 192, 256), {}, "sm_90a"),
          ("hopper_gemm 64x64x128", lambda: build(64, 64, 128), {}, "sm_90a")]
