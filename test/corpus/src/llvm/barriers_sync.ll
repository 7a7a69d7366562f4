; corpus-archs: sm_80 sm_90a sm_100a
; Synchronisation primitives: aligned and non-aligned CTA barriers with and
; without thread counts, barrier reductions (popc/and/or), named-barrier
; arrive, membar/fence at each scope, nanosleep backoff, trap/brkpt, and the
; performance-monitor and environment special registers.
target triple = "nvptx64-nvidia-cuda"

@flags = internal addrspace(3) global [256 x i32] undef, align 4

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare void @llvm.nvvm.barrier.cta.sync.aligned.all(i32)
declare void @llvm.nvvm.barrier.cta.sync.aligned.count(i32, i32)
declare void @llvm.nvvm.barrier.cta.sync.all(i32)
declare void @llvm.nvvm.barrier.cta.arrive.aligned.count(i32, i32)
declare void @llvm.nvvm.barrier.cta.arrive.count(i32, i32)
declare i32 @llvm.nvvm.barrier.cta.red.popc.aligned.all(i32, i1)
declare i1 @llvm.nvvm.barrier.cta.red.and.aligned.all(i32, i1)
declare i1 @llvm.nvvm.barrier.cta.red.or.aligned.count(i32, i32, i1)
declare void @llvm.nvvm.membar.cta()
declare void @llvm.nvvm.membar.gl()
declare void @llvm.nvvm.membar.sys()
declare void @llvm.nvvm.nanosleep(i32)
declare void @llvm.trap()
declare void @llvm.debugtrap()
declare i32 @llvm.nvvm.read.ptx.sreg.envreg0()
declare i32 @llvm.nvvm.read.ptx.sreg.pm0()
declare i64 @llvm.nvvm.read.ptx.sreg.clock64()

; Split-phase producer/consumer handoff over named barriers 1 and 2.
define ptx_kernel void @named_barriers(ptr addrspace(1) %data, i32 %rounds) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %producer = icmp ult i32 %tid, 128
  %t64 = zext i32 %tid to i64
  %slot = and i64 %t64, 127
  %ps = getelementptr inbounds [256 x i32], ptr addrspace(3) @flags, i64 0, i64 %slot
  br label %loop
loop:
  %r = phi i32 [ 0, %entry ], [ %r.next, %latch ]
  br i1 %producer, label %produce, label %consume
produce:
  %v = add i32 %r, %tid
  store i32 %v, ptr addrspace(3) %ps, align 4
  call void @llvm.nvvm.barrier.cta.arrive.aligned.count(i32 1, i32 256)
  call void @llvm.nvvm.barrier.cta.sync.aligned.count(i32 2, i32 256)
  br label %latch
consume:
  call void @llvm.nvvm.barrier.cta.sync.aligned.count(i32 1, i32 256)
  %got = load i32, ptr addrspace(3) %ps, align 4
  %pd = getelementptr inbounds i32, ptr addrspace(1) %data, i64 %t64
  %old = load i32, ptr addrspace(1) %pd, align 4
  %new = add i32 %old, %got
  store i32 %new, ptr addrspace(1) %pd, align 4
  call void @llvm.nvvm.barrier.cta.arrive.count(i32 2, i32 256)
  br label %latch
latch:
  %r.next = add nuw i32 %r, 1
  %c = icmp ult i32 %r.next, %rounds
  br i1 %c, label %loop, label %exit
exit:
  call void @llvm.nvvm.barrier.cta.sync.all(i32 0)
  ret void
}

; Block-wide votes through barrier reductions, then fences and a timed backoff.
define ptx_kernel void @block_vote(ptr addrspace(1) %in, ptr addrspace(1) %out, ptr addrspace(1) %flag) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %t64 = zext i32 %tid to i64
  %p = getelementptr inbounds float, ptr addrspace(1) %in, i64 %t64
  %v = load float, ptr addrspace(1) %p, align 4
  %pos = fcmp ogt float %v, 0.0
  %fin = fcmp ord float %v, 0.0
  %big = fcmp ogt float %v, 1.0e+06
  %npos = call i32 @llvm.nvvm.barrier.cta.red.popc.aligned.all(i32 0, i1 %pos)
  %allfin = call i1 @llvm.nvvm.barrier.cta.red.and.aligned.all(i32 0, i1 %fin)
  %anybig = call i1 @llvm.nvvm.barrier.cta.red.or.aligned.count(i32 3, i32 %ntid, i1 %big)
  br i1 %allfin, label %ok, label %bad
bad:
  call void @llvm.debugtrap()
  call void @llvm.trap()
  unreachable
ok:
  %leader = icmp eq i32 %tid, 0
  br i1 %leader, label %publish, label %waitflag
publish:
  %bz = zext i1 %anybig to i32
  %res = add i32 %npos, %bz
  store i32 %res, ptr addrspace(1) %out, align 4
  call void @llvm.nvvm.membar.gl()
  store volatile i32 1, ptr addrspace(1) %flag, align 4
  call void @llvm.nvvm.membar.sys()
  br label %done
waitflag:
  br label %spin
spin:
  %delay = phi i32 [ 32, %waitflag ], [ %delay.next, %spin ]
  %f = load volatile i32, ptr addrspace(1) %flag, align 4
  call void @llvm.nvvm.nanosleep(i32 %delay)
  %delay2 = shl i32 %delay, 1
  %delay.next = call i32 @llvm.umin.i32(i32 %delay2, i32 1024)
  %set = icmp ne i32 %f, 0
  br i1 %set, label %done, label %spin
done:
  call void @llvm.nvvm.membar.cta()
  %env = call i32 @llvm.nvvm.read.ptx.sreg.envreg0()
  %pm = call i32 @llvm.nvvm.read.ptx.sreg.pm0()
  %clk = call i64 @llvm.nvvm.read.ptx.sreg.clock64()
  %e = add i32 %env, %pm
  %e64 = zext i32 %e to i64
  %stamp = add i64 %clk, %e64
  %po = getelementptr inbounds i64, ptr addrspace(1) %flag, i64 1
  store volatile i64 %stamp, ptr addrspace(1) %po, align 8
  ret void
}

declare i32 @llvm.umin.i32(i32, i32)
