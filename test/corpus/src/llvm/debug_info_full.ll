; corpus-archs: sm_80 sm_90a sm_100a
; Full DWARF debug information, as `clang -g --cuda-device-only` would produce
; it: DICompileUnit, subprograms (kernel and an inlined helper), lexical
; blocks, local variables and parameters tracked with #dbg_value/#dbg_declare,
; pointer/struct/array types, and inlinedAt locations. llc emits .file/.loc
; plus .section .debug_info/.debug_abbrev/.debug_loc/... with label arithmetic.
target triple = "nvptx64-nvidia-cuda"

%struct.Particle = type { [3 x float], [3 x float], float }

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare float @llvm.sqrt.f32(float)

define internal float @length3(ptr %v) !dbg !40 {
entry:
    #dbg_value(ptr %v, !44, !DIExpression(), !45)
  %x = load float, ptr %v, align 4, !dbg !46
  %py = getelementptr inbounds float, ptr %v, i64 1, !dbg !47
  %y = load float, ptr %py, align 4, !dbg !47
  %pz = getelementptr inbounds float, ptr %v, i64 2, !dbg !48
  %z = load float, ptr %pz, align 4, !dbg !48
  %xx = fmul float %x, %x, !dbg !49
  %yy = fmul float %y, %y, !dbg !49
  %zz = fmul float %z, %z, !dbg !49
  %s1 = fadd float %xx, %yy, !dbg !49
  %s2 = fadd float %s1, %zz, !dbg !49
  %r = call float @llvm.sqrt.f32(float %s2), !dbg !50
  ret float %r, !dbg !51
}

define ptx_kernel void @integrate(ptr addrspace(1) noalias %ps, i32 %n, float %dt, ptr addrspace(1) noalias %speed) !dbg !20 {
entry:
    #dbg_value(ptr addrspace(1) %ps, !26, !DIExpression(), !33)
    #dbg_value(i32 %n, !27, !DIExpression(), !33)
    #dbg_value(float %dt, !28, !DIExpression(), !33)
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x(), !dbg !34
  %cta = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x(), !dbg !34
  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x(), !dbg !34
  %m = mul i32 %cta, %ntid, !dbg !34
  %i = add i32 %m, %tid, !dbg !34
    #dbg_value(i32 %i, !29, !DIExpression(), !34)
  %in = icmp slt i32 %i, %n, !dbg !35
  br i1 %in, label %body, label %exit, !dbg !35

body:
  %i64 = sext i32 %i to i64, !dbg !36
  %p = getelementptr inbounds %struct.Particle, ptr addrspace(1) %ps, i64 %i64, !dbg !36
  %gp = addrspacecast ptr addrspace(1) %p to ptr, !dbg !36
    #dbg_value(ptr %gp, !30, !DIExpression(), !36)
  br label %loop, !dbg !37

loop:
  %k = phi i32 [ 0, %body ], [ %k.next, %loop ], !dbg !37
    #dbg_value(i32 %k, !31, !DIExpression(), !37)
  %k64 = zext i32 %k to i64, !dbg !38
  %pp = getelementptr inbounds %struct.Particle, ptr %gp, i32 0, i32 0, i64 %k64, !dbg !38
  %pv = getelementptr inbounds %struct.Particle, ptr %gp, i32 0, i32 1, i64 %k64, !dbg !38
  %x = load float, ptr %pp, align 4, !dbg !38
  %v = load float, ptr %pv, align 4, !dbg !38
  %nx = call float @llvm.fma.f32(float %v, float %dt, float %x), !dbg !38
  store float %nx, ptr %pp, align 4, !dbg !38
  %k.next = add nuw nsw i32 %k, 1, !dbg !37
  %more = icmp ult i32 %k.next, 3, !dbg !37
  br i1 %more, label %loop, label %after, !dbg !37

after:
  %vel = getelementptr inbounds %struct.Particle, ptr %gp, i32 0, i32 1, !dbg !39
  %len = call float @length3(ptr %vel), !dbg !39
    #dbg_value(float %len, !32, !DIExpression(), !39)
  %ps2 = getelementptr inbounds float, ptr addrspace(1) %speed, i64 %i64, !dbg !52
  store float %len, ptr addrspace(1) %ps2, align 4, !dbg !52
  br label %exit, !dbg !52

exit:
  ret void, !dbg !53
}

declare float @llvm.fma.f32(float, float, float)

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!2, !3, !4}
!llvm.ident = !{!5}

!0 = distinct !DICompileUnit(language: DW_LANG_C_plus_plus_14, file: !1, producer: "pyptx corpus hand-written IR (clang-style)", isOptimized: true, runtimeVersion: 0, emissionKind: FullDebug, splitDebugInlining: false, nameTableKind: None)
!1 = !DIFile(filename: "particles.cu", directory: "/corpus/src")
!2 = !{i32 7, !"Dwarf Version", i32 2}
!3 = !{i32 2, !"Debug Info Version", i32 3}
!4 = !{i32 4, !"nvvm-reflect-ftz", i32 0}
!5 = !{!"pyptx corpus"}
!6 = !DIBasicType(name: "float", size: 32, encoding: DW_ATE_float)
!7 = !DIBasicType(name: "int", size: 32, encoding: DW_ATE_signed)
!8 = !DICompositeType(tag: DW_TAG_structure_type, name: "Particle", file: !1, line: 3, size: 224, flags: DIFlagTypePassByValue, elements: !9, identifier: "_ZTS8Particle")
!9 = !{!10, !13, !14}
!10 = !DIDerivedType(tag: DW_TAG_member, name: "pos", scope: !8, file: !1, line: 4, baseType: !11, size: 96)
!11 = !DICompositeType(tag: DW_TAG_array_type, baseType: !6, size: 96, elements: !12)
!12 = !{!DISubrange(count: 3)}
!13 = !DIDerivedType(tag: DW_TAG_member, name: "vel", scope: !8, file: !1, line: 5, baseType: !11, size: 96, offset: 96)
!14 = !DIDerivedType(tag: DW_TAG_member, name: "mass", scope: !8, file: !1, line: 6, baseType: !6, size: 32, offset: 192)
!15 = !DIDerivedType(tag: DW_TAG_pointer_type, baseType: !8, size: 64)
!16 = !DIDerivedType(tag: DW_TAG_pointer_type, baseType: !6, size: 64)
!17 = !DIDerivedType(tag: DW_TAG_const_type, baseType: !6)
!20 = distinct !DISubprogram(name: "integrate", linkageName: "integrate", scope: !1, file: !1, line: 15, type: !21, scopeLine: 16, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0, retainedNodes: !25)
!21 = !DISubroutineType(types: !22)
!22 = !{null, !15, !7, !6, !16}
!25 = !{!26, !27, !28, !29, !30, !31, !32}
!26 = !DILocalVariable(name: "ps", arg: 1, scope: !20, file: !1, line: 15, type: !15)
!27 = !DILocalVariable(name: "n", arg: 2, scope: !20, file: !1, line: 15, type: !7)
!28 = !DILocalVariable(name: "dt", arg: 3, scope: !20, file: !1, line: 15, type: !6)
!29 = !DILocalVariable(name: "i", scope: !20, file: !1, line: 17, type: !7)
!30 = !DILocalVariable(name: "p", scope: !54, file: !1, line: 19, type: !15)
!31 = !DILocalVariable(name: "k", scope: !55, file: !1, line: 20, type: !7)
!32 = !DILocalVariable(name: "len", scope: !54, file: !1, line: 22, type: !6)
!33 = !DILocation(line: 15, column: 40, scope: !20)
!34 = !DILocation(line: 17, column: 11, scope: !20)
!35 = !DILocation(line: 18, column: 9, scope: !20)
!36 = !DILocation(line: 19, column: 19, scope: !54)
!37 = !DILocation(line: 20, column: 5, scope: !55)
!38 = !DILocation(line: 21, column: 18, scope: !56)
!39 = !DILocation(line: 22, column: 17, scope: !54)
!40 = distinct !DISubprogram(name: "length3", linkageName: "_ZL7length3PKf", scope: !1, file: !1, line: 9, type: !41, scopeLine: 9, flags: DIFlagPrototyped, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !0, retainedNodes: !43)
!41 = !DISubroutineType(types: !42)
!42 = !{!6, !16}
!43 = !{!44}
!44 = !DILocalVariable(name: "v", arg: 1, scope: !40, file: !1, line: 9, type: !16)
!45 = !DILocation(line: 9, column: 40, scope: !40)
!46 = !DILocation(line: 10, column: 22, scope: !40)
!47 = !DILocation(line: 10, column: 33, scope: !40)
!48 = !DILocation(line: 10, column: 44, scope: !40)
!49 = !DILocation(line: 10, column: 30, scope: !40)
!50 = !DILocation(line: 10, column: 10, scope: !40)
!51 = !DILocation(line: 10, column: 3, scope: !40)
!52 = !DILocation(line: 23, column: 17, scope: !54)
!53 = !DILocation(line: 25, column: 1, scope: !20)
!54 = distinct !DILexicalBlock(scope: !20, file: !1, line: 18, column: 16)
!55 = distinct !DILexicalBlock(scope: !54, file: !1, line: 20, column: 5)
!56 = distinct !DILexicalBlock(scope: !55, file: !1, line: 20, column: 30)
