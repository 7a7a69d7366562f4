; corpus-archs: sm_90a
; Hopper wgmma from LLVM IR: LLVM has intrinsics for wgmma.fence /
; commit_group / wait_group but not for wgmma.mma_async itself, so (like
; Triton and other IR-level code generators) the MMA is inline asm with 32
; tied f32 accumulators, fed by TMA loads into 128B-swizzled shared memory
; and an mbarrier; plus a register-A variant fed by ldmatrix, kept in a
; non-inlined helper so its 16-float aggregate return goes through the ABI.
; (Generated once by a small script; kept as the source of record.)
target triple = "nvptx64-nvidia-cuda"

@sa = internal addrspace(3) global [8192 x i8] undef, align 1024
@sb = internal addrspace(3) global [8192 x i8] undef, align 1024
@bar = internal addrspace(3) global i64 undef, align 8

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare void @llvm.nvvm.barrier.cta.sync.aligned.all(i32)
declare void @llvm.nvvm.mbarrier.init.shared(ptr addrspace(3), i32)
declare void @llvm.nvvm.fence.mbarrier_init.release.cluster()
declare i64 @llvm.nvvm.mbarrier.arrive.expect.tx.scope.cta.space.cta(ptr addrspace(3), i32)
declare i1 @llvm.nvvm.mbarrier.try.wait.parity.scope.cta.space.cta(ptr addrspace(3), i32)
declare void @llvm.nvvm.cp.async.bulk.tensor.g2s.tile.2d(ptr addrspace(7), ptr addrspace(3), ptr, i32, i32, i16, i64, i1, i1, i32)
declare void @llvm.nvvm.wgmma.fence.sync.aligned()
declare void @llvm.nvvm.wgmma.commit_group.sync.aligned()
declare void @llvm.nvvm.wgmma.wait_group.sync.aligned(i64)
declare { i32, i32, i32, i32 } @llvm.nvvm.ldmatrix.sync.aligned.m8n8.x4.b16.p3(ptr addrspace(3))

define internal { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } @wgmma_m64n32k16_f16_rs(float %c0, float %c1, float %c2, float %c3, float %c4, float %c5, float %c6, float %c7, float %c8, float %c9, float %c10, float %c11, float %c12, float %c13, float %c14, float %c15, i32 %ra0, i32 %ra1, i32 %ra2, i32 %ra3, i64 %db, i32 %scale) noinline {
  %r = call { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } asm sideeffect "{ .reg .pred p; setp.ne.b32 p, $37, 0; wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16 {$0, $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15}, {$32, $33, $34, $35}, $36, p, 1, 1, 1; }", "=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,r,r,r,r,l,r"(float %c0, float %c1, float %c2, float %c3, float %c4, float %c5, float %c6, float %c7, float %c8, float %c9, float %c10, float %c11, float %c12, float %c13, float %c14, float %c15, i32 %ra0, i32 %ra1, i32 %ra2, i32 %ra3, i64 %db, i32 %scale)
  ret { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %r
}

define ptx_kernel void @wgmma_gemm_tile(ptr byval([128 x i8]) align 64 "nvvm.grid_constant" %tmap_a, ptr byval([128 x i8]) align 64 "nvvm.grid_constant" %tmap_b, ptr addrspace(1) %c, i32 %ktiles, i32 %ldc) #0 {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %cta = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %is0 = icmp eq i32 %tid, 0
  br i1 %is0, label %init, label %ready
init:
  call void @llvm.nvvm.mbarrier.init.shared(ptr addrspace(3) @bar, i32 1)
  call void @llvm.nvvm.fence.mbarrier_init.release.cluster()
  br label %ready
ready:
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %abase = ptrtoint ptr addrspace(3) @sa to i64
  %bbase = ptrtoint ptr addrspace(3) @sb to i64
  br label %kloop
kloop:
  %k = phi i32 [ 0, %ready ], [ %k.next, %kdone ]
  %acc0 = phi float [ 0.0, %ready ], [ %nacc0, %kdone ]
  %acc1 = phi float [ 0.0, %ready ], [ %nacc1, %kdone ]
  %acc2 = phi float [ 0.0, %ready ], [ %nacc2, %kdone ]
  %acc3 = phi float [ 0.0, %ready ], [ %nacc3, %kdone ]
  %acc4 = phi float [ 0.0, %ready ], [ %nacc4, %kdone ]
  %acc5 = phi float [ 0.0, %ready ], [ %nacc5, %kdone ]
  %acc6 = phi float [ 0.0, %ready ], [ %nacc6, %kdone ]
  %acc7 = phi float [ 0.0, %ready ], [ %nacc7, %kdone ]
  %acc8 = phi float [ 0.0, %ready ], [ %nacc8, %kdone ]
  %acc9 = phi float [ 0.0, %ready ], [ %nacc9, %kdone ]
  %acc10 = phi float [ 0.0, %ready ], [ %nacc10, %kdone ]
  %acc11 = phi float [ 0.0, %ready ], [ %nacc11, %kdone ]
  %acc12 = phi float [ 0.0, %ready ], [ %nacc12, %kdone ]
  %acc13 = phi float [ 0.0, %ready ], [ %nacc13, %kdone ]
  %acc14 = phi float [ 0.0, %ready ], [ %nacc14, %kdone ]
  %acc15 = phi float [ 0.0, %ready ], [ %nacc15, %kdone ]
  %acc16 = phi float [ 0.0, %ready ], [ %nacc16, %kdone ]
  %acc17 = phi float [ 0.0, %ready ], [ %nacc17, %kdone ]
  %acc18 = phi float [ 0.0, %ready ], [ %nacc18, %kdone ]
  %acc19 = phi float [ 0.0, %ready ], [ %nacc19, %kdone ]
  %acc20 = phi float [ 0.0, %ready ], [ %nacc20, %kdone ]
  %acc21 = phi float [ 0.0, %ready ], [ %nacc21, %kdone ]
  %acc22 = phi float [ 0.0, %ready ], [ %nacc22, %kdone ]
  %acc23 = phi float [ 0.0, %ready ], [ %nacc23, %kdone ]
  %acc24 = phi float [ 0.0, %ready ], [ %nacc24, %kdone ]
  %acc25 = phi float [ 0.0, %ready ], [ %nacc25, %kdone ]
  %acc26 = phi float [ 0.0, %ready ], [ %nacc26, %kdone ]
  %acc27 = phi float [ 0.0, %ready ], [ %nacc27, %kdone ]
  %acc28 = phi float [ 0.0, %ready ], [ %nacc28, %kdone ]
  %acc29 = phi float [ 0.0, %ready ], [ %nacc29, %kdone ]
  %acc30 = phi float [ 0.0, %ready ], [ %nacc30, %kdone ]
  %acc31 = phi float [ 0.0, %ready ], [ %nacc31, %kdone ]
  br i1 %is0, label %load, label %wait
load:
  %tx = call i64 @llvm.nvvm.mbarrier.arrive.expect.tx.scope.cta.space.cta(ptr addrspace(3) @bar, i32 16384)
  %kx = shl i32 %k, 6
  %my = shl i32 %cta, 6
  %sa7 = addrspacecast ptr addrspace(3) @sa to ptr addrspace(7)
  %sb7 = addrspacecast ptr addrspace(3) @sb to ptr addrspace(7)
  call void @llvm.nvvm.cp.async.bulk.tensor.g2s.tile.2d(ptr addrspace(7) %sa7, ptr addrspace(3) @bar, ptr %tmap_a, i32 %kx, i32 %my, i16 0, i64 0, i1 false, i1 false, i32 0)
  call void @llvm.nvvm.cp.async.bulk.tensor.g2s.tile.2d(ptr addrspace(7) %sb7, ptr addrspace(3) @bar, ptr %tmap_b, i32 %kx, i32 0, i16 0, i64 0, i1 false, i1 false, i32 0)
  br label %wait
wait:
  %par = and i32 %k, 1
  %ok = call i1 @llvm.nvvm.mbarrier.try.wait.parity.scope.cta.space.cta(ptr addrspace(3) @bar, i32 %par)
  br i1 %ok, label %compute, label %wait
compute:
  call void @llvm.nvvm.wgmma.fence.sync.aligned()
  %aoff0 = add i64 %abase, 0
  %boff0 = add i64 %bbase, 0
  %alo0 = lshr i64 %aoff0, 4
  %am0 = and i64 %alo0, 16383
  %ad0 = or i64 %am0, 4611686293305294849
  %blo0 = lshr i64 %boff0, 4
  %bm0 = and i64 %blo0, 16383
  %bd0 = or i64 %bm0, 4611686293305294849
  %first0 = icmp eq i32 %k, 0
  %sc0 = select i1 %first0, i32 0, i32 1
  %w0 = call { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } asm sideeffect "{ .reg .pred p; setp.ne.b32 p, $66, 0; wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {$0, $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26, $27, $28, $29, $30, $31}, $64, $65, p, 1, 1, 0, 0; }", "=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,l,l,r"(float %acc0, float %acc1, float %acc2, float %acc3, float %acc4, float %acc5, float %acc6, float %acc7, float %acc8, float %acc9, float %acc10, float %acc11, float %acc12, float %acc13, float %acc14, float %acc15, float %acc16, float %acc17, float %acc18, float %acc19, float %acc20, float %acc21, float %acc22, float %acc23, float %acc24, float %acc25, float %acc26, float %acc27, float %acc28, float %acc29, float %acc30, float %acc31, i64 %ad0, i64 %bd0, i32 %sc0)
  %w0_0 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w0, 0
  %w0_1 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w0, 1
  %w0_2 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w0, 2
  %w0_3 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w0, 3
  %w0_4 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w0, 4
  %w0_5 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w0, 5
  %w0_6 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w0, 6
  %w0_7 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w0, 7
  %w0_8 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w0, 8
  %w0_9 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w0, 9
  %w0_10 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w0, 10
  %w0_11 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w0, 11
  %w0_12 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w0, 12
  %w0_13 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w0, 13
  %w0_14 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w0, 14
  %w0_15 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w0, 15
  %w0_16 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w0, 16
  %w0_17 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w0, 17
  %w0_18 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w0, 18
  %w0_19 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w0, 19
  %w0_20 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w0, 20
  %w0_21 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w0, 21
  %w0_22 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w0, 22
  %w0_23 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w0, 23
  %w0_24 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w0, 24
  %w0_25 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w0, 25
  %w0_26 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w0, 26
  %w0_27 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w0, 27
  %w0_28 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w0, 28
  %w0_29 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w0, 29
  %w0_30 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w0, 30
  %w0_31 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w0, 31
  %aoff1 = add i64 %abase, 32
  %boff1 = add i64 %bbase, 32
  %alo1 = lshr i64 %aoff1, 4
  %am1 = and i64 %alo1, 16383
  %ad1 = or i64 %am1, 4611686293305294849
  %blo1 = lshr i64 %boff1, 4
  %bm1 = and i64 %blo1, 16383
  %bd1 = or i64 %bm1, 4611686293305294849
  %first1 = icmp eq i32 %k, 0
  %sc1 = add i32 0, 1
  %w1 = call { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } asm sideeffect "{ .reg .pred p; setp.ne.b32 p, $66, 0; wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {$0, $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26, $27, $28, $29, $30, $31}, $64, $65, p, 1, 1, 0, 0; }", "=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,l,l,r"(float %w0_0, float %w0_1, float %w0_2, float %w0_3, float %w0_4, float %w0_5, float %w0_6, float %w0_7, float %w0_8, float %w0_9, float %w0_10, float %w0_11, float %w0_12, float %w0_13, float %w0_14, float %w0_15, float %w0_16, float %w0_17, float %w0_18, float %w0_19, float %w0_20, float %w0_21, float %w0_22, float %w0_23, float %w0_24, float %w0_25, float %w0_26, float %w0_27, float %w0_28, float %w0_29, float %w0_30, float %w0_31, i64 %ad1, i64 %bd1, i32 %sc1)
  %w1_0 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w1, 0
  %w1_1 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w1, 1
  %w1_2 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w1, 2
  %w1_3 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w1, 3
  %w1_4 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w1, 4
  %w1_5 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w1, 5
  %w1_6 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w1, 6
  %w1_7 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w1, 7
  %w1_8 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w1, 8
  %w1_9 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w1, 9
  %w1_10 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w1, 10
  %w1_11 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w1, 11
  %w1_12 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w1, 12
  %w1_13 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w1, 13
  %w1_14 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w1, 14
  %w1_15 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w1, 15
  %w1_16 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w1, 16
  %w1_17 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w1, 17
  %w1_18 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w1, 18
  %w1_19 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w1, 19
  %w1_20 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w1, 20
  %w1_21 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w1, 21
  %w1_22 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w1, 22
  %w1_23 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w1, 23
  %w1_24 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w1, 24
  %w1_25 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w1, 25
  %w1_26 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w1, 26
  %w1_27 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w1, 27
  %w1_28 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w1, 28
  %w1_29 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w1, 29
  %w1_30 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w1, 30
  %w1_31 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w1, 31
  %aoff2 = add i64 %abase, 64
  %boff2 = add i64 %bbase, 64
  %alo2 = lshr i64 %aoff2, 4
  %am2 = and i64 %alo2, 16383
  %ad2 = or i64 %am2, 4611686293305294849
  %blo2 = lshr i64 %boff2, 4
  %bm2 = and i64 %blo2, 16383
  %bd2 = or i64 %bm2, 4611686293305294849
  %first2 = icmp eq i32 %k, 0
  %sc2 = add i32 0, 1
  %w2 = call { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } asm sideeffect "{ .reg .pred p; setp.ne.b32 p, $66, 0; wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {$0, $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26, $27, $28, $29, $30, $31}, $64, $65, p, 1, 1, 0, 0; }", "=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,l,l,r"(float %w1_0, float %w1_1, float %w1_2, float %w1_3, float %w1_4, float %w1_5, float %w1_6, float %w1_7, float %w1_8, float %w1_9, float %w1_10, float %w1_11, float %w1_12, float %w1_13, float %w1_14, float %w1_15, float %w1_16, float %w1_17, float %w1_18, float %w1_19, float %w1_20, float %w1_21, float %w1_22, float %w1_23, float %w1_24, float %w1_25, float %w1_26, float %w1_27, float %w1_28, float %w1_29, float %w1_30, float %w1_31, i64 %ad2, i64 %bd2, i32 %sc2)
  %w2_0 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w2, 0
  %w2_1 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w2, 1
  %w2_2 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w2, 2
  %w2_3 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w2, 3
  %w2_4 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w2, 4
  %w2_5 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w2, 5
  %w2_6 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w2, 6
  %w2_7 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w2, 7
  %w2_8 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w2, 8
  %w2_9 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w2, 9
  %w2_10 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w2, 10
  %w2_11 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w2, 11
  %w2_12 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w2, 12
  %w2_13 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w2, 13
  %w2_14 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w2, 14
  %w2_15 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w2, 15
  %w2_16 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w2, 16
  %w2_17 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w2, 17
  %w2_18 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w2, 18
  %w2_19 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w2, 19
  %w2_20 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w2, 20
  %w2_21 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w2, 21
  %w2_22 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w2, 22
  %w2_23 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w2, 23
  %w2_24 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w2, 24
  %w2_25 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w2, 25
  %w2_26 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w2, 26
  %w2_27 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w2, 27
  %w2_28 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w2, 28
  %w2_29 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w2, 29
  %w2_30 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w2, 30
  %w2_31 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w2, 31
  %aoff3 = add i64 %abase, 96
  %boff3 = add i64 %bbase, 96
  %alo3 = lshr i64 %aoff3, 4
  %am3 = and i64 %alo3, 16383
  %ad3 = or i64 %am3, 4611686293305294849
  %blo3 = lshr i64 %boff3, 4
  %bm3 = and i64 %blo3, 16383
  %bd3 = or i64 %bm3, 4611686293305294849
  %first3 = icmp eq i32 %k, 0
  %sc3 = add i32 0, 1
  %w3 = call { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } asm sideeffect "{ .reg .pred p; setp.ne.b32 p, $66, 0; wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {$0, $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26, $27, $28, $29, $30, $31}, $64, $65, p, 1, 1, 0, 0; }", "=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,l,l,r"(float %w2_0, float %w2_1, float %w2_2, float %w2_3, float %w2_4, float %w2_5, float %w2_6, float %w2_7, float %w2_8, float %w2_9, float %w2_10, float %w2_11, float %w2_12, float %w2_13, float %w2_14, float %w2_15, float %w2_16, float %w2_17, float %w2_18, float %w2_19, float %w2_20, float %w2_21, float %w2_22, float %w2_23, float %w2_24, float %w2_25, float %w2_26, float %w2_27, float %w2_28, float %w2_29, float %w2_30, float %w2_31, i64 %ad3, i64 %bd3, i32 %sc3)
  %w3_0 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w3, 0
  %w3_1 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w3, 1
  %w3_2 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w3, 2
  %w3_3 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w3, 3
  %w3_4 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w3, 4
  %w3_5 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w3, 5
  %w3_6 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w3, 6
  %w3_7 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w3, 7
  %w3_8 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w3, 8
  %w3_9 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w3, 9
  %w3_10 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w3, 10
  %w3_11 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w3, 11
  %w3_12 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w3, 12
  %w3_13 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w3, 13
  %w3_14 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w3, 14
  %w3_15 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w3, 15
  %w3_16 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w3, 16
  %w3_17 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w3, 17
  %w3_18 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w3, 18
  %w3_19 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w3, 19
  %w3_20 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w3, 20
  %w3_21 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w3, 21
  %w3_22 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w3, 22
  %w3_23 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w3, 23
  %w3_24 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w3, 24
  %w3_25 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w3, 25
  %w3_26 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w3, 26
  %w3_27 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w3, 27
  %w3_28 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w3, 28
  %w3_29 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w3, 29
  %w3_30 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w3, 30
  %w3_31 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w3, 31
  call void @llvm.nvvm.wgmma.commit_group.sync.aligned()
  call void @llvm.nvvm.wgmma.wait_group.sync.aligned(i64 0)
  br label %kdone
kdone:
  %nacc0 = phi float [ %w3_0, %compute ]
  %nacc1 = phi float [ %w3_1, %compute ]
  %nacc2 = phi float [ %w3_2, %compute ]
  %nacc3 = phi float [ %w3_3, %compute ]
  %nacc4 = phi float [ %w3_4, %compute ]
  %nacc5 = phi float [ %w3_5, %compute ]
  %nacc6 = phi float [ %w3_6, %compute ]
  %nacc7 = phi float [ %w3_7, %compute ]
  %nacc8 = phi float [ %w3_8, %compute ]
  %nacc9 = phi float [ %w3_9, %compute ]
  %nacc10 = phi float [ %w3_10, %compute ]
  %nacc11 = phi float [ %w3_11, %compute ]
  %nacc12 = phi float [ %w3_12, %compute ]
  %nacc13 = phi float [ %w3_13, %compute ]
  %nacc14 = phi float [ %w3_14, %compute ]
  %nacc15 = phi float [ %w3_15, %compute ]
  %nacc16 = phi float [ %w3_16, %compute ]
  %nacc17 = phi float [ %w3_17, %compute ]
  %nacc18 = phi float [ %w3_18, %compute ]
  %nacc19 = phi float [ %w3_19, %compute ]
  %nacc20 = phi float [ %w3_20, %compute ]
  %nacc21 = phi float [ %w3_21, %compute ]
  %nacc22 = phi float [ %w3_22, %compute ]
  %nacc23 = phi float [ %w3_23, %compute ]
  %nacc24 = phi float [ %w3_24, %compute ]
  %nacc25 = phi float [ %w3_25, %compute ]
  %nacc26 = phi float [ %w3_26, %compute ]
  %nacc27 = phi float [ %w3_27, %compute ]
  %nacc28 = phi float [ %w3_28, %compute ]
  %nacc29 = phi float [ %w3_29, %compute ]
  %nacc30 = phi float [ %w3_30, %compute ]
  %nacc31 = phi float [ %w3_31, %compute ]
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %k.next = add nuw i32 %k, 1
  %more = icmp ult i32 %k.next, %ktiles
  br i1 %more, label %kloop, label %epilogue
epilogue:
  %warp = lshr i32 %tid, 5
  %lane = and i32 %tid, 31
  %r0a = shl i32 %warp, 4
  %r0b = lshr i32 %lane, 2
  %row0 = add i32 %r0a, %r0b
  %ctarow = shl i32 %cta, 6
  %grow = add i32 %ctarow, %row0
  %grow8 = add i32 %grow, 8
  %cq = and i32 %lane, 3
  %c2 = shl i32 %cq, 1
  %col0_0 = add i32 %c2, 0
  %ro0_0 = mul i32 %grow, %ldc
  %ix0_0 = add i32 %ro0_0, %col0_0
  %ix64_0_0 = zext i32 %ix0_0 to i64
  %pc0_0 = getelementptr inbounds float, ptr addrspace(1) %c, i64 %ix64_0_0
  %v0_0a = insertelement <2 x float> poison, float %w3_0, i32 0
  %v0_0 = insertelement <2 x float> %v0_0a, float %w3_1, i32 1
  store <2 x float> %v0_0, ptr addrspace(1) %pc0_0, align 8
  %col0_1 = add i32 %c2, 0
  %ro0_1 = mul i32 %grow8, %ldc
  %ix0_1 = add i32 %ro0_1, %col0_1
  %ix64_0_1 = zext i32 %ix0_1 to i64
  %pc0_1 = getelementptr inbounds float, ptr addrspace(1) %c, i64 %ix64_0_1
  %v0_1a = insertelement <2 x float> poison, float %w3_2, i32 0
  %v0_1 = insertelement <2 x float> %v0_1a, float %w3_3, i32 1
  store <2 x float> %v0_1, ptr addrspace(1) %pc0_1, align 8
  %col1_0 = add i32 %c2, 8
  %ro1_0 = mul i32 %grow, %ldc
  %ix1_0 = add i32 %ro1_0, %col1_0
  %ix64_1_0 = zext i32 %ix1_0 to i64
  %pc1_0 = getelementptr inbounds float, ptr addrspace(1) %c, i64 %ix64_1_0
  %v1_0a = insertelement <2 x float> poison, float %w3_4, i32 0
  %v1_0 = insertelement <2 x float> %v1_0a, float %w3_5, i32 1
  store <2 x float> %v1_0, ptr addrspace(1) %pc1_0, align 8
  %col1_1 = add i32 %c2, 8
  %ro1_1 = mul i32 %grow8, %ldc
  %ix1_1 = add i32 %ro1_1, %col1_1
  %ix64_1_1 = zext i32 %ix1_1 to i64
  %pc1_1 = getelementptr inbounds float, ptr addrspace(1) %c, i64 %ix64_1_1
  %v1_1a = insertelement <2 x float> poison, float %w3_6, i32 0
  %v1_1 = insertelement <2 x float> %v1_1a, float %w3_7, i32 1
  store <2 x float> %v1_1, ptr addrspace(1) %pc1_1, align 8
  %col2_0 = add i32 %c2, 16
  %ro2_0 = mul i32 %grow, %ldc
  %ix2_0 = add i32 %ro2_0, %col2_0
  %ix64_2_0 = zext i32 %ix2_0 to i64
  %pc2_0 = getelementptr inbounds float, ptr addrspace(1) %c, i64 %ix64_2_0
  %v2_0a = insertelement <2 x float> poison, float %w3_8, i32 0
  %v2_0 = insertelement <2 x float> %v2_0a, float %w3_9, i32 1
  store <2 x float> %v2_0, ptr addrspace(1) %pc2_0, align 8
  %col2_1 = add i32 %c2, 16
  %ro2_1 = mul i32 %grow8, %ldc
  %ix2_1 = add i32 %ro2_1, %col2_1
  %ix64_2_1 = zext i32 %ix2_1 to i64
  %pc2_1 = getelementptr inbounds float, ptr addrspace(1) %c, i64 %ix64_2_1
  %v2_1a = insertelement <2 x float> poison, float %w3_10, i32 0
  %v2_1 = insertelement <2 x float> %v2_1a, float %w3_11, i32 1
  store <2 x float> %v2_1, ptr addrspace(1) %pc2_1, align 8
  %col3_0 = add i32 %c2, 24
  %ro3_0 = mul i32 %grow, %ldc
  %ix3_0 = add i32 %ro3_0, %col3_0
  %ix64_3_0 = zext i32 %ix3_0 to i64
  %pc3_0 = getelementptr inbounds float, ptr addrspace(1) %c, i64 %ix64_3_0
  %v3_0a = insertelement <2 x float> poison, float %w3_12, i32 0
  %v3_0 = insertelement <2 x float> %v3_0a, float %w3_13, i32 1
  store <2 x float> %v3_0, ptr addrspace(1) %pc3_0, align 8
  %col3_1 = add i32 %c2, 24
  %ro3_1 = mul i32 %grow8, %ldc
  %ix3_1 = add i32 %ro3_1, %col3_1
  %ix64_3_1 = zext i32 %ix3_1 to i64
  %pc3_1 = getelementptr inbounds float, ptr addrspace(1) %c, i64 %ix64_3_1
  %v3_1a = insertelement <2 x float> poison, float %w3_14, i32 0
  %v3_1 = insertelement <2 x float> %v3_1a, float %w3_15, i32 1
  store <2 x float> %v3_1, ptr addrspace(1) %pc3_1, align 8
  %col4_0 = add i32 %c2, 32
  %ro4_0 = mul i32 %grow, %ldc
  %ix4_0 = add i32 %ro4_0, %col4_0
  %ix64_4_0 = zext i32 %ix4_0 to i64
  %pc4_0 = getelementptr inbounds float, ptr addrspace(1) %c, i64 %ix64_4_0
  %v4_0a = insertelement <2 x float> poison, float %w3_16, i32 0
  %v4_0 = insertelement <2 x float> %v4_0a, float %w3_17, i32 1
  store <2 x float> %v4_0, ptr addrspace(1) %pc4_0, align 8
  %col4_1 = add i32 %c2, 32
  %ro4_1 = mul i32 %grow8, %ldc
  %ix4_1 = add i32 %ro4_1, %col4_1
  %ix64_4_1 = zext i32 %ix4_1 to i64
  %pc4_1 = getelementptr inbounds float, ptr addrspace(1) %c, i64 %ix64_4_1
  %v4_1a = insertelement <2 x float> poison, float %w3_18, i32 0
  %v4_1 = insertelement <2 x float> %v4_1a, float %w3_19, i32 1
  store <2 x float> %v4_1, ptr addrspace(1) %pc4_1, align 8
  %col5_0 = add i32 %c2, 40
  %ro5_0 = mul i32 %grow, %ldc
  %ix5_0 = add i32 %ro5_0, %col5_0
  %ix64_5_0 = zext i32 %ix5_0 to i64
  %pc5_0 = getelementptr inbounds float, ptr addrspace(1) %c, i64 %ix64_5_0
  %v5_0a = insertelement <2 x float> poison, float %w3_20, i32 0
  %v5_0 = insertelement <2 x float> %v5_0a, float %w3_21, i32 1
  store <2 x float> %v5_0, ptr addrspace(1) %pc5_0, align 8
  %col5_1 = add i32 %c2, 40
  %ro5_1 = mul i32 %grow8, %ldc
  %ix5_1 = add i32 %ro5_1, %col5_1
  %ix64_5_1 = zext i32 %ix5_1 to i64
  %pc5_1 = getelementptr inbounds float, ptr addrspace(1) %c, i64 %ix64_5_1
  %v5_1a = insertelement <2 x float> poison, float %w3_22, i32 0
  %v5_1 = insertelement <2 x float> %v5_1a, float %w3_23, i32 1
  store <2 x float> %v5_1, ptr addrspace(1) %pc5_1, align 8
  %col6_0 = add i32 %c2, 48
  %ro6_0 = mul i32 %grow, %ldc
  %ix6_0 = add i32 %ro6_0, %col6_0
  %ix64_6_0 = zext i32 %ix6_0 to i64
  %pc6_0 = getelementptr inbounds float, ptr addrspace(1) %c, i64 %ix64_6_0
  %v6_0a = insertelement <2 x float> poison, float %w3_24, i32 0
  %v6_0 = insertelement <2 x float> %v6_0a, float %w3_25, i32 1
  store <2 x float> %v6_0, ptr addrspace(1) %pc6_0, align 8
  %col6_1 = add i32 %c2, 48
  %ro6_1 = mul i32 %grow8, %ldc
  %ix6_1 = add i32 %ro6_1, %col6_1
  %ix64_6_1 = zext i32 %ix6_1 to i64
  %pc6_1 = getelementptr inbounds float, ptr addrspace(1) %c, i64 %ix64_6_1
  %v6_1a = insertelement <2 x float> poison, float %w3_26, i32 0
  %v6_1 = insertelement <2 x float> %v6_1a, float %w3_27, i32 1
  store <2 x float> %v6_1, ptr addrspace(1) %pc6_1, align 8
  %col7_0 = add i32 %c2, 56
  %ro7_0 = mul i32 %grow, %ldc
  %ix7_0 = add i32 %ro7_0, %col7_0
  %ix64_7_0 = zext i32 %ix7_0 to i64
  %pc7_0 = getelementptr inbounds float, ptr addrspace(1) %c, i64 %ix64_7_0
  %v7_0a = insertelement <2 x float> poison, float %w3_28, i32 0
  %v7_0 = insertelement <2 x float> %v7_0a, float %w3_29, i32 1
  store <2 x float> %v7_0, ptr addrspace(1) %pc7_0, align 8
  %col7_1 = add i32 %c2, 56
  %ro7_1 = mul i32 %grow8, %ldc
  %ix7_1 = add i32 %ro7_1, %col7_1
  %ix64_7_1 = zext i32 %ix7_1 to i64
  %pc7_1 = getelementptr inbounds float, ptr addrspace(1) %c, i64 %ix64_7_1
  %v7_1a = insertelement <2 x float> poison, float %w3_30, i32 0
  %v7_1 = insertelement <2 x float> %v7_1a, float %w3_31, i32 1
  store <2 x float> %v7_1, ptr addrspace(1) %pc7_1, align 8
  ret void
}

; Register-A variant: A fragments come from registers (ldmatrix), B from shared memory.
define ptx_kernel void @wgmma_register_a(ptr addrspace(1) %out, i64 %bdesc) #0 {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %lane = and i32 %tid, 31
  %l64 = zext i32 %lane to i64
  %row = shl i64 %l64, 4
  %src = getelementptr inbounds i8, ptr addrspace(3) @sa, i64 %row
  %frag = call { i32, i32, i32, i32 } @llvm.nvvm.ldmatrix.sync.aligned.m8n8.x4.b16.p3(ptr addrspace(3) %src)
  %a0 = extractvalue { i32, i32, i32, i32 } %frag, 0
  %a1 = extractvalue { i32, i32, i32, i32 } %frag, 1
  %a2 = extractvalue { i32, i32, i32, i32 } %frag, 2
  %a3 = extractvalue { i32, i32, i32, i32 } %frag, 3
  call void @llvm.nvvm.wgmma.fence.sync.aligned()
  %w = call { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } @wgmma_m64n32k16_f16_rs(float 0.0, float 0.0, float 0.0, float 0.0, float 0.0, float 0.0, float 0.0, float 0.0, float 0.0, float 0.0, float 0.0, float 0.0, float 0.0, float 0.0, float 0.0, float 0.0, i32 %a0, i32 %a1, i32 %a2, i32 %a3, i64 %bdesc, i32 0)
  call void @llvm.nvvm.wgmma.commit_group.sync.aligned()
  call void @llvm.nvvm.wgmma.wait_group.sync.aligned(i64 0)
  %e0 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w, 0
  %s0 = fadd float 0.0, %e0
  %e1 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w, 1
  %s1 = fadd float %s0, %e1
  %e2 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w, 2
  %s2 = fadd float %s1, %e2
  %e3 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w, 3
  %s3 = fadd float %s2, %e3
  %e4 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w, 4
  %s4 = fadd float %s3, %e4
  %e5 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w, 5
  %s5 = fadd float %s4, %e5
  %e6 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w, 6
  %s6 = fadd float %s5, %e6
  %e7 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w, 7
  %s7 = fadd float %s6, %e7
  %e8 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w, 8
  %s8 = fadd float %s7, %e8
  %e9 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w, 9
  %s9 = fadd float %s8, %e9
  %e10 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w, 10
  %s10 = fadd float %s9, %e10
  %e11 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w, 11
  %s11 = fadd float %s10, %e11
  %e12 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w, 12
  %s12 = fadd float %s11, %e12
  %e13 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w, 13
  %s13 = fadd float %s12, %e13
  %e14 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w, 14
  %s14 = fadd float %s13, %e14
  %e15 = extractvalue { float, float, float, float, float, float, float, float, float, float, float, float, float, float, float, float } %w, 15
  %s15 = fadd float %s14, %e15
  %t64 = zext i32 %tid to i64
  %po = getelementptr inbounds float, ptr addrspace(1) %out, i64 %t64
  store float %s15, ptr addrspace(1) %po, align 4
  ret void
}

attributes #0 = { "nvvm.maxntid"="128,1,1" "nvvm.minctasm"="1" }
