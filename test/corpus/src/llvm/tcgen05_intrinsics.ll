; corpus-archs: sm_100a
; Blackwell tensor memory through NVVM intrinsics: tcgen05.alloc (writing the
; TMEM base into shared memory), relinquish_alloc_permit, tcgen05.mma from
; shared-memory descriptors and from TMEM (kinds f16, tf32, f8f6f4), commit
; to an mbarrier, tcgen05.ld/st with wait::ld/st, tcgen05.cp and shift, the
; thread-sync fences, dealloc, and cluster launch control work stealing.
target triple = "nvptx64-nvidia-cuda"

@tmem_slot = internal addrspace(3) global i32 undef, align 4
@mma_bar = internal addrspace(3) global i64 undef, align 8
@clc_bar = internal addrspace(3) global i64 undef, align 8
@clc_resp = internal addrspace(3) global i128 undef, align 16

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare void @llvm.nvvm.barrier.cta.sync.aligned.all(i32)
declare void @llvm.nvvm.mbarrier.init.shared(ptr addrspace(3), i32)
declare i1 @llvm.nvvm.mbarrier.try.wait.parity.scope.cta.space.cta(ptr addrspace(3), i32)
declare i64 @llvm.nvvm.mbarrier.arrive.expect.tx.scope.cta.space.cta(ptr addrspace(3), i32)
declare void @llvm.nvvm.tcgen05.alloc.shared.cg1(ptr addrspace(3), i32)
declare void @llvm.nvvm.tcgen05.dealloc.cg1(ptr addrspace(6), i32)
declare void @llvm.nvvm.tcgen05.relinq.alloc.permit.cg1()
declare void @llvm.nvvm.tcgen05.mma.shared(ptr addrspace(6), i64, i64, i32, i1, i32, i32, i32)
declare void @llvm.nvvm.tcgen05.mma.tensor(ptr addrspace(6), ptr addrspace(6), i64, i32, i1, i32, i32, i32)
declare void @llvm.nvvm.tcgen05.commit.shared.cg1(ptr addrspace(3))
declare <8 x i32> @llvm.nvvm.tcgen05.ld.32x32b.x8(ptr addrspace(6), i1)
declare <4 x i32> @llvm.nvvm.tcgen05.ld.16x64b.x4(ptr addrspace(6), i1)
declare void @llvm.nvvm.tcgen05.st.32x32b.x4(ptr addrspace(6), <4 x i32>, i1)
declare void @llvm.nvvm.tcgen05.wait.ld()
declare void @llvm.nvvm.tcgen05.wait.st()
declare void @llvm.nvvm.tcgen05.fence.before.thread.sync()
declare void @llvm.nvvm.tcgen05.fence.after.thread.sync()
declare void @llvm.nvvm.tcgen05.cp.128x256b.cg1(ptr addrspace(6), i64)
declare void @llvm.nvvm.tcgen05.shift.down.cg1(ptr addrspace(6))
declare void @llvm.nvvm.clusterlaunchcontrol.try_cancel.async.shared(ptr addrspace(3), ptr addrspace(3))
declare i1 @llvm.nvvm.clusterlaunchcontrol.query_cancel.is_canceled(i128)
declare i32 @llvm.nvvm.read.ptx.sreg.clusterid.x()
declare i32 @llvm.nvvm.clusterlaunchcontrol.query_cancel.get_first_ctaid.x(i128)

define ptx_kernel void @umma_tile(i64 %adesc, i64 %bdesc, i32 %idesc, i32 %ktiles, ptr addrspace(1) %out) #0 {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %warp = lshr i32 %tid, 5
  %w0 = icmp eq i32 %warp, 0
  br i1 %w0, label %alloc, label %alloc.done
alloc:
  call void @llvm.nvvm.tcgen05.alloc.shared.cg1(ptr addrspace(3) @tmem_slot, i32 128)
  call void @llvm.nvvm.tcgen05.relinq.alloc.permit.cg1()
  br label %alloc.done
alloc.done:
  %t0 = icmp eq i32 %tid, 0
  br i1 %t0, label %binit, label %sync
binit:
  call void @llvm.nvvm.mbarrier.init.shared(ptr addrspace(3) @mma_bar, i32 1)
  br label %sync
sync:
  call void @llvm.nvvm.tcgen05.fence.before.thread.sync()
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  call void @llvm.nvvm.tcgen05.fence.after.thread.sync()
  %base = load i32, ptr addrspace(3) @tmem_slot, align 4
  %dtmem = inttoptr i32 %base to ptr addrspace(6)
  ; seed the accumulator with tcgen05.st (each warp owns 32 lanes)
  %lane_off = shl i32 %warp, 21
  %seed_addr = add i32 %base, %lane_off
  %seed_ptr = inttoptr i32 %seed_addr to ptr addrspace(6)
  call void @llvm.nvvm.tcgen05.st.32x32b.x4(ptr addrspace(6) %seed_ptr, <4 x i32> <i32 0, i32 0, i32 0, i32 0>, i1 false)
  call void @llvm.nvvm.tcgen05.wait.st()
  call void @llvm.nvvm.tcgen05.fence.before.thread.sync()
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  call void @llvm.nvvm.tcgen05.fence.after.thread.sync()
  br label %kloop
kloop:
  %k = phi i32 [ 0, %sync ], [ %k.next, %kwaited ]
  br i1 %t0, label %issue, label %kwait
issue:
  %koff = zext i32 %k to i64
  %step = shl i64 %koff, 2
  %a = add i64 %adesc, %step
  %b = add i64 %bdesc, %step
  ; kind::f16, cta_group::1, collector::a::discard; accumulate after the first step
  call void @llvm.nvvm.tcgen05.mma.shared(ptr addrspace(6) %dtmem, i64 %a, i64 %b, i32 %idesc, i1 true, i32 0, i32 1, i32 0)
  ; kind::tf32 and kind::i8 on a second accumulator, A from tensor memory
  %d2a = add i32 %base, 64
  %d2 = inttoptr i32 %d2a to ptr addrspace(6)
  %atm = add i32 %base, 96
  %atmem = inttoptr i32 %atm to ptr addrspace(6)
  call void @llvm.nvvm.tcgen05.mma.tensor(ptr addrspace(6) %d2, ptr addrspace(6) %atmem, i64 %b, i32 %idesc, i1 true, i32 1, i32 1, i32 0)
  call void @llvm.nvvm.tcgen05.mma.shared(ptr addrspace(6) %d2, i64 %a, i64 %b, i32 %idesc, i1 false, i32 2, i32 1, i32 2)
  call void @llvm.nvvm.tcgen05.commit.shared.cg1(ptr addrspace(3) @mma_bar)
  br label %kwait
kwait:
  %par = and i32 %k, 1
  %ok = call i1 @llvm.nvvm.mbarrier.try.wait.parity.scope.cta.space.cta(ptr addrspace(3) @mma_bar, i32 %par)
  br i1 %ok, label %kwaited, label %kwait
kwaited:
  %k.next = add nuw i32 %k, 1
  %more = icmp ult i32 %k.next, %ktiles
  br i1 %more, label %kloop, label %drain
drain:
  call void @llvm.nvvm.tcgen05.fence.after.thread.sync()
  %ld_ptr_i = add i32 %base, %lane_off
  %ld_ptr = inttoptr i32 %ld_ptr_i to ptr addrspace(6)
  %v = call <8 x i32> @llvm.nvvm.tcgen05.ld.32x32b.x8(ptr addrspace(6) %ld_ptr, i1 false)
  %v2 = call <4 x i32> @llvm.nvvm.tcgen05.ld.16x64b.x4(ptr addrspace(6) %ld_ptr, i1 true)
  call void @llvm.nvvm.tcgen05.wait.ld()
  %e0 = extractelement <8 x i32> %v, i32 0
  %e7 = extractelement <8 x i32> %v, i32 7
  %f0 = extractelement <4 x i32> %v2, i32 1
  %x = xor i32 %e0, %e7
  %y = xor i32 %x, %f0
  %yf = bitcast i32 %y to float
  %t64 = zext i32 %tid to i64
  %po = getelementptr inbounds float, ptr addrspace(1) %out, i64 %t64
  store float %yf, ptr addrspace(1) %po, align 4
  br i1 %t0, label %cp, label %teardown
cp:
  %cpa = add i32 %base, 32
  %cpp = inttoptr i32 %cpa to ptr addrspace(6)
  call void @llvm.nvvm.tcgen05.cp.128x256b.cg1(ptr addrspace(6) %cpp, i64 %bdesc)
  call void @llvm.nvvm.tcgen05.shift.down.cg1(ptr addrspace(6) %cpp)
  br label %teardown
teardown:
  call void @llvm.nvvm.tcgen05.fence.before.thread.sync()
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  br i1 %w0, label %free, label %exit
free:
  call void @llvm.nvvm.tcgen05.fence.after.thread.sync()
  call void @llvm.nvvm.tcgen05.dealloc.cg1(ptr addrspace(6) %dtmem, i32 128)
  br label %exit
exit:
  ret void
}

; Persistent kernel that steals not-yet-launched CTAs with cluster launch control.
define ptx_kernel void @clc_persistent(ptr addrspace(1) %work, i32 %ntiles) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %cta = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %t0 = icmp eq i32 %tid, 0
  br i1 %t0, label %init, label %start
init:
  call void @llvm.nvvm.mbarrier.init.shared(ptr addrspace(3) @clc_bar, i32 1)
  br label %start
start:
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  br label %loop
loop:
  %tile = phi i32 [ %cta, %start ], [ %next_tile, %steal_ok ]
  %phase = phi i32 [ 0, %start ], [ %phase.next, %steal_ok ]
  br i1 %t0, label %request, label %work_it
request:
  call void @llvm.nvvm.clusterlaunchcontrol.try_cancel.async.shared(ptr addrspace(3) @clc_resp, ptr addrspace(3) @clc_bar)
  %tx = call i64 @llvm.nvvm.mbarrier.arrive.expect.tx.scope.cta.space.cta(ptr addrspace(3) @clc_bar, i32 16)
  br label %work_it
work_it:
  %in = icmp ult i32 %tile, %ntiles
  br i1 %in, label %do_work, label %wait
do_work:
  %i = mul i32 %tile, 256
  %j = add i32 %i, %tid
  %j64 = zext i32 %j to i64
  %p = getelementptr inbounds float, ptr addrspace(1) %work, i64 %j64
  %v = load float, ptr addrspace(1) %p, align 4
  %v2 = fmul float %v, 2.0
  store float %v2, ptr addrspace(1) %p, align 4
  br label %wait
wait:
  %ok = call i1 @llvm.nvvm.mbarrier.try.wait.parity.scope.cta.space.cta(ptr addrspace(3) @clc_bar, i32 %phase)
  br i1 %ok, label %query, label %wait
query:
  %resp = load i128, ptr addrspace(3) @clc_resp, align 16
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %canceled = call i1 @llvm.nvvm.clusterlaunchcontrol.query_cancel.is_canceled(i128 %resp)
  br i1 %canceled, label %steal_ok, label %exit
steal_ok:
  %next_tile = call i32 @llvm.nvvm.clusterlaunchcontrol.query_cancel.get_first_ctaid.x(i128 %resp)
  %phase.next = xor i32 %phase, 1
  br label %loop
exit:
  ret void
}

attributes #0 = { "nvvm.maxntid"="128,1,1" }
