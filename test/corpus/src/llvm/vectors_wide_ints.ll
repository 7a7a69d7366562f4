; corpus-archs: sm_80 sm_90a sm_100a
; Vector and wide-integer code: <4 x i8>/<2 x i16>/<8 x half>/<4 x i32>
; arithmetic, shufflevector permutes, insert/extract with variable indices,
; v2/v4 loads and stores in global, shared and local memory, i128 add/mul/
; shift/compare, and a vectorised dot-product loop with a horizontal reduction.
target triple = "nvptx64-nvidia-cuda"

@vtile = internal addrspace(3) global [64 x <4 x i32>] undef, align 16

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare void @llvm.nvvm.barrier.cta.sync.aligned.all(i32)
declare float @llvm.vector.reduce.fadd.v4f32(float, <4 x float>)
declare i32 @llvm.vector.reduce.add.v4i32(<4 x i32>)
declare i8 @llvm.vector.reduce.umax.v4i8(<4 x i8>)
declare <4 x i8> @llvm.uadd.sat.v4i8(<4 x i8>, <4 x i8>)
declare <2 x i16> @llvm.smax.v2i16(<2 x i16>, <2 x i16>)

define ptx_kernel void @byte_and_short_vectors(ptr addrspace(1) noalias %bytes, ptr addrspace(1) noalias %shorts, ptr addrspace(1) noalias %out) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %t64 = zext i32 %tid to i64
  %pb = getelementptr inbounds <4 x i8>, ptr addrspace(1) %bytes, i64 %t64
  %b = load <4 x i8>, ptr addrspace(1) %pb, align 4
  %b2 = add <4 x i8> %b, <i8 1, i8 2, i8 3, i8 4>
  %b3 = call <4 x i8> @llvm.uadd.sat.v4i8(<4 x i8> %b2, <4 x i8> %b)
  %bsw = shufflevector <4 x i8> %b3, <4 x i8> %b, <4 x i32> <i32 3, i32 6, i32 1, i32 4>
  %bmax = call i8 @llvm.vector.reduce.umax.v4i8(<4 x i8> %bsw)
  store <4 x i8> %bsw, ptr addrspace(1) %pb, align 4
  %ps = getelementptr inbounds <2 x i16>, ptr addrspace(1) %shorts, i64 %t64
  %s = load <2 x i16>, ptr addrspace(1) %ps, align 4
  %s2 = mul <2 x i16> %s, <i16 3, i16 -5>
  %s3 = call <2 x i16> @llvm.smax.v2i16(<2 x i16> %s2, <2 x i16> %s)
  %s4 = ashr <2 x i16> %s3, <i16 1, i16 2>
  %srev = shufflevector <2 x i16> %s4, <2 x i16> poison, <2 x i32> <i32 1, i32 0>
  store <2 x i16> %srev, ptr addrspace(1) %ps, align 4
  %sel = and i32 %tid, 3
  %dyn = extractelement <4 x i8> %b3, i32 %sel
  %dz = zext i8 %dyn to i32
  %mz = zext i8 %bmax to i32
  %e0 = extractelement <2 x i16> %srev, i32 0
  %ez = sext i16 %e0 to i32
  %r1 = add i32 %dz, %mz
  %r2 = add i32 %r1, %ez
  %po = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %t64
  store i32 %r2, ptr addrspace(1) %po, align 4
  ret void
}

define ptx_kernel void @half8_and_int4(ptr addrspace(1) noalias %h8, ptr addrspace(1) noalias %i4) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %t64 = zext i32 %tid to i64
  %ph = getelementptr inbounds <8 x half>, ptr addrspace(1) %h8, i64 %t64
  %h = load <8 x half>, ptr addrspace(1) %ph, align 16
  %hh = fmul <8 x half> %h, %h
  %ha = fadd <8 x half> %hh, <half 0xH3C00, half 0xH4000, half 0xH4200, half 0xH4400, half 0xH4500, half 0xH4600, half 0xH4700, half 0xH4800>
  %lo = shufflevector <8 x half> %ha, <8 x half> poison, <4 x i32> <i32 0, i32 2, i32 4, i32 6>
  %hi = shufflevector <8 x half> %ha, <8 x half> poison, <4 x i32> <i32 1, i32 3, i32 5, i32 7>
  %mx = fsub <4 x half> %hi, %lo
  %wide = shufflevector <4 x half> %mx, <4 x half> %lo, <8 x i32> <i32 0, i32 4, i32 1, i32 5, i32 2, i32 6, i32 3, i32 7>
  store <8 x half> %wide, ptr addrspace(1) %ph, align 16
  %pi = getelementptr inbounds <4 x i32>, ptr addrspace(1) %i4, i64 %t64
  %v = load <4 x i32>, ptr addrspace(1) %pi, align 16
  %st = getelementptr inbounds [64 x <4 x i32>], ptr addrspace(3) @vtile, i64 0, i64 %t64
  store <4 x i32> %v, ptr addrspace(3) %st, align 16
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %nb = xor i64 %t64, 63
  %ld = getelementptr inbounds [64 x <4 x i32>], ptr addrspace(3) @vtile, i64 0, i64 %nb
  %w = load <4 x i32>, ptr addrspace(3) %ld, align 16
  %loc = alloca [4 x <4 x i32>], align 16
  %lidx = and i64 %t64, 3
  %lp = getelementptr inbounds [4 x <4 x i32>], ptr %loc, i64 0, i64 %lidx
  store volatile <4 x i32> %w, ptr %lp, align 16
  %lw = load volatile <4 x i32>, ptr %lp, align 16
  %sum = add <4 x i32> %v, %lw
  %sh = shl <4 x i32> %sum, <i32 1, i32 2, i32 3, i32 4>
  %cmp = icmp sgt <4 x i32> %sh, zeroinitializer
  %sel = select <4 x i1> %cmp, <4 x i32> %sh, <4 x i32> %v
  %red = call i32 @llvm.vector.reduce.add.v4i32(<4 x i32> %sel)
  %ins = insertelement <4 x i32> %sel, i32 %red, i32 0
  store <4 x i32> %ins, ptr addrspace(1) %pi, align 16
  ret void
}

; 128-bit counters and a 64x64->128 multiply-accumulate.
define ptx_kernel void @u128_math(ptr addrspace(1) noalias %acc, ptr addrspace(1) noalias %a, ptr addrspace(1) noalias %b, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %t64 = zext i32 %tid to i64
  %pacc = getelementptr inbounds i128, ptr addrspace(1) %acc, i64 %t64
  %init = load i128, ptr addrspace(1) %pacc, align 16
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %s = phi i128 [ %init, %entry ], [ %s.next, %loop ]
  %i64 = zext i32 %i to i64
  %pa = getelementptr inbounds i64, ptr addrspace(1) %a, i64 %i64
  %pb = getelementptr inbounds i64, ptr addrspace(1) %b, i64 %i64
  %x = load i64, ptr addrspace(1) %pa, align 8
  %y = load i64, ptr addrspace(1) %pb, align 8
  %xw = zext i64 %x to i128
  %yw = zext i64 %y to i128
  %p = mul i128 %xw, %yw
  %s.next = add i128 %s, %p
  %i.next = add nuw i32 %i, 1
  %c = icmp ult i32 %i.next, %n
  br i1 %c, label %loop, label %done
done:
  %hi = lshr i128 %s.next, 64
  %mix = xor i128 %s.next, %hi
  %rot = shl i128 %mix, 7
  %big = icmp ugt i128 %rot, 340282366920938463463374607431768211000
  %neg = sub i128 0, %rot
  %r = select i1 %big, i128 %neg, i128 %rot
  store i128 %r, ptr addrspace(1) %pacc, align 16
  ret void
}

; Vectorised dot product (what the loop vectoriser produces for a float loop).
define ptx_kernel void @dot_v4(ptr addrspace(1) noalias readonly %x, ptr addrspace(1) noalias readonly %y, ptr addrspace(1) noalias %out, i32 %n4) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %start = zext i32 %tid to i64
  %n = zext i32 %n4 to i64
  %empty = icmp uge i64 %start, %n
  br i1 %empty, label %exit, label %loop
loop:
  %i = phi i64 [ %start, %entry ], [ %i.next, %loop ]
  %acc = phi <4 x float> [ zeroinitializer, %entry ], [ %acc.next, %loop ]
  %px = getelementptr inbounds <4 x float>, ptr addrspace(1) %x, i64 %i
  %py = getelementptr inbounds <4 x float>, ptr addrspace(1) %y, i64 %i
  %vx = load <4 x float>, ptr addrspace(1) %px, align 16, !invariant.load !0
  %vy = load <4 x float>, ptr addrspace(1) %py, align 16, !invariant.load !0
  %m = fmul contract <4 x float> %vx, %vy
  %acc.next = fadd contract <4 x float> %acc, %m
  %i.next = add nuw i64 %i, 32
  %more = icmp ult i64 %i.next, %n
  br i1 %more, label %loop, label %reduce, !llvm.loop !1
reduce:
  %r = call reassoc float @llvm.vector.reduce.fadd.v4f32(float 0.0, <4 x float> %acc.next)
  %po = getelementptr inbounds float, ptr addrspace(1) %out, i64 %start
  store float %r, ptr addrspace(1) %po, align 4
  br label %exit
exit:
  ret void
}

!0 = !{}
!1 = distinct !{!1, !2}
!2 = !{!"llvm.loop.unroll.disable"}
