"""Blackwell tcgen05 probe: one 128 x N x 64 tile through TMEM.

TMA brings A (128 x 64) and B_T (N x 64), both K-major with the 128B
swizzle, into the extern shared array; warp 0 allocates TMEM; thread 0
issues four tcgen05.mma (one per 16-wide K slice: the descriptors advance
by 32 bytes, 2 in their 16-byte address units) and commits them to an
mbarrier; then every thread reads its accumulator row back with
tcgen05.ld (32x32b: thread t of warp w gets TMEM lane 32*w + t) and
stores it. The layout of shared memory is hand-placed from smem.base().
"""
from pyptx import Tile, kernel, ptx, reg, smem
from pyptx.specs import Layout
from pyptx.types import b32, b64, bf16, f32, u32

BM, BK = 128, 64
A_OFF = 0
A_BYTES = BM * BK * 2


def build(N, *, columns_per_load=32):
    assert N % columns_per_load == 0 and N in (64, 128, 256)
    b_bytes = N * BK * 2
    bar_off = A_OFF + A_BYTES + b_bytes
    slot_off = bar_off + 16
    smem_bytes = slot_off + 16
    idesc = ptx.tcgen05.make_instr_desc_f16bf16_f32(m=BM, n=N)

    @kernel(
        in_specs=(Tile(BM, BK, bf16, Layout.TMA_128B, tma_box=(BM, BK)),
                  Tile(N, BK, bf16, Layout.TMA_128B, tma_box=(N, BK))),
        out_specs=(Tile(BM, N, f32),),
        grid=(1, 1, 1), block=(128, 1, 1), arch="sm_100a",
        smem=smem_bytes, extern_smem=True,
    )
    def tcgen05_probe(A, B_T, D):
        base = smem.base()
        bar = base + bar_off
        slot = base + slot_off
        phase = reg.scalar(b32, init=0)
        tid = reg.from_(ptx.special.tid.x(), u32)
        warp = tid >> 5

        with ptx.if_(tid == 0):
            ptx.mbarrier.init(bar, 1)
            ptx.fence.proxy_async_shared_cta()
        with ptx.if_(warp == 0):
            ptx.tcgen05.alloc(slot, N)
        ptx.bar.sync(0)
        tmem = smem.load(b32, ptx.addr(slot))

        with ptx.if_(tid == 0):
            ptx.mbarrier.arrive_expect_tx(bar, A_BYTES + b_bytes)
            ptx.cp.async_.bulk.tensor_2d(dst=base + A_OFF, src=A.tma_desc(), coord=(0, 0),
                                         mbar=bar)
            ptx.cp.async_.bulk.tensor_2d(dst=base + A_BYTES, src=B_T.tma_desc(),
                                         coord=(0, 0), mbar=bar)
        ptx.mbarrier.wait(bar, phase)
        phase ^= 1

        with ptx.if_(tid == 0):
            a0 = ptx.tcgen05.descriptor(base, byte_offset=A_OFF, stride_bytes=1024,
                                        leading_bytes=16, swizzle="128B")
            b0 = ptx.tcgen05.descriptor(base, byte_offset=A_BYTES, stride_bytes=1024,
                                        leading_bytes=16, swizzle="128B")
            for kk in range(BK // 16):
                a, b = a0, b0
                if kk:
                    a, b = reg.scalar(b64), reg.scalar(b64)
                    ptx.inst.add.s64(a, a0, kk * 2)
                    ptx.inst.add.s64(b, b0, kk * 2)
                ptx.tcgen05.mma(tmem, a, b, idesc, kind="f16", pred_operand=(kk > 0))
            ptx.tcgen05.commit(bar, space="cluster")
        ptx.mbarrier.wait(bar, phase)
        ptx.tcgen05.fence_after_thread_sync()

        # TMEM lane (row) in bits 31..16, column in 15..0.
        lane_addr = tmem + ((warp << 5) << 16)
        (pd,) = ptx.global_ptrs(D)
        out_row = pd + tid * (N * 4)
        vals = reg.array(b32, columns_per_load)
        for c0 in range(0, N, columns_per_load):
            ptx.tcgen05.ld([vals[i] for i in range(columns_per_load)], lane_addr + c0,
                           shape="32x32b", count=columns_per_load, dtype="b32")
            ptx.tcgen05.wait_ld()
            for v in range(columns_per_load // 4):
                ptx.inst.st.global_.v4.b32(ptx.addr(out_row, (c0 + 4 * v) * 4),
                                           [vals[4 * v + i] for i in range(4)])

        ptx.tcgen05.fence_before_thread_sync()
        ptx.bar.sync(0)
        with ptx.if_(warp == 0):
            ptx.tcgen05.dealloc(tmem, N)
            ptx.tcgen05.relinquish_alloc_permit()
        ptx.ret()

    return tcgen05_probe


BUILDS = [("tcgen05_probe N64", lambda: build(64), {}, "sm_100a"),
          ("tcgen05_probe N256 x64 loads", lambda: build(256, columns_per_load=64), {},
           "sm_100a")]
