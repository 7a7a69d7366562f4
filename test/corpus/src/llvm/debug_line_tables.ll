; corpus-archs: sm_80 sm_90a sm_100a
; Line-table-only debug info (what -lineinfo asks of a front end) over
; optimised code with inlined frames: .loc directives carry
; function_name/inlined_at attributes, and two source files (a kernel file and
; a header) are referenced through .file entries.
target triple = "nvptx64-nvidia-cuda"

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare float @llvm.fma.f32(float, float, float)
declare float @llvm.nvvm.ex2.approx.ftz.f(float)

define ptx_kernel void @softplus_rows(ptr addrspace(1) noalias %x, ptr addrspace(1) noalias %y, i32 %cols) !dbg !10 {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x(), !dbg !20
  %row = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x(), !dbg !20
  %rbase = mul i32 %row, %cols, !dbg !21
  %empty = icmp sge i32 %tid, %cols, !dbg !22
  br i1 %empty, label %exit, label %loop, !dbg !22

loop:
  %c = phi i32 [ %tid, %entry ], [ %c.next, %loop ], !dbg !23
  %idx = add i32 %rbase, %c, !dbg !24
  %i64 = sext i32 %idx to i64, !dbg !24
  %px = getelementptr inbounds float, ptr addrspace(1) %x, i64 %i64, !dbg !24
  %v = load float, ptr addrspace(1) %px, align 4, !dbg !24
  ; inlined: softplus(v) = log1p(exp(v)) with a fast exp from the header
  %t = fmul float %v, 0x3FF7154760000000, !dbg !30
  %e = call float @llvm.nvvm.ex2.approx.ftz.f(float %t), !dbg !31
  %one = fadd float %e, 1.0, !dbg !32
  %bits = bitcast float %one to i32, !dbg !33
  %exp = lshr i32 %bits, 23, !dbg !33
  %expf = uitofp i32 %exp to float, !dbg !33
  %mant = and i32 %bits, 8388607, !dbg !34
  %mor = or i32 %mant, 1065353216, !dbg !34
  %mf = bitcast i32 %mor to float, !dbg !34
  %poly = call float @llvm.fma.f32(float %mf, float 0xBFD5555560000000, float 0x3FF5555560000000), !dbg !35
  %l2 = fadd float %expf, %poly, !dbg !35
  %l2b = fadd float %l2, -1.270000e+02, !dbg !35
  %sp = fmul float %l2b, 0x3FE62E4300000000, !dbg !36
  %big = fcmp ogt float %v, 2.000000e+01, !dbg !25
  %r = select i1 %big, float %v, float %sp, !dbg !25
  %py = getelementptr inbounds float, ptr addrspace(1) %y, i64 %i64, !dbg !26
  store float %r, ptr addrspace(1) %py, align 4, !dbg !26
  %c.next = add nsw i32 %c, 32, !dbg !23
  %more = icmp slt i32 %c.next, %cols, !dbg !22
  br i1 %more, label %loop, label %exit, !dbg !22

exit:
  ret void, !dbg !27
}

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!2, !3}

!0 = distinct !DICompileUnit(language: DW_LANG_C_plus_plus_17, file: !1, producer: "pyptx corpus hand-written IR (clang-style)", isOptimized: true, runtimeVersion: 0, emissionKind: LineTablesOnly, splitDebugInlining: false, nameTableKind: None)
!1 = !DIFile(filename: "activations.cu", directory: "/corpus/src/kernels")
!2 = !{i32 7, !"Dwarf Version", i32 2}
!3 = !{i32 2, !"Debug Info Version", i32 3}
!4 = !DIFile(filename: "fast_math.cuh", directory: "/corpus/src/include")
!10 = distinct !DISubprogram(name: "softplus_rows", scope: !1, file: !1, line: 12, type: !11, scopeLine: 12, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!11 = !DISubroutineType(types: !12)
!12 = !{}
!13 = distinct !DISubprogram(name: "softplus", scope: !4, file: !4, line: 30, type: !11, scopeLine: 30, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!14 = distinct !DISubprogram(name: "fast_log", scope: !4, file: !4, line: 8, type: !11, scopeLine: 8, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !0)
!15 = distinct !DILexicalBlock(scope: !10, file: !1, line: 15, column: 3)
!20 = !DILocation(line: 13, column: 15, scope: !10)
!21 = !DILocation(line: 14, column: 22, scope: !10)
!22 = !DILocation(line: 15, column: 21, scope: !15)
!23 = !DILocation(line: 15, column: 36, scope: !15)
!24 = !DILocation(line: 16, column: 15, scope: !15)
!25 = !DILocation(line: 17, column: 12, scope: !15)
!26 = !DILocation(line: 17, column: 10, scope: !15)
!27 = !DILocation(line: 19, column: 1, scope: !10)
!28 = distinct !DILocation(line: 17, column: 30, scope: !15)
!29 = distinct !DILocation(line: 31, column: 10, scope: !13, inlinedAt: !28)
!30 = !DILocation(line: 31, column: 24, scope: !13, inlinedAt: !28)
!31 = !DILocation(line: 31, column: 18, scope: !13, inlinedAt: !28)
!32 = !DILocation(line: 31, column: 30, scope: !13, inlinedAt: !28)
!33 = !DILocation(line: 10, column: 20, scope: !14, inlinedAt: !29)
!34 = !DILocation(line: 11, column: 17, scope: !14, inlinedAt: !29)
!35 = !DILocation(line: 12, column: 12, scope: !14, inlinedAt: !29)
!36 = !DILocation(line: 13, column: 10, scope: !14, inlinedAt: !29)
