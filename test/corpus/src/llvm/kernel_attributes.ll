; corpus-archs: sm_80 sm_90a sm_100a
; Kernel-level directives and parameter forms: .maxntid/.reqntid/.minnctapersm/
; .maxnreg from function attributes, grid_constant byval parameters whose
; address escapes, byval struct kernel params copied to local memory, weak
; and linkonce_odr functions, a .alias, and a noreturn helper.
target triple = "nvptx64-nvidia-cuda"

%struct.Params = type { i32, i32, float, [16 x float], ptr addrspace(1) }

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()

define ptx_kernel void @bounded_saxpy(float %a, ptr addrspace(1) noalias readonly %x, ptr addrspace(1) noalias %y, i32 %n) #0 {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %cta = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %base = shl i32 %cta, 7
  %i = add i32 %base, %tid
  %c = icmp slt i32 %i, %n
  br i1 %c, label %body, label %exit
body:
  %i64 = sext i32 %i to i64
  %px = getelementptr inbounds float, ptr addrspace(1) %x, i64 %i64
  %py = getelementptr inbounds float, ptr addrspace(1) %y, i64 %i64
  %xv = load float, ptr addrspace(1) %px, align 4
  %yv = load float, ptr addrspace(1) %py, align 4
  %r = call float @llvm.fma.f32(float %a, float %xv, float %yv)
  store float %r, ptr addrspace(1) %py, align 4
  br label %exit
exit:
  ret void
}

define ptx_kernel void @exact_block(ptr addrspace(1) %out) #1 {
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %t64 = zext i32 %tid to i64
  %p = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %t64
  store i32 %tid, ptr addrspace(1) %p, align 4
  ret void
}

define ptx_kernel void @reg_capped(ptr addrspace(1) %out, i32 %k) #2 {
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %m = mul i32 %tid, %k
  %t64 = zext i32 %tid to i64
  %p = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %t64
  store i32 %m, ptr addrspace(1) %p, align 4
  ret void
}

; Grid-constant struct parameter: its address is passed to a device function,
; so it stays in the parameter state space (no local copy).
define internal float @sum_weights(ptr %p, i32 %count) noinline {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %acc = phi float [ 0.0, %entry ], [ %acc.next, %loop ]
  %i64 = zext i32 %i to i64
  %pw = getelementptr inbounds %struct.Params, ptr %p, i32 0, i32 3, i64 %i64
  %w = load float, ptr %pw, align 4
  %acc.next = fadd float %acc, %w
  %i.next = add nuw i32 %i, 1
  %c = icmp ult i32 %i.next, %count
  br i1 %c, label %loop, label %exit
exit:
  ret float %acc.next
}

define ptx_kernel void @grid_constant_params(ptr byval(%struct.Params) align 8 "nvvm.grid_constant" %p, ptr byval(%struct.Params) align 8 %q) {
entry:
  %s = call float @sum_weights(ptr %p, i32 16)
  %pn = getelementptr inbounds %struct.Params, ptr %q, i32 0, i32 1
  %n = load i32, ptr %pn, align 4
  %pout = getelementptr inbounds %struct.Params, ptr %p, i32 0, i32 4
  %out = load ptr addrspace(1), ptr %pout, align 8
  %ps = getelementptr inbounds %struct.Params, ptr %q, i32 0, i32 2
  %scale = load float, ptr %ps, align 4
  ; writing to the non-grid-constant byval forces a local copy
  store float 0.0, ptr %ps, align 4
  %t = call float @sum_weights(ptr %q, i32 %n)
  %r = fmul float %s, %scale
  %r2 = fadd float %r, %t
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %t64 = zext i32 %tid to i64
  %po = getelementptr inbounds float, ptr addrspace(1) %out, i64 %t64
  store float %r2, ptr addrspace(1) %po, align 4
  ret void
}

; Weak and linkonce device functions, an alias, and a noreturn helper.
define weak float @weak_helper(float %x) noinline {
  %r = fmul float %x, 3.0
  ret float %r
}

define linkonce_odr float @odr_helper(float %x) noinline {
  %r = fadd float %x, 1.0
  ret float %r
}

define float @visible_helper(float %x) noinline {
  %r = fsub float %x, 0.5
  ret float %r
}

@helper_alias = alias float (float), ptr @visible_helper

declare void @llvm.trap() noreturn

define internal void @fail_fast(i32 %code) noinline noreturn {
  call void @llvm.trap()
  unreachable
}

define ptx_kernel void @linkage_mix(ptr addrspace(1) %data, i32 %check) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %t64 = zext i32 %tid to i64
  %p = getelementptr inbounds float, ptr addrspace(1) %data, i64 %t64
  %v = load float, ptr addrspace(1) %p, align 4
  %a = call float @weak_helper(float %v)
  %b0 = call float @helper_alias(float %a)
  %b = call float @odr_helper(float %b0)
  store float %b, ptr addrspace(1) %p, align 4
  %bad = icmp eq i32 %check, 12345
  br i1 %bad, label %fail, label %ok
fail:
  call void @fail_fast(i32 %check)
  unreachable
ok:
  ret void
}

declare float @llvm.fma.f32(float, float, float)

attributes #0 = { "nvvm.maxntid"="128,1,1" "nvvm.minctasm"="4" }
attributes #1 = { "nvvm.reqntid"="64,2,1" }
attributes #2 = { "nvvm.maxnreg"="32" "nvvm.maxntid"="256" }
