; corpus-archs: sm_80 sm_90a sm_100a
; A fused row softmax in the shape Triton's LLVM IR takes: masked vector
; loads/stores as predicated inline PTX (`@$p ld.global.v4.b32`), exp2 via
; ex2.approx, butterfly shuffles plus a shared-memory cross-warp reduction
; through an extern dynamic shared buffer, and a .reqntid launch bound.
target triple = "nvptx64-nvidia-cuda"

@global_smem = external addrspace(3) global [0 x i8], align 16

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.shfl.sync.bfly.i32(i32, i32, i32, i32)
declare void @llvm.nvvm.barrier.cta.sync.aligned.all(i32)
declare float @llvm.nvvm.ex2.approx.f(float)
declare float @llvm.maxnum.f32(float, float)

define ptx_kernel void @softmax_kernel(ptr addrspace(1) %out_ptr, ptr addrspace(1) %in_ptr, i32 %in_stride, i32 %out_stride, i32 %n_cols) #0 {
entry:
  %row = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %lane = and i32 %tid, 31
  %warp = lshr i32 %tid, 5
  %col0 = shl i32 %tid, 2
  %roff = mul i32 %row, %in_stride
  %roff64 = sext i32 %roff to i64
  %rowp = getelementptr float, ptr addrspace(1) %in_ptr, i64 %roff64
  %c64 = sext i32 %col0 to i64
  %ptr = getelementptr float, ptr addrspace(1) %rowp, i64 %c64
  %mask = icmp slt i32 %col0, %n_cols
  %ld = call { i32, i32, i32, i32 } asm sideeffect "mov.u32 $0, 0xff800000;\0A\09mov.u32 $1, 0xff800000;\0A\09mov.u32 $2, 0xff800000;\0A\09mov.u32 $3, 0xff800000;\0A\09@$5 ld.global.v4.b32 { $0, $1, $2, $3 }, [ $4 + 0 ];", "=r,=r,=r,=r,l,b"(ptr addrspace(1) %ptr, i1 %mask)
  %r0 = extractvalue { i32, i32, i32, i32 } %ld, 0
  %r1 = extractvalue { i32, i32, i32, i32 } %ld, 1
  %r2 = extractvalue { i32, i32, i32, i32 } %ld, 2
  %r3 = extractvalue { i32, i32, i32, i32 } %ld, 3
  %x0 = bitcast i32 %r0 to float
  %x1 = bitcast i32 %r1 to float
  %x2 = bitcast i32 %r2 to float
  %x3 = bitcast i32 %r3 to float
  %m01 = call float @llvm.maxnum.f32(float %x0, float %x1)
  %m23 = call float @llvm.maxnum.f32(float %x2, float %x3)
  %m = call float @llvm.maxnum.f32(float %m01, float %m23)
  %wm = call float @warp_max(float %m)
  %smem_f = getelementptr i8, ptr addrspace(3) @global_smem, i32 0
  %is_lane0 = icmp eq i32 %lane, 0
  %wslot = getelementptr float, ptr addrspace(3) %smem_f, i32 %warp
  %wmi = bitcast float %wm to i32
  call void asm sideeffect "@$2 st.shared.b32 [ $0 + 0 ], $1;", "r,r,b"(ptr addrspace(3) %wslot, i32 %wmi, i1 %is_lane0)
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %lslot = getelementptr float, ptr addrspace(3) %smem_f, i32 %lane
  %in_warps = icmp slt i32 %lane, 4
  %part = call i32 asm sideeffect "mov.u32 $0, 0xff800000;\0A\09@$2 ld.shared.b32 $0, [ $1 + 0 ];", "=r,r,b"(ptr addrspace(3) %lslot, i1 %in_warps)
  %partf = bitcast i32 %part to float
  %rowmax = call float @warp_max(float %partf)
  %e0a = fsub float %x0, %rowmax
  %e1a = fsub float %x1, %rowmax
  %e2a = fsub float %x2, %rowmax
  %e3a = fsub float %x3, %rowmax
  %e0b = fmul float %e0a, 0x3FF7154760000000
  %e1b = fmul float %e1a, 0x3FF7154760000000
  %e2b = fmul float %e2a, 0x3FF7154760000000
  %e3b = fmul float %e3a, 0x3FF7154760000000
  %e0 = call float @llvm.nvvm.ex2.approx.f(float %e0b)
  %e1 = call float @llvm.nvvm.ex2.approx.f(float %e1b)
  %e2 = call float @llvm.nvvm.ex2.approx.f(float %e2b)
  %e3 = call float @llvm.nvvm.ex2.approx.f(float %e3b)
  %s01 = fadd float %e0, %e1
  %s23 = fadd float %e2, %e3
  %s = fadd float %s01, %s23
  %ws = call float @warp_sum(float %s)
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %wsi = bitcast float %ws to i32
  call void asm sideeffect "@$2 st.shared.b32 [ $0 + 0 ], $1;", "r,r,b"(ptr addrspace(3) %wslot, i32 %wsi, i1 %is_lane0)
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %part2 = call i32 asm sideeffect "mov.u32 $0, 0x0;\0A\09@$2 ld.shared.b32 $0, [ $1 + 0 ];", "=r,r,b"(ptr addrspace(3) %lslot, i1 %in_warps)
  %part2f = bitcast i32 %part2 to float
  %rowsum = call float @warp_sum(float %part2f)
  %inv = fdiv float 1.000000e+00, %rowsum
  %y0 = fmul float %e0, %inv
  %y1 = fmul float %e1, %inv
  %y2 = fmul float %e2, %inv
  %y3 = fmul float %e3, %inv
  %ooff = mul i32 %row, %out_stride
  %ooff64 = sext i32 %ooff to i64
  %orow = getelementptr float, ptr addrspace(1) %out_ptr, i64 %ooff64
  %optr = getelementptr float, ptr addrspace(1) %orow, i64 %c64
  %yi0 = bitcast float %y0 to i32
  %yi1 = bitcast float %y1 to i32
  %yi2 = bitcast float %y2 to i32
  %yi3 = bitcast float %y3 to i32
  call void asm sideeffect "@$5 st.global.v4.b32 [ $4 + 0 ], { $0, $1, $2, $3 };", "r,r,r,r,l,b"(i32 %yi0, i32 %yi1, i32 %yi2, i32 %yi3, ptr addrspace(1) %optr, i1 %mask)
  ret void
}

define internal float @warp_max(float %v) alwaysinline {
  %i0 = bitcast float %v to i32
  %s16 = call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %i0, i32 16, i32 31)
  %f16 = bitcast i32 %s16 to float
  %m16 = call float @llvm.maxnum.f32(float %v, float %f16)
  %i1 = bitcast float %m16 to i32
  %s8 = call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %i1, i32 8, i32 31)
  %f8 = bitcast i32 %s8 to float
  %m8 = call float @llvm.maxnum.f32(float %m16, float %f8)
  %i2 = bitcast float %m8 to i32
  %s4 = call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %i2, i32 4, i32 31)
  %f4 = bitcast i32 %s4 to float
  %m4 = call float @llvm.maxnum.f32(float %m8, float %f4)
  %i3 = bitcast float %m4 to i32
  %s2 = call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %i3, i32 2, i32 31)
  %f2 = bitcast i32 %s2 to float
  %m2 = call float @llvm.maxnum.f32(float %m4, float %f2)
  %i4 = bitcast float %m2 to i32
  %s1 = call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %i4, i32 1, i32 31)
  %f1 = bitcast i32 %s1 to float
  %m1 = call float @llvm.maxnum.f32(float %m2, float %f1)
  ret float %m1
}

define internal float @warp_sum(float %v) alwaysinline {
  %i0 = bitcast float %v to i32
  %s16 = call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %i0, i32 16, i32 31)
  %f16 = bitcast i32 %s16 to float
  %a16 = fadd float %v, %f16
  %i1 = bitcast float %a16 to i32
  %s8 = call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %i1, i32 8, i32 31)
  %f8 = bitcast i32 %s8 to float
  %a8 = fadd float %a16, %f8
  %i2 = bitcast float %a8 to i32
  %s4 = call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %i2, i32 4, i32 31)
  %f4 = bitcast i32 %s4 to float
  %a4 = fadd float %a8, %f4
  %i3 = bitcast float %a4 to i32
  %s2 = call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %i3, i32 2, i32 31)
  %f2 = bitcast i32 %s2 to float
  %a2 = fadd float %a4, %f2
  %i4 = bitcast float %a2 to i32
  %s1 = call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %i4, i32 1, i32 31)
  %f1 = bitcast i32 %s1 to float
  %a1 = fadd float %a2, %f1
  ret float %a1
}

attributes #0 = { "nvvm.reqntid"="128" }
