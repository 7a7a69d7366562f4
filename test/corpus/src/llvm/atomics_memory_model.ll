; corpus-archs: sm_80 sm_90a sm_100a
; Atomics and the memory model: atomicrmw on generic/global/shared pointers
; with relaxed..seq_cst orderings and block/device/system scopes, cmpxchg
; (strong and weak) for i16/i32/i64, float/double/half fadd, fmin/fmax,
; wrapping inc/dec, acquire loads / release stores, fences, volatile
; accesses, and the NVVM scoped atomic intrinsics.
target triple = "nvptx64-nvidia-cuda"

@counters = internal addrspace(3) global [32 x i32] undef, align 4
@lock = internal addrspace(3) global i32 undef, align 4

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare void @llvm.nvvm.barrier.cta.sync.aligned.all(i32)
declare i32 @llvm.nvvm.atomic.add.gen.i.cta.i32.p0(ptr, i32)
declare i64 @llvm.nvvm.atomic.max.gen.i.sys.i64.p0(ptr, i64)
declare float @llvm.nvvm.atomic.add.gen.f.sys.f32.p0(ptr, float)
declare i32 @llvm.nvvm.atomic.cas.gen.i.cta.i32.p0(ptr, i32, i32)

define ptx_kernel void @rmw_matrix(ptr %gen, ptr addrspace(1) %glob, ptr addrspace(1) %fp, ptr addrspace(1) %dp, ptr addrspace(1) %hp, ptr addrspace(1) %out) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %lane = and i32 %tid, 31
  %l64 = zext i32 %lane to i64
  %sh = getelementptr inbounds [32 x i32], ptr addrspace(3) @counters, i64 0, i64 %l64
  store i32 0, ptr addrspace(3) %sh, align 4
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %r1 = atomicrmw add ptr addrspace(3) %sh, i32 1 monotonic, align 4
  %r2 = atomicrmw sub ptr addrspace(1) %glob, i32 %tid syncscope("device") acq_rel, align 4
  %r3 = atomicrmw and ptr %gen, i32 %r1 seq_cst, align 4
  %r4 = atomicrmw or ptr addrspace(1) %glob, i32 %r2 syncscope("block") release, align 4
  %r5 = atomicrmw xor ptr addrspace(3) %sh, i32 %r3 syncscope("block") acquire, align 4
  %r6 = atomicrmw max ptr addrspace(1) %glob, i32 %r4 monotonic, align 4
  %r7 = atomicrmw umin ptr %gen, i32 %r5 monotonic, align 4
  %r8 = atomicrmw xchg ptr addrspace(1) %glob, i32 %r6 monotonic, align 4
  %r9 = atomicrmw uinc_wrap ptr addrspace(1) %glob, i32 100 monotonic, align 4
  %r10 = atomicrmw udec_wrap ptr addrspace(3) %sh, i32 100 monotonic, align 4
  %g64 = getelementptr inbounds i64, ptr addrspace(1) %glob, i64 4
  %w64 = zext i32 %r9 to i64
  %r11 = atomicrmw add ptr addrspace(1) %g64, i64 %w64 monotonic, align 8
  %r12 = atomicrmw umax ptr addrspace(1) %g64, i64 %r11 syncscope("device") seq_cst, align 8
  %r13 = atomicrmw xchg ptr addrspace(1) %g64, i64 %r12 monotonic, align 8
  %fv = uitofp i32 %tid to float
  %f1 = atomicrmw fadd ptr addrspace(1) %fp, float %fv monotonic, align 4
  %f2 = atomicrmw fadd ptr addrspace(1) %fp, float %f1 syncscope("block") monotonic, align 4
  %dv = fpext float %f2 to double
  %d1 = atomicrmw fadd ptr addrspace(1) %dp, double %dv monotonic, align 8
  %hv = fptrunc float %fv to half
  %h1 = atomicrmw fadd ptr addrspace(1) %hp, half %hv monotonic, align 2
  %hp2 = getelementptr inbounds half, ptr addrspace(1) %hp, i64 2
  %bv = fptrunc float %fv to bfloat
  %b1 = atomicrmw fadd ptr addrspace(1) %hp2, bfloat %bv monotonic, align 2
  %fmx = atomicrmw fmax ptr addrspace(1) %fp, float %fv monotonic, align 4
  %fsb = atomicrmw fsub ptr addrspace(1) %fp, float %fmx monotonic, align 4
  ; small-width atomics get expanded into CAS loops
  %p16 = getelementptr inbounds i16, ptr addrspace(1) %hp, i64 8
  %t16 = trunc i32 %tid to i16
  %s1 = atomicrmw add ptr addrspace(1) %p16, i16 %t16 monotonic, align 2
  %p8 = getelementptr inbounds i8, ptr addrspace(1) %hp, i64 32
  %t8 = trunc i32 %tid to i8
  %s2 = atomicrmw max ptr addrspace(1) %p8, i8 %t8 monotonic, align 1
  ; NVVM scoped intrinsics
  %n1 = call i32 @llvm.nvvm.atomic.add.gen.i.cta.i32.p0(ptr %gen, i32 1)
  %n2 = call i64 @llvm.nvvm.atomic.max.gen.i.sys.i64.p0(ptr %gen, i64 %r13)
  %n3 = call float @llvm.nvvm.atomic.add.gen.f.sys.f32.p0(ptr %gen, float %fsb)
  %n4 = call i32 @llvm.nvvm.atomic.cas.gen.i.cta.i32.p0(ptr %gen, i32 %n1, i32 %tid)
  ; fold
  %a1 = add i32 %r7, %r8
  %a2 = xor i32 %a1, %r10
  %a3 = add i32 %a2, %n4
  %a4 = zext i32 %a3 to i64
  %a5 = add i64 %a4, %n2
  %z1 = zext i16 %s1 to i64
  %z2 = zext i8 %s2 to i64
  %a6 = add i64 %a5, %z1
  %a7 = add i64 %a6, %z2
  %c1 = fptosi double %d1 to i64
  %c2 = fptosi half %h1 to i64
  %c3 = fptosi bfloat %b1 to i64
  %c4 = fptosi float %n3 to i64
  %a8 = add i64 %a7, %c1
  %a9 = add i64 %a8, %c2
  %a10 = add i64 %a9, %c3
  %a11 = add i64 %a10, %c4
  %i64 = zext i32 %tid to i64
  %po = getelementptr inbounds i64, ptr addrspace(1) %out, i64 %i64
  store i64 %a11, ptr addrspace(1) %po, align 8
  ret void
}

; A ticket lock in shared memory built from cmpxchg + acquire/release.
define ptx_kernel void @ticket_lock(ptr addrspace(1) %shared_total, ptr addrspace(1) %values) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %first = icmp eq i32 %tid, 0
  br i1 %first, label %init, label %sync
init:
  store i32 0, ptr addrspace(3) @lock, align 4
  br label %sync
sync:
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %leader = and i32 %tid, 31
  %isleader = icmp eq i32 %leader, 0
  br i1 %isleader, label %spin, label %done
spin:
  %pair = cmpxchg weak ptr addrspace(3) @lock, i32 0, i32 1 syncscope("block") acquire monotonic, align 4
  %got = extractvalue { i32, i1 } %pair, 1
  br i1 %got, label %critical, label %spin
critical:
  %t64 = zext i32 %tid to i64
  %pv = getelementptr inbounds float, ptr addrspace(1) %values, i64 %t64
  %v = load float, ptr addrspace(1) %pv, align 4
  %old = load atomic float, ptr addrspace(1) %shared_total syncscope("device") acquire, align 4
  %new = fadd float %old, %v
  store atomic float %new, ptr addrspace(1) %shared_total syncscope("device") release, align 4
  store atomic i32 0, ptr addrspace(3) @lock syncscope("block") release, align 4
  br label %done
done:
  fence syncscope("block") acq_rel
  fence syncscope("device") seq_cst
  fence seq_cst
  fence syncscope("block") release
  ret void
}

; Strong 64-bit CAS loop implementing atomic multiply, and 16-bit CAS.
define ptx_kernel void @cas_loops(ptr addrspace(1) %acc64, ptr addrspace(1) %acc16, i64 %factor) {
entry:
  %init = load volatile i64, ptr addrspace(1) %acc64, align 8
  br label %loop
loop:
  %cur = phi i64 [ %init, %entry ], [ %seen, %loop ]
  %want = mul i64 %cur, %factor
  %pair = cmpxchg ptr addrspace(1) %acc64, i64 %cur, i64 %want seq_cst seq_cst, align 8
  %seen = extractvalue { i64, i1 } %pair, 0
  %ok = extractvalue { i64, i1 } %pair, 1
  br i1 %ok, label %next, label %loop
next:
  %f16 = trunc i64 %factor to i16
  %p16 = cmpxchg ptr addrspace(1) %acc16, i16 0, i16 %f16 syncscope("device") acq_rel acquire, align 2
  %o16 = extractvalue { i16, i1 } %p16, 0
  store volatile i16 %o16, ptr addrspace(1) %acc16, align 2
  ret void
}
