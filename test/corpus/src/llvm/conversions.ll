; corpus-archs: sm_80 sm_90a sm_100a
; Conversions: int<->float with saturation semantics (fptosi.sat), rounding
; intrinsics (f2i/d2ll/...), f32<->f16/bf16/tf32 packing, f64 splits, and
; integer width changes in both directions.
target triple = "nvptx64-nvidia-cuda"

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.fptosi.sat.i32.f32(float)
declare i8 @llvm.fptoui.sat.i8.f32(float)
declare i16 @llvm.fptosi.sat.i16.f64(double)
declare i32 @llvm.nvvm.f2i.rm(float)
declare i32 @llvm.nvvm.f2ui.rp.ftz(float)
declare i64 @llvm.nvvm.f2ll.rz(float)
declare i64 @llvm.nvvm.d2ll.rn(double)
declare i32 @llvm.nvvm.d2i.rz(double)
declare float @llvm.nvvm.i2f.rz(i32)
declare float @llvm.nvvm.ui2f.rp(i32)
declare double @llvm.nvvm.ll2d.rm(i64)
declare float @llvm.nvvm.d2f.rn.ftz(double)
declare float @llvm.nvvm.d2f.rz(double)
declare i32 @llvm.nvvm.d2i.hi(double)
declare i32 @llvm.nvvm.d2i.lo(double)
declare double @llvm.nvvm.lohi.i2d(i32, i32)
declare i16 @llvm.nvvm.f2h.rn(float)
declare <2 x half> @llvm.nvvm.ff2f16x2.rn(float, float)
declare <2 x bfloat> @llvm.nvvm.ff2bf16x2.rn.relu(float, float)
declare bfloat @llvm.nvvm.f2bf16.rz(float)
declare i32 @llvm.nvvm.f2tf32.rna(float)
declare float @llvm.nvvm.bitcast.i2f(i32)
declare i64 @llvm.nvvm.bitcast.d2ll(double)

define ptx_kernel void @convert_all(ptr addrspace(1) noalias %f, ptr addrspace(1) noalias %d, ptr addrspace(1) noalias %oi, ptr addrspace(1) noalias %of, ptr addrspace(1) noalias %oh) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i = zext i32 %tid to i64
  %pf = getelementptr inbounds float, ptr addrspace(1) %f, i64 %i
  %pd = getelementptr inbounds double, ptr addrspace(1) %d, i64 %i
  %x = load float, ptr addrspace(1) %pf, align 4
  %y = load double, ptr addrspace(1) %pd, align 8
  ; plain IR casts
  %si = fptosi float %x to i32
  %ui = fptoui float %x to i64
  %sh = fptosi double %y to i16
  %ub = fptoui double %y to i8
  %sat32 = call i32 @llvm.fptosi.sat.i32.f32(float %x)
  %sat8 = call i8 @llvm.fptoui.sat.i8.f32(float %x)
  %sat16 = call i16 @llvm.fptosi.sat.i16.f64(double %y)
  %f2i = call i32 @llvm.nvvm.f2i.rm(float %x)
  %f2u = call i32 @llvm.nvvm.f2ui.rp.ftz(float %x)
  %f2ll = call i64 @llvm.nvvm.f2ll.rz(float %x)
  %d2ll = call i64 @llvm.nvvm.d2ll.rn(double %y)
  %d2i = call i32 @llvm.nvvm.d2i.rz(double %y)
  %hi = call i32 @llvm.nvvm.d2i.hi(double %y)
  %lo = call i32 @llvm.nvvm.d2i.lo(double %y)
  %tf = call i32 @llvm.nvvm.f2tf32.rna(float %x)
  %e1 = sext i16 %sh to i32
  %e2 = zext i8 %ub to i32
  %e3 = sext i16 %sat16 to i32
  %e4 = zext i8 %sat8 to i32
  %t1 = trunc i64 %ui to i32
  %t2 = trunc i64 %f2ll to i32
  %t3 = trunc i64 %d2ll to i32
  %a1 = xor i32 %si, %t1
  %a2 = add i32 %a1, %e1
  %a3 = xor i32 %a2, %e2
  %a4 = add i32 %a3, %sat32
  %a5 = xor i32 %a4, %e3
  %a6 = add i32 %a5, %e4
  %a7 = xor i32 %a6, %f2i
  %a8 = add i32 %a7, %f2u
  %a9 = xor i32 %a8, %t2
  %a10 = add i32 %a9, %t3
  %a11 = xor i32 %a10, %d2i
  %a12 = add i32 %a11, %hi
  %a13 = xor i32 %a12, %lo
  %a14 = add i32 %a13, %tf
  %poi = getelementptr inbounds i32, ptr addrspace(1) %oi, i64 %i
  store i32 %a14, ptr addrspace(1) %poi, align 4
  ; to float
  %sf = sitofp i32 %a14 to float
  %uf = uitofp i64 %ui to float
  %hf = sitofp i16 %sh to double
  %i2f = call float @llvm.nvvm.i2f.rz(i32 %si)
  %u2f = call float @llvm.nvvm.ui2f.rp(i32 %f2u)
  %ll2d = call double @llvm.nvvm.ll2d.rm(i64 %d2ll)
  %d2f1 = call float @llvm.nvvm.d2f.rn.ftz(double %ll2d)
  %d2f2 = call float @llvm.nvvm.d2f.rz(double %hf)
  %tr = fptrunc double %y to float
  %ex = fpext float %x to double
  %joined = call double @llvm.nvvm.lohi.i2d(i32 %lo, i32 %hi)
  %bc = call float @llvm.nvvm.bitcast.i2f(i32 %tf)
  %bcl = call i64 @llvm.nvvm.bitcast.d2ll(double %ex)
  %bct = trunc i64 %bcl to i32
  %bcf = bitcast i32 %bct to float
  %jf = fptrunc double %joined to float
  %s1 = fadd float %sf, %uf
  %s2 = fadd float %s1, %i2f
  %s3 = fadd float %s2, %u2f
  %s4 = fadd float %s3, %d2f1
  %s5 = fadd float %s4, %d2f2
  %s6 = fadd float %s5, %tr
  %s7 = fadd float %s6, %bc
  %s8 = fadd float %s7, %bcf
  %s9 = fadd float %s8, %jf
  %pof = getelementptr inbounds float, ptr addrspace(1) %of, i64 %i
  store float %s9, ptr addrspace(1) %pof, align 4
  ; half / bf16
  %h1 = call i16 @llvm.nvvm.f2h.rn(float %s9)
  %h2 = call <2 x half> @llvm.nvvm.ff2f16x2.rn(float %x, float %s9)
  %b2 = call <2 x bfloat> @llvm.nvvm.ff2bf16x2.rn.relu(float %x, float %tr)
  %b1 = call bfloat @llvm.nvvm.f2bf16.rz(float %s1)
  %h3 = fptrunc float %x to half
  %h4 = fptrunc double %y to half
  %b3 = fptrunc float %x to bfloat
  %h2i = bitcast <2 x half> %h2 to i32
  %b2i = bitcast <2 x bfloat> %b2 to i32
  %b1i = bitcast bfloat %b1 to i16
  %h3i = bitcast half %h3 to i16
  %h4i = bitcast half %h4 to i16
  %b3i = bitcast bfloat %b3 to i16
  %z1 = zext i16 %h1 to i64
  %z2 = zext i32 %h2i to i64
  %z3 = zext i32 %b2i to i64
  %z4 = zext i16 %b1i to i64
  %z5 = zext i16 %h3i to i64
  %z6 = zext i16 %h4i to i64
  %z7 = zext i16 %b3i to i64
  %sh2 = shl i64 %z2, 16
  %sh3 = shl i64 %z3, 32
  %sh4 = shl i64 %z4, 48
  %o1 = or i64 %z1, %sh2
  %o2 = xor i64 %o1, %sh3
  %o3 = xor i64 %o2, %sh4
  %o4 = add i64 %o3, %z5
  %o5 = add i64 %o4, %z6
  %o6 = add i64 %o5, %z7
  %poh = getelementptr inbounds i64, ptr addrspace(1) %oh, i64 %i
  store i64 %o6, ptr addrspace(1) %poh, align 8
  ; half -> wider
  %hb = fpext half %h3 to float
  %bb = fpext bfloat %b3 to double
  %hbs = fptosi half %h3 to i32
  %bbu = fptoui bfloat %b3 to i16
  %bbu32 = zext i16 %bbu to i32
  %ww = fptrunc double %bb to float
  %w1 = fadd float %hb, %ww
  %w2 = sitofp i32 %hbs to float
  %w3 = uitofp i32 %bbu32 to float
  %w4 = fadd float %w1, %w2
  %w5 = fadd float %w4, %w3
  %w6 = sitofp i32 %a14 to half
  %w7 = fpext half %w6 to float
  %w8 = fadd float %w5, %w7
  store float %w8, ptr addrspace(1) %pf, align 4
  ret void
}
