"""Attention forward for one 64-row query block: O = softmax(Q K^T * scale) V.

Two wgmma stages per key tile with the softmax between them in registers:
S = Q K^T lands in an f32 fragment, each row's running max and sum are
combined across the four lanes that share the row (ptx.warp.reduce_*
with width=4), P = exp2(S - max) is packed to bf16 and stored into a
128B-swizzled tile (apply_swizzle), and O += P V reads it back as wgmma's
A operand. Q is loaded once; K^T and V stream through one buffer.
"""
import math

from pyptx import Tile, kernel, ptx, reg, smem
from pyptx.smem import apply_swizzle
from pyptx.types import b32, bf16, f32, u32

BM, BN, HD = 64, 64, 32
LOG2E = 1.4426950408889634


def _position(i):
    """(second row?, column) of register i of an m64nN f32 fragment, relative to
    the thread's first row (16*warp + lane/4) and column (2*(lane%4))."""
    return bool((i // 2) % 2), 8 * (i // 4) + i % 2


def build(M_q, N_kv):
    assert M_q % BM == 0 and N_kv % BN == 0
    scale = LOG2E / math.sqrt(HD)
    s_regs = BN // 2
    o_regs = HD // 2

    @kernel(
        in_specs=(Tile.wgmma_a(M_q, HD, bf16, tile_m=BM),
                  Tile.wgmma_b(HD, N_kv, bf16, tile_n=BN),
                  Tile.wgmma_b(N_kv, HD, bf16, tile_k=BN, tile_n=HD)),
        out_specs=(Tile(M_q, HD, f32),),
        grid=(M_q // BM, 1, 1),
        block=(128, 1, 1),
        arch="sm_90a",
    )
    def attention(Q, K_t, V, O):
        sQ = smem.wgmma_tile(bf16, (BM, HD), major="K")
        sK = smem.wgmma_tile(bf16, (HD, BN), major="MN")
        sV = smem.wgmma_tile(bf16, (BN, HD), major="MN")
        sP = smem.wgmma_tile(bf16, (BM, BN), major="K")
        bars = smem.mbarrier(2)
        q_phase = reg.scalar(b32, init=0)
        kv_phase = reg.scalar(b32, init=0)

        tid = reg.from_(ptx.special.tid.x(), u32)
        q_row = reg.from_(ptx.special.ctaid.x(), u32) * BM
        lane = tid & 31
        row = ((tid >> 5) << 4) + (lane >> 2)
        col = (lane & 3) << 1

        with ptx.if_(tid == 0):
            ptx.mbarrier.init(bars[0], 1)
            ptx.mbarrier.init(bars[1], 1)
            ptx.fence.proxy_async_shared_cta()
            ptx.mbarrier.arrive_expect_tx(bars[0], BM * HD * 2)
            ptx.cp.async_.bulk.tensor_2d(dst=sQ[0], src=Q.tma_desc(), coord=(0, q_row),
                                         mbar=bars[0])
        ptx.bar.sync(0)
        ptx.mbarrier.wait(bars[0], q_phase)

        scale_reg = reg.scalar(f32, init=scale)
        row_max = [reg.scalar(f32, init=-1e30) for _ in range(2)]
        row_sum = [reg.scalar(f32, init=0.0) for _ in range(2)]
        acc = reg.wgmma_frag(m=64, n=HD, dtype=f32)
        zero = reg.scalar(f32, init=0.0)
        for i in range(o_regs):
            ptx.inst.mov.f32(acc[i], zero)

        sP_base = reg.scalar(u32)
        ptx.inst.mov.b32(sP_base, sP.name)
        # Byte offsets of this thread's P entries in a row-major 64 x BN tile.
        p_row_off = [(row + 8 * half) * (BN * 2) for half in range(2)]

        for j in range(N_kv // BN):
            with ptx.if_(tid == 0):
                ptx.mbarrier.arrive_expect_tx(bars[1], HD * BN * 2 + BN * HD * 2)
                ptx.cp.async_.bulk.tensor_2d(dst=sK[0], src=K_t.tma_desc(),
                                             coord=(j * BN, 0), mbar=bars[1])
                ptx.cp.async_.bulk.tensor_2d(dst=sV[0], src=V.tma_desc(),
                                             coord=(0, j * BN), mbar=bars[1])
            ptx.mbarrier.wait(bars[1], kv_phase)
            kv_phase ^= 1

            # Stage 1: S = Q K^T.
            s = reg.array(f32, s_regs)
            ptx.wgmma.fence()
            for kk in range(HD // 16):
                ptx.wgmma.mma_async(shape=(64, BN, 16), dtype_d=f32, dtype_a=bf16,
                                    dtype_b=bf16, d=s, a=sQ, b=sK, scale_d=(kk > 0),
                                    trans_a=0, trans_b=1, a_k_offset=kk * 32,
                                    b_k_offset=kk * 16 * BN * 2)
            ptx.wgmma.commit_group()
            ptx.wgmma.wait_group(0)

            # Online softmax, per half (rows r and r + 8).
            for half in range(2):
                mine = [i for i in range(s_regs) if _position(i)[0] == bool(half)]
                new_max = reg.scalar(f32)
                ptx.inst.mul.f32(s[mine[0]], s[mine[0]], scale_reg)
                ptx.inst.mov.f32(new_max, s[mine[0]])
                for i in mine[1:]:
                    ptx.inst.mul.f32(s[i], s[i], scale_reg)
                    ptx.inst.max.f32(new_max, new_max, s[i])
                ptx.warp.reduce_max(new_max, width=4)
                ptx.inst.max.f32(new_max, new_max, row_max[half])
                alpha = reg.scalar(f32)
                ptx.inst.sub.f32(alpha, row_max[half], new_max)
                ptx.inst.ex2.approx.f32(alpha, alpha)
                ptx.inst.mov.f32(row_max[half], new_max)
                tile_sum = reg.scalar(f32, init=0.0)
                for i in mine:
                    ptx.inst.sub.f32(s[i], s[i], new_max)
                    ptx.inst.ex2.approx.f32(s[i], s[i])
                    ptx.inst.add.f32(tile_sum, tile_sum, s[i])
                ptx.warp.reduce_sum(tile_sum, width=4)
                ptx.inst.fma.rn.f32(row_sum[half], row_sum[half], alpha, tile_sum)
                for i in range(o_regs):
                    if _position(i)[0] == bool(half):
                        ptx.inst.mul.f32(acc[i], acc[i], alpha)

            # P (bf16 pairs) into the swizzled tile wgmma reads as A.
            for i in range(0, s_regs, 2):
                second, c = _position(i)
                logical = p_row_off[second] + (col + c) * 2
                physical = apply_swizzle(logical, "128B")
                pair = reg.scalar(b32)
                ptx.inst.cvt.rn.bf16x2.f32(pair, s[i + 1], s[i])
                ptx.inst.st.shared.b32(ptx.addr(sP_base + physical), pair)
            ptx.fence.proxy_async_shared_cta()
            ptx.bar.sync(0, 128)

            # Stage 2: O += P V.
            ptx.wgmma.fence()
            for kk in range(BN // 16):
                ptx.wgmma.mma_async(shape=(64, HD, 16), dtype_d=f32, dtype_a=bf16,
                                    dtype_b=bf16, d=acc, a=sP, b=sV, scale_d=True,
                                    trans_a=0, trans_b=1, a_k_offset=kk * 32,
                                    b_k_offset=kk * 16 * HD * 2)
            ptx.wgmma.commit_group()
            ptx.wgmma.wait_group(0)
            ptx.bar.sync(0, 128)

        inv = []
        for half in range(2):
            r = reg.scalar(f32)
            ptx.inst.rcp.approx.f32(r, row_sum[half])
            inv.append(r)
        (po,) = ptx.global_ptrs(O)
        out = po + (((q_row + row) * HD + col) << 2)
        for i in range(0, o_regs, 2):
            second, c = _position(i)
            pair = [reg.scalar(f32), reg.scalar(f32)]
            ptx.inst.mul.f32(pair[0], acc[i], inv[second])
            ptx.inst.mul.f32(pair[1], acc[i + 1], inv[second])
            ptx.inst.st.global_.v2.f32(ptx.addr(out, (8 * HD * second + c) * 4), pair)
        ptx.ret()

    return attention


BUILDS = [("attention M64 N64", lambda: build(64, 64), {}, "sm_90a"),
          ("attention M256 N256", lambda: build(256, 256), {}, "sm_90a")]
