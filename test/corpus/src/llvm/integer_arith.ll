; corpus-archs: sm_80 sm_90a sm_100a
; Integer arithmetic as a front end would emit it: i8..i128 add/sub/mul/div/rem,
; shifts and funnel-shift rotates, bit counting, byte swaps, min/max/abs,
; saturating and overflow-checked arithmetic, and a checksum loop.
target triple = "nvptx64-nvidia-cuda"

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare i32 @llvm.fshl.i32(i32, i32, i32)
declare i64 @llvm.fshr.i64(i64, i64, i64)
declare i32 @llvm.ctpop.i32(i32)
declare i64 @llvm.ctpop.i64(i64)
declare i32 @llvm.ctlz.i32(i32, i1)
declare i64 @llvm.cttz.i64(i64, i1)
declare i16 @llvm.bswap.i16(i16)
declare i32 @llvm.bswap.i32(i32)
declare i64 @llvm.bswap.i64(i64)
declare i32 @llvm.bitreverse.i32(i32)
declare i64 @llvm.bitreverse.i64(i64)
declare i32 @llvm.smin.i32(i32, i32)
declare i32 @llvm.umax.i32(i32, i32)
declare i64 @llvm.smax.i64(i64, i64)
declare i16 @llvm.umin.i16(i16, i16)
declare i32 @llvm.abs.i32(i32, i1)
declare i64 @llvm.abs.i64(i64, i1)
declare i32 @llvm.sadd.sat.i32(i32, i32)
declare i32 @llvm.usub.sat.i32(i32, i32)
declare i16 @llvm.uadd.sat.i16(i16, i16)
declare { i32, i1 } @llvm.uadd.with.overflow.i32(i32, i32)
declare { i64, i1 } @llvm.smul.with.overflow.i64(i64, i64)
declare i32 @llvm.nvvm.mulhi.i(i32, i32)
declare i64 @llvm.nvvm.mulhi.ull(i64, i64)
declare i32 @llvm.nvvm.prmt(i32, i32, i32)
declare i32 @llvm.nvvm.sad.i(i32, i32, i32)

define ptx_kernel void @int_ops(ptr addrspace(1) %a, ptr addrspace(1) %b, ptr addrspace(1) %out32, ptr addrspace(1) %out64, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %cta = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %base = mul i32 %cta, %ntid
  %i = add i32 %base, %tid
  %inb = icmp slt i32 %i, %n
  br i1 %inb, label %body, label %exit

body:
  %idx = sext i32 %i to i64
  %pa = getelementptr inbounds i32, ptr addrspace(1) %a, i64 %idx
  %pb = getelementptr inbounds i32, ptr addrspace(1) %b, i64 %idx
  %x = load i32, ptr addrspace(1) %pa, align 4
  %y0 = load i32, ptr addrspace(1) %pb, align 4
  %y = or i32 %y0, 1
  %add = add nsw i32 %x, %y
  %sub = sub i32 %x, %y
  %mul = mul i32 %add, %sub
  %sdiv = sdiv i32 %mul, %y
  %udiv = udiv i32 %x, %y
  %srem = srem i32 %x, %y
  %urem = urem i32 %mul, 1000003
  %shl = shl i32 %x, 3
  %lshr = lshr i32 %y, 5
  %ashr = ashr i32 %sub, 7
  %vshl = shl i32 %x, %lshr
  %rot = call i32 @llvm.fshl.i32(i32 %x, i32 %x, i32 13)
  %rotv = call i32 @llvm.fshl.i32(i32 %x, i32 %y, i32 %y)
  %pop = call i32 @llvm.ctpop.i32(i32 %x)
  %clz = call i32 @llvm.ctlz.i32(i32 %y, i1 false)
  %bsw = call i32 @llvm.bswap.i32(i32 %x)
  %brev = call i32 @llvm.bitreverse.i32(i32 %y)
  %smin = call i32 @llvm.smin.i32(i32 %x, i32 %y)
  %umax = call i32 @llvm.umax.i32(i32 %x, i32 %y)
  %abs = call i32 @llvm.abs.i32(i32 %sub, i1 false)
  %sat = call i32 @llvm.sadd.sat.i32(i32 %x, i32 %y)
  %usat = call i32 @llvm.usub.sat.i32(i32 %x, i32 %y)
  %ov = call { i32, i1 } @llvm.uadd.with.overflow.i32(i32 %x, i32 %y)
  %ovv = extractvalue { i32, i1 } %ov, 0
  %ovf = extractvalue { i32, i1 } %ov, 1
  %ovsel = select i1 %ovf, i32 -1, i32 %ovv
  %mulhi = call i32 @llvm.nvvm.mulhi.i(i32 %x, i32 %y)
  %prmt = call i32 @llvm.nvvm.prmt(i32 %x, i32 %y, i32 21520)
  %sad = call i32 @llvm.nvvm.sad.i(i32 %x, i32 %y, i32 %pop)
  %x16 = trunc i32 %x to i16
  %y16 = trunc i32 %y to i16
  %bs16 = call i16 @llvm.bswap.i16(i16 %x16)
  %m16 = call i16 @llvm.umin.i16(i16 %bs16, i16 %y16)
  %h16 = call i16 @llvm.uadd.sat.i16(i16 %m16, i16 %x16)
  %d16 = udiv i16 %h16, 7
  %z16 = zext i16 %d16 to i32
  %x8 = trunc i32 %x to i8
  %y8 = trunc i32 %y to i8
  %m8 = mul i8 %x8, %y8
  %q8 = sdiv i8 %m8, 3
  %z8 = sext i8 %q8 to i32
  %s1 = xor i32 %add, %mul
  %s2 = xor i32 %s1, %sdiv
  %s3 = add i32 %s2, %udiv
  %s4 = xor i32 %s3, %srem
  %s5 = add i32 %s4, %urem
  %s6 = xor i32 %s5, %shl
  %s7 = add i32 %s6, %ashr
  %s8 = xor i32 %s7, %vshl
  %s9 = add i32 %s8, %rot
  %s10 = xor i32 %s9, %rotv
  %s11 = add i32 %s10, %pop
  %s12 = xor i32 %s11, %clz
  %s13 = add i32 %s12, %bsw
  %s14 = xor i32 %s13, %brev
  %s15 = add i32 %s14, %smin
  %s16 = xor i32 %s15, %umax
  %s17 = add i32 %s16, %abs
  %s18 = xor i32 %s17, %sat
  %s19 = add i32 %s18, %usat
  %s20 = xor i32 %s19, %ovsel
  %s21 = add i32 %s20, %mulhi
  %s22 = xor i32 %s21, %prmt
  %s23 = add i32 %s22, %sad
  %s24 = xor i32 %s23, %z16
  %s25 = add i32 %s24, %z8
  %po = getelementptr inbounds i32, ptr addrspace(1) %out32, i64 %idx
  store i32 %s25, ptr addrspace(1) %po, align 4
  ; 64-bit and 128-bit paths
  %x64 = sext i32 %x to i64
  %y64 = zext i32 %y to i64
  %m64 = mul i64 %x64, 6364136223846793005
  %a64 = add i64 %m64, 1442695040888963407
  %d64 = sdiv i64 %a64, %y64
  %r64 = urem i64 %a64, %y64
  %rot64 = call i64 @llvm.fshr.i64(i64 %a64, i64 %a64, i64 29)
  %pc64 = call i64 @llvm.ctpop.i64(i64 %a64)
  %tz64 = call i64 @llvm.cttz.i64(i64 %a64, i1 true)
  %bs64 = call i64 @llvm.bswap.i64(i64 %d64)
  %br64 = call i64 @llvm.bitreverse.i64(i64 %r64)
  %mx64 = call i64 @llvm.smax.i64(i64 %d64, i64 %r64)
  %ab64 = call i64 @llvm.abs.i64(i64 %d64, i1 true)
  %mh64 = call i64 @llvm.nvvm.mulhi.ull(i64 %a64, i64 %y64)
  %smo = call { i64, i1 } @llvm.smul.with.overflow.i64(i64 %a64, i64 %x64)
  %smv = extractvalue { i64, i1 } %smo, 0
  %w1 = zext i64 %a64 to i128
  %w2 = zext i64 %y64 to i128
  %w = mul i128 %w1, %w2
  %wsh = lshr i128 %w, 64
  %whi = trunc i128 %wsh to i64
  %t1 = xor i64 %d64, %r64
  %t2 = add i64 %t1, %rot64
  %t3 = xor i64 %t2, %pc64
  %t4 = add i64 %t3, %tz64
  %t5 = xor i64 %t4, %bs64
  %t6 = add i64 %t5, %br64
  %t7 = xor i64 %t6, %mx64
  %t8 = add i64 %t7, %ab64
  %t9 = xor i64 %t8, %mh64
  %t10 = add i64 %t9, %smv
  %t11 = xor i64 %t10, %whi
  %po64 = getelementptr inbounds i64, ptr addrspace(1) %out64, i64 %idx
  store i64 %t11, ptr addrspace(1) %po64, align 8
  br label %exit

exit:
  ret void
}

; Adler-32 style checksum over a byte buffer: a loop with two carried values,
; a modulo by a constant and an early exit.
define ptx_kernel void @adler32(ptr addrspace(1) noalias %data, ptr addrspace(1) noalias %lens, ptr addrspace(1) noalias %out, i32 %stride) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %cta = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %t0 = mul i32 %cta, %ntid
  %row = add i32 %t0, %tid
  %row64 = zext i32 %row to i64
  %plen = getelementptr inbounds i32, ptr addrspace(1) %lens, i64 %row64
  %len = load i32, ptr addrspace(1) %plen, align 4
  %off = mul i32 %row, %stride
  %off64 = zext i32 %off to i64
  %start = getelementptr inbounds i8, ptr addrspace(1) %data, i64 %off64
  %empty = icmp sle i32 %len, 0
  br i1 %empty, label %done, label %loop

loop:
  %k = phi i32 [ 0, %entry ], [ %k.next, %loop.cont ]
  %s1 = phi i32 [ 1, %entry ], [ %s1.mod, %loop.cont ]
  %s2 = phi i32 [ 0, %entry ], [ %s2.mod, %loop.cont ]
  %k64 = zext i32 %k to i64
  %p = getelementptr inbounds i8, ptr addrspace(1) %start, i64 %k64
  %byte = load i8, ptr addrspace(1) %p, align 1
  %iszero = icmp eq i8 %byte, 0
  br i1 %iszero, label %done, label %loop.cont

loop.cont:
  %bz = zext i8 %byte to i32
  %s1.add = add i32 %s1, %bz
  %s1.mod = urem i32 %s1.add, 65521
  %s2.add = add i32 %s2, %s1.mod
  %s2.mod = urem i32 %s2.add, 65521
  %k.next = add nuw nsw i32 %k, 1
  %more = icmp slt i32 %k.next, %len
  br i1 %more, label %loop, label %done

done:
  %a = phi i32 [ 1, %entry ], [ %s1, %loop ], [ %s1.mod, %loop.cont ]
  %b = phi i32 [ 0, %entry ], [ %s2, %loop ], [ %s2.mod, %loop.cont ]
  %hi = shl i32 %b, 16
  %sum = or i32 %hi, %a
  %po = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %row64
  store i32 %sum, ptr addrspace(1) %po, align 4
  ret void
}
