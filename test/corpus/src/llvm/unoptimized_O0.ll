; corpus-archs: sm_80 sm_90a sm_100a
; corpus-llc-flags: -O0
; Unoptimised IR as `clang -O0 --cuda-device-only` produces it (every local
; in an alloca, loads/stores around each use), compiled with llc -O0: the PTX
; keeps a local depot (__local_depot, %SP/%SPL), cvta.local conversions and
; no register promotion.
target triple = "nvptx64-nvidia-cuda"

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()

define internal float @dot(ptr %a, ptr %b, i32 %n) #0 {
entry:
  %a.addr = alloca ptr, align 8
  %b.addr = alloca ptr, align 8
  %n.addr = alloca i32, align 4
  %acc = alloca float, align 4
  %i = alloca i32, align 4
  store ptr %a, ptr %a.addr, align 8
  store ptr %b, ptr %b.addr, align 8
  store i32 %n, ptr %n.addr, align 4
  store float 0.000000e+00, ptr %acc, align 4
  store i32 0, ptr %i, align 4
  br label %for.cond
for.cond:
  %0 = load i32, ptr %i, align 4
  %1 = load i32, ptr %n.addr, align 4
  %cmp = icmp slt i32 %0, %1
  br i1 %cmp, label %for.body, label %for.end
for.body:
  %2 = load ptr, ptr %a.addr, align 8
  %3 = load i32, ptr %i, align 4
  %idxprom = sext i32 %3 to i64
  %arrayidx = getelementptr inbounds float, ptr %2, i64 %idxprom
  %4 = load float, ptr %arrayidx, align 4
  %5 = load ptr, ptr %b.addr, align 8
  %6 = load i32, ptr %i, align 4
  %idxprom1 = sext i32 %6 to i64
  %arrayidx2 = getelementptr inbounds float, ptr %5, i64 %idxprom1
  %7 = load float, ptr %arrayidx2, align 4
  %mul = fmul contract float %4, %7
  %8 = load float, ptr %acc, align 4
  %add = fadd contract float %8, %mul
  store float %add, ptr %acc, align 4
  br label %for.inc
for.inc:
  %9 = load i32, ptr %i, align 4
  %inc = add nsw i32 %9, 1
  store i32 %inc, ptr %i, align 4
  br label %for.cond
for.end:
  %10 = load float, ptr %acc, align 4
  ret float %10
}

define ptx_kernel void @matvec(ptr noundef %A, ptr noundef %x, ptr noundef %y, i32 noundef %rows, i32 noundef %cols) #0 {
entry:
  %A.addr = alloca ptr, align 8
  %x.addr = alloca ptr, align 8
  %y.addr = alloca ptr, align 8
  %rows.addr = alloca i32, align 4
  %cols.addr = alloca i32, align 4
  %row = alloca i32, align 4
  %tmp = alloca [4 x float], align 4
  store ptr %A, ptr %A.addr, align 8
  store ptr %x, ptr %x.addr, align 8
  store ptr %y, ptr %y.addr, align 8
  store i32 %rows, ptr %rows.addr, align 4
  store i32 %cols, ptr %cols.addr, align 4
  %0 = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %1 = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %mul = mul i32 %0, %1
  %2 = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %add = add i32 %mul, %2
  store i32 %add, ptr %row, align 4
  %3 = load i32, ptr %row, align 4
  %4 = load i32, ptr %rows.addr, align 4
  %cmp = icmp slt i32 %3, %4
  br i1 %cmp, label %if.then, label %if.end
if.then:
  %5 = load ptr, ptr %A.addr, align 8
  %6 = load i32, ptr %row, align 4
  %7 = load i32, ptr %cols.addr, align 4
  %mul1 = mul nsw i32 %6, %7
  %idx.ext = sext i32 %mul1 to i64
  %add.ptr = getelementptr inbounds float, ptr %5, i64 %idx.ext
  %8 = load ptr, ptr %x.addr, align 8
  %9 = load i32, ptr %cols.addr, align 4
  %call = call float @dot(ptr %add.ptr, ptr %8, i32 %9)
  %arrayidx0 = getelementptr inbounds [4 x float], ptr %tmp, i64 0, i64 0
  store float %call, ptr %arrayidx0, align 4
  %10 = load i32, ptr %row, align 4
  %rem = srem i32 %10, 4
  %idx = sext i32 %rem to i64
  %arrayidx1 = getelementptr inbounds [4 x float], ptr %tmp, i64 0, i64 %idx
  store float 1.000000e+00, ptr %arrayidx1, align 4
  %11 = load float, ptr %arrayidx0, align 4
  %12 = load ptr, ptr %y.addr, align 8
  %13 = load i32, ptr %row, align 4
  %idxprom = sext i32 %13 to i64
  %arrayidx = getelementptr inbounds float, ptr %12, i64 %idxprom
  store float %11, ptr %arrayidx, align 4
  br label %if.end
if.end:
  ret void
}

attributes #0 = { noinline nounwind optnone }
