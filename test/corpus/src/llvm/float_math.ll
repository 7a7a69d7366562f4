; corpus-archs: sm_80 sm_90a sm_100a
; Floating point: f32/f64 arithmetic with fast-math flags, fma/fmuladd,
; sqrt/rsqrt/rcp/div approximations, min/max flavours, rounding, f16/bf16
; scalar and packed arithmetic, NVVM math intrinsics (ex2/lg2/sin/cos/tanh
; approximations, ftz variants), and fcmp with every predicate.
target triple = "nvptx64-nvidia-cuda"

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare float @llvm.fma.f32(float, float, float)
declare double @llvm.fma.f64(double, double, double)
declare float @llvm.fmuladd.f32(float, float, float)
declare float @llvm.sqrt.f32(float)
declare double @llvm.sqrt.f64(double)
declare float @llvm.fabs.f32(float)
declare float @llvm.minnum.f32(float, float)
declare float @llvm.maxnum.f32(float, float)
declare float @llvm.minimum.f32(float, float)
declare float @llvm.maximum.f32(float, float)
declare double @llvm.minnum.f64(double, double)
declare float @llvm.copysign.f32(float, float)
declare float @llvm.floor.f32(float)
declare float @llvm.ceil.f32(float)
declare float @llvm.trunc.f32(float)
declare float @llvm.rint.f32(float)
declare float @llvm.round.f32(float)
declare double @llvm.floor.f64(double)
declare float @llvm.nvvm.ex2.approx.ftz.f(float)
declare float @llvm.nvvm.lg2.approx.f(float)
declare float @llvm.nvvm.sin.approx.ftz.f(float)
declare float @llvm.nvvm.cos.approx.f(float)
declare float @llvm.nvvm.rsqrt.approx.f(float)
declare double @llvm.nvvm.rsqrt.approx.d(double)
declare float @llvm.nvvm.rcp.rn.f(float)
declare double @llvm.nvvm.rcp.rz.d(double)
declare float @llvm.nvvm.div.approx.f(float, float)
declare float @llvm.nvvm.div.rp.ftz.f(float, float)
declare float @llvm.nvvm.sqrt.approx.f(float)
declare float @llvm.nvvm.sqrt.rn.ftz.f(float)
declare float @llvm.nvvm.fma.rz.f(float, float, float)
declare double @llvm.nvvm.fma.rm.d(double, double, double)
declare float @llvm.nvvm.fmin.nan.f(float, float)
declare float @llvm.nvvm.fmax.ftz.nan.f(float, float)
declare float @llvm.nvvm.saturate.f(float)
declare float @llvm.nvvm.add.rm.f(float, float)
declare float @llvm.nvvm.mul.rp.ftz.f(float, float)
declare double @llvm.nvvm.add.rz.d(double, double)
declare float @llvm.nvvm.fabs.ftz(float)
declare float @llvm.nvvm.tanh.approx.f32(float)
declare half @llvm.fma.f16(half, half, half)
declare <2 x half> @llvm.fma.v2f16(<2 x half>, <2 x half>, <2 x half>)
declare <2 x bfloat> @llvm.nvvm.fma.rn.relu.bf16x2(<2 x bfloat>, <2 x bfloat>, <2 x bfloat>)
declare <2 x half> @llvm.nvvm.fmax.f16x2(<2 x half>, <2 x half>)
declare bfloat @llvm.nvvm.fmin.bf16(bfloat, bfloat)
declare half @llvm.nvvm.ex2.approx.f16(half)
declare <2 x half> @llvm.nvvm.ex2.approx.f16x2(<2 x half>)

define ptx_kernel void @f32_kernel(ptr addrspace(1) noalias %x, ptr addrspace(1) noalias %y, ptr addrspace(1) noalias %out) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i = zext i32 %tid to i64
  %px = getelementptr inbounds float, ptr addrspace(1) %x, i64 %i
  %py = getelementptr inbounds float, ptr addrspace(1) %y, i64 %i
  %a = load float, ptr addrspace(1) %px, align 4
  %b = load float, ptr addrspace(1) %py, align 4
  %add = fadd float %a, %b
  %sub = fsub nnan float %a, %b
  %mul = fmul contract float %add, %sub
  %div = fdiv float %mul, %b
  %fdiv = fdiv afn float %a, %b
  %rem = frem float %a, %b
  %neg = fneg float %rem
  %fma = call float @llvm.fma.f32(float %a, float %b, float %neg)
  %fmad = call float @llvm.fmuladd.f32(float %div, float %fdiv, float %fma)
  %abs = call float @llvm.fabs.f32(float %fmad)
  %sqrt = call float @llvm.sqrt.f32(float %abs)
  %asqrt = call afn float @llvm.sqrt.f32(float %abs)
  %mn = call float @llvm.minnum.f32(float %sqrt, float %asqrt)
  %mx = call float @llvm.maxnum.f32(float %mn, float %a)
  %mnm = call float @llvm.minimum.f32(float %mx, float %b)
  %mxm = call float @llvm.maximum.f32(float %mnm, float %a)
  %cs = call float @llvm.copysign.f32(float %mxm, float %b)
  %fl = call float @llvm.floor.f32(float %cs)
  %ce = call float @llvm.ceil.f32(float %cs)
  %tr = call float @llvm.trunc.f32(float %cs)
  %ri = call float @llvm.rint.f32(float %cs)
  %ro = call float @llvm.round.f32(float %cs)
  %ex2 = call float @llvm.nvvm.ex2.approx.ftz.f(float %a)
  %lg2 = call float @llvm.nvvm.lg2.approx.f(float %abs)
  %sin = call float @llvm.nvvm.sin.approx.ftz.f(float %a)
  %cos = call float @llvm.nvvm.cos.approx.f(float %b)
  %rsq = call float @llvm.nvvm.rsqrt.approx.f(float %abs)
  %rcp = call float @llvm.nvvm.rcp.rn.f(float %b)
  %dva = call float @llvm.nvvm.div.approx.f(float %a, float %b)
  %dvr = call float @llvm.nvvm.div.rp.ftz.f(float %a, float %b)
  %sqa = call float @llvm.nvvm.sqrt.approx.f(float %abs)
  %sqr = call float @llvm.nvvm.sqrt.rn.ftz.f(float %abs)
  %fmz = call float @llvm.nvvm.fma.rz.f(float %a, float %b, float %rcp)
  %fmn = call float @llvm.nvvm.fmin.nan.f(float %a, float %b)
  %fxs = call float @llvm.nvvm.fmax.ftz.nan.f(float %a, float %b)
  %sat = call float @llvm.nvvm.saturate.f(float %a)
  %adm = call float @llvm.nvvm.add.rm.f(float %a, float %b)
  %mlp = call float @llvm.nvvm.mul.rp.ftz.f(float %a, float %b)
  %fab = call float @llvm.nvvm.fabs.ftz(float %sub)
  %th = call float @llvm.nvvm.tanh.approx.f32(float %a)
  %r1 = fadd fast float %fl, %ce
  %r2 = fadd fast float %r1, %tr
  %r3 = fadd fast float %r2, %ri
  %r4 = fadd fast float %r3, %ro
  %r5 = fadd fast float %r4, %ex2
  %r6 = fadd fast float %r5, %lg2
  %r7 = fadd fast float %r6, %sin
  %r8 = fadd fast float %r7, %cos
  %r9 = fadd fast float %r8, %rsq
  %r10 = fadd fast float %r9, %dva
  %r11 = fadd fast float %r10, %dvr
  %r12 = fadd fast float %r11, %sqa
  %r13 = fadd fast float %r12, %sqr
  %r14 = fadd fast float %r13, %fmz
  %r15 = fadd fast float %r14, %fmn
  %r16 = fadd fast float %r15, %fxs
  %r17 = fadd fast float %r16, %sat
  %r18 = fadd fast float %r17, %adm
  %r19 = fadd fast float %r18, %mlp
  %r20 = fadd fast float %r19, %fab
  %r21 = fadd fast float %r20, %th
  ; every fcmp predicate folded into a bit mask
  %c1 = fcmp oeq float %a, %b
  %c2 = fcmp one float %a, %b
  %c3 = fcmp olt float %a, %b
  %c4 = fcmp ole float %a, %b
  %c5 = fcmp ogt float %a, %b
  %c6 = fcmp oge float %a, %b
  %c7 = fcmp ord float %a, %b
  %c8 = fcmp uno float %a, %b
  %c9 = fcmp ueq float %a, %b
  %c10 = fcmp une float %a, %b
  %c11 = fcmp ult float %a, %b
  %c12 = fcmp ule float %a, %b
  %c13 = fcmp ugt float %a, %b
  %c14 = fcmp uge float %a, %b
  %m1 = select i1 %c1, float 1.0, float 0.0
  %m2 = select i1 %c2, float 2.0, float %m1
  %m3 = select i1 %c3, float 3.0, float %m2
  %m4 = select i1 %c4, float 4.0, float %m3
  %m5 = select i1 %c5, float 5.0, float %m4
  %m6 = select i1 %c6, float 6.0, float %m5
  %m7 = select i1 %c7, float 7.0, float %m6
  %m8 = select i1 %c8, float 8.0, float %m7
  %m9 = select i1 %c9, float 9.0, float %m8
  %m10 = select i1 %c10, float 10.0, float %m9
  %m11 = select i1 %c11, float 11.0, float %m10
  %m12 = select i1 %c12, float 12.0, float %m11
  %m13 = select i1 %c13, float 0x7FF8000000000000, float %m12
  %m14 = select i1 %c14, float 0xFFF0000000000000, float %m13
  %res = fadd float %r21, %m14
  %po = getelementptr inbounds float, ptr addrspace(1) %out, i64 %i
  store float %res, ptr addrspace(1) %po, align 4
  ret void
}

define ptx_kernel void @f64_kernel(ptr addrspace(1) noalias %x, ptr addrspace(1) noalias %out) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i = zext i32 %tid to i64
  %px = getelementptr inbounds double, ptr addrspace(1) %x, i64 %i
  %a = load double, ptr addrspace(1) %px, align 8
  %b = fadd double %a, 0x3FB999999999999A
  %m = fmul double %a, %b
  %d = fdiv double %m, %b
  %f = call double @llvm.fma.f64(double %a, double %b, double %d)
  %s = call double @llvm.sqrt.f64(double %f)
  %r = call double @llvm.nvvm.rsqrt.approx.d(double %s)
  %rc = call double @llvm.nvvm.rcp.rz.d(double %r)
  %fm = call double @llvm.nvvm.fma.rm.d(double %rc, double %a, double %b)
  %az = call double @llvm.nvvm.add.rz.d(double %fm, double 1.0e-300)
  %mn = call double @llvm.minnum.f64(double %az, double %a)
  %fl = call double @llvm.floor.f64(double %mn)
  %big = fmul double %fl, 0x7FEFFFFFFFFFFFFF
  %po = getelementptr inbounds double, ptr addrspace(1) %out, i64 %i
  store double %big, ptr addrspace(1) %po, align 8
  ret void
}

define ptx_kernel void @half_kernel(ptr addrspace(1) noalias %h, ptr addrspace(1) noalias %h2, ptr addrspace(1) noalias %bf2, ptr addrspace(1) noalias %out) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i = zext i32 %tid to i64
  %ph = getelementptr inbounds half, ptr addrspace(1) %h, i64 %i
  %a = load half, ptr addrspace(1) %ph, align 2
  %b = fmul half %a, 0xH3C00
  %c = fadd half %b, 0xH4200
  %d = call half @llvm.fma.f16(half %a, half %b, half %c)
  %e = call half @llvm.nvvm.ex2.approx.f16(half %d)
  %f = fsub half %e, %a
  %lt = fcmp olt half %f, 0xH0000
  %g = select i1 %lt, half 0xH0000, half %f
  store half %g, ptr addrspace(1) %ph, align 2
  %p2 = getelementptr inbounds <2 x half>, ptr addrspace(1) %h2, i64 %i
  %v = load <2 x half>, ptr addrspace(1) %p2, align 4
  %v1 = fmul <2 x half> %v, %v
  %v2 = call <2 x half> @llvm.fma.v2f16(<2 x half> %v1, <2 x half> %v, <2 x half> <half 0xH3C00, half 0xHBC00>)
  %v3 = call <2 x half> @llvm.nvvm.fmax.f16x2(<2 x half> %v2, <2 x half> %v)
  %v4 = call <2 x half> @llvm.nvvm.ex2.approx.f16x2(<2 x half> %v3)
  %v5 = fneg <2 x half> %v4
  store <2 x half> %v5, ptr addrspace(1) %p2, align 4
  %pb = getelementptr inbounds <2 x bfloat>, ptr addrspace(1) %bf2, i64 %i
  %w = load <2 x bfloat>, ptr addrspace(1) %pb, align 4
  %w1 = call <2 x bfloat> @llvm.nvvm.fma.rn.relu.bf16x2(<2 x bfloat> %w, <2 x bfloat> %w, <2 x bfloat> <bfloat 0xR3F80, bfloat 0xR3F80>)
  %w2 = fadd <2 x bfloat> %w1, %w
  %w3 = fmul <2 x bfloat> %w2, %w1
  store <2 x bfloat> %w3, ptr addrspace(1) %pb, align 4
  %s0 = extractelement <2 x bfloat> %w3, i32 0
  %s1 = extractelement <2 x bfloat> %w3, i32 1
  %smin = call bfloat @llvm.nvvm.fmin.bf16(bfloat %s0, bfloat %s1)
  %sf = fpext bfloat %smin to float
  %hf = fpext half %g to float
  %sum = fadd float %sf, %hf
  %po = getelementptr inbounds float, ptr addrspace(1) %out, i64 %i
  store float %sum, ptr addrspace(1) %po, align 4
  ret void
}

; Horner polynomial + range reduction, written as a non-kernel device function
; with internal linkage that the kernel calls in a loop.
define internal float @poly_exp(float %x) #0 {
  %k = fmul float %x, 0x3FF7154760000000
  %kr = call float @llvm.rint.f32(float %k)
  %r = call float @llvm.fma.f32(float %kr, float 0xBFE62E4300000000, float %x)
  %p1 = call float @llvm.fma.f32(float %r, float 0x3F56C16C20000000, float 0x3F81111120000000)
  %p2 = call float @llvm.fma.f32(float %p1, float %r, float 0x3FA5555560000000)
  %p3 = call float @llvm.fma.f32(float %p2, float %r, float 0x3FC5555560000000)
  %p4 = call float @llvm.fma.f32(float %p3, float %r, float 5.000000e-01)
  %p5 = call float @llvm.fma.f32(float %p4, float %r, float 1.000000e+00)
  %p6 = call float @llvm.fma.f32(float %p5, float %r, float 1.000000e+00)
  %ki = fptosi float %kr to i32
  %e = add i32 %ki, 127
  %eb = shl i32 %e, 23
  %scale = bitcast i32 %eb to float
  %res = fmul float %p6, %scale
  ret float %res
}

define ptx_kernel void @exp_table(ptr addrspace(1) %out, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  br label %loop
loop:
  %j = phi i32 [ %tid, %entry ], [ %j.next, %loop ]
  %jf = sitofp i32 %j to float
  %xf = fmul float %jf, 1.250000e-01
  %v = call float @poly_exp(float %xf)
  %j64 = zext i32 %j to i64
  %p = getelementptr inbounds float, ptr addrspace(1) %out, i64 %j64
  store float %v, ptr addrspace(1) %p, align 4
  %j.next = add nuw i32 %j, 32
  %c = icmp ult i32 %j.next, %n
  br i1 %c, label %loop, label %exit
exit:
  ret void
}

attributes #0 = { noinline "denormal-fp-math-f32"="preserve-sign,preserve-sign" }
