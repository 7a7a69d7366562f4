; corpus-archs: sm_80 sm_90a sm_100a
; Module-level data and memory access forms: initialised global arrays and
; structs (including pointers to other globals, emitted as generic()
; initializers), constant-space tables, extern and static shared memory,
; vector loads/stores, invariant (ld.global.nc) loads, volatile and unaligned
; accesses, memcpy/memset, address-space casts and isspacep,
; texture/surface handles, and weak/linkonce_odr/extern-shared symbols.
target triple = "nvptx64-nvidia-cuda"

%struct.Node = type { i32, float, ptr addrspace(1) }

@coeffs = internal addrspace(4) constant [8 x float] [float 1.0, float 0.5, float 0.25, float 0.125, float 0x3FB99999A0000000, float -2.0, float 1.0e+10, float 0x36A0000000000000], align 16
@lut = internal addrspace(4) constant [16 x i8] c"\00\01\02\03\05\08\0D\15\22\37\59\90\E9\79\62\DB", align 1
@node_c = internal addrspace(1) global %struct.Node { i32 3, float 3.0, ptr addrspace(1) null }, align 8
@node_b = internal addrspace(1) global %struct.Node { i32 2, float 2.0, ptr addrspace(1) @node_c }, align 8
@node_a = addrspace(1) global %struct.Node { i32 1, float 1.0, ptr addrspace(1) @node_b }, align 8
@generic_ptrs = addrspace(1) global [3 x ptr] [ptr addrspacecast (ptr addrspace(1) @node_a to ptr), ptr addrspacecast (ptr addrspace(1) @node_b to ptr), ptr null], align 8
@counter = addrspace(1) global i64 0, align 8
@weak_scale = weak addrspace(1) global float 1.0, align 4
@odr_table = linkonce_odr addrspace(1) global [4 x i16] [i16 1, i16 -1, i16 256, i16 -32768], align 2
@tile = internal addrspace(3) global [256 x <4 x float>] undef, align 16
@dyn_smem = external addrspace(3) global [0 x i8], align 16

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare void @llvm.nvvm.barrier.cta.sync.aligned.all(i32)
declare void @llvm.memcpy.p1.p1.i64(ptr addrspace(1), ptr addrspace(1), i64, i1)
declare void @llvm.memcpy.p3.p1.i32(ptr addrspace(3), ptr addrspace(1), i32, i1)
declare void @llvm.memset.p1.i64(ptr addrspace(1), i8, i64, i1)
declare i1 @llvm.nvvm.isspacep.shared(ptr)
declare i1 @llvm.nvvm.isspacep.global(ptr)
declare i1 @llvm.nvvm.isspacep.local(ptr)
declare i1 @llvm.nvvm.isspacep.const(ptr)
declare { float, float, float, float } @llvm.nvvm.tex.unified.2d.v4f32.f32(i64, float, float)
declare { i32, i32, i32, i32 } @llvm.nvvm.tex.unified.1d.v4s32.s32(i64, i32)
declare { float, float, float, float } @llvm.nvvm.tld4.unified.r.2d.v4f32.f32(i64, float, float)
declare i32 @llvm.nvvm.suld.2d.i32.trap(i64, i32, i32)
declare void @llvm.nvvm.sust.b.2d.i32.trap(i64, i32, i32, i32)
declare { i16, i16, i16, i16 } @llvm.nvvm.suld.3d.v4i16.clamp(i64, i32, i32, i32)
declare i32 @llvm.nvvm.txq.width(i64)
declare i32 @llvm.nvvm.txq.height(i64)
declare i32 @llvm.nvvm.suq.width(i64)

define ptx_kernel void @walk_and_copy(ptr addrspace(1) noalias %dst, ptr addrspace(1) noalias readonly %src, ptr addrspace(1) noalias %scratch, i64 %bytes) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %t64 = zext i32 %tid to i64
  ; linked list walk over initialised globals
  br label %walk
walk:
  %n = phi ptr addrspace(1) [ @node_a, %entry ], [ %next, %walk.body ]
  %sum = phi float [ 0.0, %entry ], [ %sum2, %walk.body ]
  %isnull = icmp eq ptr addrspace(1) %n, null
  br i1 %isnull, label %walked, label %walk.body
walk.body:
  %pv = getelementptr inbounds %struct.Node, ptr addrspace(1) %n, i32 0, i32 1
  %v = load float, ptr addrspace(1) %pv, align 4
  %sum2 = fadd float %sum, %v
  %pn = getelementptr inbounds %struct.Node, ptr addrspace(1) %n, i32 0, i32 2
  %next = load ptr addrspace(1), ptr addrspace(1) %pn, align 8
  br label %walk
walked:
  %ci = and i32 %tid, 7
  %c64 = zext i32 %ci to i64
  %pc = getelementptr inbounds [8 x float], ptr addrspace(4) @coeffs, i64 0, i64 %c64
  %cv = load float, ptr addrspace(4) %pc, align 4
  %li = and i32 %tid, 15
  %l64 = zext i32 %li to i64
  %pl = getelementptr inbounds [16 x i8], ptr addrspace(4) @lut, i64 0, i64 %l64
  %lv = load i8, ptr addrspace(4) %pl, align 1
  %lf = uitofp i8 %lv to float
  %ws = load float, ptr addrspace(1) @weak_scale, align 4
  %oi = and i32 %tid, 3
  %o64 = zext i32 %oi to i64
  %po = getelementptr inbounds [4 x i16], ptr addrspace(1) @odr_table, i64 0, i64 %o64
  %ov = load i16, ptr addrspace(1) %po, align 2
  %of = sitofp i16 %ov to float
  %pe = getelementptr inbounds i32, ptr addrspace(1) %scratch, i64 %t64
  %ev = load i32, ptr addrspace(1) %pe, align 4
  %ef = sitofp i32 %ev to float
  %gp = getelementptr inbounds [3 x ptr], ptr addrspace(1) @generic_ptrs, i64 0, i64 1
  %g = load ptr, ptr addrspace(1) %gp, align 8
  %gf = getelementptr inbounds %struct.Node, ptr %g, i32 0, i32 1
  %gv = load float, ptr %gf, align 4
  %r1 = fmul float %sum, %cv
  %r2 = fadd float %r1, %lf
  %r3 = fmul float %r2, %ws
  %r4 = fadd float %r3, %of
  %r5 = fadd float %r4, %ef
  %r6 = fadd float %r5, %gv
  ; invariant vector loads (ld.global.nc.v4) and vector stores
  %vi = getelementptr inbounds <4 x float>, ptr addrspace(1) %src, i64 %t64
  %vec = load <4 x float>, ptr addrspace(1) %vi, align 16, !invariant.load !0
  %v2p = getelementptr inbounds <2 x double>, ptr addrspace(1) %src, i64 %t64
  %vec2 = load <2 x double>, ptr addrspace(1) %v2p, align 16, !invariant.load !0
  %d0 = extractelement <2 x double> %vec2, i32 1
  %d0f = fptrunc double %d0 to float
  %r7 = fadd float %r6, %d0f
  %vec3 = insertelement <4 x float> %vec, float %r7, i32 3
  %vo = getelementptr inbounds <4 x float>, ptr addrspace(1) %dst, i64 %t64
  store <4 x float> %vec3, ptr addrspace(1) %vo, align 16
  ; unaligned and volatile scalar accesses
  %ub = getelementptr inbounds i8, ptr addrspace(1) %scratch, i64 3
  %uv = load i32, ptr addrspace(1) %ub, align 1
  %uv2 = add i32 %uv, 1
  store i32 %uv2, ptr addrspace(1) %ub, align 1
  %vol = load volatile i64, ptr addrspace(1) @counter, align 8
  %vol2 = add i64 %vol, 1
  store volatile i64 %vol2, ptr addrspace(1) @counter, align 8
  ; shared memory staging, memcpy into shared, memset and memcpy in global
  %st = getelementptr inbounds [256 x <4 x float>], ptr addrspace(3) @tile, i64 0, i64 %t64
  store <4 x float> %vec3, ptr addrspace(3) %st, align 16
  call void @llvm.memcpy.p3.p1.i32(ptr addrspace(3) @dyn_smem, ptr addrspace(1) %src, i32 64, i1 false)
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %rt = xor i64 %t64, 1
  %sr = getelementptr inbounds [256 x <4 x float>], ptr addrspace(3) @tile, i64 0, i64 %rt
  %sv = load <4 x float>, ptr addrspace(3) %sr, align 16
  %dyn = getelementptr inbounds i8, ptr addrspace(3) @dyn_smem, i64 %t64
  %dv = load i8, ptr addrspace(3) %dyn, align 1
  %s0 = extractelement <4 x float> %sv, i32 0
  %dvf = uitofp i8 %dv to float
  %s1 = fadd float %s0, %dvf
  %first = icmp eq i32 %tid, 0
  br i1 %first, label %bulk, label %spaces
bulk:
  call void @llvm.memset.p1.i64(ptr addrspace(1) %scratch, i8 0, i64 %bytes, i1 false)
  call void @llvm.memcpy.p1.p1.i64(ptr addrspace(1) %dst, ptr addrspace(1) %src, i64 %bytes, i1 false)
  br label %spaces
spaces:
  %gen_sh = addrspacecast ptr addrspace(3) %st to ptr
  %gen_gl = addrspacecast ptr addrspace(1) %dst to ptr
  %is_sh = call i1 @llvm.nvvm.isspacep.shared(ptr %gen_sh)
  %is_gl = call i1 @llvm.nvvm.isspacep.global(ptr %gen_gl)
  %is_lo = call i1 @llvm.nvvm.isspacep.local(ptr %gen_gl)
  %is_co = call i1 @llvm.nvvm.isspacep.const(ptr %gen_sh)
  %b1 = and i1 %is_sh, %is_gl
  %b2 = or i1 %is_lo, %is_co
  %b3 = xor i1 %b1, %b2
  %bf = uitofp i1 %b3 to float
  %s2 = fadd float %s1, %bf
  %back = addrspacecast ptr %gen_gl to ptr addrspace(1)
  %pf = getelementptr inbounds float, ptr addrspace(1) %back, i64 %t64
  %loc = alloca [4 x float], align 4, addrspace(5)
  store volatile float %s2, ptr addrspace(5) %loc, align 4
  %lr = load volatile float, ptr addrspace(5) %loc, align 4
  store float %lr, ptr addrspace(1) %pf, align 4
  ret void
}

define ptx_kernel void @texture_ops(i64 %tex2d, i64 %tex1d, i64 %surf, ptr addrspace(1) %out) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %cta = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %x = uitofp i32 %tid to float
  %y = uitofp i32 %cta to float
  %w = call i32 @llvm.nvvm.txq.width(i64 %tex2d)
  %h = call i32 @llvm.nvvm.txq.height(i64 %tex2d)
  %wf = uitofp i32 %w to float
  %hf = uitofp i32 %h to float
  %u = fdiv float %x, %wf
  %v = fdiv float %y, %hf
  %t = call { float, float, float, float } @llvm.nvvm.tex.unified.2d.v4f32.f32(i64 %tex2d, float %u, float %v)
  %t0 = extractvalue { float, float, float, float } %t, 0
  %t3 = extractvalue { float, float, float, float } %t, 3
  %g = call { float, float, float, float } @llvm.nvvm.tld4.unified.r.2d.v4f32.f32(i64 %tex2d, float %u, float %v)
  %g1 = extractvalue { float, float, float, float } %g, 1
  %i = call { i32, i32, i32, i32 } @llvm.nvvm.tex.unified.1d.v4s32.s32(i64 %tex1d, i32 %tid)
  %i0 = extractvalue { i32, i32, i32, i32 } %i, 0
  %i0f = sitofp i32 %i0 to float
  %xb = shl i32 %tid, 2
  %s = call i32 @llvm.nvvm.suld.2d.i32.trap(i64 %surf, i32 %xb, i32 %cta)
  %sq = call i32 @llvm.nvvm.suq.width(i64 %surf)
  %s2 = add i32 %s, %sq
  call void @llvm.nvvm.sust.b.2d.i32.trap(i64 %surf, i32 %xb, i32 %cta, i32 %s2)
  %q = call { i16, i16, i16, i16 } @llvm.nvvm.suld.3d.v4i16.clamp(i64 %surf, i32 %xb, i32 %cta, i32 0)
  %q2 = extractvalue { i16, i16, i16, i16 } %q, 2
  %q2f = sitofp i16 %q2 to float
  %a1 = fadd float %t0, %t3
  %a2 = fadd float %a1, %g1
  %a3 = fadd float %a2, %i0f
  %a4 = fadd float %a3, %q2f
  %idx = mul i32 %cta, 1024
  %idx2 = add i32 %idx, %tid
  %i64 = zext i32 %idx2 to i64
  %po = getelementptr inbounds float, ptr addrspace(1) %out, i64 %i64
  store float %a4, ptr addrspace(1) %po, align 4
  ret void
}

!0 = !{}
