"""Warp-specialized Hopper GEMM: a producer warpgroup feeds a consumer
warpgroup through a ring of STAGES shared-memory slots.

Shared memory is laid out by hand in the extern array (extern_smem="smem"):
A and B_T slots, then the `full` and `empty` mbarrier arrays made with
ptx.mbarrier.array. Each side walks the ring with ptx.pipeline; the K
tile count is a run-time parameter (raw_params K), so the main loops are
ptx.kloop. The producer starts its phase at 1: a fresh `empty` barrier
counts as released once.
"""
from pyptx import Tile, kernel, ptx, reg
from pyptx.specs import Layout
from pyptx.types import bf16, f32, u32

BM, BN, BK = 64, 64, 64
STAGES = 3
A_SLOT = BM * BK * 2
B_SLOT = BN * BK * 2
B_OFF = STAGES * A_SLOT
FULL_OFF = B_OFF + STAGES * B_SLOT
EMPTY_OFF = FULL_OFF + 8 * STAGES
SMEM_BYTES = EMPTY_OFF + 8 * STAGES


def build(M, N):
    assert M % BM == 0 and N % BN == 0

    @kernel(
        in_specs=(Tile(M, "K", bf16, Layout.TMA_128B, tma_box=(BM, BK)),
                  Tile(N, "K", bf16, Layout.TMA_128B, tma_box=(BN, BK))),
        out_specs=(Tile(M, N, f32),),
        grid=(N // BN, M // BM, 1),
        block=(256, 1, 1),
        raw_params=[("u32", "k_size")],
        extern_smem="smem",
        smem=SMEM_BYTES,
        raw_directives=[("maxntid", (256, 1, 1)), ("maxnreg", (168,))],
        arch="sm_90a",
    )
    def warp_specialized(A, B_T, C):
        smem_base = reg.scalar(u32)
        ptx.inst.mov.u32(smem_base, "smem")
        full = ptx.mbarrier.array(smem_base, FULL_OFF, STAGES)
        empty = ptx.mbarrier.array(smem_base, EMPTY_OFF, STAGES)

        k_tiles = ptx.param(u32, "k_size") >> 6
        tid = reg.from_(ptx.special.tid.x(), u32)
        m0 = reg.from_(ptx.special.ctaid.y(), u32) << 6
        n0 = reg.from_(ptx.special.ctaid.x(), u32) << 6

        with ptx.if_(tid == 0):
            full.init_all(1)
            empty.init_all(128)
            ptx.fence.mbarrier_init()
        ptx.bar.sync(0)

        with ptx.if_(tid < 128):
            # Producer: one thread issues the copies.
            ptx.setmaxnreg(40, inc=False)
            with ptx.if_(tid == 0):
                pipe = ptx.pipeline(STAGES, phase=reg.scalar(u32, init=1))
                k = reg.scalar(u32, init=0)
                # The descriptors are read in both the unrolled loop and its
                # remainder: made here, before either (made inside the loop,
                # a single K tile would skip it and read them unwritten).
                a_desc, b_desc = A.tma_desc(), B_T.tma_desc()

                def produce():
                    stage, phase = pipe.advance()
                    empty.at(stage).wait(phase)
                    slot = full.at(stage)
                    slot.arrive_expect_tx(A_SLOT + B_SLOT)
                    ptx.cp.async_.bulk.tensor_2d(dst=smem_base + (stage << 13),
                                                 src=a_desc, coord=(k, m0), mbar=slot)
                    ptx.cp.async_.bulk.tensor_2d(dst=smem_base + B_OFF + (stage << 13),
                                                 src=b_desc, coord=(k, n0), mbar=slot)
                    ptx.inst.add.u32(k, k, BK)

                ptx.kloop(k_tiles, unroll=2, loop_label="produce", body=produce)
        with ptx.else_():
            # Consumer warpgroup: wgmma on each filled slot, then release it.
            ptx.setmaxnreg(232, inc=True)
            acc = reg.array(f32, BN // 2)
            zero = reg.scalar(f32, init=0.0)
            for i in range(BN // 2):
                ptx.inst.mov.f32(acc[i], zero)
            pipe = ptx.pipeline(STAGES)

            def consume():
                stage, phase = pipe.advance()
                full.at(stage).wait(phase)
                a_addr = smem_base + (stage << 13)
                b_addr = a_addr + B_OFF
                ptx.wgmma.fence()
                for kk in range(BK // 16):
                    descs = [ptx.wgmma.make_descriptor(x, leading_byte_offset=16,
                                                       stride_byte_offset=1024,
                                                       swizzle=ptx.wgmma.SWIZZLE_128B,
                                                       addr_byte_offset=kk * 32)
                             for x in (a_addr, b_addr)]
                    ptx.wgmma.mma_async(shape=(64, BN, 16), dtype_d=f32, dtype_a=bf16,
                                        dtype_b=bf16, d=acc, a=descs[0], b=descs[1],
                                        scale_d=True, trans_a=0, trans_b=0)
                ptx.wgmma.commit_group()
                ptx.wgmma.wait_group(0)
                empty.at(stage).arrive()

            ptx.kloop(k_tiles, unroll=2, loop_label="consume", body=consume)
            ptx.named_barrier(1, count=128).sync()

            me = tid - 128
            lane = me & 31
            row = m0 + ((me >> 5) << 4) + (lane >> 2)
            col = n0 + ((lane & 3) << 1)
            (pc,) = ptx.global_ptrs(C)
            top = pc + ((row * N + col) << 2)
            for g in range(BN // 8):
                ptx.inst.st.global_.v2.f32(ptx.addr(top, 32 * g), [acc[4 * g], acc[4 * g + 1]])
                ptx.inst.st.global_.v2.f32(ptx.addr(top, 32 * g + 8 * N * 4),
                                           [acc[4 * g + 2], acc[4 * g + 3]])
        ptx.ret()

    return warp_specialized


BUILDS = [("warp_specialized 128x128 K=512", lambda: build(128, 128), {"K": 512}, "sm_90a")]
