"""Ampere GEMM with cp.async, ldmatrix and mma.sync: C = A @ B_T^T.

A 32x32 tile of C per CTA, four warps in a 2x2 arrangement, each warp a
16x16 piece (two m16n8k16 accumulators). Each K step of 32 copies the A and
B_T tiles with one 16-byte cp.async per thread each, then ldmatrix.x4
loads a whole m16n8k16 A fragment, and one more the B fragments of both
n8 halves (B_T rows are N, K contiguous: the mma "col" layout as it is).
Index arithmetic uses the typed wrappers (ptx.add(u32, d, a, b), ...).
"""
from pyptx import Tile, kernel, ptx, reg, smem
from pyptx.types import b32, bf16, f32, pred, u32

BM, BN, BK = 32, 32, 32
ROW_BYTES = BK * 2


def build(M, N, K):
    assert M % BM == 0 and N % BN == 0 and K % BK == 0

    @kernel(in_specs=(Tile(M, K, bf16), Tile(N, K, bf16)), out_specs=(Tile(M, N, f32),),
            grid=(N // BN, M // BM, 1), block=(128, 1, 1), arch="sm_80")
    def ampere_mma(A, B_T, C):
        sA = smem.alloc(bf16, (BM, BK))
        sB = smem.alloc(bf16, (BN, BK))
        pa, pb, pc = ptx.global_ptrs(A, B_T, C)

        tid = reg.from_(ptx.special.tid.x(), u32)
        lane = tid & 31
        warp = tid >> 5
        m0 = reg.scalar(u32)
        ptx.shl(u32, m0, reg.from_(ptx.special.ctaid.y(), u32), 5)
        n0 = reg.scalar(u32)
        ptx.shl(u32, n0, reg.from_(ptx.special.ctaid.x(), u32), 5)

        # This warp's piece: rows 16*(warp/2), columns 16 if warp is odd.
        wrow = (warp >> 1) << 4
        odd = reg.scalar(pred)
        ptx.setp("ne", u32, odd, warp & 1, 0)
        wcol = reg.scalar(u32)
        ptx.selp(u32, wcol, 16, 0, odd)

        # cp.async: thread t copies row t/4, bytes 16*(t%4) of each tile.
        cp_row = tid >> 2
        cp_byte = (tid & 3) << 4
        a_smem = reg.scalar(u32)
        ptx.inst.mov.u32(a_smem, sA.name)
        b_smem = reg.scalar(u32)
        ptx.inst.mov.u32(b_smem, sB.name)
        cp_dst = cp_row * ROW_BYTES + cp_byte
        a_src = pa + ((m0 + cp_row) * (K * 2) + cp_byte)
        b_src = pb + ((n0 + cp_row) * (K * 2) + cp_byte)

        # ldmatrix row addresses (bytes into a tile), K step 0.
        a_ld = a_smem + (wrow + (lane & 15)) * ROW_BYTES + ((lane >> 4) << 4)
        b_ld = b_smem + (wcol + ((lane >> 4) << 3) + (lane & 7)) * ROW_BYTES \
            + (((lane >> 3) & 1) << 4)

        acc = [reg.array(f32, 4) for _ in range(2)]
        zero = reg.scalar(f32, init=0.0)
        for frag in acc:
            for i in range(4):
                ptx.mov(f32, frag[i], zero)
        a_frag = reg.array(b32, 4)
        b_frag = reg.array(b32, 4)

        k = reg.scalar(u32, init=0)
        more = reg.scalar(pred)
        ptx.setp("lt", u32, more, k, K)
        with ptx.loop("k_loop", pred=more):
            ptx.cp.async_.cg(ptx.addr(a_smem + cp_dst), ptx.addr(a_src), 16)
            ptx.cp.async_.cg(ptx.addr(b_smem + cp_dst), ptx.addr(b_src), 16)
            ptx.cp.async_.commit_group()
            ptx.cp.async_.wait_group(0)
            ptx.bar.sync(0)

            for kb in range(BK // 16):
                ptx.ldmatrix(dst=[a_frag[i] for i in range(4)], src=ptx.addr(a_ld, kb * 32),
                             layout="m8n8.x4")
                ptx.ldmatrix(dst=[b_frag[i] for i in range(4)], src=ptx.addr(b_ld, kb * 32),
                             layout="m8n8.x4")
                for nf in range(2):
                    ptx.mma.sync(shape=(16, 8, 16), dtype_d=f32, dtype_a=bf16,
                                 dtype_b=bf16, dtype_c=f32,
                                 d=[acc[nf][i] for i in range(4)],
                                 a=[a_frag[i] for i in range(4)],
                                 b=[b_frag[2 * nf], b_frag[2 * nf + 1]],
                                 c=[acc[nf][i] for i in range(4)],
                                 a_layout="row", b_layout="col")
            # All warps are done reading before the next copy lands.
            ptx.bar.sync(0)

            ptx.raw(f"add.u32 {k.name}, {k.name}, {BK};")
            a_src += BK * 2
            b_src += BK * 2
            ptx.setp("lt", u32, more, k, K)

        # mma accumulator: d0,d1 at row lane/4, columns 2*(lane%4)+{0,1};
        # d2,d3 eight rows further.
        row = reg.scalar(u32)
        ptx.add(u32, row, m0, wrow + (lane >> 2))
        col = reg.scalar(u32)
        ptx.add(u32, col, n0, wcol + ((lane & 3) << 1))
        out = pc + ((row * N + col) << 2)
        for nf in range(2):
            ptx.inst.st.global_.v2.f32(ptx.addr(out, nf * 32), [acc[nf][0], acc[nf][1]])
            ptx.inst.st.global_.v2.f32(ptx.addr(out, 8 * N * 4 + nf * 32),
                                       [acc[nf][2], acc[nf][3]])
        ptx.ret()

    return ampere_mma


BUILDS = [("ampere_mma 32x32x32", lambda: build(32, 32, 32), {}, "sm_80"),
          ("ampere_mma 128x64x256", lambda: build(128, 64, 256), {}, "sm_80")]
