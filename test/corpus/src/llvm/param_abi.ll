; corpus-archs: sm_80 sm_90a sm_100a
; Device-function parameter ABI corner cases: i1/i8/i16 scalars (widened in
; .param space), vectors of half/i8/float, arrays and nested structs by
; value, over-aligned byval, multiple aggregate returns, a variadic function
; (va_list walked in a local buffer), and calls with 20+ arguments.
target triple = "nvptx64-nvidia-cuda"

%struct.Inner = type { i8, i16, float }
%struct.Outer = type { %struct.Inner, [3 x i32], <2 x float>, i64 }
%struct.Aligned = type { [4 x double] }

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare void @llvm.va_start.p0(ptr)
declare void @llvm.va_end.p0(ptr)

define internal i16 @narrow(i1 zeroext %flag, i8 signext %a, i16 zeroext %b, i8 %c) noinline {
  %fa = zext i1 %flag to i16
  %aa = sext i8 %a to i16
  %cc = zext i8 %c to i16
  %s1 = add i16 %aa, %b
  %s2 = mul i16 %s1, %cc
  %s3 = add i16 %s2, %fa
  ret i16 %s3
}

define internal <4 x float> @vec_args(<2 x half> %h, <4 x i8> %b, <4 x float> %f, <3 x float> %odd) noinline {
  %hx = extractelement <2 x half> %h, i32 0
  %hf = fpext half %hx to float
  %b2 = extractelement <4 x i8> %b, i32 2
  %bf = uitofp i8 %b2 to float
  %o1 = extractelement <3 x float> %odd, i32 1
  %s = fadd float %hf, %bf
  %s2 = fadd float %s, %o1
  %sv = insertelement <4 x float> poison, float %s2, i32 0
  %splat = shufflevector <4 x float> %sv, <4 x float> poison, <4 x i32> zeroinitializer
  %r = fmul <4 x float> %f, %splat
  ret <4 x float> %r
}

define internal %struct.Outer @struct_roundtrip(%struct.Outer %o, [5 x i16] %arr, ptr byval(%struct.Aligned) align 32 %al) noinline {
  %a0 = extractvalue [5 x i16] %arr, 4
  %a0z = zext i16 %a0 to i64
  %pd = getelementptr inbounds %struct.Aligned, ptr %al, i32 0, i32 0, i32 2
  %d = load double, ptr %pd, align 16
  %di = fptosi double %d to i64
  %x = extractvalue %struct.Outer %o, 3
  %x2 = add i64 %x, %a0z
  %x3 = add i64 %x2, %di
  %o2 = insertvalue %struct.Outer %o, i64 %x3, 3
  %in = extractvalue %struct.Outer %o2, 0, 2
  %in2 = fmul float %in, 2.0
  %o3 = insertvalue %struct.Outer %o2, float %in2, 0, 2
  ret %struct.Outer %o3
}

define internal { i32, float, i1 } @multi_return(i32 %x) noinline {
  %f = sitofp i32 %x to float
  %n = icmp slt i32 %x, 0
  %r0 = insertvalue { i32, float, i1 } undef, i32 %x, 0
  %r1 = insertvalue { i32, float, i1 } %r0, float %f, 1
  %r2 = insertvalue { i32, float, i1 } %r1, i1 %n, 2
  ret { i32, float, i1 } %r2
}

; int sum_ints(int count, ...)
define internal i32 @sum_ints(i32 %count, ...) noinline {
entry:
  %ap = alloca ptr, align 8
  call void @llvm.va_start.p0(ptr %ap)
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %acc = phi i32 [ 0, %entry ], [ %acc.next, %loop ]
  %v = va_arg ptr %ap, i32
  %acc.next = add i32 %acc, %v
  %i.next = add nuw i32 %i, 1
  %c = icmp ult i32 %i.next, %count
  br i1 %c, label %loop, label %done
done:
  call void @llvm.va_end.p0(ptr %ap)
  ret i32 %acc.next
}

define internal float @many_args(float %a0, float %a1, float %a2, float %a3, float %a4, float %a5, float %a6, float %a7,
                                 i32 %b0, i32 %b1, i32 %b2, i32 %b3, i64 %c0, i64 %c1, double %d0, double %d1,
                                 ptr %p0, ptr addrspace(1) %p1, i8 %e0, i16 %e1, <2 x float> %v0, i1 %last) noinline {
  %s1 = fadd float %a0, %a1
  %s2 = fadd float %s1, %a2
  %s3 = fadd float %s2, %a3
  %s4 = fadd float %s3, %a4
  %s5 = fadd float %s4, %a5
  %s6 = fadd float %s5, %a6
  %s7 = fadd float %s6, %a7
  %i1 = add i32 %b0, %b1
  %i2 = add i32 %i1, %b2
  %i3 = add i32 %i2, %b3
  %if = sitofp i32 %i3 to float
  %l = add i64 %c0, %c1
  %lf = sitofp i64 %l to float
  %d = fadd double %d0, %d1
  %df = fptrunc double %d to float
  %pv = load float, ptr %p0, align 4
  %qv = load float, ptr addrspace(1) %p1, align 4
  %ez = sext i8 %e0 to i32
  %ey = zext i16 %e1 to i32
  %e = add i32 %ez, %ey
  %ef = sitofp i32 %e to float
  %v = extractelement <2 x float> %v0, i32 1
  %t1 = fadd float %s7, %if
  %t2 = fadd float %t1, %lf
  %t3 = fadd float %t2, %df
  %t4 = fadd float %t3, %pv
  %t5 = fadd float %t4, %qv
  %t6 = fadd float %t5, %ef
  %t7 = fadd float %t6, %v
  %r = select i1 %last, float %t7, float %s7
  ret float %r
}

define ptx_kernel void @abi_driver(ptr addrspace(1) %out, i32 %seed) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %t8 = trunc i32 %tid to i8
  %t16 = trunc i32 %tid to i16
  %odd = trunc i32 %seed to i1
  %n = call i16 @narrow(i1 %odd, i8 %t8, i16 %t16, i8 -1)
  %nz = zext i16 %n to i32
  %hv = insertelement <2 x half> <half 0xH3C00, half 0xH0000>, half 0xH4000, i32 1
  %vf = call <4 x float> @vec_args(<2 x half> %hv, <4 x i8> <i8 1, i8 2, i8 3, i8 4>, <4 x float> <float 1.0, float 2.0, float 3.0, float 4.0>, <3 x float> <float 5.0, float 6.0, float 7.0>)
  %al = alloca %struct.Aligned, align 32
  %ald = getelementptr inbounds %struct.Aligned, ptr %al, i32 0, i32 0, i32 2
  store double 1.5, ptr %ald, align 16
  %in0 = insertvalue %struct.Inner { i8 1, i16 2, float 3.0 }, i8 %t8, 0
  %o0 = insertvalue %struct.Outer undef, %struct.Inner %in0, 0
  %o1 = insertvalue %struct.Outer %o0, [3 x i32] [i32 7, i32 8, i32 9], 1
  %o2 = insertvalue %struct.Outer %o1, <2 x float> <float 0.5, float 0.25>, 2
  %t64 = zext i32 %tid to i64
  %o3 = insertvalue %struct.Outer %o2, i64 %t64, 3
  %ro = call %struct.Outer @struct_roundtrip(%struct.Outer %o3, [5 x i16] [i16 1, i16 2, i16 3, i16 4, i16 5], ptr byval(%struct.Aligned) align 32 %al)
  %rx = extractvalue %struct.Outer %ro, 3
  %rf = extractvalue %struct.Outer %ro, 0, 2
  %mr = call { i32, float, i1 } @multi_return(i32 %seed)
  %m0 = extractvalue { i32, float, i1 } %mr, 0
  %m1 = extractvalue { i32, float, i1 } %mr, 1
  %m2 = extractvalue { i32, float, i1 } %mr, 2
  %va = call i32 (i32, ...) @sum_ints(i32 4, i32 %tid, i32 %seed, i32 %nz, i32 %m0)
  %loc = alloca float, align 4
  store float %m1, ptr %loc, align 4
  %pout = getelementptr inbounds float, ptr addrspace(1) %out, i64 %t64
  %ma = call float @many_args(float 1.0, float 2.0, float 3.0, float 4.0, float 5.0, float 6.0, float 7.0, float %rf,
                              i32 %va, i32 %nz, i32 %m0, i32 %tid, i64 %rx, i64 %t64, double 1.0e-3, double 2.5,
                              ptr %loc, ptr addrspace(1) %pout, i8 %t8, i16 %t16, <2 x float> <float 9.0, float 10.0>, i1 %m2)
  %v0 = extractelement <4 x float> %vf, i32 3
  %res = fadd float %ma, %v0
  store float %res, ptr addrspace(1) %pout, align 4
  ret void
}
