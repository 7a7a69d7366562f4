// RUN: pyptx-translate --export-ptx %s | FileCheck %s --strict-whitespace --match-full-lines

// State-space variables: linkage, alignment, vector types, array dimensions
// (sized and unsized) and initializers, at module level and inside function
// bodies and scopes.

// CHECK-LABEL:.version 8.7
// CHECK-NEXT:.target sm_90a
// CHECK-NEXT:.address_size 64
pyptx.module version 8.7 target sm_90a address_size 64 {
  // CHECK-EMPTY:
  // CHECK-NEXT:.visible .global .align 4 .b32 table[4] = {1, 2, 3, 4};
  pyptx.var visible global align 4 b32 @table[4] = {1, 2, 3, 4}
  // CHECK-EMPTY:
  // CHECK-NEXT:.extern .shared .align 16 .b8 dsmem[];
  pyptx.var extern shared align 16 b8 @dsmem[]
  // CHECK-EMPTY:
  // CHECK-NEXT:.weak .global .u32 weak_var;
  pyptx.var weak global u32 @weak_var
  // CHECK-EMPTY:
  // CHECK-NEXT:.common .global .u64 common_var;
  pyptx.var common global u64 @common_var
  // CHECK-EMPTY:
  // CHECK-NEXT:.global .s32 scalar = -5;
  pyptx.var global s32 @scalar = -5
  // CHECK-EMPTY:
  // CHECK-NEXT:.const .v4 .f32 cvec = {0f3F800000, 0f40000000, 0f40400000, 0f40800000};
  pyptx.var const v4.f32 @cvec = {f32(0x3F800000), f32(0x40000000),
                                  f32(0x40400000), f32(0x40800000)}
  // CHECK-EMPTY:
  // CHECK-NEXT:.const .align 8 .v2 .u32 cpairs[2] = {{[{][{]}}1, 2}, {3, 4}};
  pyptx.var const align 8 v2.u32 @cpairs[2] = {{1, 2}, {3, 4}}
  // CHECK-EMPTY:
  // CHECK-NEXT:.global .s32 matrix[2][3] = {{[{][{]}}1, 2, 3}, {-4, 5, 6}};
  pyptx.var global s32 @matrix[2][3] = {{1, 2, 3}, {-4, 5, 6}}
  // CHECK-EMPTY:
  // CHECK-NEXT:.visible .const .b8 cube[2][2][2];
  pyptx.var visible const b8 @cube[2][2][2]
  // CHECK-EMPTY:
  // CHECK-NEXT:.global .u8 bytes[] = {0, 1, 2};
  pyptx.var global u8 @bytes[] = {0, 1, 2}
  // CHECK-EMPTY:
  // CHECK-NEXT:.global .u64 gptr = generic(table);
  pyptx.var global u64 @gptr = generic(@table)
  // CHECK-EMPTY:
  // CHECK-NEXT:.global .u64 gptrs[] = {generic(table), generic(table)+4};
  pyptx.var global u64 @gptrs[] = {generic(@table), generic(@table) + 4}
  // CHECK-EMPTY:
  // CHECK-NEXT:.global .u64 offset = table+8;
  pyptx.var global u64 @offset = @table + 8
  // CHECK-EMPTY:
  // CHECK-NEXT:.global .f64 dbl = 0D3FF0000000000000;
  pyptx.var global f64 @dbl = f64(0x3FF0000000000000, upper_prefix)
  // CHECK-EMPTY:
  // CHECK-NEXT:.global .f32 flt[2] = {0fbf800000, 0f3FC00000};
  pyptx.var global f32 @flt[2] = {f32(0xBF800000, lower_digits), f32(0x3fc00000)}
  // CHECK-EMPTY:
  // CHECK-NEXT:.global .b32 imms[] = {0x1fU, 0xAB, 010, 0b101, 7U, 00};
  pyptx.var global b32 @imms[] = {hex(0x1F, U), HEX(0xAB), oct(8), bin(5),
                                  dec(7, U), oct(0)}

  // CHECK-EMPTY:
  // CHECK-LABEL:.visible .entry local_vars(
  // CHECK-NEXT:	.param .u64 out
  // CHECK-NEXT:)
  // CHECK-NEXT:{
  // CHECK-NEXT:	.reg .b32 %r<1>;
  // CHECK-NEXT:	.reg .b64 %rd<2>;
  // CHECK-NEXT:	.shared .align 128 .b8 smem[1024];
  // CHECK-NEXT:	.local .align 8 .v2 .u32 lvar[4];
  // CHECK-NEXT:	ld.param.u64 %rd0, [out];
  // CHECK-NEXT:	cvta.to.global.u64 %rd0, %rd0;
  // CHECK-NEXT:	mov.u32 %r0, 0;
  // CHECK-NEXT:	st.local.u32 [lvar], %r0;
  // CHECK-NEXT:	st.shared.u32 [smem+4], %r0;
  // CHECK-NEXT:	{
  // CHECK-NEXT:		.shared .align 4 .b32 inner[32];
  // CHECK-NEXT:		st.shared.u32 [inner], %r0;
  // CHECK-NEXT:	}
  // CHECK-NEXT:	ld.global.u32 %r0, [table+8];
  // CHECK-NEXT:	ld.global.u64 %rd1, [gptr];
  // CHECK-NEXT:	ld.shared.u8 %r0, [dsmem];
  // CHECK-NEXT:	st.global.u32 [%rd0], %r0;
  // CHECK-NEXT:	ret;
  // CHECK-NEXT:}
  pyptx.func visible entry @local_vars(param u64 @out) {
    %r0 = pyptx.reg b32 "%r"<1>
    %rd0, %rd1 = pyptx.reg b64 "%rd"<2>
    pyptx.var shared align 128 b8 @smem[1024]
    pyptx.var local align 8 v2.u32 @lvar[4]
    pyptx.inst ld.param.u64 (%rd0, [@out]) : b64
    pyptx.inst cvta.to.global.u64 (%rd0, %rd0) : b64, b64
    pyptx.inst mov.u32 (%r0, 0) : b32
    pyptx.inst st.local.u32 ([@lvar], %r0) : b32
    pyptx.inst st.shared.u32 ([@smem + 4], %r0) : b32
    pyptx.scope {
      pyptx.var shared align 4 b32 @inner[32]
      pyptx.inst st.shared.u32 ([@inner], %r0) : b32
    }
    pyptx.inst ld.global.u32 (%r0, [@table + 8]) : b32
    pyptx.inst ld.global.u64 (%rd1, [@gptr]) : b64
    pyptx.inst ld.shared.u8 (%r0, [@dsmem]) : b32
    pyptx.inst st.global.u32 ([%rd0], %r0) : b64, b32
    pyptx.inst ret
  }
}

// CHECK-NOT:{{.+}}
