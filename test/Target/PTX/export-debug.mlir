// RUN: pyptx-translate --export-ptx %s | FileCheck %s --strict-whitespace --match-full-lines

// Debug information: .file, .loc (with function_name and inlined_at) and
// .section blocks of labels and data lines.

// CHECK-LABEL:.version 8.7
// CHECK-NEXT:.target sm_90a
// CHECK-NEXT:.address_size 64
pyptx.module version 8.7 target sm_90a address_size 64 {
  // CHECK-EMPTY:
  // CHECK-NEXT:.file 1 "kernel.cu"
  pyptx.file 1 "kernel.cu"
  // CHECK-EMPTY:
  // CHECK-NEXT:.file 2 "/usr/include/inc.h", 1700000000, 4096
  pyptx.file 2 "/usr/include/inc.h" timestamp 1700000000 size 4096
  // CHECK-EMPTY:
  // CHECK-NEXT:.file 3 "dir with space/b.cu"
  pyptx.file 3 "dir with space/b.cu"

  // CHECK-EMPTY:
  // CHECK-LABEL:.visible .entry dbg(
  // CHECK-NEXT:	.param .u64 out
  // CHECK-NEXT:)
  // CHECK-NEXT:{
  pyptx.func visible entry @dbg(param u64 @out) {
    // CHECK-NEXT:	.reg .b32 %r<1>;
    // CHECK-NEXT:	.reg .b64 %rd<1>;
    // CHECK-NEXT:	.loc 1 5 1
    // CHECK-NEXT:	mov.u32 %r0, 1;
    %r0 = pyptx.reg b32 "%r"<1>
    %rd0 = pyptx.reg b64 "%rd"<1>
    pyptx.loc 1 5 1
    pyptx.inst mov.u32 (%r0, 1) : b32
    // An inlined location names its function by a label in .debug_str and
    // its call site by a location used before.
    // CHECK-NEXT:	.loc 2 20 7
    // CHECK-NEXT:	add.u32 %r0, %r0, 1;
    // CHECK-NEXT:	.loc 1 12 3, function_name $L__info_string0, inlined_at 2 20 7
    // CHECK-NEXT:	add.u32 %r0, %r0, 2;
    pyptx.loc 2 20 7
    pyptx.inst add.u32 (%r0, %r0, 1) : b32, b32
    pyptx.loc 1 12 3 function_name @"$L__info_string0" inlined_at [2, 20, 7]
    pyptx.inst add.u32 (%r0, %r0, 2) : b32, b32
    // CHECK-NEXT:	.loc 3 1 0
    // CHECK-NEXT:	ld.param.u64 %rd0, [out];
    // CHECK-NEXT:	.loc 3 2 5
    // CHECK-NEXT:	st.global.u32 [%rd0], %r0;
    // CHECK-NEXT:	ret;
    // CHECK-NEXT:}
    pyptx.loc 3 1 0
    pyptx.inst ld.param.u64 (%rd0, [@out]) : b64
    // (The .loc line an instruction holds.)
    pyptx.inst ptx_loc 3 2 5 st.global.u32 ([%rd0], %r0) : b64, b32
    pyptx.inst ret
  }

  // CHECK-EMPTY:
  // CHECK-NEXT:.section .debug_str
  // CHECK-NEXT:{
  // CHECK-NEXT:$L__info_string0:
  // CHECK-NEXT:	.b8 100, 98, 103, 0
  // CHECK-NEXT:}
  pyptx.section ".debug_str" {
    pyptx.label @"$L__info_string0"
    pyptx.data b8 100, 98, 103, 0
  }

  // CHECK-EMPTY:
  // CHECK-NEXT:.section .debug_info
  // CHECK-NEXT:{
  // CHECK-NEXT:$L__info:
  // CHECK-NEXT:	.b32 42
  // CHECK-NEXT:	.b8 1, 2, 0xff, 0xAB, 010, 0b11
  // CHECK-NEXT:	.b16 7U, 65535
  // CHECK-NEXT:	.b32 $L__info_end-$L__info
  // CHECK-NEXT:	.b64 $L__info_string0
  // CHECK-NEXT:	.b32 $L__info+8
  // CHECK-NEXT:	.b64 dbg
  // CHECK-NEXT:	.b8 -1
  // CHECK-NEXT:$L__info_end:
  // CHECK-NEXT:}
  pyptx.section ".debug_info" {
    pyptx.label @"$L__info"
    pyptx.data b32 42
    pyptx.data b8 1, 2, hex(0xFF), HEX(0xab), oct(8), bin(3)
    pyptx.data b16 dec(7, U), 65535
    pyptx.data b32 @"$L__info_end" - @"$L__info"
    pyptx.data b64 @"$L__info_string0"
    pyptx.data b32 @"$L__info" + 8
    pyptx.data b64 @dbg
    pyptx.data b8 -1
    pyptx.label @"$L__info_end"
  }

  // CHECK-EMPTY:
  // CHECK-NEXT:.section .debug_abbrev
  // CHECK-NEXT:{
  // CHECK-NEXT:}
  pyptx.section ".debug_abbrev" {
  }
}

// CHECK-NOT:{{.+}}
