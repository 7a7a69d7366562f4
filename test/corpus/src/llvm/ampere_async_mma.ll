; corpus-archs: sm_80 sm_90a sm_100a
; sm_80-level asynchronous copies and tensor-core ops through NVVM intrinsics:
; cp.async (ca/cg, 4/8/16 bytes, src-size zero fill), commit/wait groups,
; cp.async.mbarrier.arrive, the classic mbarrier intrinsics, ldmatrix,
; mma.sync (f16, bf16, tf32, s8, f64 shapes) and wmma load/mma/store.
target triple = "nvptx64-nvidia-cuda"

@stage = internal addrspace(3) global [2 x [1024 x i8]] undef, align 128
@bar = internal addrspace(3) global i64 undef, align 8

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare void @llvm.nvvm.barrier.cta.sync.aligned.all(i32)
declare void @llvm.nvvm.cp.async.ca.shared.global.4(ptr addrspace(3), ptr addrspace(1))
declare void @llvm.nvvm.cp.async.ca.shared.global.8(ptr addrspace(3), ptr addrspace(1))
declare void @llvm.nvvm.cp.async.ca.shared.global.16(ptr addrspace(3), ptr addrspace(1))
declare void @llvm.nvvm.cp.async.cg.shared.global.16(ptr addrspace(3), ptr addrspace(1))
declare void @llvm.nvvm.cp.async.cg.shared.global.16.s(ptr addrspace(3), ptr addrspace(1), i32)
declare void @llvm.nvvm.cp.async.commit.group()
declare void @llvm.nvvm.cp.async.wait.group(i32)
declare void @llvm.nvvm.cp.async.wait.all()
declare void @llvm.nvvm.cp.async.mbarrier.arrive.shared(ptr addrspace(3))
declare void @llvm.nvvm.cp.async.mbarrier.arrive.noinc.shared(ptr addrspace(3))
declare void @llvm.nvvm.mbarrier.init.shared(ptr addrspace(3), i32)
declare i64 @llvm.nvvm.mbarrier.arrive.shared(ptr addrspace(3))
declare i64 @llvm.nvvm.mbarrier.arrive.noComplete.shared(ptr addrspace(3), i32)
declare i64 @llvm.nvvm.mbarrier.arrive.drop.shared(ptr addrspace(3))
declare i1 @llvm.nvvm.mbarrier.test.wait.shared(ptr addrspace(3), i64)
declare i32 @llvm.nvvm.mbarrier.pending.count(i64)
declare void @llvm.nvvm.mbarrier.inval.shared(ptr addrspace(3))
declare { i32, i32, i32, i32 } @llvm.nvvm.ldmatrix.sync.aligned.m8n8.x4.b16.p3(ptr addrspace(3))
declare { i32, i32 } @llvm.nvvm.ldmatrix.sync.aligned.m8n8.x2.trans.b16.p3(ptr addrspace(3))
declare i32 @llvm.nvvm.ldmatrix.sync.aligned.m8n8.x1.b16.p3(ptr addrspace(3))
declare { float, float, float, float } @llvm.nvvm.mma.m16n8k16.row.col.f32.f32(<2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, float, float, float, float)
declare { float, float, float, float } @llvm.nvvm.mma.m16n8k16.row.col.bf16(i32, i32, i32, i32, i32, i32, float, float, float, float)
declare { float, float, float, float } @llvm.nvvm.mma.m16n8k8.row.col.tf32(i32, i32, i32, i32, i32, i32, float, float, float, float)
declare { i32, i32, i32, i32 } @llvm.nvvm.mma.m16n8k32.row.col.satfinite.s8(i32, i32, i32, i32, i32, i32, i32, i32, i32, i32)
declare { double, double } @llvm.nvvm.mma.m8n8k4.row.col.f64(double, double, double, double)
declare { <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half> } @llvm.nvvm.wmma.m16n16k16.load.a.row.stride.f16.p1(ptr addrspace(1), i32)
declare { <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half> } @llvm.nvvm.wmma.m16n16k16.load.b.col.stride.f16.p1(ptr addrspace(1), i32)
declare { float, float, float, float, float, float, float, float } @llvm.nvvm.wmma.m16n16k16.mma.row.col.f32.f32(<2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, float, float, float, float, float, float, float, float)
declare void @llvm.nvvm.wmma.m16n16k16.store.d.row.stride.f32.p1(ptr addrspace(1), float, float, float, float, float, float, float, float, i32)

; Double-buffered cp.async pipeline over 1 KiB tiles with an mbarrier that the
; async copies arrive on.
define ptx_kernel void @cp_async_pipeline(ptr addrspace(1) noalias %src, ptr addrspace(1) noalias %dst, i32 %tiles) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %t64 = zext i32 %tid to i64
  %first = icmp eq i32 %tid, 0
  br i1 %first, label %init, label %start
init:
  call void @llvm.nvvm.mbarrier.init.shared(ptr addrspace(3) @bar, i32 64)
  br label %start
start:
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %off = shl i64 %t64, 4
  %s0 = getelementptr inbounds [2 x [1024 x i8]], ptr addrspace(3) @stage, i64 0, i64 0, i64 %off
  %g0 = getelementptr inbounds i8, ptr addrspace(1) %src, i64 %off
  call void @llvm.nvvm.cp.async.cg.shared.global.16(ptr addrspace(3) %s0, ptr addrspace(1) %g0)
  call void @llvm.nvvm.cp.async.commit.group()
  br label %loop
loop:
  %t = phi i32 [ 0, %start ], [ %t.next, %loop.tail ]
  %acc = phi i32 [ 0, %start ], [ %acc.next, %loop.tail ]
  %t.next = add nuw i32 %t, 1
  %cur = and i32 %t, 1
  %nxt = xor i32 %cur, 1
  %has_next = icmp ult i32 %t.next, %tiles
  br i1 %has_next, label %prefetch, label %drain
prefetch:
  %n64 = zext i32 %nxt to i64
  %tn64 = zext i32 %t.next to i64
  %goff = mul i64 %tn64, 1024
  %gsrc0 = getelementptr inbounds i8, ptr addrspace(1) %src, i64 %goff
  %gsrc = getelementptr inbounds i8, ptr addrspace(1) %gsrc0, i64 %off
  %sdst = getelementptr inbounds [2 x [1024 x i8]], ptr addrspace(3) @stage, i64 0, i64 %n64, i64 %off
  ; zero-fill the tail of the last tile using the src-size operand
  %last = icmp eq i32 %t.next, 7
  %bytes = select i1 %last, i32 8, i32 16
  call void @llvm.nvvm.cp.async.cg.shared.global.16.s(ptr addrspace(3) %sdst, ptr addrspace(1) %gsrc, i32 %bytes)
  call void @llvm.nvvm.cp.async.commit.group()
  call void @llvm.nvvm.cp.async.wait.group(i32 1)
  br label %consume
drain:
  call void @llvm.nvvm.cp.async.wait.all()
  br label %consume
consume:
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %c64 = zext i32 %cur to i64
  %rd = getelementptr inbounds [2 x [1024 x i8]], ptr addrspace(3) @stage, i64 0, i64 %c64, i64 %off
  %w = load i32, ptr addrspace(3) %rd, align 16
  %acc.next = add i32 %acc, %w
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  br label %loop.tail
loop.tail:
  br i1 %has_next, label %loop, label %small
small:
  ; small copies that arrive on the mbarrier
  %s4 = getelementptr inbounds i8, ptr addrspace(3) %s0, i64 0
  call void @llvm.nvvm.cp.async.ca.shared.global.4(ptr addrspace(3) %s4, ptr addrspace(1) %g0)
  %s8 = getelementptr inbounds i8, ptr addrspace(3) %s0, i64 8
  %g8 = getelementptr inbounds i8, ptr addrspace(1) %g0, i64 8
  call void @llvm.nvvm.cp.async.ca.shared.global.8(ptr addrspace(3) %s8, ptr addrspace(1) %g8)
  %s16 = getelementptr inbounds [2 x [1024 x i8]], ptr addrspace(3) @stage, i64 0, i64 1, i64 %off
  call void @llvm.nvvm.cp.async.ca.shared.global.16(ptr addrspace(3) %s16, ptr addrspace(1) %g0)
  call void @llvm.nvvm.cp.async.mbarrier.arrive.noinc.shared(ptr addrspace(3) @bar)
  %state = call i64 @llvm.nvvm.mbarrier.arrive.shared(ptr addrspace(3) @bar)
  br label %spin
spin:
  %done = call i1 @llvm.nvvm.mbarrier.test.wait.shared(ptr addrspace(3) @bar, i64 %state)
  br i1 %done, label %finish, label %spin
finish:
  %pending = call i32 @llvm.nvvm.mbarrier.pending.count(i64 %state)
  %nc = call i64 @llvm.nvvm.mbarrier.arrive.noComplete.shared(ptr addrspace(3) @bar, i32 1)
  %drop = call i64 @llvm.nvvm.mbarrier.arrive.drop.shared(ptr addrspace(3) @bar)
  call void @llvm.nvvm.cp.async.mbarrier.arrive.shared(ptr addrspace(3) @bar)
  %res = add i32 %acc.next, %pending
  %pd = getelementptr inbounds i32, ptr addrspace(1) %dst, i64 %t64
  store i32 %res, ptr addrspace(1) %pd, align 4
  br i1 %first, label %inval, label %exit
inval:
  call void @llvm.nvvm.mbarrier.inval.shared(ptr addrspace(3) @bar)
  br label %exit
exit:
  ret void
}

; One warp: ldmatrix fragments from shared memory feeding several mma shapes.
define ptx_kernel void @mma_fragments(ptr addrspace(1) noalias %out, ptr addrspace(1) noalias %dout, double %da, double %db) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %lane = and i32 %tid, 31
  %row = and i32 %lane, 15
  %r64 = zext i32 %row to i64
  %roff = mul i64 %r64, 64
  %p = getelementptr inbounds [2 x [1024 x i8]], ptr addrspace(3) @stage, i64 0, i64 0, i64 %roff
  %a = call { i32, i32, i32, i32 } @llvm.nvvm.ldmatrix.sync.aligned.m8n8.x4.b16.p3(ptr addrspace(3) %p)
  %pb = getelementptr inbounds [2 x [1024 x i8]], ptr addrspace(3) @stage, i64 0, i64 1, i64 %roff
  %b = call { i32, i32 } @llvm.nvvm.ldmatrix.sync.aligned.m8n8.x2.trans.b16.p3(ptr addrspace(3) %pb)
  %one = call i32 @llvm.nvvm.ldmatrix.sync.aligned.m8n8.x1.b16.p3(ptr addrspace(3) %pb)
  %a0 = extractvalue { i32, i32, i32, i32 } %a, 0
  %a1 = extractvalue { i32, i32, i32, i32 } %a, 1
  %a2 = extractvalue { i32, i32, i32, i32 } %a, 2
  %a3 = extractvalue { i32, i32, i32, i32 } %a, 3
  %b0 = extractvalue { i32, i32 } %b, 0
  %b1 = extractvalue { i32, i32 } %b, 1
  %h0 = bitcast i32 %a0 to <2 x half>
  %h1 = bitcast i32 %a1 to <2 x half>
  %h2 = bitcast i32 %a2 to <2 x half>
  %h3 = bitcast i32 %a3 to <2 x half>
  %hb0 = bitcast i32 %b0 to <2 x half>
  %hb1 = bitcast i32 %b1 to <2 x half>
  %d1 = call { float, float, float, float } @llvm.nvvm.mma.m16n8k16.row.col.f32.f32(<2 x half> %h0, <2 x half> %h1, <2 x half> %h2, <2 x half> %h3, <2 x half> %hb0, <2 x half> %hb1, float 0.0, float 0.0, float 0.0, float 0.0)
  %c0 = extractvalue { float, float, float, float } %d1, 0
  %c1 = extractvalue { float, float, float, float } %d1, 1
  %c2 = extractvalue { float, float, float, float } %d1, 2
  %c3 = extractvalue { float, float, float, float } %d1, 3
  %d2 = call { float, float, float, float } @llvm.nvvm.mma.m16n8k16.row.col.bf16(i32 %a0, i32 %a1, i32 %a2, i32 %a3, i32 %b0, i32 %b1, float %c0, float %c1, float %c2, float %c3)
  %e0 = extractvalue { float, float, float, float } %d2, 0
  %e1 = extractvalue { float, float, float, float } %d2, 1
  %e2 = extractvalue { float, float, float, float } %d2, 2
  %e3 = extractvalue { float, float, float, float } %d2, 3
  %d3 = call { float, float, float, float } @llvm.nvvm.mma.m16n8k8.row.col.tf32(i32 %a0, i32 %a1, i32 %a2, i32 %a3, i32 %b0, i32 %one, float %e0, float %e1, float %e2, float %e3)
  %f0 = extractvalue { float, float, float, float } %d3, 0
  %f3 = extractvalue { float, float, float, float } %d3, 3
  %d4 = call { i32, i32, i32, i32 } @llvm.nvvm.mma.m16n8k32.row.col.satfinite.s8(i32 %a0, i32 %a1, i32 %a2, i32 %a3, i32 %b0, i32 %b1, i32 0, i32 0, i32 0, i32 0)
  %i0 = extractvalue { i32, i32, i32, i32 } %d4, 0
  %i2 = extractvalue { i32, i32, i32, i32 } %d4, 2
  %d5 = call { double, double } @llvm.nvvm.mma.m8n8k4.row.col.f64(double %da, double %db, double 0.0, double 1.0)
  %g0 = extractvalue { double, double } %d5, 0
  %g1 = extractvalue { double, double } %d5, 1
  %l64 = zext i32 %lane to i64
  %o = mul i64 %l64, 4
  %po = getelementptr inbounds float, ptr addrspace(1) %out, i64 %o
  store float %f0, ptr addrspace(1) %po, align 4
  %po1 = getelementptr inbounds float, ptr addrspace(1) %po, i64 1
  store float %f3, ptr addrspace(1) %po1, align 4
  %po2 = getelementptr inbounds i32, ptr addrspace(1) %po, i64 2
  %ix = xor i32 %i0, %i2
  store i32 %ix, ptr addrspace(1) %po2, align 4
  %pd = getelementptr inbounds double, ptr addrspace(1) %dout, i64 %l64
  %gs = fadd double %g0, %g1
  store double %gs, ptr addrspace(1) %pd, align 8
  ret void
}

; WMMA 16x16x16 tile through the generic wmma intrinsics.
define ptx_kernel void @wmma_tile(ptr addrspace(1) %a, ptr addrspace(1) %b, ptr addrspace(1) %c, i32 %lda, i32 %ldb, i32 %ldc) {
entry:
  %fa = call { <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half> } @llvm.nvvm.wmma.m16n16k16.load.a.row.stride.f16.p1(ptr addrspace(1) %a, i32 %lda)
  %fb = call { <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half> } @llvm.nvvm.wmma.m16n16k16.load.b.col.stride.f16.p1(ptr addrspace(1) %b, i32 %ldb)
  %a0 = extractvalue { <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half> } %fa, 0
  %a1 = extractvalue { <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half> } %fa, 1
  %a2 = extractvalue { <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half> } %fa, 2
  %a3 = extractvalue { <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half> } %fa, 3
  %a4 = extractvalue { <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half> } %fa, 4
  %a5 = extractvalue { <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half> } %fa, 5
  %a6 = extractvalue { <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half> } %fa, 6
  %a7 = extractvalue { <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half> } %fa, 7
  %b0 = extractvalue { <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half> } %fb, 0
  %b1 = extractvalue { <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half> } %fb, 1
  %b2 = extractvalue { <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half> } %fb, 2
  %b3 = extractvalue { <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half> } %fb, 3
  %b4 = extractvalue { <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half> } %fb, 4
  %b5 = extractvalue { <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half> } %fb, 5
  %b6 = extractvalue { <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half> } %fb, 6
  %b7 = extractvalue { <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half>, <2 x half> } %fb, 7
  %d = call { float, float, float, float, float, float, float, float } @llvm.nvvm.wmma.m16n16k16.mma.row.col.f32.f32(<2 x half> %a0, <2 x half> %a1, <2 x half> %a2, <2 x half> %a3, <2 x half> %a4, <2 x half> %a5, <2 x half> %a6, <2 x half> %a7, <2 x half> %b0, <2 x half> %b1, <2 x half> %b2, <2 x half> %b3, <2 x half> %b4, <2 x half> %b5, <2 x half> %b6, <2 x half> %b7, float 0.0, float 0.0, float 0.0, float 0.0, float 0.0, float 0.0, float 0.0, float 0.0)
  %d0 = extractvalue { float, float, float, float, float, float, float, float } %d, 0
  %d1 = extractvalue { float, float, float, float, float, float, float, float } %d, 1
  %d2 = extractvalue { float, float, float, float, float, float, float, float } %d, 2
  %d3 = extractvalue { float, float, float, float, float, float, float, float } %d, 3
  %d4 = extractvalue { float, float, float, float, float, float, float, float } %d, 4
  %d5 = extractvalue { float, float, float, float, float, float, float, float } %d, 5
  %d6 = extractvalue { float, float, float, float, float, float, float, float } %d, 6
  %d7 = extractvalue { float, float, float, float, float, float, float, float } %d, 7
  call void @llvm.nvvm.wmma.m16n16k16.store.d.row.stride.f32.p1(ptr addrspace(1) %c, float %d0, float %d1, float %d2, float %d3, float %d4, float %d5, float %d6, float %d7, i32 %ldc)
  ret void
}
