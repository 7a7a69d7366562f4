; corpus-archs: sm_80 sm_90a sm_100a
; Call ABI and control flow: a dense switch lowered to a jump table (brx.idx),
; indirect calls through a function-pointer table (call prototypes),
; recursion with stack frames, byval aggregates and aggregate returns,
; vprintf with a packed argument buffer, dynamic alloca, noinline helpers with
; many parameters, trap/unreachable, and an irreducible-ish state machine.
target triple = "nvptx64-nvidia-cuda"

%struct.Pair = type { float, i32 }
%struct.Big = type { [6 x i64], double, <4 x float> }

@fmt = private unnamed_addr addrspace(1) constant [27 x i8] c"tid %d value %f tag %s %p\0A\00", align 1
@tag = private unnamed_addr addrspace(1) constant [5 x i8] c"leaf\00", align 1
@ops = internal addrspace(1) global [4 x ptr] [ptr @op_add, ptr @op_mul, ptr @op_max, ptr @op_sub], align 8

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @vprintf(ptr, ptr)
declare void @llvm.trap()
declare ptr @llvm.stacksave.p0()
declare void @llvm.stackrestore.p0(ptr)

define internal i32 @op_add(i32 %a, i32 %b) noinline { %r = add i32 %a, %b
  ret i32 %r }
define internal i32 @op_mul(i32 %a, i32 %b) noinline { %r = mul i32 %a, %b
  ret i32 %r }
define internal i32 @op_max(i32 %a, i32 %b) noinline {
  %c = icmp sgt i32 %a, %b
  %r = select i1 %c, i32 %a, i32 %b
  ret i32 %r
}
define internal i32 @op_sub(i32 %a, i32 %b) noinline { %r = sub i32 %a, %b
  ret i32 %r }

; Dense switch -> jump table.
define internal i32 @decode(i32 %op, i32 %x) noinline {
entry:
  switch i32 %op, label %def [
    i32 0, label %c0
    i32 1, label %c1
    i32 2, label %c2
    i32 3, label %c3
    i32 4, label %c4
    i32 5, label %c5
    i32 6, label %c6
    i32 7, label %c7
    i32 8, label %c8
    i32 9, label %c9
  ]
c0: %r0 = add i32 %x, 17
  br label %join
c1: %r1 = mul i32 %x, 31
  br label %join
c2: %r2 = xor i32 %x, 1234567
  br label %join
c3: %r3 = shl i32 %x, 5
  br label %join
c4: %r4 = lshr i32 %x, 3
  br label %join
c5: %r5 = sub i32 1000, %x
  br label %join
c6: %r6 = and i32 %x, 65535
  br label %join
c7: %r7 = or i32 %x, -2147483648
  br label %join
c8: %r8 = sdiv i32 %x, 7
  br label %join
c9: %r9 = urem i32 %x, 11
  br label %join
def: br label %join
join:
  %r = phi i32 [ %r0, %c0 ], [ %r1, %c1 ], [ %r2, %c2 ], [ %r3, %c3 ], [ %r4, %c4 ], [ %r5, %c5 ], [ %r6, %c6 ], [ %r7, %c7 ], [ %r8, %c8 ], [ %r9, %c9 ], [ -1, %def ]
  ret i32 %r
}

; Recursive Fibonacci (real stack frames).
define internal i64 @fib(i32 %n) noinline {
entry:
  %small = icmp slt i32 %n, 2
  br i1 %small, label %base, label %rec
base:
  %z = zext i32 %n to i64
  ret i64 %z
rec:
  %n1 = sub i32 %n, 1
  %n2 = sub i32 %n, 2
  %a = call i64 @fib(i32 %n1)
  %b = call i64 @fib(i32 %n2)
  %s = add i64 %a, %b
  ret i64 %s
}

; Aggregate by value in and out.
define internal %struct.Pair @best_of(ptr byval(%struct.Big) align 16 %big, %struct.Pair %seed, i8 signext %s8, i16 zeroext %u16, half %h, <2 x i16> %v2) noinline {
  %p0 = getelementptr inbounds %struct.Big, ptr %big, i32 0, i32 0, i32 3
  %w = load i64, ptr %p0, align 8
  %pd = getelementptr inbounds %struct.Big, ptr %big, i32 0, i32 1
  %d = load double, ptr %pd, align 8
  %pv = getelementptr inbounds %struct.Big, ptr %big, i32 0, i32 2
  %v = load <4 x float>, ptr %pv, align 16
  %e0 = extractelement <4 x float> %v, i32 2
  %sf = extractvalue %struct.Pair %seed, 0
  %si = extractvalue %struct.Pair %seed, 1
  %df = fptrunc double %d to float
  %hf = fpext half %h to float
  %a = fadd float %sf, %df
  %b = fadd float %a, %e0
  %c = fadd float %b, %hf
  %wi = trunc i64 %w to i32
  %s32 = sext i8 %s8 to i32
  %u32 = zext i16 %u16 to i32
  %v0 = extractelement <2 x i16> %v2, i32 1
  %v32 = sext i16 %v0 to i32
  %i1 = add i32 %si, %wi
  %i2 = add i32 %i1, %s32
  %i3 = add i32 %i2, %u32
  %i4 = add i32 %i3, %v32
  %r0 = insertvalue %struct.Pair undef, float %c, 0
  %r1 = insertvalue %struct.Pair %r0, i32 %i4, 1
  ret %struct.Pair %r1
}

define ptx_kernel void @interpreter(ptr addrspace(1) noalias %prog, ptr addrspace(1) noalias %out, i32 %len, i32 %fibn) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %big = alloca %struct.Big, align 16
  %pw = getelementptr inbounds %struct.Big, ptr %big, i32 0, i32 0, i32 3
  %t64 = zext i32 %tid to i64
  store i64 %t64, ptr %pw, align 8
  %pd = getelementptr inbounds %struct.Big, ptr %big, i32 0, i32 1
  store double 2.5, ptr %pd, align 8
  %pv = getelementptr inbounds %struct.Big, ptr %big, i32 0, i32 2
  store <4 x float> <float 1.0, float 2.0, float 3.0, float 4.0>, ptr %pv, align 16
  br label %loop

loop:
  %pc = phi i32 [ 0, %entry ], [ %pc.next, %loop.end ]
  %acc = phi i32 [ %tid, %entry ], [ %acc.next, %loop.end ]
  %pc64 = zext i32 %pc to i64
  %pp = getelementptr inbounds i32, ptr addrspace(1) %prog, i64 %pc64
  %insn = load i32, ptr addrspace(1) %pp, align 4
  %op = and i32 %insn, 15
  %sel = lshr i32 %insn, 4
  %fidx = and i32 %sel, 3
  %dec = call i32 @decode(i32 %op, i32 %acc)
  %f64 = zext i32 %fidx to i64
  %fpp = getelementptr inbounds [4 x ptr], ptr addrspace(1) @ops, i64 0, i64 %f64
  %fp = load ptr, ptr addrspace(1) %fpp, align 8
  %res = call i32 %fp(i32 %dec, i32 %insn)
  %neg = icmp slt i32 %res, -1000000
  br i1 %neg, label %bad, label %loop.end

loop.end:
  %acc.next = phi i32 [ %res, %loop ]
  %pc.next = add nuw i32 %pc, 1
  %more = icmp ult i32 %pc.next, %len
  br i1 %more, label %loop, label %finish

bad:
  call void @llvm.trap()
  unreachable

finish:
  %fibv = call i64 @fib(i32 %fibn)
  %seed0 = insertvalue %struct.Pair undef, float 1.5, 0
  %seed = insertvalue %struct.Pair %seed0, i32 %acc.next, 1
  %pair = call %struct.Pair @best_of(ptr byval(%struct.Big) align 16 %big, %struct.Pair %seed, i8 -3, i16 65000, half 0xH3C00, <2 x i16> <i16 7, i16 -9>)
  %pf = extractvalue %struct.Pair %pair, 0
  %pi = extractvalue %struct.Pair %pair, 1
  %pi64 = sext i32 %pi to i64
  %total = add i64 %fibv, %pi64
  %po = getelementptr inbounds i64, ptr addrspace(1) %out, i64 %t64
  store i64 %total, ptr addrspace(1) %po, align 8
  ; printf("tid %d value %f tag %s %p\n", tid, (double)pf, "leaf", out)
  %args = alloca { i32, double, ptr, ptr }, align 8
  %a0 = getelementptr inbounds { i32, double, ptr, ptr }, ptr %args, i32 0, i32 0
  store i32 %tid, ptr %a0, align 8
  %a1 = getelementptr inbounds { i32, double, ptr, ptr }, ptr %args, i32 0, i32 1
  %pfd = fpext float %pf to double
  store double %pfd, ptr %a1, align 8
  %a2 = getelementptr inbounds { i32, double, ptr, ptr }, ptr %args, i32 0, i32 2
  %tagp = addrspacecast ptr addrspace(1) @tag to ptr
  store ptr %tagp, ptr %a2, align 8
  %a3 = getelementptr inbounds { i32, double, ptr, ptr }, ptr %args, i32 0, i32 3
  %outg = addrspacecast ptr addrspace(1) %out to ptr
  store ptr %outg, ptr %a3, align 8
  %fmtp = addrspacecast ptr addrspace(1) @fmt to ptr
  %pr = call i32 @vprintf(ptr %fmtp, ptr %args)
  ret void
}

; Dynamic alloca sized at run time, with stacksave/stackrestore in a loop.
define ptx_kernel void @dynamic_stack(ptr addrspace(1) %out, i32 %n, i32 %rounds) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  br label %round
round:
  %r = phi i32 [ 0, %entry ], [ %r.next, %round.end ]
  %acc = phi float [ 0.0, %entry ], [ %acc.next, %round.end ]
  %sp = call ptr @llvm.stacksave.p0()
  %cnt = add i32 %n, %r
  %buf = alloca float, i32 %cnt, align 16
  br label %fill
fill:
  %k = phi i32 [ 0, %round ], [ %k.next, %fill ]
  %kf = uitofp i32 %k to float
  %k64 = zext i32 %k to i64
  %pk = getelementptr inbounds float, ptr %buf, i64 %k64
  store volatile float %kf, ptr %pk, align 4
  %k.next = add nuw i32 %k, 1
  %kc = icmp ult i32 %k.next, %cnt
  br i1 %kc, label %fill, label %sum
sum:
  %mid = lshr i32 %cnt, 1
  %m64 = zext i32 %mid to i64
  %pm = getelementptr inbounds float, ptr %buf, i64 %m64
  %mv = load volatile float, ptr %pm, align 4
  %acc.next = fadd float %acc, %mv
  call void @llvm.stackrestore.p0(ptr %sp)
  br label %round.end
round.end:
  %r.next = add nuw i32 %r, 1
  %rc = icmp ult i32 %r.next, %rounds
  br i1 %rc, label %round, label %exit
exit:
  %t64 = zext i32 %tid to i64
  %po = getelementptr inbounds float, ptr addrspace(1) %out, i64 %t64
  store float %acc.next, ptr addrspace(1) %po, align 4
  ret void
}
